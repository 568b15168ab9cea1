"""Pages that read a player's or the site's history, timed in a history of realistic size.

Run with ``python -m bench.history`` (DATABASE_URL on PostgreSQL, REDIS_URL as for the
tests; it uses the test database name, so run it while no test run uses that server's test
database). In a throw-away test database it writes ``bench.world``'s history at
``--scale`` (1.0: 20,000 players, 278,000 finished matches; ``--history``: the share of
those finished matches and of the notifications written) and the rows these pages read:

- a player, "historian", with ``--changes`` finished rated matches and as many rating
  changes (the rated seats of the world get a rating change and the players a rating too);
- ``--days`` daily puzzles up to today, each with ``--results`` counted results (each with
  its finished attempt);
- the historian following ``--followed`` players (each with some 40 finished matches of the
  world's), each with ``--open`` matches under way (seven in ten public matches, the others
  private matches and solo games).

Then, signed in as the historian through Django's test client (the whole middleware stack,
``DEBUG=0``), it asks each page ``--requests`` times after a few unmeasured requests:
the historian's profile (with its rating chart), the archive of daily puzzles and
"Following"; and the profile again with the cache emptied before each request (its chart
drawn afresh). Printed for each: median and p95 of the server time, the median CPU time
and the queries, with ``sum(range(10**7))`` timed before and after (``bench.calibration``).

``--history 0.01 --changes 20 --days 60 --results 5`` is the small world the big one is
compared with: as many players, with a hundredth of the finished matches (2,780) and of
the notifications, the historian with 20 rated matches, 60 days of dailies with 5 results
each. The pages show as much in both: a chart, 60 days, the same number of followed
players with as many matches under way each.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
import uuid
from datetime import timedelta

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")
# As in production: without DEBUG, which keeps every query in memory.
os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", "bench-" + uuid.uuid4().hex * 2)
os.environ.setdefault("SITE_URL", "https://127.0.0.1")
os.environ["BEHIND_TLS_PROXY"] = "1"
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.cache import caches  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import (  # noqa: E402
    setup_databases,
    setup_test_environment,
    teardown_databases,
)
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench import calibration, world  # noqa: E402
from bench.movegen import percentile  # noqa: E402
from bench.requests import HEADERS, Counted  # noqa: E402
from games.models import (  # noqa: E402
    DailyResult,
    Follow,
    Match,
    PlayerStats,
    Profile,
    Puzzle,
    RatingChange,
    Seat,
)
from games.registry import DEFAULT_GAME, puzzle_rules  # noqa: E402

#: Requests made before the measured ones (the first loads the middleware and templates).
WARM_UP = 3


def historian(rng: random.Random, changes: int) -> User:
    """The player whose profile is timed: ``changes`` finished rated two-player matches
    over two years, each with its rating change (a random walk)."""
    player = User.objects.create_user("historian", "historian@example.com", None)
    world.copy(Profile, [{"player_id": player.pk}])
    world.copy(PlayerStats, [{"player_id": player.pk, "updated": timezone.now()}])
    others = list(User.objects.exclude(pk=player.pk).values_list("pk", flat=True))
    now = timezone.now()
    finished = sorted(now - timedelta(days=3 + rng.random() * 700) for _ in range(changes))
    matches = [
        {
            "kind": Match.Kind.MATCH,
            "status": Match.Status.FINISHED,
            "seed": rng.randrange(2**31),
            "players": 2,
            "rated": True,
            "created_by_id": player.pk,
            "created": when - timedelta(days=2),
            "started": when - timedelta(days=2),
            "finished": when,
            "rated_at": when,
        }
        for when in finished
    ]
    ids = world.copy(Match, matches)
    seats, rating_changes = [], []
    value = 1500.0
    for match_id, when in zip(ids, finished, strict=True):
        won = rng.random() < 0.5
        for index, (who, rank) in enumerate(
            ((player.pk, 1 if won else 2), (rng.choice(others), 2 if won else 1))
        ):
            seats.append(
                {
                    "match_id": match_id,
                    "player_id": who,
                    "index": index,
                    "score": rng.randrange(200),
                    "rank": rank,
                    "progress": 20,
                }
            )
        after = value + (8 if won else -8) + rng.gauss(0, 4)
        rating_changes.append(
            {
                "match_id": match_id,
                "player_id": player.pk,
                "game": DEFAULT_GAME,
                "pool": "match",
                "before": value,
                "after": after,
                "created": when,
            }
        )
        value = after
    world.copy(Seat, seats)
    world.copy(RatingChange, rating_changes)
    return player


def ratings_of_the_world(player: User) -> None:
    """A rating change for every other rated seat of the world, and each rated player's
    rating (the historian's from their changes)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO games_ratingchange (match_id, player_id, game, pool, before, after, created)
            SELECT s.match_id, s.player_id, m.game, 'match', 1500, 1400 + random() * 200,
                   m.finished
            FROM games_seat s JOIN games_match m ON m.id = s.match_id
            WHERE m.rated AND m.status = 'finished' AND s.player_id <> %s
            ORDER BY m.finished
            """,
            [player.pk],
        )
        cursor.execute(
            """
            INSERT INTO games_rating (player_id, game, pool, value, games, wins, updated)
            SELECT c.player_id, c.game, c.pool, (array_agg(c.after ORDER BY c.id DESC))[1],
                   count(*), count(*) / 2, max(c.created)
            FROM games_ratingchange c GROUP BY c.player_id, c.game, c.pool
            """
        )


def dailies(rng: random.Random, days: int, results: int) -> None:
    """The daily puzzles of the last ``days`` days and today's, each past one with
    ``results`` counted results, each from its own finished attempt."""
    today = timezone.now().date()
    players = list(User.objects.values_list("pk", flat=True))
    rules = puzzle_rules()
    seeds = rng.sample(range(2**31), days + 1)
    ids = world.copy(
        Puzzle,
        [
            {
                "seed": seed,
                "start": rules.puzzle_start(seed),
                "par": 100 + rng.randrange(40),
                "daily_on": today - timedelta(days=offset),
                "created": timezone.now(),
            }
            for offset, seed in enumerate(seeds)
        ],
    )
    attempts, done = [], []
    for offset, puzzle_id in enumerate(ids):
        if offset == 0:
            continue  # today's is still open
        day = today - timedelta(days=offset)
        for player_id in rng.sample(players, results):
            started = timezone.now() - timedelta(days=offset, hours=rng.random() * 5)
            seconds = rng.randrange(60, 1800)
            attempts.append(
                {
                    "kind": Match.Kind.PUZZLE,
                    "status": Match.Status.FINISHED,
                    "seed": seeds[offset],
                    "puzzle_id": puzzle_id,
                    "daily": True,
                    "players": 1,
                    "created_by_id": player_id,
                    "created": started,
                    "started": started,
                    "finished": started + timedelta(seconds=seconds),
                    "puzzle_rated_at": started + timedelta(seconds=seconds),
                }
            )
            done.append((day, puzzle_id, player_id, rng.randrange(60, 160), seconds))
    match_ids = world.copy(Match, attempts)
    world.copy(
        Seat,
        [
            {"match_id": m, "player_id": p, "index": 0, "score": s, "rank": 1, "progress": 20}
            for m, (_day, _puzzle, p, s, _seconds) in zip(match_ids, done, strict=True)
        ],
    )
    world.copy(
        DailyResult,
        [
            {"day": d, "puzzle_id": z, "player_id": p, "match_id": m, "score": s, "seconds": t}
            for m, (d, z, p, s, t) in zip(match_ids, done, strict=True)
        ],
    )


def followed(rng: random.Random, player: User, count: int, under_way: int) -> None:
    """``player`` follows ``count`` players, each playing ``under_way`` matches: seven in
    ten public two-player matches, the others private matches and solo games."""
    others = list(User.objects.exclude(pk=player.pk).values_list("pk", flat=True))
    chosen = rng.sample(others, count)
    # Their opponents are players the historian does not follow, as in a big world.
    opponents = list(set(others) - set(chosen)) or others
    now = timezone.now()
    world.copy(
        Follow, [{"follower_id": player.pk, "followed_id": f, "created": now} for f in chosen]
    )
    matches, sat = [], []
    for who in chosen:
        for _ in range(under_way):
            roll = rng.random()
            solo = roll >= 0.85
            created = now - timedelta(hours=rng.random() * 24 * 20)
            matches.append(
                {
                    "kind": Match.Kind.SOLO if solo else Match.Kind.MATCH,
                    "status": Match.Status.ACTIVE,
                    "seed": rng.randrange(2**31),
                    "players": 1 if solo else 2,
                    "private": 0.7 <= roll < 0.85,
                    "rated": not solo,
                    "created_by_id": who,
                    "created": created,
                    "started": created,
                    "time_per_move": None if solo else timedelta(days=1),
                }
            )
            opponent = rng.choice([o for o in rng.sample(opponents, 2) if o != who])
            sat.append([who] if solo else [who, opponent])
    seats = []
    for match_id, players in zip(world.copy(Match, matches), sat, strict=True):
        for index, who in enumerate(players):
            deadline = None if len(players) == 1 else now + timedelta(hours=rng.random() * 20)
            seats.append(
                {
                    "match_id": match_id,
                    "player_id": who,
                    "index": index,
                    "deadline": deadline,
                    "turn": 3,
                    "progress": 3,
                }
            )
    world.copy(Seat, seats)


def timed(client: Client, url: str, requests: int, *, before=None) -> tuple[list, list, list]:
    """Server time, CPU time and queries of ``requests`` requests for ``url`` (``before``
    called ahead of each, outside the measure), after WARM_UP unmeasured ones."""
    seconds, cpu, queries = [], [], []
    for i in range(WARM_UP + requests):
        if before is not None:
            before()
        with Counted() as counted:
            started, used = time.perf_counter(), time.process_time()
            response = client.get(url, secure=True)
            took, spent = time.perf_counter() - started, time.process_time() - used
        assert response.status_code == 200, (url, response.status_code)
        if i >= WARM_UP:
            seconds.append(took)
            cpu.append(spent)
            queries.append(len(counted))
    return seconds, cpu, queries


def report(name: str, seconds: list[float], cpu: list[float], queries: list[int]) -> None:
    ms = [s * 1000 for s in seconds]
    print(
        f"{name:<26} n={len(ms):<3} median {statistics.median(ms):7.2f} ms   "
        f"p95 {percentile(ms, 0.95):7.2f} ms   CPU median {statistics.median(cpu) * 1000:7.2f} ms"
        f"   queries {min(queries)}-{max(queries)}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.history", description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="bench.world's scale")
    parser.add_argument(
        "--history", type=float, default=1.0, help="share of the world's finished matches"
    )
    parser.add_argument("--changes", type=int, default=2000, help="the historian's rated matches")
    parser.add_argument("--days", type=int, default=90, help="past daily puzzles")
    parser.add_argument("--results", type=int, default=200, help="results of each daily")
    parser.add_argument("--followed", type=int, default=200, help="players the historian follows")
    parser.add_argument("--open", type=int, default=3, help="matches under way of each")
    parser.add_argument("--requests", type=int, default=30, help="measured requests per page")
    args = parser.parse_args(argv)

    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    cache = caches["default"]
    cache.key_prefix = settings.CACHES["default"]["KEY_PREFIX"] = f"bench-{uuid.uuid4().hex[:12]}"
    try:
        call_command("collectstatic", "--no-input", verbosity=0)
        rng = random.Random(42)
        started = time.monotonic()
        world.FINISHED = int(world.FINISHED * args.history)
        world.NOTIFICATIONS = int(world.NOTIFICATIONS * args.history)
        took = world.build(args.scale)
        print(
            f"world at scale {args.scale}, history {args.history}: "
            + ", ".join(f"{k} {v:.0f} s" for k, v in took.items())
        )
        player = historian(rng, args.changes)
        ratings_of_the_world(player)
        dailies(rng, args.days, args.results)
        followed(rng, player, args.followed, args.open)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(
            f"set up in {time.monotonic() - started:.0f} s: "
            f"{RatingChange.objects.filter(player=player).count()} rating changes of the "
            f"historian ({RatingChange.objects.count()} in all), "
            f"{DailyResult.objects.count()} daily results over {args.days} days, "
            f"{args.followed} players followed with "
            f"{Seat.objects.filter(player__followers__follower=player).count()} seats"
        )
        print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
        client = Client(**HEADERS)
        client.force_login(player)
        pages = {
            "profile": reverse("profile", args=[player.username]),
            "daily archive": reverse("daily_archive"),
            "following": reverse("following"),
        }
        for name, url in pages.items():
            report(name, *timed(client, url, args.requests))
        report(
            "profile, cache emptied",
            *timed(
                client, pages["profile"], args.requests, before=lambda: cache.delete_pattern("*")
            ),
        )
        print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
    finally:
        cache.delete_pattern("*")
        connection.close()
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
