"""The home page: a visitor's front page with both games ready to play and the daily puzzle;
a player's dashboard (their matches with a small picture of each, their move first, with
the time left; invitations to accept there; the daily puzzle with their streak; ratings;
open seats; last results), in a number of queries that does not grow with their matches."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import services
from games.models import DailyResult, Match, Rating, Seat
from games.services.features import puzzles
from tests.factories import a_running_match, finish, make_match, play_to_end, todays_daily

pytestmark = pytest.mark.django_db


def queries_of(client) -> int:
    client.get(reverse("home"))  # the session and the caches warmed up
    with CaptureQueriesContext(connection) as counted:
        assert client.get(reverse("home")).status_code == 200
    return len(counted)


def test_the_dashboard_reads_as_many_queries_with_3_matches_as_with_17(client, alice, bob, carol):
    todays_daily()
    client.force_login(alice)
    a_running_match(alice, bob, "nmbr9", theirs=False)
    a_running_match(alice, bob, "nmbrs", theirs=True)
    services.create_match(bob, players=2, time_control="1d", rated=True, invite=["alice"])
    finished = make_match(alice, bob, seed=9)
    play_to_end(finished, [alice, bob])
    services.rate_match(finished.pk)
    few = queries_of(client)
    for seed in range(2, 8):
        for game in ("nmbr9", "nmbrs"):
            a_running_match(alice, carol, game, theirs=seed % 2 == 0, seed=seed)
    for _ in range(3):
        services.create_match(
            carol, players=3, time_control="3d", rated=False, invite=["alice"], open=True
        )
    for seed in (10, 11):
        finished = make_match(alice, carol, seed=seed)
        play_to_end(finished, [alice, carol])
        services.rate_match(finished.pk)
    many = queries_of(client)
    assert Seat.objects.filter(player=alice, match__status="active").count() == 14
    assert many == few


def test_the_dashboard_puts_the_players_move_first_with_a_picture_and_the_time_left(
    client, alice, bob
):
    mine = a_running_match(alice, bob, "nmbrs", theirs=False)
    theirs = a_running_match(alice, bob, "nmbr9", theirs=True)
    client.force_login(alice)
    page = client.get(reverse("home")).text
    your_move = page[page.index("data-your-move") : page.index("data-waiting-matches")]
    assert f'data-match="{mine.pk}"' in your_move and f'data-match="{theirs.pk}"' not in your_move
    assert "nmbrs-glance" in your_move and "data-countdown" in your_move
    assert "9 cards in your hand" in your_move  # their own hand's size, nobody else's
    waiting = page[page.index("data-waiting-matches") :]
    assert f'data-match="{theirs.pk}"' in waiting
    assert re.search(
        rf'<svg[^>]*class="board thumb"[^>]*aria-label="Your display in {theirs}"', waiting
    )


def test_an_invitation_says_what_the_match_is_and_is_accepted_from_the_home_page(
    client, alice, bob
):
    match = services.create_match(
        bob, players=2, time_control="3d", rated=False, invite=["alice"], options={"pace": "free"}
    )
    client.force_login(alice)
    page = client.get(reverse("home")).text
    entry = re.search(rf'<li[^>]*data-invitation="{match.pk}".*?</li>', page, re.S).group(0)
    for words in (
        "NMBR 9",
        "free pace",
        "2 players",
        "3 days per move",
        "casual",
        "invited by bob",
    ):
        assert words in entry
    assert "data-accept" in entry and "data-decline" in entry
    client.force_login(bob)  # its creator: waiting for the seat to be taken
    assert "1 of 2 seats taken" in client.get(reverse("home")).text
    client.force_login(alice)
    response = client.post(reverse("join", args=[match.pk]))
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE


def test_the_dashboard_shows_the_daily_streak_ratings_seats_and_last_results(
    client, alice, bob, carol
):
    todays_daily()
    client.force_login(alice)
    page = client.get(reverse("home")).text
    assert "data-play-daily" in page and "Your streak: 0 days" in page
    attempt = puzzles.play_daily(alice)
    finish(attempt, alice)
    finished = make_match(alice, bob, seed=9)
    play_to_end(finished, [alice, bob])
    services.rate_match(finished.pk)
    seek = services.create_match(carol, players=3, time_control="1d", rated=True, open=True)
    page = client.get(reverse("home")).text
    score = DailyResult.objects.get(player=alice).score
    assert "Your streak: 1 day" in page and f"today: {score} points" in page
    rating = Rating.objects.get(player=alice)
    assert re.search(rf"NMBR 9, matches: <strong>{rating.value:.0f}\?</strong>", page)
    assert f'data-seek="{seek.pk}"' in page
    recent = page[page.index("data-recent") :]
    assert finished.get_absolute_url() in recent and "with bob" in recent
    for game in ("nmbr9", "nmbrs"):  # both games, equal: a bot for each
        assert f'data-play-bot="{game}"' in page


def test_a_visitor_sees_both_games_ready_to_play_and_the_daily_puzzle(client, alice):
    todays_daily()
    finish(puzzles.play_daily(alice), alice)
    page = client.get(reverse("home")).text
    for game in ("nmbr9", "nmbrs"):
        card = re.search(rf'data-game-card="{game}".*?</section>', page, re.S).group(0)
        assert "game-picture" in card and f'data-play-bot="{game}"' in card
        assert f'href="{reverse("learn_game", args=[game])}" data-learn="{game}"' in card
        assert re.search(r'<option value="strong"', card)
    assert 'data-play-solo="nmbr9"' in page and 'data-play-solo="nmbrs"' not in page
    assert "Stack the numbers 0 to 9" in page and "Lay series of numbered cards" in page
    daily = page[page.index("data-daily") :]
    assert "1 player has finished it today." in daily and "data-play-daily" in daily
    assert 'class="board small"' in daily  # its start tile


def test_the_home_page_reads_in_german(client, alice):
    todays_daily()
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Staple die Zahlen 0 bis 9" in page and "Rätsel des Tages" in page
    client.force_login(alice)
    a_running_match(alice, alice_rival(), "nmbrs", theirs=False)
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Du bist am Zug" in page and "Karten auf deiner Hand" in page


def alice_rival():
    from django.contrib.auth.models import User

    return User.objects.create_user("rival", "rival@example.com", "a-Long-pa55word")


def test_a_game_against_a_bot_is_under_your_move_while_the_move_is_yours(client, alice):
    """A bot's match has no time limit, so no deadline: the seat notes the decision owed."""
    match = services.start_against_bot(alice, "easy", game="nmbrs")
    client.force_login(alice)
    page = client.get(reverse("home")).text
    your_move = page[page.index("data-your-move") :]
    assert f'data-match="{match.pk}"' in your_move
    assert services.owed_match_ids(alice) == [match.pk]
    assert page.startswith("<!doctype html>") and "<title>(1) " in page
    record = services.load(match)
    services.play(match.pk, alice, str(record.rules.auto_move(record.state, 0)), 0)
    while match.pk in services.owed_match_ids(alice):  # take or draw, lay, discard: all hers
        record = services.load(match)
        made = record.made_by(record.seats[0])
        services.play(match.pk, alice, str(record.rules.auto_move(record.state, 0)), made)
    page = client.get(reverse("home")).text
    assert "data-your-move" not in page
    assert f'data-match="{match.pk}"' in page[page.index("data-waiting-matches") :]
