from django.urls import path, register_converter

from games import learn
from games.inputs import IdConverter, UsernameConverter
from games.views import accounts as account_views
from games.views import matches as views

register_converter(IdConverter, "id")
register_converter(UsernameConverter, "username")

urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon),
    path("signup/", views.signup, name="signup"),
    path("settings/", account_views.settings_view, name="settings"),
    path("settings/email/", account_views.change_email, name="change_email"),
    path("settings/email/resend/", account_views.resend_link, name="resend_link"),
    path("settings/close/", account_views.close_account, name="close_account"),
    path("settings/export/", account_views.export_data, name="export_data"),
    path("email/confirm/<str:token>/", account_views.confirm_email, name="confirm_email"),
    path("privacy/", account_views.privacy, name="privacy"),
    path("language/", views.language, name="language"),
    path("notifications/", views.notifications, name="notifications"),
    path("@/<username:username>/", views.profile, name="profile"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("next/", views.next_game, name="next_game"),
    path("lobby/", views.lobby, name="lobby"),
    path("solo/new/", views.new_solo, name="new_solo"),
    path("match/new/", views.new_match, name="new_match"),
    path("help/<slug:game>/", views.help_page, name="help"),
    path("learn/", learn.learn, name="learn"),
    path("learn/<slug:game>/", learn.learn_game, name="learn_game"),
    path("game/<id:match_id>/", views.game, name="game"),
    path("game/<id:match_id>/play/", views.play, name="play"),
    path("game/<id:match_id>/commit/", views.commit, name="commit"),
    path("game/<id:match_id>/join/", views.join, name="join"),
    path("game/<id:match_id>/decline/", views.decline, name="decline"),
    path("game/<id:match_id>/cancel/", views.cancel, name="cancel"),
    path("game/<id:match_id>/resign/", views.resign, name="resign"),
    path("game/<id:match_id>/extend/", views.extend, name="extend"),
    path("game/<id:match_id>/prefs/", views.prefs, name="prefs"),
    path("game/<id:match_id>/replay/", views.replay, name="replay"),
    path("game/<id:match_id>/rematch/", views.rematch, name="rematch"),
    path("puzzle/<id:puzzle_id>/", views.puzzle_page, name="puzzle"),
    path("puzzle/<id:puzzle_id>/play/", views.play_puzzle, name="play_puzzle"),
    path("daily/", views.daily, name="daily"),
    path("daily/play/", views.play_daily, name="play_daily"),
    path("daily/archive/", views.daily_archive, name="daily_archive"),
    path("challenge/new/", views.new_challenge, name="new_challenge"),
    path("challenge/offer/<id:offer_id>/", views.challenge_offer, name="challenge_offer"),
]
