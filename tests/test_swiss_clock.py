"""Real-time swiss tournaments on the clock: started with their first round paired within
seconds of their start, and a round left unpaired paired as soon, by the fast workers, once
however often the work is handed on; an asynchronous swiss is left to the sweep."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import tasks
from games.infra import clock, queue
from games.models import Match, Notification, Seat, SwissRound, Tournament
from games.services import expire_many
from games.services.features import live_duplicate, swiss_rounds, tournaments
from nmbr9site import processes
from tests.factories import make_due, together, wait_for
from tests.factories import new_swiss as new
from tests.factories import started_swiss as started
from tests.factories import swiss_players as players
from tests.factories import win_table as win

pytestmark = pytest.mark.django_db(transaction=True)

TASK = "games.tasks.run_live_swiss"
#: Seconds from a real-time swiss's start to its first round paired, the clock and a fast
#: worker running (the sweep's 30 s are what it waited before).
SECONDS = 5.0


class Sent:
    def __init__(self):
        self.tasks = []

    def __call__(self, task, *args):
        self.tasks.append(task)
        return True


def due_swiss(entrants, **settings) -> Tournament:
    """A swiss of ``entrants`` whose start has just come (nobody started it yet)."""
    tournament = new(entrants[0], **settings)
    for player in entrants[1:]:
        tournaments.join(tournament.pk, player)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    return tournament


def round_of(tournament, number: int) -> list[Match]:
    return list(tournament.tables.filter(round=number).order_by("pk"))


def test_the_clock_hands_a_due_real_time_swiss_on_once_and_again_while_it_is_due():
    tournament = due_swiss(players(4), pace="15s")
    sent = Sent()
    ticker = clock.Ticker(TASK, swiss_rounds.due_live, send=sent)
    now = timezone.now()
    assert not live_duplicate.work_due(now)  # not the live duplicates' work
    ticker(now, moment=100.0)
    ticker(now, moment=100.25)  # sent a moment ago
    assert sent.tasks == [TASK]
    ticker(now, moment=100.0 + clock.AGAIN)  # still due: its task lost or late
    assert sent.tasks == [TASK, TASK]
    refused = []
    away = clock.Ticker(
        TASK, swiss_rounds.due_live, send=lambda task: refused.append(task) and False
    )
    away(now, moment=100.0)
    away(now, moment=100.25)  # the broker refused it: the next look tries again
    assert refused == [TASK, TASK]
    tasks.run_live_swiss()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert len(round_of(tournament, 1)) == 2
    ticker(timezone.now(), moment=110.0)  # its tables are being played: nothing is due
    assert sent.tasks == [TASK, TASK]
    assert queue.route(TASK, (), {}, {}) == {"queue": queue.queue_names()[2]}


def test_an_asynchronous_swiss_and_one_not_due_yet_are_not_the_clock_s():
    four = players(4)
    by_post = due_swiss(four, pace="1d")
    later = new(four[0], pace="30s")  # starts in an hour
    sent = Sent()
    ticker = clock.Ticker(TASK, swiss_rounds.due_live, send=sent)
    ticker(timezone.now())
    assert sent.tasks == [] and swiss_rounds.due_live(timezone.now()) == []
    assert swiss_rounds.run_live() == 0
    for tournament in (by_post, later):
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.UPCOMING
    assert not SwissRound.objects.filter(tournament__in=[by_post, later]).exists()


def test_the_fast_task_starts_a_due_real_time_swiss_and_pairs_round_one_once():
    four = players(4)
    tournament = due_swiss(four, pace="30s")
    assert swiss_rounds.due_live(timezone.now()) == [tournament.pk]
    tasks.run_live_swiss()
    tasks.run_live_swiss()  # sent twice
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING and tournament.started is not None
    assert SwissRound.objects.filter(tournament=tournament).count() == 1
    tables = round_of(tournament, 1)
    assert len(tables) == 2 and all(m.realtime and m.status == "active" for m in tables)
    told = Notification.objects.filter(message=swiss_rounds.ROUND_STARTED)
    assert sorted(told.values_list("player_id", flat=True)) == sorted(p.pk for p in four)
    assert swiss_rounds.due_live(timezone.now()) == []


def test_two_runs_at_once_start_a_real_time_swiss_once():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's row locks between concurrent transactions")
    four = players(4)
    tournament = due_swiss(four, pace="15s")
    Tournament.objects.filter(pk=tournament.pk).update(repeat=timedelta(days=7))
    results = together(swiss_rounds.run_live, swiss_rounds.run_live)
    assert not [r for r in results if isinstance(r, Exception)]
    assert SwissRound.objects.filter(tournament=tournament).count() == 1
    assert len(round_of(tournament, 1)) == 2
    assert Seat.objects.filter(match__tournament=tournament).count() == 4
    told = Notification.objects.filter(message=swiss_rounds.ROUND_STARTED)
    assert told.count() == 4
    assert Tournament.objects.filter(previous=tournament).count() == 1  # started once


def test_the_sweep_still_starts_and_pairs_a_real_time_swiss_the_clock_missed():
    tournament = due_swiss(players(4), pace="60s")
    tasks.run_tournaments()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert len(round_of(tournament, 1)) == 2


def test_a_too_small_real_time_swiss_is_called_off_on_the_clock(alice):
    tournament = due_swiss([alice], pace="15s")
    assert swiss_rounds.run_live() == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert swiss_rounds.due_live(timezone.now()) == []


def test_a_real_time_swiss_that_fails_to_move_on_holds_up_no_other(monkeypatch, caplog):
    four = players(4)
    broken = due_swiss(four[:2], pace="15s")
    fine = due_swiss(four[2:], pace="15s")
    pair = swiss_rounds.advance

    def advance(tournament_id, now=None):
        if tournament_id == broken.pk:
            raise RuntimeError("a pairing that fails")
        return pair(tournament_id, now)

    monkeypatch.setattr(swiss_rounds, "advance", advance)
    assert swiss_rounds.run_live() == 1
    assert len(round_of(fine, 1)) == 1 and not round_of(broken, 1)
    assert f"the real-time swiss {broken.pk} could not move on" in caplog.text
    monkeypatch.undo()
    assert swiss_rounds.due_live(timezone.now()) == [broken.pk]  # tried again at the next look
    assert swiss_rounds.run_live() == 1 and len(round_of(broken, 1)) == 1


def test_the_last_real_time_table_to_run_out_of_time_pairs_the_next_round_at_once():
    tournament = started(players(4), pace="15s")
    for _ in range(200):  # nobody moves: each table ends when its players' time runs out
        due = list(Seat.objects.filter(match__tournament=tournament, deadline__isnull=False))
        if not due:
            break
        for seat in due:
            make_due(seat)
        expire_many([seat.pk for seat in due])  # as the fast workers do
    assert all(m.status == Match.Status.FINISHED for m in round_of(tournament, 1))
    assert len(round_of(tournament, 2)) == 2  # paired by the last table's end, no sweep


def test_a_real_time_round_left_unpaired_is_paired_by_the_clock_not_the_sweep(monkeypatch):
    six = players(6)
    tournament = started(six[:4], pace="15s")
    by_post = started(six[4:], pace="1h")

    def failed(match):
        raise RuntimeError("the subscriber failed")

    monkeypatch.setattr(swiss_rounds, "table_finished", failed)
    for match in round_of(tournament, 1) + round_of(by_post, 1):
        win(match)
    monkeypatch.undo()
    assert not round_of(tournament, 2)
    assert swiss_rounds.due_live(timezone.now()) == [tournament.pk]  # by post: the sweep's
    assert swiss_rounds.run_live() == 1
    assert len(round_of(tournament, 2)) == 2 and not round_of(by_post, 2)


def test_the_clock_and_the_fast_worker_start_a_real_time_swiss_within_seconds(
    celery_queue, tmp_path
):
    """The clock's process and a fast worker alone, no sweep: round 1 is paired at once."""
    fast = queue.queue_names()[2]
    worker = processes.celery(
        "worker", queue=celery_queue, queues=[fast], log=tmp_path / "fast.log"
    )
    ticking = processes.clock(queue=celery_queue, log=tmp_path / "clock.log")
    eight = players(8)
    try:
        first = due_swiss(eight[:4], pace="15s")
        wait_for(lambda: len(round_of(first, 1)) == 2, timeout=60)  # both processes are up
        second = due_swiss(eight[4:], pace="15s")
        wait_for(lambda: len(round_of(second, 1)) == 2, timeout=SECONDS)
        assert Tournament.objects.get(pk=second.pk).status == Tournament.Status.RUNNING
    finally:
        for process in (ticking, worker):
            processes.stop(process)
