"""Guests: a visitor plays at once (a solo game, a bot, the daily puzzle) as a guest kept in
their session; nothing a guest does is on a leaderboard or moves a rating; on sign-up or
log-in their games become the account's; idle guests are removed by the sweep."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services, tasks
from games.infra import limits, sweep
from games.models import DailyResult, Match, Profile, Rating, Seat
from games.services.features import boards, guests, puzzles
from tests.factories import PASSWORD, finish, guest_of, hidden, sign_up, todays_daily, wait_for

pytestmark = pytest.mark.django_db


def test_a_visitor_plays_a_solo_game_a_bot_and_the_daily_at_once(client):
    todays_daily()
    solo = client.post(reverse("new_solo"), {"game": "nmbr9"})
    guest = guest_of(client)
    bot = client.post(reverse("new_solo"), {"game": "nmbrs", "bot": "easy"})
    daily = client.post(reverse("play_daily"))
    assert guest_of(client) == guest  # one guest for the whole visit
    matches = Match.objects.filter(created_by=guest)
    assert {m.get_absolute_url() for m in matches} == {solo.url, bot.url, daily.url}
    assert {(m.kind, m.game, m.daily) for m in matches} == {
        ("solo", "nmbr9", False),
        ("match", "nmbrs", False),
        ("puzzle", "nmbr9", True),
    }
    page = client.get(solo.url)
    assert page.status_code == 200 and "data-guest" in page.text
    assert "Sign up to keep your games" in page.text and "Log out" not in page.text
    assert client.get(bot.url).status_code == 200


def test_a_guest_is_on_no_leaderboard_and_moves_no_rating(client, alice):
    puzzle = todays_daily()
    client.post(reverse("play_daily"))
    guest = guest_of(client)
    attempt = Match.objects.get(created_by=guest)
    finish(attempt, guest)
    attempt.refresh_from_db()
    assert attempt.is_finished
    assert not DailyResult.objects.filter(player=guest).exists()
    assert attempts_at(puzzle) == 1  # the puzzle's figures count it
    assert attempt.pk not in sweep.unweighed_attempts()
    services.rate_puzzle_attempt(attempt.pk)
    assert not Rating.objects.filter(player=guest).exists()
    solo = services.start_solo(guest, seed=3)
    play_solo_to_end(solo, guest)
    board = boards.find("solo", "nmbr9", "")
    assert guest not in [row.player for row in boards.rows(board)]
    assert "Guests are on no leaderboard" in boards.why_absent(board, guest, [])
    page = client.get(reverse("leaderboard"), {"board": "solo", "game": "nmbr9"})
    assert guest.username not in page.text


def attempts_at(puzzle) -> int:
    puzzle.refresh_from_db()
    return puzzle.attempts


def play_solo_to_end(match, player) -> None:
    from games.nmbr9.rules import RULES

    for made in range(20):
        state = services.load(match).state
        services.play(match.pk, player, str(RULES.auto_move(state, 0)), made)
    match.refresh_from_db()
    assert match.is_finished


def test_signing_up_keeps_the_guests_games_and_counts_their_daily(client):
    todays_daily()
    client.post(reverse("new_solo"))
    client.post(reverse("play_daily"))
    guest = guest_of(client)
    attempt = Match.objects.get(created_by=guest, daily=True)
    finish(attempt, guest)
    games = set(Match.objects.filter(created_by=guest).values_list("pk", flat=True))
    end = client.get(attempt.get_absolute_url()).text
    assert "data-counts-on-sign-up" in end and "data-practice" not in end

    response = sign_up(client)
    assert response.status_code == 302
    account = User.objects.get(username="newcomer")
    assert int(client.session["_auth_user_id"]) == account.pk
    assert set(Match.objects.filter(created_by=account).values_list("pk", flat=True)) == games
    assert Seat.objects.filter(player=account).count() == len(games)
    assert not User.objects.filter(pk=guest.pk).exists()
    result = DailyResult.objects.get(player=account)
    assert result.match_id == attempt.pk and result.day == puzzles.today()
    assert puzzles.streak(account) == 1
    # the attempt is the account's now: weighed for its puzzle rating like any other
    assert attempt.pk in sweep.unweighed_attempts()
    page = client.get(reverse("profile", args=["newcomer"]))
    assert attempt.get_absolute_url() in page.text


def test_a_guest_who_played_is_sent_to_their_games_after_signing_up(client):
    client.post(reverse("new_solo"), {"game": "nmbr9"})
    response = sign_up(client, "played")
    assert response.status_code == 302 and response.url == reverse("home")
    home = client.get(response.url).text
    assert Match.objects.get(created_by__username="played").get_absolute_url() in home

    client.logout()
    client.post(reverse("new_solo"), {"game": "nmbr9"})
    response = sign_up(client, "cameback", QUERY_STRING="next=/daily/")
    assert response.status_code == 302 and response.url == "/daily/"


def test_a_visitor_who_never_played_is_led_to_the_tutorials_after_signing_up(client):
    client.get(reverse("home"))
    response = sign_up(client, "fresh")
    assert response.status_code == 302 and response.url == reverse("learn")


def test_logging_in_keeps_the_guests_games_and_a_second_daily_is_practice(client, alice):
    todays_daily()
    counted = puzzles.play_daily(alice)
    finish(counted, alice)
    client.post(reverse("play_daily"))  # the guest's attempt, unfinished
    guest = guest_of(client)
    attempt = Match.objects.get(created_by=guest)
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    attempt.refresh_from_db()
    assert attempt.created_by == alice and not attempt.daily  # practice
    assert DailyResult.objects.get(player=alice).match_id == counted.pk
    assert not User.objects.filter(pk=guest.pk).exists()


def test_an_unfinished_daily_of_a_guest_counts_for_the_account_when_finished(client, alice):
    todays_daily()
    client.post(reverse("play_daily"))
    guest = guest_of(client)
    attempt = Match.objects.get(created_by=guest)
    client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    attempt.refresh_from_db()
    assert attempt.created_by == alice and attempt.daily
    finish(attempt, alice)
    assert DailyResult.objects.get(player=alice).match_id == attempt.pk


def test_the_order_of_the_daily_is_as_secret_for_a_guest_as_for_an_account(client, alice):
    todays_daily()
    alices = puzzles.play_daily(alice)
    finish(alices, alice)
    client.post(reverse("play_daily"))
    assert hidden(client.get(alices.get_absolute_url()))
    assert hidden(client.get(reverse("replay", args=[alices.pk])))


def test_a_guest_is_sent_to_sign_up_for_what_needs_an_account(client, alice):
    client.post(reverse("new_solo"))
    for name in ("new_match", "new_challenge", "settings"):
        response = client.get(reverse(name))
        assert response.status_code == 302
        assert (
            response.url == f"{reverse('signup')}?next=%2F{reverse(name)[1:].replace('/', '%2F')}"
        )
    page = client.get(reverse("signup"))
    assert "become your account" in page.text


def test_a_guest_cannot_be_invited_by_name_nor_take_a_guests_name(client, alice):
    client.post(reverse("new_solo"))
    guest = guest_of(client)
    with pytest.raises(services.MoveRefused, match="No player is called"):
        services.create_match(
            alice, players=2, time_control="1d", rated=True, invite=[guest.username], open=False
        )
    other = Client()
    response = sign_up(other, "guest-bob")
    assert response.status_code == 400 and "are for guests" in response.text


def test_a_client_address_starts_at_most_30_guest_games_an_hour(client, db):
    allowed = int(limits.NEW_GAMES.removesuffix("/hour"))
    assert allowed == 30
    for _ in range(allowed):
        assert client.post(reverse("new_solo")).status_code == 302
    response = client.post(reverse("new_solo"))
    assert response.status_code == 429
    assert "Too many games were started from your address" in response.text
    other_visitor = Client()  # the same address, no session: no guest made either
    assert other_visitor.post(reverse("new_solo")).status_code == 429
    again = client.post(reverse("new_solo"), {"again": Match.objects.first().pk})
    assert again.status_code == 429  # playing a game again is a game too
    assert User.objects.count() == 1 and Match.objects.count() == allowed


def test_idle_guests_are_removed_with_their_games(client, alice):
    client.post(reverse("new_solo"))
    idle = guest_of(client)
    Client().post(reverse("new_solo"))
    recent = User.objects.exclude(pk__in=[idle.pk, alice.pk]).get()
    services.start_solo(alice)
    long_ago = timezone.now() - guests.IDLE - timedelta(minutes=1)
    Profile.objects.filter(player=idle).update(last_seen=long_ago)
    Profile.objects.get_or_create(player=alice)
    Profile.objects.filter(player=alice).update(last_seen=long_ago)  # accounts stay
    assert guests.idle() == [idle.pk]
    assert guests.remove_idle([idle.pk, recent.pk, alice.pk]) == 1
    assert not User.objects.filter(pk=idle.pk).exists()
    assert not Match.objects.filter(created_by_id=idle.pk).exists()
    assert User.objects.filter(pk__in=[recent.pk, alice.pk]).count() == 2
    assert client.get(reverse("home")).status_code == 200  # the old session: a visitor again


@pytest.mark.worker
def test_the_sweep_removes_an_idle_guest(celery_worker, client):
    client.post(reverse("new_solo"))
    idle = guest_of(client)
    long_ago = timezone.now() - guests.IDLE - timedelta(minutes=1)
    Profile.objects.filter(player=idle).update(last_seen=long_ago)
    tasks.sweep.delay()
    wait_for(lambda: not User.objects.filter(pk=idle.pk).exists())
    assert Match.objects.count() == 0


def test_joining_a_seat_leads_to_sign_up_and_back_to_where_the_form_was(client, alice):
    seek = services.create_match(alice, players=2, time_control="1d", rated=True, open=True)
    lobby = "http://testserver" + reverse("lobby")
    response = client.post(reverse("join", args=[seek.pk]), HTTP_REFERER=lobby)
    assert response.status_code == 302  # a visitor: log in (or create an account), then back
    assert response.url == f"{reverse('login')}?next=/lobby/"
    login = client.get(response.url).text
    assert "Log in or create an account to play with other players." in login
    assert f'href="{reverse("signup")}?next=/lobby/"' in login
    client.post(reverse("new_solo"))  # now a guest
    response = client.post(reverse("join", args=[seek.pk]), HTTP_REFERER=lobby)
    assert response.url == f"{reverse('signup')}?next=%2Flobby%2F"
    elsewhere = client.post(reverse("join", args=[seek.pk]), HTTP_REFERER="https://evil.example/")
    assert elsewhere.url == f"{reverse('signup')}?next=%2F"
    assert Seat.objects.filter(match=seek).count() == 1
