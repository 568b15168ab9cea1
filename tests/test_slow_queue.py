"""Slow work (par searches, refills, player figures) has a queue and a worker of its own:
a deadline, a bot's move, a rating or a mail never waits behind it. Real worker processes
consume from the real Redis."""

import time

import pytest

from games.infra import queue
from games.infra.sweep import PAR_IN_FLIGHT
from games.models import Puzzle, Seat
from games.services.features import puzzles
from games.tasks import compute_par, expire_seats, refresh_player_stats, sweep
from nmbr9site import processes
from nmbr9site.celery import app
from tests.factories import TIMED_SENDS, make_due, make_match, play, seat_of, wait_for

#: How often beat sends the sweep: an overdue seat is expired within one period.
SWEEP_SECONDS = app.conf.beat_schedule["sweep"]["schedule"]


def lengths() -> list[int]:
    """How many tasks wait in the default queue, the slow one and the fast one."""
    with app.connection_for_write() as connection:
        client = connection.default_channel.client
        return [client.llen(name) for name in queue.queue_names()]


def forget_queued() -> None:
    with app.connection_for_write() as connection:
        connection.default_channel.client.delete(*queue.queue_names())


@pytest.mark.django_db
def test_slow_tasks_go_to_the_slow_queue_expiries_to_the_fast_one_the_rest_to_the_default():
    forget_queued()
    try:
        queue.send_now(compute_par.name, 0, None)
        queue.send_now(refresh_player_stats.name, 0)
        assert lengths() == [0, 2, 0]
        queue.send_now(expire_seats.name, [])
        queue.send_now(sweep.name)
        assert lengths() == [1, 2, 1]
    finally:
        forget_queued()


@pytest.mark.django_db
def test_a_refill_asks_for_par_a_few_puzzles_at_a_time(django_capture_on_commit_callbacks):
    forget_queued()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            made = puzzles.create_puzzles(30)
        asked = Puzzle.objects.filter(par=None, par_queued__isnull=False)
        assert asked.count() == PAR_IN_FLIGHT == lengths()[1]
        assert puzzles.ask_for_par(at_once=True) == 0  # as many asked for as may be
        # A search done: the next puzzle is asked for, the oldest first.
        done = asked.order_by("id").first()
        Puzzle.objects.filter(pk=done.pk).update(par=100)
        assert puzzles.ask_for_par(at_once=True) == 1
        assert asked.count() == PAR_IN_FLIGHT and lengths()[1] == PAR_IN_FLIGHT + 1
        assert set(asked.values_list("pk", flat=True)) == {p.pk for p in made[1:3]}
    finally:
        forget_queued()


@pytest.mark.django_db
def test_a_task_sent_with_a_countdown_fails_the_test_that_sent_it(celery_queue):
    """The guard every test runs under (tests/conftest.py) sees a task sent with a countdown
    wherever it is sent from."""
    elsewhere = f"{celery_queue}-guard"
    try:
        refresh_player_stats.apply_async((0,), countdown=60, queue=elsewhere)
        assert [name for name, _eta in TIMED_SENDS] == [refresh_player_stats.name]
    finally:
        TIMED_SENDS.clear()
        with app.connection_for_write() as connection:
            connection.default_channel.client.delete(elsewhere)


@pytest.fixture
def workers(transactional_db, celery_queue, tmp_path):
    """The site's two workers as processes, one task at a time each: the default queue's and
    the slow queue's, the latter searching the full par (many seconds a puzzle)."""
    forget_queued()
    default, slow, fast = queue.queue_names()
    effort = {"PUZZLE_PAR_EFFORT": "1"}
    started = []
    try:
        for name, consumed in (("default", [default, fast]), ("slow", [slow])):
            started.append(
                processes.celery(
                    "worker",
                    queue=celery_queue,
                    queues=consumed,
                    extra=["--pool", "solo", "--hostname", f"{name}@%h"],
                    env=effort,
                    log=tmp_path / f"{name}.log",
                )
            )
        yield tmp_path
    finally:
        for worker in started:
            worker.kill()  # a par search would keep a warm shutdown waiting
            worker.wait()
        forget_queued()


def test_an_overdue_seat_is_expired_within_a_sweep_while_par_searches_are_waiting(
    workers, alice, bob
):
    puzzles.create_puzzles(30)  # the stock refilled: 30 puzzles whose par is still to search
    wait_for(lambda: "compute_par[" in (workers / "slow.log").read_text(), timeout=60)
    match = make_match(alice, bob, pace="rounds")
    play(match, bob)
    seat = seat_of(match, alice)
    make_due(seat)
    asked = time.monotonic()
    sweep.delay()  # as beat sends it

    wait_for(lambda: Seat.objects.filter(pk=seat.pk, strikes=1).exists(), timeout=SWEEP_SECONDS)
    assert time.monotonic() - asked < SWEEP_SECONDS
    # The slow worker was busy all along, with only the next searches waiting for it.
    assert Puzzle.objects.filter(par=None).count() >= 30 - PAR_IN_FLIGHT
    assert lengths()[1] <= PAR_IN_FLIGHT
