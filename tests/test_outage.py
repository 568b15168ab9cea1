"""Redis goes away and comes back: a Redis of the test's own, stopped and started again.

A real worker process consumes from it. While it is down, moves are still answered as
usual (the tasks they send are lost, and logged); once it is back the worker consumes again
by itself, and one sweep does everything that was lost.
"""

import time
import uuid

import pytest
from django.urls import reverse

from games.models import Match, PlayerStats, RatingChange, Seat
from games.tasks import refresh_player_stats, sweep
from nmbr9site import processes
from nmbr9site.celery import app
from tests.factories import form_for, make_due, make_match, play, seat_of, wait_for

pytestmark = pytest.mark.worker


def _forget_connections() -> None:
    """Make the app take connections for its broker URL afresh (kombu keeps a pool per URL)."""
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def broker(transactional_db, tmp_path):
    """A Redis of our own as the broker of this process and of a worker process."""
    server = processes.RedisServer(directory=tmp_path).start()
    old = app.conf.broker_url
    queue = f"outage-{uuid.uuid4().hex[:8]}"
    app.conf.broker_url = server.url
    _forget_connections()
    old_queue, app.conf.task_default_queue = app.conf.task_default_queue, queue
    log = tmp_path / "worker.log"
    worker = processes.celery(
        "worker", queue=queue, redis_url=server.url, extra=["--pool", "solo"], log=log
    )
    server.worker, server.log = worker, log
    try:
        yield server
    finally:
        processes.stop(worker)
        server.stop()
        app.conf.broker_url = old
        _forget_connections()
        app.conf.task_default_queue = old_queue


def consumed(user, timeout=60.0) -> PlayerStats:
    """Send a task and wait for the worker to have run it."""
    PlayerStats.objects.filter(player=user).delete()
    refresh_player_stats.delay(user.pk)
    return wait_for(lambda: PlayerStats.objects.filter(player=user).first(), timeout=timeout)


def test_the_worker_consumes_again_after_redis_was_away(broker, alice, bob):
    consumed(alice)
    broker.stop()
    time.sleep(5)
    assert broker.worker.poll() is None, broker.log.read_text()
    broker.start()
    consumed(bob)
    assert broker.worker.poll() is None
    assert "Unrecoverable error" not in broker.log.read_text()


def place(client, match, user):
    data = form_for(match, user)
    client.force_login(user)
    return client.post(reverse("play", args=[match.pk]), data)


def test_moves_while_redis_is_down_are_answered_and_their_work_done_after(
    broker, client, alice, bob, carol
):
    consumed(carol)  # the worker is up
    ending = make_match(alice, bob, pace="free", removed=4, time_control="1d")
    for _ in range(16):
        play(ending, bob)
    for _ in range(15):
        play(ending, alice)
    running = make_match(alice, carol, pace="free", time_control="1d")

    broker.stop()
    started = time.monotonic()
    assert place(client, running, alice).status_code == 302  # a new deadline for her
    assert place(client, ending, alice).status_code == 302  # the last tile: rate the match
    assert time.monotonic() - started < 10
    ending.refresh_from_db()
    assert ending.status == Match.Status.FINISHED and ending.rated_at is None
    assert seat_of(running, alice).progress == 1
    make_due(seat_of(running, alice))  # and then her time ran out

    broker.start()
    sweep.delay()  # what beat does every half minute
    wait_for(lambda: RatingChange.objects.filter(match=ending).count() == 2, timeout=60)
    seat = wait_for(
        lambda: Seat.objects.filter(pk=seat_of(running, alice).pk, strikes=1).first(), timeout=60
    )
    assert seat.progress == 2 and seat.deadline is not None


def test_a_move_is_answered_in_time_while_redis_hangs(broker, client, alice, bob):
    """A broker that takes connections and never answers (a frozen Redis): each task the
    move sends could wait out its timeouts; the move that ends a rated match sends three."""
    import signal

    consumed(bob)  # the worker is up, and this process holds a connection to the broker
    ending = make_match(alice, bob, pace="free", removed=4, time_control="1d")
    for _ in range(16):
        play(ending, bob)
    for _ in range(15):
        play(ending, alice)
    broker.process.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        assert place(client, ending, alice).status_code == 302  # the last tile
        waited = time.monotonic() - started
    finally:
        broker.process.send_signal(signal.SIGCONT)
    assert waited < 15  # well within the web server's 30 s
    ending.refresh_from_db()
    assert ending.status == Match.Status.FINISHED and ending.rated_at is None
    sweep.delay()
    wait_for(lambda: RatingChange.objects.filter(match=ending).count() == 2, timeout=60)
