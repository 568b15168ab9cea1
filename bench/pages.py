"""Server time of the game page on a 19-tile board: previews and placements; the NMBR 9 ++
page; the nmbrs! table, its previews and its replay; the home page.

Run with ``./run bench`` (or ``python -m bench.pages``; ``--only home`` for the home page
alone). Uses a throw-away test
database on whatever DATABASE_URL points at, and the Redis of REDIS_URL.
"""

import argparse
import os
import statistics
import time

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
from django.urls import reverse  # noqa: E402

from bench.movegen import percentile  # noqa: E402
from games import services  # noqa: E402
from games.nmbr9 import Placement  # noqa: E402
from games.nmbr9.policy import choose  # noqa: E402

GAMES = 30
PREVIEWS = 300
HOME_PAGES = 300
HTMX = {"HTTP_HX_REQUEST": "true"}


def report(name: str, seconds: list[float], queries: list[int]) -> None:
    ms = [s * 1000 for s in seconds]
    print(
        f"{name:<28} n={len(ms):<4} median {statistics.median(ms):6.2f} ms   "
        f"p95 {percentile(ms, 0.95):6.2f} ms   queries {min(queries)}-{max(queries)}"
    )


def policy_move(match, index: int) -> tuple[str, int]:
    """The policy's move for seat ``index`` and the moves of that seat a page drawn now
    would know."""
    record = services.load(match)
    game = record.state
    move = f"place {choose(game.board(index), game.current_number(index))}"
    return move, record.made_by(record.seats[index])


def games_at_round_20(player) -> list:
    matches = []
    for seed in range(GAMES):
        match = services.start_solo(player, seed=seed)
        for _ in range(1, 20):
            services.play(match.pk, player, *policy_move(match, 0))
        matches.append(match)
    return matches


def match_page(client: Client) -> None:
    """A 6-player match at round 19, seen by its first player."""
    players = [User.objects.create_user(f"p{i}", f"p{i}@example.com", "pw") for i in range(6)]
    match = services.create_match(
        players[0],
        players=6,
        options={"pace": "rounds"},
        time_control="1d",
        rated=True,
        invite=[p.username for p in players[1:]],
        seed=3,
    )
    for player in players[1:]:
        services.join(match.pk, player)
    for _ in range(1, 19):
        for index, player in enumerate(players):
            services.play(match.pk, player, *policy_move(match, index))
    client.force_login(players[0])
    connection.queries_log.clear()
    url = match.get_absolute_url()
    for name, extra in (("match page, 6 players, r19", {}), ("match partial (HTMX)", HTMX)):
        times, queries = [], []
        for _ in range(100):
            with CaptureQueriesContext(connection) as ctx:
                t0 = time.perf_counter()
                response = client.get(url, **extra)
                times.append(time.perf_counter() - t0)
            assert response.status_code == 200
            queries.append(len(ctx))
        report(name, times, queries)


def plusplus_pages(player, client: Client, base_p95: float) -> None:
    """A solo game with all three NMBR 9 ++ modules at its 20th tile, against the base."""
    client.force_login(player)
    times, previews, queries, preview_queries = [], [], [], []
    options = {"start_tiles": True, "fillers": True, "specials": ["one", "black"]}
    for seed in range(10):
        match = services.start_solo(player, seed=seed, options=options)
        for _ in range(19):
            record = services.load(match)
            move = record.rules.auto_move(record.state, 0)
            services.play(match.pk, player, str(move), record.ply)
        url = match.get_absolute_url()
        for _ in range(10):
            with CaptureQueriesContext(connection) as ctx:
                t0 = time.perf_counter()
                response = client.get(url)
                times.append(time.perf_counter() - t0)
            assert response.status_code == 200 and "data-compose" in response.text
            queries.append(len(ctx))
            with CaptureQueriesContext(connection) as ctx:
                t0 = time.perf_counter()
                query = {"piece": "F1", "x": 0, "y": 0, "rotation": 0}
                response = client.get(url, query, **HTMX)
                previews.append(time.perf_counter() - t0)
            assert response.status_code == 200
            preview_queries.append(len(ctx))
    report("++ game page, all modules", times, queries)
    report("++ preview of a filler", previews, preview_queries)
    ratio = percentile([t * 1000 for t in times], 0.95) / base_p95
    print(f"++ game page p95 / base game page p95: {ratio:.2f}   target <= 1.25")


def nmbrs_match(users, target: int = 100, seed: int = 1):
    match = services.create_match(
        users[0],
        game="nmbrs",
        players=len(users),
        time_control="1d",
        rated=False,
        options={"target": target},
        invite=[u.username for u in users[1:]],
        seed=seed,
    )
    for user in users[1:]:
        services.join(match.pk, user)
    return match


def nmbrs_step(match, users) -> bool:
    """The policy's move for whoever owes one; False once the match is over."""
    record = services.load(match)
    game = record.state
    if game.over:
        return False
    player = game.to_move
    move = record.rules.auto_move(game, player)
    services.play(match.pk, users[player], str(move), record.made_by(record.seats[player]))
    return True


def timed(client: Client, times: list, queries: list, *args, **kwargs):
    with CaptureQueriesContext(connection) as ctx:
        t0 = time.perf_counter()
        response = client.get(*args, **kwargs)
        times.append(time.perf_counter() - t0)
    assert response.status_code == 200, response.status_code
    queries.append(len(ctx))
    return response


def nmbrs_pages(client: Client) -> None:
    """An nmbrs! table of four 60 moves in: the page, a preview of picked cards; and the
    replay of a finished match of three."""
    users = [User.objects.create_user(f"cards{i}", password="bench-pa55word") for i in range(4)]
    pages, previews, page_queries, preview_queries = [], [], [], []
    for seed in range(5):
        match = nmbrs_match(users, seed=seed)
        for _ in range(60):
            assert nmbrs_step(match, users)
        game = services.load(match).state
        assert not game.over
        client.force_login(users[game.current])
        url = match.get_absolute_url()
        hand = sorted(game.hands[game.current])
        for i in range(10):
            timed(client, pages, page_queries, url)
            pick = hand[i % len(hand) : i % len(hand) + 3]
            timed(client, previews, preview_queries, url, {"pick": pick}, **HTMX)
    report("nmbrs! table page", pages, page_queries)
    report("nmbrs! preview of 3 cards", previews, preview_queries)
    match = nmbrs_match(users[:3], seed=3)
    while nmbrs_step(match, users):
        pass
    plies = services.load(match).ply
    times, queries = [], []
    for ply in range(0, plies, max(1, plies // 20)):
        timed(client, times, queries, reverse("replay", args=[match.pk]), {"ply": ply})
    report(f"nmbrs! replay ({plies} moves)", times, queries)


def home_page(client: Client) -> None:
    """The home page of a player with 24 running matches of both games (half of them
    waiting for their move), 6 solo games under way and 30 finished games, a daily puzzle and
    open seats in the lobby; and the page a visitor gets."""
    from games.services.features import puzzles

    me = User.objects.create_user("home", "home@example.com", "bench-pa55word")
    others = [User.objects.create_user(f"rival{i}", password="bench-pa55word") for i in range(4)]
    for i in range(12):
        for game, options in (("nmbr9", {"pace": "free"}), ("nmbrs", {})):
            match = services.create_match(
                me,
                game=game,
                players=2,
                options=options,
                time_control="1d",
                rated=True,
                invite=[others[i % 4].username],
                seed=i,
            )
            services.join(match.pk, others[i % 4])
            if i % 2:  # the opponent has moved: the move is mine in free pace, or theirs
                record = services.load(match)
                seat = record.seats[1]
                if seat.index in record.rules.to_move(record.state):
                    move = record.rules.auto_move(record.state, 1)
                    services.play(match.pk, others[i % 4], str(move), 0)
    for seed in range(6):
        services.start_solo(me, seed=100 + seed)
    for seed in range(30):
        match = services.start_solo(me, seed=200 + seed)
        for _ in range(20):
            services.play(match.pk, me, *policy_move(match, 0))
    for i in range(10):
        services.create_match(
            others[i % 4], players=3, time_control="1d", rated=True, invite=[], open=True
        )
    puzzles.create_puzzles(3)
    puzzles.publish_daily()
    for name, login in (("home page, 24 matches", True), ("home page, visitor", False)):
        if login:
            client.force_login(me)
        else:
            client.logout()
        for _ in range(3):  # the session, the caches and the replayed matches warmed up
            client.get(reverse("home"))
        times, queries = [], []
        for _ in range(HOME_PAGES):
            timed(client, times, queries, reverse("home"))
        report(name, times, queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["home"], help="time only this page")
    only = parser.parse_args().only
    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    try:
        if only == "home":
            home_page(Client())
            print(f"database: {connection.vendor}")
            return
        player = User.objects.create_user("bench", "bench@example.com", "bench-pa55word")
        client = Client()
        client.force_login(player)
        started = time.perf_counter()
        matches = games_at_round_20(player)
        print(f"set up {GAMES} games at round 20 in {time.perf_counter() - started:.1f} s")
        url = matches[0].get_absolute_url()
        game = services.load(matches[0]).state
        board = game.board(0)
        number = game.current_number(0)
        spots = [(p.x, p.y, p.rotation) for p in board.legal_placements(number)]
        spots += [(p.x + 1, p.y, p.rotation) for p, _ in board.tiles]
        times, queries = [], []
        for i in range(PREVIEWS):
            x, y, r = spots[i % len(spots)]
            with CaptureQueriesContext(connection) as ctx:
                t0 = time.perf_counter()
                response = client.get(url, {"x": x, "y": y, "rotation": r}, **HTMX)
                times.append(time.perf_counter() - t0)
            assert response.status_code == 200, response.status_code
            queries.append(len(ctx))
        report("preview (HTMX partial)", times, queries)

        times, queries = [], []
        for _ in range(PREVIEWS // 3):
            with CaptureQueriesContext(connection) as ctx:
                t0 = time.perf_counter()
                response = client.get(url)
                times.append(time.perf_counter() - t0)
            assert response.status_code == 200
            queries.append(len(ctx))
        report("full game page", times, queries)
        base_p95 = percentile([t * 1000 for t in times], 0.95)

        times, queries = [], []
        for match in matches:
            text, ply = policy_move(match, 0)
            p = Placement.parse(text.removeprefix("place "))
            data = {"number": p.number, "x": p.x, "y": p.y, "rotation": p.rotation, "ply": ply}
            with CaptureQueriesContext(connection) as ctx:
                t0 = time.perf_counter()
                response = client.post(reverse("play", args=[match.pk]), data, **HTMX)
                times.append(time.perf_counter() - t0)
            assert response.status_code == 200, response.content
            queries.append(len(ctx))
        report("placement (20th tile)", times, queries)
        match_page(client)
        plusplus_pages(player, client, base_p95)
        nmbrs_pages(client)
        home_page(client)
        print(f"database: {connection.vendor}")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
