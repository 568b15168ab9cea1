from django.urls import path, register_converter

from games import learn
from games.inputs import IdConverter, UsernameConverter
from games.views import accounts, app, live, matches, pages, profiles, pushes, puzzles

register_converter(IdConverter, "id")
register_converter(UsernameConverter, "username")

urlpatterns = [
    path("", profiles.home, name="home"),
    path("favicon.ico", pages.favicon),
    path("manifest.webmanifest", app.manifest, name="manifest"),
    path("sw.js", app.service_worker, name="service_worker"),
    path("offline/", app.offline, name="offline"),
    path("signup/", accounts.signup, name="signup"),
    path("settings/", accounts.settings_view, name="settings"),
    path("settings/email/", accounts.change_email, name="change_email"),
    path("settings/email/resend/", accounts.resend_link, name="resend_link"),
    path("settings/close/", accounts.close_account, name="close_account"),
    path("settings/export/", accounts.export_data, name="export_data"),
    path("settings/push/", pushes.push_kinds, name="push_kinds"),
    path("settings/push/devices/", pushes.add_device, name="add_device"),
    path("settings/push/devices/<id:device_id>/", pushes.remove_device, name="remove_device"),
    path("email/confirm/<str:token>/", accounts.confirm_email, name="confirm_email"),
    path("privacy/", pages.privacy, name="privacy"),
    path("language/", pages.language, name="language"),
    path("notifications/", profiles.notifications, name="notifications"),
    path("@/<username:username>/", profiles.profile, name="profile"),
    path("leaderboard/", profiles.leaderboard, name="leaderboard"),
    path("next/", matches.next_game, name="next_game"),
    path("lobby/", matches.lobby, name="lobby"),
    path("solo/new/", matches.new_solo, name="new_solo"),
    path("match/new/", matches.new_match, name="new_match"),
    path("help/<slug:game>/", pages.help_page, name="help"),
    path("learn/", learn.learn, name="learn"),
    path("learn/<slug:game>/", learn.learn_game, name="learn_game"),
    path("game/<id:match_id>/", matches.game, name="game"),
    path("game/<id:match_id>/live/", live.live, name="live"),
    path("game/<id:match_id>/play/", matches.play, name="play"),
    path("game/<id:match_id>/commit/", matches.commit, name="commit"),
    path("game/<id:match_id>/join/", matches.join, name="join"),
    path("game/<id:match_id>/decline/", matches.decline, name="decline"),
    path("game/<id:match_id>/cancel/", matches.cancel, name="cancel"),
    path("game/<id:match_id>/resign/", matches.resign, name="resign"),
    path("game/<id:match_id>/extend/", matches.extend, name="extend"),
    path("game/<id:match_id>/prefs/", matches.prefs, name="prefs"),
    path("game/<id:match_id>/replay/", matches.replay, name="replay"),
    path("game/<id:match_id>/rematch/", puzzles.rematch, name="rematch"),
    path("puzzle/<id:puzzle_id>/", puzzles.puzzle_page, name="puzzle"),
    path("puzzle/<id:puzzle_id>/play/", puzzles.play_puzzle, name="play_puzzle"),
    path("daily/", puzzles.daily, name="daily"),
    path("daily/play/", puzzles.play_daily, name="play_daily"),
    path("daily/archive/", puzzles.daily_archive, name="daily_archive"),
    path("challenge/new/", puzzles.new_challenge, name="new_challenge"),
    path("challenge/offer/<id:offer_id>/", puzzles.challenge_offer, name="challenge_offer"),
]
