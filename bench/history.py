"""Pages that read a player's or the site's history, timed in a history of realistic size.

Run with ``python -m bench.history`` (DATABASE_URL on PostgreSQL, REDIS_URL as for the
tests; it uses the test database name, so run it while no test run uses that server's test
database). In a throw-away test database it writes ``bench.world``'s history at
``--scale`` (1.0: 20,000 players, 278,000 finished matches; ``--history``: the share of
those finished matches and of the notifications written) and the rows these pages read:

- a player, "historian", with ``--changes`` finished rated matches and as many rating
  changes (the rated seats of the world get a rating change and the players a rating,
  its games counted as in the whole history, ``--history`` or not);
- ``--days`` daily puzzles up to today, each past one with ``--results`` counted results,
  and ``--streaks`` players with a result every day of a run ending today or yesterday
  (mostly a few days, some the whole history); each result with its finished attempt, and
  each player's streak kept as counting a result keeps it;
- the historian following ``--followed`` players (each with some 40 finished matches of the
  world's), each with ``--open`` matches under way (seven in ten public matches, the others
  private matches and solo games);
- the historian's own games not over yet (``HISTORIANS_GAMES``: their move, the others',
  invitations, an open match of theirs, solo games) and ``--seeks`` open matches of others
  waiting for players;
- what finishing keeps: each seat of a finished match dated, the world's solo games with
  the standard options and each player's best score of them (``SoloBest``).

Then, signed in as the historian through Django's test client (the whole middleware stack,
``DEBUG=0``), it checks that the leaderboards, the player search, the lobby and home list
as much as a real site's (printed), and asks each page ``--requests`` times after a few
unmeasured requests: the historian's profile (with its rating chart), the archive of
daily puzzles, "Following", the leaderboards (the default rating list, the daily streaks,
the default game's best solo scores), the player search (``?q=player1``: a prefix of
11,111 names), home (the historian's dashboard) and the lobby; and the profile again with
the cache emptied before each request (its chart drawn afresh). Printed for each: median
and p95 of the server time, the median CPU time and the queries, with
``sum(range(10**7))`` timed before and after (``bench.calibration``).

``--history 0.01 --changes 20 --days 60 --results 5`` is the small world the big one is
compared with: as many players, with a hundredth of the finished matches (2,780) and of
the notifications, the historian with 20 rated matches, 60 days of dailies with 5 results
each besides the streaks. The pages show as much in both: a chart, 60 days, the same
number of followed players with as many matches under way each, full leaderboards (100
rows each), the same search, lobby and home lists.
"""

from __future__ import annotations

import argparse
import gc
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
from psycopg.types.json import Jsonb  # noqa: E402

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
    SoloBest,
)
from games.registry import default_game, puzzle_game, puzzle_rules  # noqa: E402
from games.services.features import boards, dashboard, puzzles, search, watching  # noqa: E402
from games.services.match.lobby import TIME_CONTROLS, game_options  # noqa: E402

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
                "game": default_game(),
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


def ratings_of_the_world(player: User, history: float) -> None:
    """A rating change for every other rated seat of the world, and each rated player's
    rating (the historian's from their changes), its games counted as in the whole history
    (divided by ``history``, the share of it written): the rating list lists as many players
    in a short history as in a long one."""
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
                   round(count(*) / %s), round(count(*) / %s / 2), max(c.created)
            FROM games_ratingchange c GROUP BY c.player_id, c.game, c.pool
            """,
            [history, history],
        )


def daily_players(rng: random.Random, days: int, results: int, streaks: int) -> list:
    """(days ago, player) of each counted daily result: ``results`` players drawn afresh
    each past day, and ``streaks`` regulars each on a run of consecutive days ending today
    or yesterday (mostly short, a few as long as the history; none of them drawn)."""
    players = list(User.objects.exclude(username="historian").values_list("pk", flat=True))
    regulars = rng.sample(players, streaks)
    others = list(set(players) - set(regulars))
    played = [(offset, p) for offset in range(1, days + 1) for p in rng.sample(others, results)]
    for player_id in regulars:
        last = rng.choice((0, 1))
        length = min(1 + int(rng.expovariate(1 / 12)), days + 1 - last)
        played += [(offset, player_id) for offset in range(last, last + length)]
    return played


def attempt_times(rng: random.Random, offset: int) -> tuple:
    """When a daily attempt ``offset`` days ago started, and the seconds it took: on the
    puzzle's day (today's before now)."""
    now = timezone.now()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if offset == 0:
        started = midnight + (now - midnight) * rng.random()
        return started, int(min(rng.randrange(60, 1800), (now - started).total_seconds()))
    started = midnight - timedelta(days=offset) + timedelta(hours=rng.random() * 20)
    return started, rng.randrange(60, 1800)


def daily_puzzles(rng: random.Random, days: int) -> list[tuple[int, int]]:
    """The daily puzzles of the last ``days`` days and today's (id, seed), today's first."""
    today = timezone.now().date()
    rules = puzzle_rules(puzzle_game())
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
    return list(zip(ids, seeds, strict=True))


def dailies(rng: random.Random, days: int, results: int, streaks: int) -> None:
    """``daily_puzzles`` with the counted results of ``daily_players``, each from its own
    finished attempt."""
    today = timezone.now().date()
    puzzles_by_age = daily_puzzles(rng, days)
    attempts, done = [], []
    for offset, player_id in daily_players(rng, days, results, streaks):
        puzzle_id, seed = puzzles_by_age[offset]
        started, seconds = attempt_times(rng, offset)
        finished = started + timedelta(seconds=seconds)
        attempts.append(
            {
                "kind": Match.Kind.PUZZLE,
                "status": Match.Status.FINISHED,
                "seed": seed,
                "puzzle_id": puzzle_id,
                "daily": True,
                "players": 1,
                "created_by_id": player_id,
                "created": started,
                "started": started,
                "finished": finished,
                "puzzle_rated_at": finished,
            }
        )
        day = today - timedelta(days=offset)
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


def kept_streaks() -> None:
    """Each player's run of daily results as ``finish.count_for_the_day`` keeps it: the
    last day with a result and the consecutive days ending on it."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH runs AS (
                SELECT player_id, day - (row_number() OVER w)::int AS began, day
                FROM games_dailyresult WINDOW w AS (PARTITION BY player_id ORDER BY day)
            )
            UPDATE games_profile p SET daily_streak = last.days, daily_streak_day = last.day
            FROM (
                SELECT DISTINCT ON (player_id) player_id, max(day) AS day, count(*) AS days
                FROM runs GROUP BY player_id, began ORDER BY player_id, began DESC
            ) last
            WHERE p.player_id = last.player_id
            """
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


def dated_seats() -> None:
    """Each seat of a finished match takes its match's finishing time, as finishing dates
    it (a player's latest games are read from these)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE games_seat s SET finished = m.finished FROM games_match m
            WHERE m.id = s.match_id AND m.status = 'finished' AND s.finished IS NULL
            """
        )


def solo_bests() -> None:
    """The world's solo games get the options a solo game is started with (the standard
    ones), and each player their best score of them with the first game that reached it,
    as ``finish.note_solo_best`` keeps it."""
    standard = Jsonb(game_options(default_game(), 1, {}))
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_match SET options = %s WHERE kind = 'solo' AND game = %s",
            [standard, default_game()],
        )
        cursor.execute(
            """
            INSERT INTO games_solobest (player_id, game, score, match_id)
            SELECT DISTINCT ON (s.player_id, m.game) s.player_id, m.game, s.score, m.id
            FROM games_seat s JOIN games_match m ON m.id = s.match_id
            WHERE m.kind = 'solo' AND m.status = 'finished' AND m.options = %s
            ORDER BY s.player_id, m.game, s.score DESC, m.id
            """,
            [standard],
        )


def seeks(rng: random.Random, count: int) -> None:
    """``count`` open matches waiting for players, made over the last two days by players
    other than the historian, each with some of its seats taken."""
    players = list(User.objects.exclude(username="historian").values_list("pk", flat=True))
    now = timezone.now()
    rows, seated = [], []
    for _ in range(count):
        size = rng.choice((2, 2, 3, 4))
        sat = rng.sample(players, rng.randrange(1, size))
        rows.append(
            {
                "kind": Match.Kind.MATCH,
                "status": Match.Status.WAITING,
                "options": game_options(default_game(), size, {}),
                "seed": rng.randrange(2**31),
                "players": size,
                "rated": rng.random() < 0.7,
                "open": True,
                "time_per_move": rng.choice(list(TIME_CONTROLS.values())),
                "created_by_id": sat[0],
                "created": now - timedelta(hours=rng.random() * 48),
            }
        )
        seated.append(sat)
    world.copy(
        Seat,
        [
            {"match_id": match_id, "player_id": who, "index": index}
            for match_id, sat in zip(world.copy(Match, rows), seated, strict=True)
            for index, who in enumerate(sat)
        ],
    )


#: The historian's games not over yet, as home lists them: their move, the others' (they
#: have moved), invitations to them, an open match of theirs waiting for players, solo games.
HISTORIANS_GAMES = {"move": 8, "waiting": 6, "invited": 2, "seek": 1, "solo": 2}


def historians_games(rng: random.Random, player: User) -> None:
    """``HISTORIANS_GAMES``, against players the historian does not follow."""
    followed = Follow.objects.filter(follower=player).values_list("followed_id", flat=True)
    others = list(
        User.objects.exclude(pk=player.pk).exclude(pk__in=followed).values_list("pk", flat=True)
    )
    matches, seated = [], []
    for what, count in HISTORIANS_GAMES.items():
        for _ in range(count):
            opponent = rng.choice(others)
            creator = opponent if what == "invited" else player.pk
            matches.append(game_under_way(rng, what, creator))
            seated.append(seats_under_way(rng, what, player.pk, opponent))
    ids = world.copy(Match, matches)
    world.copy(
        Seat,
        [dict(seat, match_id=m) for m, seats in zip(ids, seated, strict=True) for seat in seats],
    )


def game_under_way(rng: random.Random, what: str, creator: int) -> dict:
    """One of ``HISTORIANS_GAMES``: the match."""
    solo, waiting = what == "solo", what in ("invited", "seek")
    size = 1 if solo else 3 if what == "seek" else 2
    created = timezone.now() - timedelta(hours=rng.random() * 24 * 10)
    return {
        "kind": Match.Kind.SOLO if solo else Match.Kind.MATCH,
        "status": Match.Status.WAITING if waiting else Match.Status.ACTIVE,
        "options": game_options(default_game(), size, {}),
        "seed": rng.randrange(2**31),
        "players": size,
        "rated": not solo,
        "open": what == "seek",
        "time_per_move": None if solo else timedelta(days=1),
        "created_by_id": creator,
        "created": created,
        "started": None if waiting else created,
    }


def seats_under_way(rng: random.Random, what: str, player_id: int, opponent: int) -> list:
    """One of ``HISTORIANS_GAMES``: its seats taken (or offered)."""
    if what == "invited":
        return [
            {"player_id": opponent, "index": 0},
            {"player_id": player_id, "index": 1, "state": Seat.State.INVITED},
        ]
    mine = {"player_id": player_id, "index": 0}
    if what in ("seek", "solo"):
        return [mine]
    deadline = timezone.now() + timedelta(hours=1 + rng.random() * 20)
    owed = {"deadline": deadline, "turn": 4, "progress": 3}
    mine.update(owed if what == "move" else {"progress": 4})
    return [mine, {"player_id": opponent, "index": 1, **owed}]


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


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.history", description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="bench.world's scale")
    parser.add_argument(
        "--history", type=float, default=1.0, help="share of the world's finished matches"
    )
    parser.add_argument("--changes", type=int, default=2000, help="the historian's rated matches")
    parser.add_argument("--days", type=int, default=90, help="past daily puzzles")
    parser.add_argument("--results", type=int, default=200, help="results of each daily")
    parser.add_argument("--streaks", type=int, default=150, help="players on a daily streak")
    parser.add_argument("--followed", type=int, default=200, help="players the historian follows")
    parser.add_argument("--open", type=int, default=3, help="matches under way of each")
    parser.add_argument("--seeks", type=int, default=40, help="open matches waiting for players")
    parser.add_argument("--requests", type=int, default=30, help="measured requests per page")
    parser.add_argument(
        "--keep", action="store_true", help="leave the test database in place (to study plans)"
    )
    return parser.parse_args(argv)


def build(args: argparse.Namespace) -> User:
    """The world and what the pages read; the historian."""
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
    ratings_of_the_world(player, args.history)
    dailies(rng, args.days, args.results, args.streaks)
    followed(rng, player, args.followed, args.open)
    historians_games(rng, player)
    seeks(rng, args.seeks)
    dated_seats()
    kept_streaks()
    solo_bests()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    yesterday = timezone.now().date() - timedelta(days=1)
    print(
        f"set up in {time.monotonic() - started:.0f} s: "
        f"{RatingChange.objects.filter(player=player).count()} rating changes of the "
        f"historian ({RatingChange.objects.count()} in all), "
        f"{DailyResult.objects.count()} daily results over {args.days} days, "
        f"{Profile.objects.filter(daily_streak_day__gte=yesterday).count()} streaks running, "
        f"{SoloBest.objects.count()} best solo scores, "
        f"{args.followed} players followed with "
        f"{Seat.objects.filter(player__followers__follower=player).count()} seats"
    )
    return player


def shown(client: Client, url: str):
    """The context a page was drawn with."""
    response = client.get(url, secure=True)
    assert response.status_code == 200, (url, response.status_code)
    return response.context


def check_boards(client: Client, pages: dict[str, str]) -> str:
    """The leaderboards are full, each streak as the player's results make it; what they
    show."""
    shown_rows = {name: shown(client, pages[name])["rows"] for name in BOARDS}
    assert all(len(rows) == boards.SIZE for rows in shown_rows.values()), shown_rows
    for row in shown_rows["daily streaks"]:
        assert puzzles.streak(row.player) == int(row.value), (row.player, row.value)
    return ", ".join(
        f"{name} {len(rows)} rows ({rows[0].value} to {rows[-1].value})"
        for name, rows in shown_rows.items()
    )


def check_home(client: Client, url: str) -> str:
    """Home lists every kind of game of the historian's, and the open matches; what."""
    home = shown(client, url)["board"]
    lists = {
        "their move": len(home.your_move),
        "others' move": len(home.waiting),
        "invitations": len(home.invitations),
        "waiting for players": len(home.not_started),
        "solo": len(home.solo),
        "results": len(home.recent),
        "open matches": len(home.seeks),
        "ratings": len(home.ratings),
    }
    assert all(lists.values()) and home.daily is not None, lists
    assert lists["results"] == dashboard.RECENT and lists["open matches"] == dashboard.SEEKS
    return ", ".join(f"{name} {size}" for name, size in lists.items()) + (
        f", daily puzzle finished by {home.daily_players}"
    )


def check_lists(client: Client, pages: dict[str, str], seeks: int) -> None:
    """The leaderboards, the search, the lobby and home list as much as a real site's."""
    on_boards = check_boards(client, pages)
    found = shown(client, pages["player search"])["found"]
    assert len(found) == search.FOUND, found
    lobby = shown(client, pages["lobby"])
    assert len(lobby["seeks"]) == min(seeks, 100) and len(lobby["watched"]) == watching.WATCH_LIST
    print(
        f"shown: {on_boards}; search {len(found)} players ({found[0]} to {found[-1]}); "
        f"lobby {len(lobby['seeks'])} open matches and {len(lobby['watched'])} to watch; "
        f"home {check_home(client, pages['home'])}"
    )


#: The leaderboards timed, by name: the default rating list, daily streaks, best solo scores.
BOARDS = {
    "ratings": "",
    "daily streaks": "?board=streaks",
    "best solo scores": f"?board=solo&game={default_game()}",
}


def blocks_read(client: Client, url: str) -> tuple[int, int, str]:
    """The work of one request for ``url`` in PostgreSQL's 8-kB blocks, which follow the rows
    read and not the machine's speed: the blocks each of its SELECTs touches (``EXPLAIN
    (ANALYZE, BUFFERS)``, run again after the request), their sum, the most of one, and
    the start of that query."""
    captured: list[tuple[str, object]] = []

    def capture(execute, sql, params, many, context):
        captured.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        client.get(url, secure=True)
    touched = []
    with connection.cursor() as cursor:
        for sql, params in captured:
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
            plan = cursor.fetchone()[0][0]["Plan"]
            touched.append((plan["Shared Hit Blocks"] + plan["Shared Read Blocks"], sql))
    most, query = max(touched, default=(0, ""))
    return sum(count for count, _sql in touched), most, " ".join(query.split())[:90]


def measure(client: Client, player: User, args: argparse.Namespace) -> None:
    pages = {
        "profile": reverse("profile", args=[player.username]),
        "daily archive": reverse("daily_archive"),
        "following": reverse("following"),
        **{name: reverse("leaderboard") + query for name, query in BOARDS.items()},
        "player search": reverse("players") + "?q=player1",
        "home": reverse("home"),
        "lobby": reverse("lobby"),
    }
    check_lists(client, pages, args.seeks)
    for name, url in pages.items():
        report(name, *timed(client, url, args.requests))
    print("blocks read by each page's queries (8 kB each): all of them, the most of one")
    for name, url in pages.items():
        total, most, query = blocks_read(client, url)
        print(f"{name:<26} {total:6d} {most:6d}  {query}")
    report(
        "profile, cache emptied",
        *timed(
            client,
            pages["profile"],
            args.requests,
            before=lambda: caches["default"].delete_pattern("*"),
        ),
    )


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    cache = caches["default"]
    cache.key_prefix = settings.CACHES["default"]["KEY_PREFIX"] = f"bench-{uuid.uuid4().hex[:12]}"
    try:
        call_command("collectstatic", "--no-input", verbosity=0)
        player = build(args)
        # A server process holds none of what building the world left in this one: out of
        # the collector's way, it does not make each full collection of the pages slower.
        gc.collect()
        print(f"{gc.get_freeze_count() + len(gc.get_objects())} objects before the pages")
        gc.freeze()
        print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
        client = Client(**HEADERS)
        client.force_login(player)
        measure(client, player, args)
        print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
    finally:
        cache.delete_pattern("*")
        connection.close()
        if args.keep:
            print(f"kept: the database {connection.settings_dict['NAME']}")
        else:
            teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
