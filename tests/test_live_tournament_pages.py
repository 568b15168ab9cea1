"""The pages of live duplicate tournaments: created on the page of a new tournament (live
or at one's own pace), followed on the tournament's page while it runs (the game and round
played, the time left, the way to one's own game, the leaders moving each round, polled),
listed as live, compared once over; nothing of a round to come shows anywhere."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Match, Puzzle, Tournament
from games.services.features import live_duplicate
from tests.factories import break_over, live_started, new_duplicate, play

pytestmark = pytest.mark.django_db(transaction=True)


def starts() -> str:
    return (timezone.now() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")


def game_of(tournament, player, number: int = 1) -> Match:
    return Match.objects.get(
        puzzle__tournament=tournament, puzzle__number=number, seats__player=player
    )


def test_the_new_tournament_page_offers_both_ways_to_play(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_tournament")).text
    assert 'name="way" value="window"' in page and 'name="way" value="live"' in page
    assert 'data-shown-when=\'{"way": ["live"]}\' data-speed-field' in page
    assert 'data-shown-when=\'{"way": ["window"]}\' data-window-field' in page


def test_a_live_tournament_is_created_on_the_page_its_window_ignored(client, alice):
    client.force_login(alice)
    data = {"name": "Live cup", "games": "2", "way": "live", "speed": "30s", "window": "1d"}
    response = client.post(reverse("new_tournament"), {**data, "starts": starts(), "open": "on"})
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == tournament.get_absolute_url()
    assert tournament.mode == Tournament.Mode.LIVE and tournament.games == 2
    assert tournament.time_per_move == timedelta(seconds=30)
    page = client.get(tournament.get_absolute_url()).text
    assert "Live</strong> · 30 s a round" in page


def settings_lines(page: str) -> list[str]:
    return re.findall(r'class="settings-line">(.*?)</(?:p|span)>', page, flags=re.S)


@pytest.mark.parametrize(
    ("language", "live", "window", "gap_fillers"),
    [
        ("en", "Live</strong> · 15 s a round", "1 day for each game", "gap fillers"),
        ("de", "Live</strong> · 15 s pro Runde", "1 Tag für jedes Spiel", "Lückenfüller"),
    ],
)
def test_a_tournaments_line_names_no_pace_and_a_live_ones_time_a_round(
    client, alice, language, live, window, gap_fillers
):
    live_cup = live_duplicate.create(
        alice,
        name="Live cup",
        game="nmbr9",
        games=2,
        speed="15s",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
        options={"fillers": True},
    )
    own_cup = new_duplicate(alice, name="Own cup")
    listed = settings_lines(client.get(reverse("tournaments"), HTTP_ACCEPT_LANGUAGE=language).text)
    for tournament, said in ((live_cup, f"{gap_fillers} · 2"), (live_cup, live), (own_cup, window)):
        page = client.get(tournament.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).text
        (line,) = settings_lines(page)
        assert said in line and line in listed
        assert "pace" not in line and "Tempo" not in line


def test_the_window_counts_at_ones_own_pace_and_the_speed_is_ignored(client, alice):
    client.force_login(alice)
    data = {"name": "Slow cup", "games": "1", "way": "window", "speed": "15s", "window": "12h"}
    client.post(reverse("new_tournament"), {**data, "starts": starts(), "open": "on"})
    tournament = Tournament.objects.get()
    assert tournament.mode == Tournament.Mode.ASYNC and tournament.window == timedelta(hours=12)
    assert tournament.time_per_move is None


def test_a_live_tournament_without_its_speed_is_refused_on_the_form(client, alice):
    client.force_login(alice)
    data = {"name": "Live cup", "games": "1", "way": "live", "speed": "", "window": "1d"}
    response = client.post(reverse("new_tournament"), {**data, "starts": starts()})
    assert response.status_code == 400 and 'role="alert"' in response.text
    assert "Choose a time per move." in response.text
    assert not Tournament.objects.exists()


def test_the_page_shows_the_game_and_round_played_its_time_and_the_way_to_ones_game(
    client, alice, bob, carol
):
    tournament = live_started(alice, bob, games=2)
    client.force_login(alice)
    page = client.get(tournament.get_absolute_url()).text
    assert "Game 1 of 2 · round 1 of 20" in page
    assert "data-live-board" in page and "data-countdown" in page
    mine, theirs = game_of(tournament, alice), game_of(tournament, bob)
    assert re.search(rf'href="{mine.get_absolute_url()}" data-go-to-game', page)
    assert theirs.get_absolute_url() not in page
    assert "data-play-game" not in page  # nothing to begin: every game is dealt to all
    # a spectator sees the same board, without a way into anybody's game
    client.force_login(carol)
    page = client.get(tournament.get_absolute_url()).text
    assert "Game 1 of 2 · round 1 of 20" in page and "data-go-to-game" not in page
    assert mine.get_absolute_url() not in page and theirs.get_absolute_url() not in page
    assert 'data-live-line="alice"' in page and 'data-live-line="bob"' in page


def test_the_leaders_move_each_round_and_the_board_is_polled(client, alice, bob, carol):
    tournament = live_started(alice, bob)
    board = reverse("tournament_live", args=[tournament.pk])
    client.force_login(carol)
    page = client.get(tournament.get_absolute_url()).text
    assert f"{board}?state=running&amp;game=1" in page and 'hx-trigger="every 2s"' in page
    for player in (alice, bob):
        play(game_of(tournament, player), player)
    assert Puzzle.objects.get(tournament=tournament).dealt == 2
    polled = client.get(board, {"state": "running", "game": "1"})
    assert polled.status_code == 200 and "HX-Refresh" not in polled
    assert "round 2 of 20" in polled.text
    scores = dict(re.findall(r'data-live-line="(\w+)".*?data-live-score>(\d+)<', polled.text))
    seats = {p.username: game_of(tournament, p).seats.get().score for p in (alice, bob)}
    assert scores == {name: str(score) for name, score in seats.items()}
    assert "<svg" not in polled.text  # scores only: no display, nothing of the next round


def test_the_board_asks_for_the_whole_page_when_the_game_or_the_state_changed(client, alice, bob):
    tournament = live_started(alice, bob, games=2)
    board = reverse("tournament_live", args=[tournament.pk])
    assert client.get(board, {"state": "running", "game": "1"}).get("HX-Refresh") is None
    assert client.get(board, {"state": "upcoming", "game": "0"})["HX-Refresh"] == "true"
    assert client.get(board, {"state": "running", "game": "2"})["HX-Refresh"] == "true"


def test_the_list_says_live_and_leads_an_entrant_to_their_game(client, alice, bob, carol):
    tournament = live_started(alice, bob)
    client.force_login(bob)
    page = client.get(reverse("tournaments")).text
    assert "data-live-mode" in page
    assert f'href="{game_of(tournament, bob).get_absolute_url()}" data-live-game' in page
    client.force_login(carol)
    assert "data-live-game" not in client.get(reverse("tournaments")).text


def test_once_over_the_final_standings_and_every_games_displays_compared(client, alice, bob, carol):
    tournament = live_started(alice, bob, games=2)
    for number in (1, 2):
        while Puzzle.objects.get(tournament=tournament, number=number).dealt is not None:
            for player in (alice, bob):
                match = game_of(tournament, player, number)
                if match.status == Match.Status.ACTIVE:
                    play(match, player)
        if number == 1:
            break_over(tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    client.force_login(carol)
    page = client.get(tournament.get_absolute_url()).text
    assert "data-go-to-game" not in page and 'hx-trigger="every 2s"' not in page
    assert 'data-entry="alice"' in page and 'data-compare="2"' in page
    for number in (1, 2):
        compared = client.get(reverse("tournament_compare", args=[tournament.pk, number]))
        assert compared.status_code == 200 and compared.text.count("data-display-of=") == 2


def test_a_game_being_played_is_hidden_from_the_compare_page(client, alice, bob, carol):
    tournament = live_started(alice, bob)
    client.force_login(carol)
    response = client.get(reverse("tournament_compare", args=[tournament.pk, 1]))
    assert response.status_code in (403, 404)
    assert "data-display-of" not in response.text


def test_the_board_of_another_tournament_is_not_found(client, alice):
    tournament = live_duplicate.create(
        alice,
        name="Later",
        game="nmbr9",
        games=1,
        speed="15s",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    page = client.get(tournament.get_absolute_url()).text
    board = re.search(r'<div id="live-board"[^>]*>', page).group()
    assert "data-live-board" in board and "hx-trigger" not in board  # no game to show yet
    Tournament.objects.filter(pk=tournament.pk).update(mode=Tournament.Mode.ASYNC)
    assert client.get(reverse("tournament_live", args=[tournament.pk])).status_code == 404


def test_the_home_page_leads_an_entrant_to_their_game_while_it_runs(client, alice, bob, carol):
    tournament = live_started(alice, bob)
    client.force_login(bob)
    home = client.get(reverse("home")).text
    assert f'href="{game_of(tournament, bob).get_absolute_url()}" data-live-game' in home
    client.force_login(carol)
    assert "data-live-game" not in client.get(reverse("home")).text


def test_a_player_leaves_from_their_game_and_nothing_says_a_next_game_comes(
    client, alice, bob, carol
):
    tournament = live_started(alice, bob, carol, games=2)
    mine = game_of(tournament, carol)
    client.force_login(carol)
    page = client.get(mine.get_absolute_url()).text
    assert "data-withdraw-confirm" in page and "Leave the tournament…" in page
    url = reverse("tournament_withdraw", args=[tournament.pk])
    assert f'action="{url}"' in page
    response = client.post(url, follow=True)
    assert response.redirect_chain[-1][0] == tournament.get_absolute_url()
    page = response.text
    assert "You have left the tournament. Your scores so far count; the others play on." in page
    assert page.count("no more games are dealt to you") == 1  # said once
    assert "data-withdrawn" in page and "data-withdraw-confirm" not in page
    assert re.search(r'data-entry="carol">.*?\(withdrawn\)', page)
    # the game left is over for them, and its page does not look for a next one
    page = client.get(mine.get_absolute_url()).text
    assert "data-left-early" in page and "data-withdraw-confirm" not in page
    assert "data-next-tournament-poll" not in page
    # the others go on; their pages still offer to leave, in German too
    client.force_login(bob)
    page = client.get(game_of(tournament, bob).get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Turnier verlassen…" in page
    # an own-pace duplicate has nothing to withdraw from: a clear refusal, nothing changed
    own = new_duplicate(alice)
    Tournament.objects.filter(pk=own.pk).update(status=Tournament.Status.RUNNING)
    client.force_login(alice)
    response = client.post(reverse("tournament_withdraw", args=[own.pk]))
    assert response.status_code == 400
    assert "played when you like" in response.text
