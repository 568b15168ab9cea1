from django.urls import path

from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("settings/", views.settings_view, name="settings"),
    path("notifications/", views.notifications, name="notifications"),
    path("@/<str:username>/", views.profile, name="profile"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("lobby/", views.lobby, name="lobby"),
    path("solo/new/", views.new_solo, name="new_solo"),
    path("match/new/", views.new_match, name="new_match"),
    path("game/<int:match_id>/", views.game, name="game"),
    path("game/<int:match_id>/place/", views.place, name="place"),
    path("game/<int:match_id>/join/", views.join, name="join"),
    path("game/<int:match_id>/decline/", views.decline, name="decline"),
    path("game/<int:match_id>/cancel/", views.cancel, name="cancel"),
    path("game/<int:match_id>/resign/", views.resign, name="resign"),
    path("game/<int:match_id>/extend/", views.extend, name="extend"),
    path("game/<int:match_id>/replay/", views.replay, name="replay"),
]
