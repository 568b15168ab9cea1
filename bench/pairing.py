"""Quick pairing under load: ``python -m bench.pairing`` (PostgreSQL).

``--players`` (200) accounts join the NMBR 9 pool of 2 players at 30 s a move over
``--spread`` (60) seconds, in pairs of similar rating (each pair's second player joins 0-3 s
after the first), from ``--threads`` (50) threads at once, each waiting player's page asking
for its status every second as the waiting page does, while a clock thread pairs every
quarter second as ``manage.py clock`` does. Figures: the time from the moment a partner was
there (the later of a match's joins) to the match's start, p50 / p95 (target p95 <= 5 s),
and from a player's join to their page seeing the match; the players in two new matches
(target 0) and the entries lost (neither paired nor waiting: target 0). A throw-away test
database on DATABASE_URL; the Redis of REDIS_URL carries the match's announcements.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")
os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", "bench-" + uuid.uuid4().hex * 2)
os.environ.setdefault("SITE_URL", "http://127.0.0.1")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.test.utils import (  # noqa: E402
    setup_databases,
    setup_test_environment,
    teardown_databases,
)

from bench import calibration  # noqa: E402
from games.models import Match, PoolEntry, Rating, Seat  # noqa: E402
from games.services.features import pools  # noqa: E402

TARGET_P95_SECONDS = 5.0


def percentile(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


def make_players(count: int) -> list[tuple[User, float]]:
    """``count`` accounts with a real-time rating, in pairs of similar rating."""
    players = User.objects.bulk_create(
        User(username=f"pool{i}", email=f"pool{i}@example.com") for i in range(count)
    )
    rng = random.Random(9)
    ratings = []
    for _pair in range(0, count, 2):
        base = rng.uniform(900, 2300)
        ratings += [base, base + rng.uniform(-40, 40)]
    Rating.objects.bulk_create(
        Rating(player=player, game="nmbr9", pool=Rating.Pool.LIVE, value=value)
        for player, value in zip(players, ratings, strict=False)
    )
    return list(zip(players, ratings, strict=False))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pairing", description=__doc__)
    parser.add_argument("--players", type=int, default=200, help="players joining (even)")
    parser.add_argument("--spread", type=float, default=60, help="seconds they join over")
    parser.add_argument("--threads", type=int, default=50, help="threads joining at once")
    args = parser.parse_args(argv)
    if connection.vendor != "postgresql":
        raise SystemExit("bench.pairing needs DATABASE_URL pointing at PostgreSQL")

    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    stop = threading.Event()
    try:
        print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
        players = make_players(args.players)
        rng = random.Random(3)
        starts = []
        for _pair in range(0, args.players, 2):
            first = rng.uniform(0, args.spread)
            starts += [first, first + rng.uniform(0, 3)]
        joined: dict[int, float] = {}
        seen: dict[int, float] = {}
        errors: list[str] = []
        began = time.monotonic() + 1

        def clock() -> None:
            while not stop.is_set():
                pools.pair()
                time.sleep(0.25)
            connections.close_all()

        def play(player: User, start: float) -> None:
            try:
                time.sleep(max(0.0, began + start - time.monotonic()))
                pools.join(player, "nmbr9", "30s", 2)
                joined[player.pk] = time.time()
                while not stop.is_set():
                    if pools.status(player).match is not None:
                        seen[player.pk] = time.time()
                        return
                    time.sleep(1)
            except Exception as exc:  # counted: a 5xx on the site
                errors.append(f"{player}: {exc!r}")
            finally:
                connections.close_all()

        ticking = threading.Thread(target=clock)
        ticking.start()
        with ThreadPoolExecutor(args.threads) as pool:
            futures = [
                pool.submit(play, player, start)
                for (player, _rating), start in zip(players, starts, strict=True)
            ]
            deadline = began + args.spread + 60
            while any(not f.done() for f in futures) and time.monotonic() < deadline:
                time.sleep(0.5)
            stop.set()
        ticking.join()

        matches = Match.objects.filter(kind=Match.Kind.MATCH).prefetch_related("seats")
        partner_there = []
        for match in matches:
            ids = [seat.player_id for seat in match.seats.all()]
            last = max(joined[i] for i in ids)
            partner_there.append(max(0.0, match.started.timestamp() - last))
        page = [seen[pk] - joined[pk] for pk in seen]
        twice = [
            pk
            for pk, n in Counter(Seat.objects.values_list("player_id", flat=True)).items()
            if n > 1
        ]
        waiting = set(PoolEntry.objects.filter(match=None).values_list("player_id", flat=True))
        paired = set(Seat.objects.values_list("player_id", flat=True))
        lost = [p.pk for p, _r in players if p.pk not in paired and p.pk not in waiting]
        p95 = percentile(partner_there, 0.95)
        verdict = "met" if p95 <= TARGET_P95_SECONDS else "MISSED"
        print(
            f"{args.players} players joining over {args.spread:.0f} s from {args.threads} "
            f"threads: {len(partner_there)} matches, {len(waiting)} still waiting, "
            f"{len(errors)} errors"
        )
        print(
            f"  partner there to match start: p50 {percentile(partner_there, 0.5):.2f} s   "
            f"p95 {p95:.2f} s   max {max(partner_there):.2f} s   "
            f"target p95 <= {TARGET_P95_SECONDS:.0f} s: {verdict}"
        )
        print(
            f"  join to the page seeing its match: p50 {percentile(page, 0.5):.2f} s   "
            f"p95 {percentile(page, 0.95):.2f} s"
        )
        print(f"  players in two new matches: {len(twice)}   entries lost: {len(lost)}")
        for error in errors[:5]:
            print(f"  error: {error}")
        print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
    finally:
        stop.set()
        connections.close_all()
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
