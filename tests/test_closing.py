"""Closing an account, and exporting its data."""

import json

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Match, Notification, PlayerStats, Profile, Rating, RatingChange, Seat
from games.services.features import boards, closing, export, follows
from tests.factories import PASSWORD, make_match, play, play_to_end, said

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(alice, bob, carol):
    """Alice finished a rated match with Bob, plays another with him, and invited Carol to a
    third that has not started."""
    finished = make_match(alice, bob)
    play_to_end(finished, [alice, bob])
    services.rate_match(finished.pk)
    running = make_match(alice, bob, seed=8)
    play(running, alice)
    waiting = services.create_match(
        alice, players=2, time_control="1d", rated=True, options={}, invite=["carol"], seed=9
    )
    Profile.objects.create(player=alice, language="de")
    return finished, running, waiting


def test_a_closed_accounts_old_name_leaves_the_others_notifications(client, alice, bob, carol):
    services.create_match(alice, players=2, time_control="1d", rated=True, invite=["bob"])
    follows.follow(alice, carol)
    client.force_login(bob)
    assert "alice invites you to a 2-player match." in client.get(reverse("notifications")).text
    closing.close(alice)
    kept = Notification.objects.filter(player__in=[bob, carol]).values_list("params", flat=True)
    assert kept and "alice" not in repr(list(kept))
    for reader in (bob, carol):
        client.force_login(reader)
        page = client.get(reverse("notifications")).text
        assert "alice" not in page
        assert f"closed account {alice.pk}" in page
    client.force_login(bob)
    german = client.get(reverse("notifications"), HTTP_ACCEPT_LANGUAGE="de").text
    assert f"gelöschtes Konto {alice.pk}" in german and "alice" not in german


def test_closing_an_account_erases_the_person_and_keeps_the_finished_games(
    client, world, alice, bob, carol
):
    finished, running, waiting = world
    assert Rating.objects.filter(player=alice).exists()
    other_device = Client()
    other_device.force_login(alice)
    client.force_login(alice)
    response = client.post(reverse("close_account"), {"password": PASSWORD})
    assert response.status_code == 302 and response.url == reverse("home")
    assert "_auth_user_id" not in client.session
    closed = User.objects.get(pk=alice.pk)
    assert closed.username == f"closed-{alice.pk}" and closed.email == ""
    assert not closed.is_active and not closed.has_usable_password()
    assert Profile.objects.get(player=closed).language == ""
    # Nothing left on leaderboards, no notifications, ratings or figures of its own.
    assert not Rating.objects.filter(player=closed).exists()
    assert not PlayerStats.objects.filter(player=closed).exists()
    assert not Notification.objects.filter(player=closed).exists()
    for board in boards.boards():
        assert closed not in [row.player for row in boards.rows(board)]
    # The finished game stays, under the closed account's name, for Bob.
    client.force_login(bob)
    page = client.get(finished.get_absolute_url())
    assert page.status_code == 200 and f"closed account {alice.pk}" in page.text
    assert "alice" not in page.text
    assert RatingChange.objects.filter(match=finished, player=bob).exists()
    # The running match was resigned, the waiting one called off; the others are told.
    assert Seat.objects.get(match=running, player=closed).state == Seat.State.RESIGNED
    waiting.refresh_from_db()
    assert waiting.status == Match.Status.CANCELLED
    told = said(player=bob, match=running)
    assert f"closed account {alice.pk} resigned." in told
    assert any("closed" in words for words in said(player=carol, match=waiting))
    # Its sessions are gone, the one on another device too; it can no longer log in.
    assert other_device.get(reverse("settings")).status_code == 302
    assert not [
        s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(alice.pk)
    ]
    client.logout()
    for name in ("alice", closed.username):
        response = client.post(reverse("login"), {"username": name, "password": PASSWORD})
        assert response.status_code != 302


def test_closing_asks_for_the_password(client, alice):
    client.force_login(alice)
    assert client.get(reverse("close_account")).status_code == 200
    response = client.post(reverse("close_account"), {"password": "wrong"})
    assert response.status_code == 400 and "not your password" in response.text
    alice.refresh_from_db()
    assert alice.is_active and alice.username == "alice"


def test_closing_twice_changes_nothing_more(alice):
    closing.close(alice)
    closing.close(User.objects.get(pk=alice.pk))
    assert User.objects.get(pk=alice.pk).username == f"closed-{alice.pk}"


def test_a_closed_accounts_name_is_shown_in_the_readers_language(client, alice, bob):
    finished = make_match(alice, bob)
    closing.close(alice)
    client.force_login(bob)
    page = client.get(finished.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de")
    assert f"gelöschtes Konto {alice.pk}" in page.text


def test_nobody_may_sign_up_with_a_closed_accounts_name(client):
    data = {"username": "closed-1", "email": "x@example.com"}
    response = client.post(
        reverse("signup"), {**data, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 400 and "closed accounts" in response.text


def test_the_export_holds_profile_games_with_their_moves_ratings_and_notifications(
    client, world, alice, bob
):
    finished, running, waiting = world
    client.force_login(alice)
    response = client.get(reverse("export_data"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    data = json.loads(response.content)
    assert data["profile"]["username"] == "alice"
    assert data["profile"]["email"] == "alice@example.com"
    games = {g["match"]: g for g in data["games"]}
    assert set(games) == {finished.pk, running.pk, waiting.pk}
    done = games[finished.pk]
    assert [p["player"] for p in done["players"]] == ["alice", "bob"]
    assert len(done["moves"]) == finished.moves.count() > 0
    assert {m["seat"] for m in done["moves"]} == {0, 1}
    # Of the running match, only Alice's own moves (Bob's may hold what she cannot see yet).
    mine = Seat.objects.get(match=running, player=alice)
    assert [m["move"] for m in games[running.pk]["moves"]] == list(
        running.moves.filter(seat=mine).values_list("text", flat=True)
    )
    assert "seed" not in json.dumps(games[running.pk])
    assert data["ratings"] and data["rating_history"]
    assert data["notifications"]
    assert export.everything(alice) | {"exported": None} == data | {"exported": None}


def test_guests_and_visitors_have_no_account_pages(client):
    for name in ("close_account", "export_data", "settings"):
        response = client.get(reverse(name))
        assert response.status_code == 302
    assert client.get(reverse("privacy")).status_code == 200


def test_the_privacy_page_is_in_both_languages_and_names_the_cookies(client, settings):
    english = client.get(reverse("privacy"))
    german = client.get(reverse("privacy"), HTTP_ACCEPT_LANGUAGE="de")
    assert "What is stored, and why" in english.text
    assert "Was gespeichert wird und warum" in german.text
    for name in (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME):
        assert name in english.text
    assert f'href="{reverse("privacy")}"' in client.get(reverse("home")).text
