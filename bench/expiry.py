"""Expiry throughput: how fast one Celery worker plays the fallback tile for due seats.

Run with ``./run bench`` (or ``python -m bench.expiry [--seats N]``). Creates N due seats
(in N/2 two-player free-pace matches, every deadline already past) in a throw-away test
database on DATABASE_URL, starts one real worker process (solo pool, one task at a time) on
a queue of its own on the Redis of REDIS_URL, sends the beat job ``sweep`` once
and times until every seat has its tile placed and its strike counted. The worker does all
the work a real expiry does: the engine's fallback tile, the move, the strike, the next
deadline with its reminder time, and the notifications.

Then the delay from due to done under a par backlog, as the site runs: a worker on the
default queue (two processes), a slow worker (one) and beat, real processes; a refilled stock
of puzzles whose par is still to search, and seats falling due over a minute. Each seat's
delay is from its deadline to its fallback move; target p95 <= 60 s (``--backlog-seats 0``
skips it).

Then the lateness of real-time deadlines (``--realtime-seats``, 1,000 seats of 15 s a move
falling due over ``--spread`` seconds beside as many correspondence seats and the par
backlog, the clock and the fast worker running): from each deadline to its fallback move,
p50 / p99 / max; target p99 <= 2 s.

Then one sweep in the history of a successful niche site (``bench.world``, ``--history``
1.0: 20,000 players, 278,000 finished matches with 801,000 seats, 5,000 under way,
1,000,000 notifications; 0 skips it), where nothing is due: the sweep's time, median and
slowest of ``--sweeps`` (5), and each of its queries'; target <= 500 ms (PostgreSQL).
Run it while no test run uses the same database server: it uses the test database name.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")
# As in production: without DEBUG, which keeps every query in memory.
os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", "bench-" + uuid.uuid4().hex * 2)
os.environ.setdefault("SITE_URL", "http://127.0.0.1")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import (  # noqa: E402
    setup_databases,
    setup_test_environment,
    teardown_databases,
)
from django.utils import timezone  # noqa: E402

from games.infra.queue import queue_names  # noqa: E402
from games.models import Match, Move, Puzzle, Seat  # noqa: E402
from games.models.matches import REALTIME  # noqa: E402
from games.services.features import puzzles  # noqa: E402
from nmbr9site import processes  # noqa: E402
from nmbr9site.celery import app  # noqa: E402

TARGET_SECONDS = 60
#: Seconds the site's processes are given to start before seats begin to fall due.
WARM_UP_SECONDS = 10
#: The p99 target of a real-time deadline's lateness: from the deadline to the fallback move.
REALTIME_TARGET_SECONDS = 2
#: The p95 target of the delay from a deadline to its fallback move under a par backlog.
DELAY_TARGET_SECONDS = 60
#: The target of one sweep in the history of ``bench.world`` at scale 1.
SWEEP_TARGET_MS = 500


def make_due_seats(count: int, deadline=None, per_move=timedelta(hours=1)) -> None:
    """``count`` seats in two-player free-pace matches, due now or at ``deadline()`` each,
    with ``per_move`` for each next decision."""
    players = list(User.objects.filter(username__startswith="p").order_by("pk")) or [
        User.objects.create_user(f"p{i}", f"p{i}@example.com", "pw") for i in range(10)
    ]
    now = timezone.now()
    matches = Match.objects.bulk_create(
        Match(
            kind=Match.Kind.MATCH,
            game="nmbr9",
            options={"pace": "free", "removed": 0},
            status=Match.Status.ACTIVE,
            seed=i,
            players=2,
            time_per_move=per_move,
            created_by=players[0],
            started=now - timedelta(hours=1),
        )
        for i in range((count + 1) // 2)
    )
    seats = [
        Seat(
            match=match,
            player=players[(i + side) % 10],
            index=side,
            state=Seat.State.PLAYING,
            deadline=deadline() if deadline else now - timedelta(seconds=1),
            turn=0,
        )
        for i, match in enumerate(matches)
        for side in (0, 1)
    ]
    Seat.objects.bulk_create(seats[:count], batch_size=2000)


def start_worker(queue: str):
    return processes.celery("worker", queue=queue, extra=["--pool", "solo", "--without-heartbeat"])


def delays_under_par_backlog(queue: str, seats: int, pars: int, spread: float) -> list[float]:
    """Seconds from each deadline to its fallback move, with the site's processes running and
    ``pars`` puzzles waiting for their par search."""
    Seat.objects.all().delete()
    Match.objects.all().delete()
    now = timezone.now()
    make_due_seats(seats, lambda: now + timedelta(seconds=random.uniform(5, 5 + spread)))
    due = dict(Seat.objects.values_list("pk", "deadline"))  # expiry sets the next deadlines
    state = Path(tempfile.mkdtemp(prefix="bench-expiry-"))
    running = site_processes(queue, state)
    try:
        puzzles.create_puzzles(pars)  # the stock refilled: every par still to search
        deadline = time.monotonic() + spread + 300
        while Seat.objects.filter(strikes__gte=1).count() < seats:
            if time.monotonic() > deadline:
                raise SystemExit("the seats were not all expired within 5 minutes")
            if any(process.poll() is not None for process in running):
                raise SystemExit("a worker or beat stopped")
            time.sleep(1)
        waiting = Puzzle.objects.filter(par=None).count()
        print(f"par searches still waiting when the last seat was expired: {waiting} of {pars}")
        return first_fallbacks(due)
    finally:
        for process in running:
            process.kill()
            process.wait()


def site_processes(queue: str, state: Path) -> list:
    """The site's background processes, as ``./run start`` starts them: the worker (two
    processes), the slow worker (one), the fast worker (two), the clock and beat."""
    default, slow, fast = queue_names(queue)
    print(f"the processes' logs: {state}")
    return [
        processes.celery(
            "worker",
            queue=queue,
            queues=[default],
            extra=["--concurrency", "2"],
            log=state / "worker.log",
        ),
        processes.celery(
            "worker",
            queue=queue,
            queues=[slow],
            extra=["--concurrency", "1", "-n", "slow@%h"],
            log=state / "slow.log",
        ),
        processes.celery(
            "worker",
            queue=queue,
            queues=[fast],
            extra=["--concurrency", "2", "-n", "fast@%h"],
            log=state / "fast.log",
        ),
        processes.clock(queue=queue, log=state / "clock.log"),
        processes.celery(
            "beat", queue=queue, extra=["--schedule", str(state / "beat")], log=state / "beat.log"
        ),
    ]


def first_fallbacks(due: dict[int, object]) -> list[float]:
    """Seconds from each seat's deadline in ``due`` to the first fallback move made for it
    (seats with none left out)."""
    first: dict[int, object] = {}
    for seat, created in (
        Move.objects.filter(auto=True).order_by("created").values_list("seat_id", "created")
    ):
        first.setdefault(seat, created)
    return [(first[seat] - at).total_seconds() for seat, at in due.items() if seat in first]


def realtime_lateness(queue: str, seats: int, others: int, pars: int, spread: float):
    """Seconds from each real-time deadline (15 s a move) to its fallback move, for ``seats``
    seats falling due over ``spread`` seconds, while ``others`` correspondence seats fall
    due over the same time and ``pars`` par searches wait: the site's processes as they
    run. A real-time seat missed once falls due again 15 s later, and is then dropped, which
    ends its match: a seat of it due later never falls due, and is not counted."""
    Seat.objects.all().delete()
    Match.objects.all().delete()
    state = Path(tempfile.mkdtemp(prefix="bench-expiry-"))
    running = site_processes(queue, state)
    try:
        puzzles.create_puzzles(pars)
        time.sleep(WARM_UP_SECONDS)  # the processes started, the par searches began
        now = timezone.now()
        when = lambda: now + timedelta(seconds=random.uniform(5, 5 + spread))  # noqa: E731
        make_due_seats(seats, when, per_move=timedelta(seconds=15))
        fast = set(Seat.objects.values_list("pk", flat=True))
        make_due_seats(others, when)
        due = {pk: at for pk, at in Seat.objects.values_list("pk", "deadline") if pk in fast}
        deadline = time.monotonic() + spread + 120
        # Every real-time match ends: its first player to miss twice is dropped, which ends
        # a match of two (the other seat may never have fallen due).
        live = Match.objects.filter(status=Match.Status.ACTIVE, time_per_move__lte=REALTIME)
        while live.exists():
            if time.monotonic() > deadline:
                raise SystemExit("the real-time seats were not all expired in time")
            if any(process.poll() is not None for process in running):
                raise SystemExit("a worker, the clock or beat stopped")
            time.sleep(1)
        return first_fallbacks(due)
    finally:
        for process in running:
            process.kill()
            process.wait()


def sweep_in_history(scale: float, sweeps: int) -> None:
    """Time the sweep and each of its queries in ``bench.world``'s history at ``scale``."""
    from bench import calibration, world
    from games.infra import notifications, webpush
    from games.infra import sweep as due
    from games.services.features import guests, retention
    from games.services.match import bot_seats
    from games.services.match.play import owed_match_ids
    from games.tasks import sweep

    Seat.objects.all().delete()
    Move.objects.all().delete()
    Match.objects.all().delete()
    took = world.build(scale)
    print(f"history at scale {scale}: " + ", ".join(f"{k} {v:.0f} s" for k, v in took.items()))
    print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
    times = []
    for _ in range(sweeps):
        started = time.perf_counter()
        sweep()
        times.append((time.perf_counter() - started) * 1000)
    median = statistics.median(times)
    verdict = "met" if median <= SWEEP_TARGET_MS else "MISSED"
    print(
        f"one sweep in the history: median {median:.0f} ms   slowest {max(times):.0f} ms   "
        f"target <= {SWEEP_TARGET_MS} ms: {verdict}"
    )
    player = User.objects.order_by("id").first()
    parts = {
        "due_seats": due.due_seats,
        "due_reminders": due.due_reminders,
        "mails (notifications.due)": notifications.due,
        "pushes (webpush.due)": webpush.due,
        "unrated_matches": due.unrated_matches,
        "unweighed_attempts": due.unweighed_attempts,
        "stale_stats": due.stale_stats,
        "bot_seats.due": bot_seats.due,
        "guests.idle": guests.idle,
        "retention.prune_notifications": retention.prune_notifications,
        "owed_match_ids (every signed-in page)": lambda: owed_match_ids(player),
    }
    for name, query in parts.items():
        spent = []
        for _ in range(3):
            started = time.perf_counter()
            query()
            spent.append((time.perf_counter() - started) * 1000)
        print(f"  {name}: {statistics.median(spent):.1f} ms")
    print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")


def percentile(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.expiry", description=__doc__)
    parser.add_argument("--seats", type=int, default=10_000, help="due seats to expire")
    parser.add_argument(
        "--backlog-seats", type=int, default=200, help="seats falling due under a par backlog"
    )
    parser.add_argument("--pars", type=int, default=30, help="puzzles waiting for their par")
    parser.add_argument(
        "--realtime-seats", type=int, default=1000, help="real-time seats falling due (0: none)"
    )
    parser.add_argument(
        "--realtime-others", type=int, default=1000, help="correspondence seats due meanwhile"
    )
    parser.add_argument("--spread", type=float, default=60, help="seconds the seats fall due over")
    parser.add_argument("--history", type=float, default=1.0, help="scale of the history (0: none)")
    parser.add_argument("--sweeps", type=int, default=5, help="sweeps timed in the history")
    args = parser.parse_args(argv)

    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    queue = f"bench-{uuid.uuid4().hex[:12]}"
    app.conf.task_default_queue = queue
    worker = None
    try:
        started = time.perf_counter()
        make_due_seats(args.seats)
        print(f"set up {args.seats} due seats in {time.perf_counter() - started:.1f} s")
        worker = start_worker(queue)
        from games.tasks import sweep

        started = time.perf_counter()
        sweep.delay()
        done = 0
        while done < args.seats:
            if worker.poll() is not None:
                raise SystemExit(f"the worker stopped (exit {worker.returncode})")
            time.sleep(0.5)
            done = Seat.objects.filter(strikes=1, progress=1).count()
        seconds = time.perf_counter() - started
        verdict = "met" if seconds <= TARGET_SECONDS else "MISSED"
        print(
            f"expired {args.seats} seats with one worker in {seconds:.1f} s   "
            f"{args.seats / seconds:.0f} seats/s   target <= {TARGET_SECONDS} s: {verdict}"
        )
        print(f"database: {connection.vendor}")
        worker.terminate()
        worker.wait(timeout=30)
        worker = None
        if args.backlog_seats:
            delays = delays_under_par_backlog(queue, args.backlog_seats, args.pars, args.spread)
            p95 = percentile(delays, 0.95)
            verdict = "met" if p95 <= DELAY_TARGET_SECONDS else "MISSED"
            print(
                f"due to done under a backlog of {args.pars} par searches, {len(delays)} seats "
                f"due over {args.spread:.0f} s: p50 {percentile(delays, 0.5):.1f} s   "
                f"p95 {p95:.1f} s   max {max(delays):.1f} s   "
                f"target p95 <= {DELAY_TARGET_SECONDS} s: {verdict}"
            )
        if args.realtime_seats:
            from bench import calibration

            print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
            late = realtime_lateness(
                queue, args.realtime_seats, args.realtime_others, args.pars, args.spread
            )
            p99 = percentile(late, 0.99)
            verdict = "met" if p99 <= REALTIME_TARGET_SECONDS else "MISSED"
            print(
                f"real-time lateness, {len(late)} seats of 15 s a move due over "
                f"{args.spread:.0f} s beside {args.realtime_others} correspondence seats and "
                f"{args.pars} par searches: p50 {percentile(late, 0.5):.2f} s   "
                f"p99 {p99:.2f} s   max {max(late):.2f} s   "
                f"target p99 <= {REALTIME_TARGET_SECONDS} s: {verdict}"
            )
            print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
        if args.history:
            sweep_in_history(args.history, args.sweeps)
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=30)
        with app.connection_for_write() as redis:
            redis.default_channel.client.delete(*queue_names(queue))
        connection.close()
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
