"""A duplicate tournament of 1,000 entrants: ``python -m bench.tournament`` (PostgreSQL).

``--entrants`` (1,000) accounts in an asynchronous NMBR 9 duplicate of ``--games`` (3)
games, started; all but one have finished every game (their matches written directly, with
random scores). Figures: the last entrant's last move of a game, which finishes it and works
the standings out again in its own transaction (so they are up to date once it commits),
median and slowest of ``--finishes`` (5) games finished so (target <= 1 s); then the
tournament page and its standings fragment (which the page polls), each asked ``--pages``
(60) times by a visitor and by an entrant through Django's test client, p50 / p95 (target
p95 <= 100 ms), with the number of queries. A throw-away test database on DATABASE_URL.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from datetime import timedelta

# As bench.pages: the development settings (static files without a manifest).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    setup_databases,
    setup_test_environment,
    teardown_databases,
)
from django.utils import timezone  # noqa: E402

from bench import calibration  # noqa: E402
from bench.movegen import percentile  # noqa: E402
from games import services  # noqa: E402
from games.models import Entry, Match, Puzzle, Seat, Tournament  # noqa: E402
from games.nmbr9.policy import choose  # noqa: E402
from games.services.features import tournaments  # noqa: E402

FINISH_TARGET_S = 1.0
PAGE_TARGET_MS = 100


def build(entrants: int, games: int) -> tuple[Tournament, User]:
    """A running duplicate whose entrants but the last finished every game."""
    players = User.objects.bulk_create(
        User(username=f"t{i}", email=f"t{i}@example.com") for i in range(entrants)
    )
    tournament = tournaments.create(
        players[0],
        name="Bench duplicate",
        game="nmbr9",
        games=games,
        window="1d",
        starts=timezone.now() + timedelta(seconds=1),
        open=True,
    )
    Entry.objects.bulk_create(Entry(tournament=tournament, player=player) for player in players[1:])
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tournaments.start(tournament.pk)
    rng = random.Random(5)
    now = timezone.now()
    for deal in Puzzle.objects.filter(tournament=tournament):
        matches = Match.objects.bulk_create(
            Match(
                kind=Match.Kind.DUPLICATE,
                game="nmbr9",
                options=deal.options,
                status=Match.Status.FINISHED,
                seed=deal.seed,
                puzzle=deal,
                players=1,
                created_by=player,
                started=now,
                finished=now,
            )
            for player in players[:-1]
        )
        Seat.objects.bulk_create(
            Seat(
                match=match,
                player=match.created_by,
                index=0,
                progress=20,
                score=rng.randint(40, 110),
                rank=1,
                finished=now,
            )
            for match in matches
        )
    tournaments.update_standings(tournament.pk)
    return tournament, players[-1]


def finish_a_game(tournament: Tournament, player: User, number: int) -> float:
    """The player's game ``number`` played to its last move; seconds the last move took."""
    match = tournaments.play(tournament.pk, player, number)
    for _ in range(30):
        record = services.load(match)
        game = record.state
        move = f"place {choose(game.board(0), game.current_number(0))}"
        made = record.made_by(record.seats[0])
        match.refresh_from_db()
        if game.current_number(0) is not None and game.turns_taken(0) == 19:
            started = time.perf_counter()
            services.play(match.pk, player, move, made)
            return time.perf_counter() - started
        services.play(match.pk, player, move, made)
    raise SystemExit("the game did not reach its last move")


def timed(client: Client, url: str, times: int) -> tuple[list[float], list[int]]:
    seconds, queries = [], []
    for _ in range(times):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(url)
            seconds.append(time.perf_counter() - started)
        assert response.status_code == 200, response.status_code
        queries.append(len(captured))
    return seconds, queries


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.tournament", description=__doc__)
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--finishes", type=int, default=3, help="games the last entrant ends")
    parser.add_argument("--pages", type=int, default=60, help="requests per page and reader")
    args = parser.parse_args(argv)
    if connection.vendor != "postgresql":
        raise SystemExit("bench.tournament needs DATABASE_URL pointing at PostgreSQL")
    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    try:
        print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
        started = time.perf_counter()
        tournament, last = build(args.entrants, args.games)
        took = time.perf_counter() - started
        print(f"built {args.entrants} entrants x {args.games} games in {took:.1f} s")
        finishes = [
            finish_a_game(tournament, last, number)
            for number in range(1, min(args.finishes, args.games) + 1)
        ]
        entry = Entry.objects.get(tournament=tournament, player=last)
        assert entry.played == len(finishes), (entry.played, len(finishes))
        slowest = max(finishes)
        verdict = "met" if slowest <= FINISH_TARGET_S else "MISSED"
        print(
            f"a game's last move with the standings of {args.entrants} entrants: median "
            f"{statistics.median(finishes) * 1000:.0f} ms   slowest {slowest * 1000:.0f} ms   "
            f"target <= {FINISH_TARGET_S:.0f} s: {verdict}"
        )
        visitor, entrant = Client(), Client()
        entrant.force_login(last)
        page = tournament.get_absolute_url()
        fragment = f"{page}standings/"
        for name, client, url in (
            ("tournament page, visitor", visitor, page),
            ("tournament page, entrant", entrant, page),
            ("standings fragment, visitor", visitor, fragment),
        ):
            timed(client, url, 3)  # warm
            seconds, queries = timed(client, url, args.pages)
            ms = [s * 1000 for s in seconds]
            p95 = percentile(ms, 0.95)
            verdict = "met" if p95 <= PAGE_TARGET_MS else "MISSED"
            print(
                f"{name:<28} median {statistics.median(ms):6.1f} ms   p95 {p95:6.1f} ms   "
                f"queries {min(queries)}-{max(queries)}   target p95 <= {PAGE_TARGET_MS} ms: "
                f"{verdict}"
            )
        print(f"sum(range(10**7)): {calibration.calibrate():.3f} s")
    finally:
        connection.close()
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
