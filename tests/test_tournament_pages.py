"""The pages of tournaments as their players see them: a tournament's game names its
tournament and leads back to it (no rematch of a table), withdrawing from a swiss asks first
and says it is done, the standings before the start, the times with their zone, and the page
that keeps another entrant's game hidden."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import notices
from games.forms import suggested_start
from games.models import Entry, Match, Notification, Seat, Tournament
from games.services.features import swiss_rounds, tournaments
from games.services.match import play
from games.services.match.matchview import rematch_offered
from tests.factories import break_over, live_started, make_match

pytestmark = pytest.mark.django_db


def swiss(creator, *others, pace: str = "30s", start: bool = True) -> Tournament:
    tournament = swiss_rounds.create(
        creator,
        name="Swiss cup",
        rounds=2,
        table_size=2,
        pace=pace,
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    for player in others:
        tournaments.join(tournament.pk, player)
    if start:
        Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
        assert swiss_rounds.start(tournament.pk)
        tournament.refresh_from_db()
    return tournament


def duplicate(creator, *others) -> Tournament:
    tournament = tournaments.create(
        creator,
        name="Autumn cup",
        game="nmbr9",
        games=2,
        window="1d",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    for player in others:
        tournaments.join(tournament.pk, player)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tournaments.start(tournament.pk)
    tournament.refresh_from_db()
    return tournament


def test_a_swiss_table_names_its_round_and_ends_with_the_way_back_not_a_rematch(client, alice, bob):
    tournament = swiss(alice, bob)
    table = tournament.tables.get()
    client.force_login(alice)
    page = client.get(table.get_absolute_url()).text
    assert "data-in-tournament" in page and "Swiss cup, round 1" in page
    assert tournament.get_absolute_url() in page
    play.resign(table.pk, bob)
    table.refresh_from_db()
    seats = list(Seat.objects.filter(match=table))
    assert not rematch_offered(table, seats, timezone.now())
    page = client.get(table.get_absolute_url()).text
    assert "data-back-to-tournament" in page and "Back to Swiss cup: the standings" in page
    for offer in ("data-rematch", "data-new-opponent", "data-same-match", "data-again-bot"):
        assert offer not in page, offer
    assert client.post(reverse("rematch_accept", args=[table.pk])).status_code == 400


def test_a_duplicate_game_is_titled_by_its_tournament_and_number(client, alice, bob):
    tournament = duplicate(alice, bob)
    match = tournaments.play(tournament.pk, alice, 2)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert "Autumn cup: game 2 · nmbr9site</title>" in page
    assert '<h1 class="game-title">Autumn cup: game 2' in page
    assert f"Tournament game #{match.pk}" not in page
    assert f'href="{tournament.get_absolute_url()}"' in page
    german = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Autumn cup: Spiel 2" in german


def listed(client, path: str) -> tuple[int, str]:
    """The queries of the page at ``path`` (asked once before: nothing read once a process
    counts), and its text."""
    client.get(path)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(path).text
    return len(queries), page


def test_lists_name_a_duplicate_game_as_its_page_does_in_the_same_queries(client, alice, bob):
    tournament = tournaments.create(
        alice,
        name="Winter cup",
        game="nmbr9",
        games=5,
        window="1d",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    tournaments.join(tournament.pk, bob)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tournaments.start(tournament.pk)
    said = notices.stored({"match": tournaments.play(tournament.pk, alice, 1)})
    Notification.objects.create(player=alice, message="Your move in %(match)s.", params=said)
    play.resign(tournaments.play(tournament.pk, alice, 2).pk, alice)
    client.force_login(alice)
    pages = (reverse("home"), reverse("profile", args=["alice"]), reverse("notifications"))
    one = {path: listed(client, path) for path in pages}
    for number in (3, 4, 5):
        match = tournaments.play(tournament.pk, alice, number)
        said = notices.stored({"match": match})
        Notification.objects.create(player=alice, message="Your move in %(match)s.", params=said)
        if number != 5:
            play.resign(match.pk, alice)
    for path in pages:
        count, page = listed(client, path)
        assert count == one[path][0], path
        assert "Tournament game" not in page
    home, profile, news = (listed(client, path)[1] for path in pages)
    assert "Winter cup: game 2" in home and "Winter cup: game 4" in home
    assert all(f"Winter cup: game {n}" in profile for n in range(1, 6))
    assert "Winter cup: game 1</a> · NMBR 9</li>" in profile and "pace" not in profile
    assert all(f"Your move in Winter cup: game {n}." in news for n in (1, 3, 4, 5))
    german = client.get(reverse("profile", args=["alice"]), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Winter cup: Spiel 5" in german


def test_lists_name_a_swiss_table_by_its_round_in_the_same_queries(client, alice, bob):
    tables = []
    client.force_login(alice)
    pages = (reverse("home"), reverse("notifications"))
    counts = []
    for _ in range(2):
        table = swiss(alice, bob, pace="1d").tables.get()
        tables.append(table)
        said = notices.stored({"match": table})
        Notification.objects.create(player=alice, message="Your move in %(match)s.", params=said)
        counts.append([listed(client, path)[0] for path in pages])
    assert counts[0] == counts[1]
    home, news = (listed(client, path)[1] for path in pages)
    assert home.count("<strong>Swiss cup, round 1</strong>") == 2
    for table in tables:
        assert f'href="{table.get_absolute_url()}"' in home
        assert f"Match #{table.pk}" not in home + news
    assert "Your move in Swiss cup, round 1." in news
    german = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Swiss cup, Runde 1" in german


def test_the_home_page_lists_the_tournament_games_an_entrant_may_still_play(
    client, alice, bob, carol
):
    tournament = duplicate(alice, bob)
    earlier = make_match(bob, carol)  # a finished match of no deal lists no less
    play.resign(earlier.pk, carol)
    open_now = list(tournament.deals.filter(opens__lte=timezone.now()).order_by("number"))
    assert open_now
    first = open_now[0]
    client.force_login(bob)
    home = client.get(reverse("home")).text
    assert "data-tournament-games" in home and "Your tournament games" in home
    play_it = reverse("tournament_play", args=[tournament.pk, first.number])
    assert f'action="{play_it}"' in home and f"Autumn cup: game {first.number}" in home
    response = client.post(play_it)
    match = Seat.objects.get(player=bob, match__puzzle=first).match
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    home = client.get(reverse("home")).text
    assert f'href="{match.get_absolute_url()}" data-tournament-game="{first.pk}"' in home
    assert f'action="{play_it}"' not in home
    play.resign(match.pk, bob)
    home = client.get(reverse("home")).text
    assert f'data-tournament-game="{first.pk}"' not in home and f'action="{play_it}"' not in home
    assert "Deine Turnierspiele" in client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="de").text
    client.force_login(carol)  # not an entrant
    assert "data-tournament-games" not in client.get(reverse("home")).text


def test_the_home_page_lists_the_tournaments_an_entrant_waits_for(client, alice, bob, carol):
    later = swiss(alice, bob, start=False)
    sooner = duplicate(alice, bob)
    Tournament.objects.filter(pk=sooner.pk).update(
        status=Tournament.Status.UPCOMING, starts=later.starts - timedelta(minutes=30)
    )
    client.force_login(bob)
    home = client.get(reverse("home")).text
    section = home[home.index("data-tournaments-ahead") :]
    assert "Your tournaments to come" in section
    links = re.findall(r'<li><a href="([^"]+)">([^<]+)</a> · starts <time ', section)
    assert links == [
        (sooner.get_absolute_url(), "Autumn cup"),
        (later.get_absolute_url(), "Swiss cup"),
    ]
    german = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Deine kommenden Turniere" in german and "· beginnt <time " in german
    tournaments.leave(sooner.pk, bob)
    Tournament.objects.filter(pk=later.pk).update(starts=timezone.now())
    assert swiss_rounds.start(later.pk)
    assert "data-tournaments-ahead" not in client.get(reverse("home")).text
    client.force_login(carol)  # entered none
    assert "data-tournaments-ahead" not in client.get(reverse("home")).text


def test_withdrawing_asks_first_says_it_is_done_and_the_button_goes(client, alice, bob, carol):
    tournament = swiss(alice, bob, carol, pace="1d")
    client.force_login(bob)
    page = client.get(tournament.get_absolute_url()).text
    confirm = page.index("data-withdraw-confirm")
    assert "<summary>" in page[confirm:] and page.index("data-withdraw>") > confirm
    response = client.post(reverse("tournament_withdraw", args=[tournament.pk]), follow=True)
    assert Entry.objects.get(tournament=tournament, player=bob).withdrawn
    page = response.content.decode()
    assert "You have withdrawn from the tournament" in page
    assert "data-withdraw-confirm" not in page and "data-withdraw>" not in page
    assert "data-withdrawn" in page


def test_before_the_start_a_swiss_ranks_nobody_as_a_duplicate_does(client, alice, bob):
    upcoming = swiss(alice, bob, start=False)
    page = client.get(upcoming.get_absolute_url()).text
    places = re.findall(r"<tr[^>]*data-entry=\"\w+\"><td>([^<]*)</td>", page)
    assert places == ["–", "–"]
    started = swiss(alice, bob)
    assert "<td>=1</td>" in client.get(started.get_absolute_url()).text  # the tie of 0 points


def test_the_start_and_the_closes_are_written_with_their_zone(client, alice, bob):
    tournament = duplicate(alice, bob)
    for path in (tournament.get_absolute_url(), reverse("tournaments")):
        page = client.get(path).text
        times = re.findall(r"<time [^>]*>[^<]*</time>", page)
        assert times and all('data-local="zoned"' in t and " UTC</time>" in t for t in times)


def test_the_paces_of_a_swiss_are_offered_from_the_shortest_to_the_longest(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_swiss")).text
    chosen = re.search(r'<select name="pace".*?</select>', page, flags=re.S).group()
    assert re.findall(r'value="(\w+)"', chosen) == ["15s", "30s", "60s", "1h", "12h", "1d"]
    form = client.get(reverse("new_tournament")).text
    assert "Start (UTC)" in form and "Start (UTC)" in page


def test_the_start_suggested_is_the_first_quarter_hour_ten_minutes_ahead():
    noon = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    for now, suggested in (
        (noon, "12:15"),
        (noon.replace(minute=5), "12:15"),
        (noon.replace(minute=5, second=1), "12:30"),
        (noon.replace(minute=52, microsecond=7), "13:15"),
    ):
        assert f"{suggested_start(now):%H:%M:%S.%f}" == f"{suggested}:00.000000"


def test_the_forms_suggest_a_start_which_is_taken_or_changed(client, alice):
    client.force_login(alice)
    for form in ("new_tournament", "new_swiss"):
        page = client.get(reverse(form)).text
        value = re.search(r'<input [^>]*name="starts" value="([^"]+)"', page).group(1)
        start = datetime.strptime(value, "%Y-%m-%dT%H:%M").replace(tzinfo=UTC)
        assert start.minute % 15 == 0
        assert timedelta(minutes=9) < start - timezone.now() <= timedelta(minutes=25)
    data = {"name": "Soon cup", "games": "1", "way": "window", "window": "1d", "open": "on"}
    response = client.post(reverse("new_tournament"), {**data, "starts": value})
    assert response.status_code == 302 and Tournament.objects.get().starts == start
    later = (start + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    client.post(reverse("new_tournament"), {**data, "name": "Later cup", "starts": later})
    assert Tournament.objects.get(name="Later cup").starts == start + timedelta(hours=1)


def test_a_start_is_read_in_the_zone_the_page_sends(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_tournament")).text
    assert 'type="hidden" name="zone" data-zone="starts"' in page
    assert 'data-zone-label="Start (your time: {zone})"' in page
    german = client.get(reverse("new_swiss"), HTTP_ACCEPT_LANGUAGE="de").text
    assert 'data-zone-label="Beginn (deine Zeit: {zone})"' in german
    data = {"name": "Zoned cup", "games": "1", "way": "window", "window": "1d", "open": "on"}
    typed = (timezone.now() + timedelta(days=30)).replace(hour=20, minute=0, second=0)
    starts = typed.strftime("%Y-%m-%dT%H:%M")
    response = client.post(
        reverse("new_tournament"), {**data, "starts": starts, "zone": "Asia/Kolkata"}
    )
    assert response.status_code == 302
    assert Tournament.objects.get().starts == typed.replace(microsecond=0) - timedelta(
        hours=5, minutes=30
    )
    swiss_data = {"name": "Zoned swiss", "table_size": "2", "pace": "1d", "open": "on"}
    client.post(reverse("new_swiss"), {**swiss_data, "starts": starts, "zone": "UTC"})
    assert Tournament.objects.get(name="Zoned swiss").starts == typed.replace(microsecond=0)
    for zone in ("Mars/Olympus", "../../etc/passwd"):
        refused = client.post(reverse("new_tournament"), {**data, "starts": starts, "zone": zone})
        assert refused.status_code == 400
        assert "is not known: type the start in UTC." in refused.text
        assert f'name="starts" value="{starts}"' in refused.text  # kept as typed
    assert Tournament.objects.count() == 2


def test_another_entrants_game_is_hidden_with_the_truth_and_the_way_back(client, alice, bob, carol):
    tournament = duplicate(alice, bob)
    match = tournaments.play(tournament.pk, alice, 1)
    play.resign(match.pk, alice)  # over, while game 1 is open for the others
    for reader, words in (
        (bob, "The other entrants&#x27; games on game 1 of Autumn cup stay hidden until you"),
        (carol, "Game 1 of Autumn cup stays hidden until it closes"),
    ):
        client.force_login(reader)
        response = client.get(match.get_absolute_url())
        page = response.content.decode()
        assert response.status_code == 403 and words in page
        assert "You are playing" not in page and "Back home" not in page
        assert f'href="{tournament.get_absolute_url()}" data-back' in page
    german = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "bleibt verborgen, bis es schließt" in german and "Zurück zum Turnier" in german


@pytest.mark.django_db(transaction=True)  # the next game comes after the commit
def test_a_finished_live_game_leads_its_player_to_the_next_game_at_once(client, alice, bob, carol):
    tournament = live_started(alice, bob, games=2)

    def game(player, number):
        return Match.objects.get(
            puzzle__tournament=tournament, puzzle__number=number, seats__player=player
        )

    first = game(alice, 1)
    play.resign(first.pk, alice)
    client.force_login(alice)
    page = client.get(first.get_absolute_url()).text
    look = reverse("tournament_next", args=[first.pk])
    assert f'hx-get="{look}" hx-trigger="every 2s"' in page
    assert "data-live-leaders" not in page  # a game over shows no leaders going on without it
    waiting = client.get(look, HTTP_HX_REQUEST="true")
    assert "HX-Redirect" not in waiting and "data-next-tournament-poll" in waiting.text
    assert "Your next game opens here by itself as soon as it begins." in page
    assert "The others are still playing this game." in page  # bob
    german = client.get(first.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Dein nächstes Spiel öffnet sich hier von selbst, sobald es beginnt." in german
    assert "Die anderen spielen dieses Spiel noch." in german
    play.resign(game(bob, 1).pk, bob)  # the last game on the deal over: a pause, then game 2
    waiting = client.get(look, HTTP_HX_REQUEST="true")
    assert "HX-Redirect" not in waiting and "Game 2 begins in" in waiting.text
    assert "still playing" not in waiting.text
    assert "data-countdown" in waiting.text and 'data-up="a moment"' in waiting.text
    german = client.get(look, HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="de").text
    assert "Spiel 2 beginnt in" in german and 'data-up="einem Augenblick"' in german
    break_over(tournament)
    second = game(alice, 2)
    assert client.get(look, HTTP_HX_REQUEST="true")["HX-Redirect"] == second.get_absolute_url()
    page = client.get(first.get_absolute_url()).text
    assert f'<a class="button big" href="{second.get_absolute_url()}">Your game 2 has begun' in page
    assert f'hx-get="{look}" hx-trigger="load"' in page  # a page drawn after it opens it too
    german = client.get(first.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Dein Spiel 2 hat begonnen" in german
    play.resign(second.pk, alice)  # the last game: no other to look for while bob plays on
    page = client.get(second.get_absolute_url()).text
    assert "data-next-tournament-poll" not in page and "opens here by itself" not in page
    client.force_login(carol)  # not a player of it
    assert client.get(look, HTTP_HX_REQUEST="true").status_code == 404


@pytest.mark.django_db(transaction=True)  # the next game comes after the commit
@pytest.mark.parametrize(("pace", "every", "opened"), [("30s", 2, True), ("1d", 30, False)])
def test_a_finished_swiss_table_leads_to_the_next_rounds(client, alice, bob, pace, every, opened):
    tournament = swiss(alice, bob, pace=pace)
    table = tournament.tables.get()
    client.force_login(alice)
    look = reverse("tournament_next", args=[table.pk])
    play.resign(table.pk, bob)  # the round's last table over: round 2 is paired at once
    table.refresh_from_db()
    after = tournament.tables.get(round=2)
    answer = client.get(look, HTTP_HX_REQUEST="true")
    if opened:  # played live: opened at once, its clock running
        assert answer["HX-Redirect"] == after.get_absolute_url()
    else:  # by post: linked
        assert "HX-Redirect" not in answer
        assert f'href="{after.get_absolute_url()}">Your table of round 2 is ready' in answer.text
    play.resign(after.pk, bob)  # the last round over: nothing to look for
    page = client.get(table.get_absolute_url()).text
    assert "data-next-tournament-poll" not in page and "data-next-tournament-game" not in page
    assert f'hx-trigger="every {every}s"' not in page


@pytest.mark.parametrize(
    ("pace", "told"), [("30s", "opens here by itself"), ("1d", "is linked here")]
)
def test_a_finished_swiss_table_says_the_next_round_comes_to_it(
    client, alice, bob, carol, pace, told
):
    dave = User.objects.create_user("dave")
    tournament = swiss(alice, bob, carol, dave, pace=pace)
    table = tournament.tables.get(seats__player=alice)
    play.resign(table.pk, alice)  # the other table plays on: round 2 waits for it
    client.force_login(alice)
    page = client.get(table.get_absolute_url()).text
    wait = page[page.index("data-next-tournament-poll") :]
    assert wait.startswith(f"data-next-tournament-poll>Your table of the next round {told}")
    german = client.get(table.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Deine Partie der nächsten Runde" in german
    # withdrawn, no next round is theirs: nothing says one comes
    swiss_rounds.withdraw(tournament.pk, alice)
    page = client.get(table.get_absolute_url()).text
    assert "data-next-tournament-poll" not in page and "data-back-to-tournament" in page


def test_a_game_at_ones_own_pace_looks_for_no_next_game(client, alice, bob):
    tournament = duplicate(alice, bob)
    match = tournaments.play(tournament.pk, alice, 1)
    play.resign(match.pk, alice)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert "data-back-to-tournament" in page and "data-next-tournament-poll" not in page


def test_a_real_time_tournaments_page_looks_for_its_start_and_tables_every_2_s(client, alice, bob):
    """Its first move's clock runs from the start: the page follows it within 2 s."""
    client.force_login(alice)
    for pace, every in (("30s", 2), ("1d", 5)):
        for start in (False, True):
            tournament = swiss(alice, bob, pace=pace, start=start)
            page = client.get(tournament.get_absolute_url()).text
            assert f'hx-trigger="every {every}s" hx-swap="outerHTML" data-standings' in page


@pytest.mark.django_db(transaction=True)  # the next game comes after the commit
def test_a_live_tournaments_page_opens_the_entrants_game_when_it_starts_or_deals_the_next(
    client, alice, bob, carol
):
    tournament = live_started(alice, bob, games=2)
    standings = reverse("tournament_standings", args=[tournament.pk])
    board = reverse("tournament_live", args=[tournament.pk])
    mine = Match.objects.get(puzzle__tournament=tournament, puzzle__number=1, seats__player=bob)
    client.force_login(bob)
    started = client.get(standings, {"state": "upcoming"}, HTTP_HX_REQUEST="true")
    assert started["HX-Redirect"] == mine.get_absolute_url()
    for player in (alice, bob):
        game = Match.objects.get(
            puzzle__tournament=tournament, puzzle__number=1, seats__player=player
        )
        play.resign(game.pk, player)
    # the pause between the games: the page, fetched again once, says when the next begins
    assert client.get(board, {"state": "running", "game": "1"})["HX-Refresh"] == "true"
    pause = client.get(board, {"state": "running", "game": "0"}, HTTP_HX_REQUEST="true")
    assert "Game 2 of 2 begins in" in pause.text and "data-countdown" in pause.text
    break_over(tournament)
    second = Match.objects.get(puzzle__tournament=tournament, puzzle__number=2, seats__player=bob)
    dealt = client.get(board, {"state": "running", "game": "0"}, HTTP_HX_REQUEST="true")
    assert dealt["HX-Redirect"] == second.get_absolute_url()
    client.force_login(carol)  # no game of hers: the page is fetched again
    assert client.get(standings, {"state": "upcoming"})["HX-Refresh"] == "true"
    assert client.get(board, {"state": "running", "game": "1"})["HX-Refresh"] == "true"


@pytest.mark.parametrize(("pace", "opened"), [("30s", True), ("1d", False)])
def test_a_real_time_swiss_page_opens_the_players_table_when_it_starts(
    client, alice, bob, pace, opened
):
    tournament = swiss(alice, bob, pace=pace)
    table = tournament.tables.get()
    client.force_login(alice)
    answer = client.get(
        reverse("tournament_standings", args=[tournament.pk]), {"state": "upcoming"}
    )
    if opened:
        assert answer["HX-Redirect"] == table.get_absolute_url()
    else:  # by post: the page shows the table
        assert answer["HX-Refresh"] == "true"
