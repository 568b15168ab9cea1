from django.contrib import admin
from django.urls import include, path

from games.views import accounts

urlpatterns = [
    path("", include("games.urls")),
    path("accounts/password_reset/", accounts.password_reset, name="password_reset"),
    path("accounts/password_change/", accounts.password_change, name="password_change"),
    path("accounts/login/", accounts.log_in, name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
