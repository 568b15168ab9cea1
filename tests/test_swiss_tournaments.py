"""Swiss tournaments of nmbrs!: creating one, the start pairing round 1, tables finishing
pairing the next round once (also when two finish at once), byes, withdrawals, the final
standings and the sweep finding a round left unpaired."""

import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.urls import reverse
from django.utils import timezone, translation

from games import tasks
from games.infra import sweep
from games.models import Entry, Match, Notification, Seat, SwissRound, Tournament
from games.services import MoveRefused
from games.services.features import swiss_rounds, tournaments
from tests.factories import new_swiss as new
from tests.factories import said
from tests.factories import started_swiss as started
from tests.factories import swiss_players as players
from tests.factories import win_table as win

pytestmark = pytest.mark.django_db


def tables(tournament, number: int) -> list[Match]:
    return list(tournament.tables.filter(round=number).order_by("pk"))


def test_a_swiss_is_created_with_its_settings_and_refuses_bad_ones(alice):
    tournament = new(alice, table_size=3, pace="30s", options={"simplified": True})
    assert tournament.format == "swiss" and tournament.game == "nmbrs"
    assert tournament.table_size == 3 and tournament.games == 2
    assert tournament.mode == "live" and tournament.time_per_move == timedelta(seconds=30)
    assert tournament.options["simplified"] is True
    assert swiss_rounds.pace_of(tournament) == "30s"
    for bad, words in (
        ({"table_size": 5}, "players a table"),
        ({"rounds": 11}, "1 to 10 rounds"),
        ({"pace": "7d"}, "time per move"),
        ({"name": " "}, "name"),
    ):
        with pytest.raises(MoveRefused, match=words):
            new(alice, **bad)


def test_the_start_pairs_round_one_as_swiss_says_with_casual_tables_and_a_bye():
    five = players(5)
    tournament = started(five)
    assert tournament.status == "running"
    first = SwissRound.objects.get(tournament=tournament, number=1)
    assert len(first.byes) == 1  # an odd count at tables of 2
    matches = tables(tournament, 1)
    assert len(matches) == 2
    for match in matches:
        assert match.status == "active" and match.players == 2 and not match.rated
        assert match.time_per_move == timedelta(days=1) and match.game == "nmbrs"
        assert not match.open
    seated = {s.player_id for s in Seat.objects.filter(match__in=matches)}
    assert seated | set(first.byes) == {p.pk for p in five}
    assert said(player=matches[0].seats.first().player)[0] == (
        "Round 1 of Swiss cup has started: your table is ready."
    )
    assert said(player_id=first.byes[0]) == [
        "Round 1 of Swiss cup has started: you have a bye (1 point)."
    ]


def test_finishing_the_last_table_pairs_the_next_round_and_the_last_finishes_it(
    django_capture_on_commit_callbacks,
):
    four = players(4)
    tournament = started(four)
    one, two = tables(tournament, 1)
    with django_capture_on_commit_callbacks(execute=True):
        win(one)
    assert not tables(tournament, 2)  # a table of round 1 is still being played
    with django_capture_on_commit_callbacks(execute=True):
        win(two)
    second = tables(tournament, 2)
    assert len(second) == 2
    winners = {one.seats.get(rank=1).player_id, two.seats.get(rank=1).player_id}
    top = {s.player_id for s in second[0].seats.all()} | {
        s.player_id for s in second[1].seats.all()
    }
    assert top == {p.pk for p in four}
    # the winners meet, and nobody meets their round-1 opponent again
    assert any({s.player_id for s in m.seats.all()} == winners for m in second)
    for match in second:
        with django_capture_on_commit_callbacks(execute=True):
            win(match)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    lines = swiss_rounds.standings(tournament)
    assert lines[0].score == 2 and lines[0].place == 1
    assert [e.rank for e in tournament.entries.order_by("rank")][0] == 1
    champion = User.objects.get(pk=lines[0].entrant)
    assert "Swiss cup is over: you finished #1 of 4." in said(player=champion)


def test_the_sweep_finds_a_complete_round_left_unpaired_and_pairs_it_once():
    four = players(4)
    tournament = started(four)
    for match in tables(tournament, 1):
        win(match)  # no after-commit here: as if the subscriber never ran
    assert sweep.tournament_work()["swiss"] == [tournament.pk]
    tasks.run_tournaments()
    assert len(tables(tournament, 2)) == 2
    assert sweep.tournament_work()["swiss"] == []
    assert swiss_rounds.advance(tournament.pk) == ""  # nothing more to do
    assert SwissRound.objects.filter(tournament=tournament).count() == 2


def test_a_withdrawn_entrant_is_paired_no_more_and_keeps_their_place():
    four = players(4)
    tournament = started(four)
    quitter = four[3]
    swiss_rounds.withdraw(tournament.pk, quitter)
    with pytest.raises(MoveRefused):
        swiss_rounds.withdraw(tournament.pk, quitter)
    for match in tables(tournament, 1):
        win(match)
    assert swiss_rounds.advance(tournament.pk) == "paired"
    second = SwissRound.objects.get(tournament=tournament, number=2)
    seated = set(Seat.objects.filter(match__round=2).values_list("player_id", flat=True))
    assert quitter.pk not in seated and quitter.pk not in second.byes
    assert len(second.byes) == 1
    lines = swiss_rounds.standings(tournament)
    assert any(line.entrant == quitter.pk and line.withdrawn for line in lines)


def test_too_few_entrants_call_a_swiss_off(alice):
    tournament = new(alice)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert swiss_rounds.start(tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == "cancelled" and not tournament.tables.exists()


def test_rounds_left_to_the_start_are_as_many_as_the_entrants_need():
    tournament = started(players(5), rounds=None)
    assert tournament.games == 4  # 2 ** 3 >= 5, plus one


def test_tables_of_three_and_four_take_everybody():
    seven = players(7)
    tournament = started(seven, table_size=4)
    sizes = sorted(m.players for m in tables(tournament, 1))
    assert sizes == [3, 4]
    assert SwissRound.objects.get(tournament=tournament, number=1).byes == []
    assert Notification.objects.filter(message=swiss_rounds.ROUND_STARTED).count() == 7


@pytest.mark.django_db(transaction=True)
def test_two_last_tables_finishing_at_once_pair_one_round_two():
    four = players(4)
    tournament = started(four)
    matches = tables(tournament, 1)
    barrier = threading.Barrier(2)
    failures = []

    def finish(match):
        try:
            barrier.wait(timeout=10)
            win(match)  # its after-commit subscriber pairs round 2 if its round is over
        except Exception as exc:  # pragma: no cover - shown by the assertion
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(m,)) for m in matches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not failures
    assert SwissRound.objects.filter(tournament=tournament, number=2).count() == 1
    assert len(tables(tournament, 2)) == 2
    assert Entry.objects.filter(tournament=tournament).count() == 4


# ------------------------------------------------------------------ pages


def test_create_a_swiss_through_its_page_and_see_its_rounds_and_standings(client):
    four = players(4)
    client.force_login(four[0])
    assert "data-new-swiss" in client.get(reverse("tournaments")).text
    starts = (timezone.now() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    data = {"name": "Web swiss", "table_size": "2", "rounds": "", "pace": "30s"}
    response = client.post(
        reverse("new_swiss"), {**data, "starts": starts, "open": "on", "simplified": "on"}
    )
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == tournament.get_absolute_url()
    assert tournament.games == 0 and tournament.options["simplified"] is True
    for player in four[1:]:
        tournaments.join(tournament.pk, player)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    swiss_rounds.start(tournament.pk)
    page = client.get(tournament.get_absolute_url()).text
    assert "Swiss" in page and "3 rounds" in page and "30 seconds per move" in page
    assert 'data-round="1"' in page and page.count("data-table=") == 2
    assert "Your game in round 1" in page and "Buchholz" in page
    mine = tournament.tables.get(seats__player=four[0])
    assert mine.get_absolute_url() in page
    win(mine)
    polled = client.get(reverse("tournament_standings", args=[tournament.pk])).text
    assert "data-swiss-standings" in polled and "data-points>1<" in polled
    assert client.post(reverse("tournament_withdraw", args=[tournament.pk])).status_code == 302
    assert Entry.objects.get(tournament=tournament, player=four[0]).withdrawn
    response = client.post(reverse("tournament_withdraw", args=[tournament.pk]))
    assert response.status_code == 400 and "You are not in this tournament." in response.text


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"name": "x", "table_size": "5", "pace": "1d", "starts": "2999-01-01T10:00"},
        {"name": "x", "table_size": "2", "pace": "7d", "starts": "2999-01-01T10:00"},
        {
            "name": "x",
            "table_size": "2",
            "rounds": "11",
            "pace": "1d",
            "starts": "2999-01-01T10:00",
        },
        {"name": "x", "table_size": "2", "pace": "1d", "starts": "2000-01-01T10:00"},
    ],
)
def test_a_bad_swiss_form_is_refused_with_a_message(client, alice, data):
    client.force_login(alice)
    response = client.post(reverse("new_swiss"), data)
    assert response.status_code == 400 and 'class="error' in response.text.replace(
        "errorlist", "error"
    )
    assert not Tournament.objects.exists()


def test_the_swiss_pages_in_german(client):
    four = players(4)
    client.force_login(four[0])
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    form = client.get(reverse("new_swiss"), **german).text
    assert "Turnier nach Schweizer System" in form and "Spieler an jedem Tisch" in form
    response = client.post(
        reverse("new_swiss"),
        {"name": "x", "table_size": "2", "pace": "1d", "starts": "2000-01-01T10:00"},
        **german,
    )
    assert response.status_code == 400 and "Zukunft" in response.text
    tournament = started(four)
    page = client.get(tournament.get_absolute_url(), **german).text
    assert "Runde 1" in page and "Deine Partie in Runde 1" in page and "Tisch 1" in page
    assert said(player=four[0])  # a notification in English by default
    with translation.override("de"):
        assert said(player=four[0])[0].startswith("Runde 1 von Swiss cup hat begonnen")
