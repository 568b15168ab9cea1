from django.urls import path

from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("@/<str:username>/", views.profile, name="profile"),
    path("solo/new/", views.new_solo, name="new_solo"),
    path("game/<int:match_id>/", views.game, name="game"),
    path("game/<int:match_id>/place/", views.place, name="place"),
]
