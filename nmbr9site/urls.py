from django.contrib import admin
from django.urls import include, path

from games.views import matches as views

urlpatterns = [
    path("", include("games.urls")),
    path("accounts/password_reset/", views.password_reset, name="password_reset"),
    path("accounts/password_change/", views.password_change, name="password_change"),
    path("accounts/login/", views.log_in, name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
