"""Server time of bench.load's requests, in-process: no HTTP, no other process.

Run with ``python -m bench.requests [--matches 20] [--profile N]`` (DATABASE_URL and
REDIS_URL as for bench.load). Like bench.load it runs with ``DEBUG=0`` behind a pretend TLS
proxy, on two-player free-pace matches: each player loads the match page, then for each
tile previews a spot beside the default one and places the default one, the two players
taking turns. Printed: the median and p95 server time, the median CPU time of this process
(what other programs on the machine disturb least) and the queries of each request kind
(page, preview, placement; statements sent through a cursor, so BEGIN and COMMIT are not
counted), measured with Django's test client through the whole middleware
stack, sessions from the database, so that a change to the server's work per request can be
compared before and after on a busy machine, where bench.load's figures are noisy.
``--profile N``: the N functions that take the most time (cProfile, cumulative).

Also printed: the floor, what any request costs before a view does anything, measured on a
view that only answers "ok" (added to this process's URLs for the run), for a visitor and
for a signed-in player (session, user, language, last seen): the part of every figure above
that no view's work can remove.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import time
import uuid

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")
os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", "bench-" + uuid.uuid4().hex * 2)
os.environ.setdefault("SITE_URL", "https://127.0.0.1")
os.environ["BEHIND_TLS_PROXY"] = "1"
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import (  # noqa: E402
    setup_databases,
    setup_test_environment,
    teardown_databases,
)

from bench.load import next_move, pair_match  # noqa: E402
from bench.movegen import percentile  # noqa: E402

HEADERS = {"HTTP_X_FORWARDED_PROTO": "https", "HTTP_ORIGIN": "https://127.0.0.1"}
HTMX = {"HTTP_HX_REQUEST": "true"}


class Counted:
    """Counts the statements sent to the database inside it (``len``), without Django's
    query log: capturing the queries (``CaptureQueriesContext``) formats each one with its
    parameters, which cost a placement more CPU than some of the changes measured here."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        return execute(sql, params, many, context)

    def __enter__(self) -> Counted:
        self._wrapped = connection.execute_wrapper(self)
        self._wrapped.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._wrapped.__exit__(*exc)

    def __len__(self) -> int:
        return self.count


def report(name: str, seconds: list[float], cpu: list[float], queries: list[int]) -> None:
    ms = [s * 1000 for s in seconds]
    print(
        f"{name:<17} n={len(ms):<5} median {statistics.median(ms):6.2f} ms   "
        f"p95 {percentile(ms, 0.95):6.2f} ms   CPU median {statistics.median(cpu) * 1000:6.2f} ms"
        f"   queries {min(queries)}-{max(queries)}"
    )


def matches(count: int) -> list[tuple[int, list[Client]]]:
    """``count`` started two-player free-pace matches, each with a client per player."""
    made = []
    for i in range(count):
        first = User.objects.create_user(f"a{i}", f"a{i}@example.com", None)
        second = User.objects.create_user(f"b{i}", f"b{i}@example.com", None)
        match_id = pair_match(first, second)
        clients = []
        for user in (first, second):
            client = Client(**HEADERS)
            client.force_login(user)
            client.get("/", secure=True)  # loads the middleware: not a request's own time
            clients.append(client)
        made.append((match_id, clients))
    return made


def play(made, times: dict, cpu: dict, queries: dict) -> None:
    def timed(kind: str, call, *args, **kwargs):
        with Counted() as ctx:
            started, used = time.perf_counter(), time.process_time()
            response = call(*args, secure=True, **kwargs)
            times[kind].append(time.perf_counter() - started)
            cpu[kind].append(time.process_time() - used)
        queries[kind].append(len(ctx))
        assert response.status_code == 200, (kind, response.status_code)
        return response.text

    for match_id, clients in made:
        url = f"/game/{match_id}/"
        texts = [timed("page", client.get, url) for client in clients]
        while True:
            moved = False
            for i, client in enumerate(clients):
                move = next_move(texts[i])
                if move is None:
                    continue
                query, data = move
                timed("preview", client.get, url, query, **HTMX)
                texts[i] = timed("placement", client.post, f"{url}play/", data, **HTMX)
                moved = True
            if not moved:
                break


def floor(rounds: int = 500) -> None:
    """The CPU time of a request to a view that does nothing: anonymous and signed in."""
    from django.http import HttpResponse
    from django.urls import clear_url_caches, path

    from nmbr9site import urls

    urls.urlpatterns.insert(0, path("bench-floor/", lambda request: HttpResponse("ok")))
    clear_url_caches()
    user = User.objects.create_user("floor", "floor@example.com", None)
    try:
        for label, signed_in in (("floor, visitor", False), ("floor, signed in", True)):
            client = Client(**HEADERS)
            if signed_in:
                client.force_login(user)
            cpu, seconds, queries = [], [], []
            for i in range(rounds + 20):
                with Counted() as ctx:
                    started, used = time.perf_counter(), time.process_time()
                    assert client.get("/bench-floor/", secure=True).status_code == 200
                    spent, took = time.process_time() - used, time.perf_counter() - started
                if i >= 20:  # the first requests load the middleware
                    cpu.append(spent)
                    seconds.append(took)
                    queries.append(len(ctx))
            report(label, seconds, cpu, queries)
    finally:
        urls.urlpatterns.pop(0)
        clear_url_caches()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.requests", description=__doc__)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--profile", type=int, default=0)
    args = parser.parse_args(argv)
    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    try:
        call_command("collectstatic", "--no-input", verbosity=0)
        made = matches(args.matches)
        kinds = ("page", "preview", "placement")
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
        queries: dict[str, list[int]] = {kind: [] for kind in kinds}
        profiler = cProfile.Profile() if args.profile else None
        started = time.perf_counter()
        if profiler:
            profiler.enable()
        play(made, times, cpu, queries)
        if profiler:
            profiler.disable()
        elapsed = time.perf_counter() - started
        for kind in times:
            report(kind, times[kind], cpu[kind], queries[kind])
        floor()
        placements = len(times["placement"])
        print(f"{placements} placements in {elapsed:.1f} s of one core")
        if profiler:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
