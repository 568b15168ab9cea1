"""Expiry throughput: how fast one Celery worker plays the fallback tile for due seats.

Run with ``./run bench`` (or ``python -m bench.expiry [--seats N]``). Creates N due seats
(in N/2 two-player free-pace matches, every deadline already past) in a throw-away test
database on DATABASE_URL, starts one real worker process (solo pool, one task at a time) on
a queue of its own on the Redis of REDIS_URL, sends the beat job ``sweep`` once
and times until every seat has its tile placed and its strike counted. The worker does all
the work a real expiry does: the engine's fallback tile, the move, the strike, the next
deadline with its reminder time, and the notifications.
Run it while no test run uses the same database server: it uses the test database name.
"""

from __future__ import annotations

import argparse
import os
import time
import uuid
from datetime import timedelta

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

from games.models import Match, Seat  # noqa: E402
from nmbr9site import processes  # noqa: E402
from nmbr9site.celery import app  # noqa: E402

TARGET_SECONDS = 60


def make_due_seats(count: int) -> None:
    players = [User.objects.create_user(f"p{i}", f"p{i}@example.com", "pw") for i in range(10)]
    now = timezone.now()
    matches = Match.objects.bulk_create(
        Match(
            kind=Match.Kind.MATCH,
            game="nmbr9",
            options={"pace": "free", "removed": 0},
            status=Match.Status.ACTIVE,
            seed=i,
            players=2,
            time_per_move=timedelta(hours=1),
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
            deadline=now - timedelta(seconds=1),
            turn=0,
        )
        for i, match in enumerate(matches)
        for side in (0, 1)
    ]
    Seat.objects.bulk_create(seats[:count], batch_size=2000)


def start_worker(queue: str):
    return processes.celery("worker", queue=queue, extra=["--pool", "solo", "--without-heartbeat"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.expiry", description=__doc__)
    parser.add_argument("--seats", type=int, default=10_000, help="due seats to expire")
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
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=30)
        with app.connection_for_write() as redis:
            redis.default_channel.client.delete(queue)
        connection.close()
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
