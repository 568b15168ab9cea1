"""Live at scale: ten thousand open streams on one live process, and a move told to a
thousand of them.

Run with ``./run bench`` (or ``python -m bench.crowd [--streams 10000] [--watchers 1000]
[--moves 20] [--idle 60]``) with DATABASE_URL pointing at PostgreSQL. Like ``bench.load`` it
creates a throw-away test database there, collects the static files and starts the site as
in production (``bench.site``, ``procfile``: the Procfile's ``web`` process, gunicorn with
``--workers`` sync workers, for the pages, and one ``live`` process, one uvicorn worker, for
the streams; one Celery worker and beat; ``DEBUG=0`` behind a pretend TLS proxy), with
``LIVE_STREAMS_PER_CLIENT`` raised (every stream comes from 127.0.0.1) and
``LIVE_STREAMS_MOST`` at least ``--streams``. This process raises its open-files limit
(``RLIMIT_NOFILE``) to the hard one, and the site's processes inherit it.

The crowd: ``--watchers`` visitors (not signed in) watch one public two-player match in
rounds pace; the rest of the ``--streams`` are spread over ``--matches`` other such matches
(300): both players of each with their own match page open (signed in, noted as looking at
it at every heartbeat), and visitors watching them. Each stream is opened as the page opens
it (plain HTTP/1.1 on asyncio, one socket each, no thread; ``OPENING`` at a time), with the
version the page shows, so that none is told anything until a move.

Printed, each with ``sum(range(10**7))`` timed in the same run (before and after):

- a game page's p50 / p95 for a signed-in player (``--pages`` requests, 300, over the pages
  of ``PAGES`` players in turn, from ``--clients`` concurrent clients, 4, a connection per
  request: ``bench.load``'s client), after as many to warm up, with no stream open and again
  with them all open (target: p95 within 1.2 x);
- the web processes (gunicorn's arbiters and workers of ``web`` and ``live``): their
  threads (/proc/<pid>/status) and resident memory (VmRSS summed) before and with the
  streams open (targets: at most 20 threads and 1 GB more), their CPU over ``--idle``
  seconds (60) with nothing happening, first with no stream open, then with them all
  (target: at most 5% of one core), and the heartbeats the streams got meanwhile;
- fan-out: ``--moves`` moves (20) in the watched match, made through the services
  (``services.play``, as ``bench.live`` makes them), each the time from its commit
  (``Move.created``, taken just before the commit: on the safe side) to the last of the
  watchers' streams receiving its event, and to the median one; p50 / p95 / max over the
  moves (target: p95 <= 500 ms); and that no other stream was told.

Run it while no test run uses the same database server (it uses the test database name),
and no other benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from bench import site  # noqa: E402

site.production_settings()

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import AnonymousUser  # noqa: E402
from django.db import connection, connections  # noqa: E402

from bench.calibration import calibrate  # noqa: E402
from bench.live import (  # noqa: E402
    MB,
    OPENING,
    Stream,
    new_user,
    open_stream,
    place,
    rounds_match,
    session_of,
    web_memory,
)
from bench.load import REQUEST_TIMEOUT, HttpError, fetch  # noqa: E402
from bench.movegen import percentile  # noqa: E402
from games import services  # noqa: E402
from nmbr9site import processes  # noqa: E402

TARGET_THREADS = 20  # more threads in the web processes with the streams open
TARGET_RSS_MB = 1024  # more memory
TARGET_IDLE_CPU = 5.0  # % of one core, with the streams open
TARGET_PAGE_RATIO = 1.2  # page p95 with the streams open / with none
TARGET_FAN_OUT_P95_MS = 500
WAIT_SECONDS = 30  # for a move to reach every watcher
ROUNDS = 20  # of a NMBR 9 match: 2 x ROUNDS moves in a two-player one, the last ends it
PAGES = 20  # signed-in players whose game pages are timed, in turn
SPARE_FILES = 1000  # open files besides the streams' sockets, in this process and the live one


@dataclass
class Opened:
    """What a stream is opened for: its match, the version its page shows, the session of
    the player whose page it is (None: a visitor, watching)."""

    match_id: int
    version: str
    session: str | None


@dataclass
class Crowd:
    """The watched match, its two players, what each stream is opened for (the watched
    match's watchers first) and the pages of signed-in players to time."""

    match_id: int
    players: tuple
    streams: list[Opened]
    watchers: int
    pages: list[tuple[str, str]]


def make_crowd(streams: int, watchers: int, matches: int) -> Crowd:
    """The watched match and ``watchers`` watchers of it; ``matches`` other matches, each
    with its two players' streams (as many as fit in ``streams``) and, round the matches,
    visitors watching them up to ``streams`` in all."""
    first, second = new_user("watched0"), new_user("watched1")
    watched = rounds_match(first, second, seed=0)
    anybody = AnonymousUser()

    def seen(match_id: int, user) -> str:
        return services.version(services.view_match(match_id, user))

    opened = [Opened(watched, seen(watched, anybody), None)] * watchers
    rest = streams - watchers
    others, pages = [], []
    for i in range(matches if rest > 0 else 0):
        seated = [new_user(f"player{i}a"), new_user(f"player{i}b")]
        match_id = rounds_match(*seated, seed=i + 1)
        others.append((match_id, seen(match_id, anybody)))
        for user in seated:
            session = session_of(user)
            if len(pages) < PAGES:
                pages.append((f"/game/{match_id}/", session))
            if len(opened) < streams:
                opened.append(Opened(match_id, seen(match_id, user), session))
    for i in range(streams - len(opened)):
        opened.append(Opened(*others[i % len(others)], None))
    if not pages:
        pages = [(f"/game/{watched}/", session_of(first))]
    return Crowd(watched, (first, second), opened, watchers, pages)


async def page_times(
    port: int, pages: list[tuple[str, str]], count: int, clients: int
) -> tuple[list[float], Counter]:
    """``count`` GETs of ``pages`` (address, session), in turn, from ``clients`` clients at
    once: the milliseconds of each answered 200, and the others by what went wrong."""
    turns = iter(range(count))
    times: list[float] = []
    errors: Counter = Counter()

    async def client() -> None:
        for turn in turns:
            path, session = pages[turn % len(pages)]
            headers = {
                "X-Forwarded-Proto": "https",
                "Accept-Encoding": "identity",
                "Cookie": f"{settings.SESSION_COOKIE_NAME}={session}",
            }
            started = time.perf_counter()
            try:
                answer = await asyncio.wait_for(fetch(port, "GET", path, headers), REQUEST_TIMEOUT)
            except (OSError, TimeoutError, HttpError) as exc:
                errors[type(exc).__name__] += 1
                continue
            if answer.status != 200:
                errors[f"HTTP {answer.status}"] += 1
                continue
            times.append((time.perf_counter() - started) * 1000)

    await asyncio.gather(*(client() for _ in range(clients)))
    return times, errors


@dataclass
class Usage:
    """CPU seconds used by the web process (its sync workers), by the live one and by the
    whole machine (every process), and seconds of the clock: so far, or between two
    readings (``since``)."""

    web: float
    live: float
    machine: float
    at: float

    @classmethod
    def now(cls, up: site.Site) -> Usage:
        web, live = up.cpu(processes.WEB), up.cpu(processes.LIVE)
        return cls(web, live, site.machine()[0], time.perf_counter())

    def since(self, before: Usage) -> Usage:
        return Usage(
            self.web - before.web,
            self.live - before.live,
            self.machine - before.machine,
            self.at - before.at,
        )

    def cores(self) -> str:
        """The cores busy meanwhile: the whole machine's, the web and live processes'."""
        return (
            f"cores busy: {self.machine / self.at:.2f} (the machine), web "
            f"{self.web / self.at:.2f}, live {self.live / self.at:.2f}"
        )


async def pages_p95(up: site.Site, crowd: Crowd, count: int, clients: int, when: str) -> float:
    """Time ``count`` game pages; print p50 / p95 / max, the web process's CPU per page and
    the cores busy meanwhile; return the p95 (ms)."""
    before = Usage.now(up)
    ms, errors = await page_times(up.port, crowd.pages, count, clients)
    used = Usage.now(up).since(before)
    p95 = percentile(ms, 0.95) if ms else float("nan")
    print(
        f"  game page, {when}: n={len(ms)}, {clients} clients   p50 "
        f"{statistics.median(ms) if ms else float('nan'):6.1f} ms   p95 {p95:6.1f} ms   "
        f"max {max(ms, default=float('nan')):6.1f} ms   errors: {dict(errors) or 0}"
    )
    print(f"    web CPU {used.web * 1000 / max(1, count):.1f} ms per page; {used.cores()}")
    return p95


async def idle_cpu(up: site.Site, seconds: float, when: str) -> float:
    """The web processes' CPU over the next ``seconds``, % of one core, printed with the
    live process's alone and the whole machine's; returned."""
    before = Usage.now(up)
    await asyncio.sleep(seconds)
    used = Usage.now(up).since(before)
    share = 100 * (used.web + used.live) / used.at
    print(
        f"  idle {seconds:g} s {when}: {share:.2f}% of a core (the live process "
        f"{100 * used.live / used.at:.2f}%); the machine {used.machine / used.at:.2f} cores busy"
    )
    return share


def readings(up: site.Site) -> tuple[int, int]:
    """The web processes' threads and resident memory (bytes), all together."""
    return up.threads(), site.rss(up.web_pids())


async def open_all(
    up: site.Site, crowd: Crowd
) -> tuple[list[Stream], list[asyncio.Task], Counter, float]:
    """Open every stream of ``crowd`` (``OPENING`` at a time), follow each, and wait until
    the server has subscribed each (its first words, ``retry:``, come once it has): the
    streams answered 200, the tasks following them, the others by what they got, and the
    seconds it took."""
    gate = asyncio.Semaphore(OPENING)
    started = time.perf_counter()
    opened = await asyncio.gather(
        *(
            open_stream(up.live_port, one.match_id, one.version, one.session, one, gate)
            for one in crowd.streams
        ),
        return_exceptions=True,
    )
    streams = [s for s in opened if isinstance(s, Stream) and s.status == 200]
    refused = Counter(
        f"HTTP {s.status}" if isinstance(s, Stream) else repr(s)
        for s in opened
        if not isinstance(s, Stream) or s.status != 200
    )
    followers = [asyncio.create_task(stream.follow()) for stream in streams]
    ends = time.monotonic() + 120
    while time.monotonic() < ends:
        if all(b"retry:" in s.data or s.ended for s in streams):
            break
        await asyncio.sleep(0.1)
    return streams, followers, refused, time.perf_counter() - started


async def fan_out(
    up: site.Site, crowd: Crowd, watchers: list[Stream], others: list[Stream], moves: int
):
    """Make ``moves`` moves in the watched match, its players in turn, through the services
    in a thread of their own (this event loop goes on reading the streams meanwhile); print
    the times from each move's commit to the last and to the median watcher told, and the
    live process's CPU per move (with the heartbeats that fell meanwhile)."""
    loop = asyncio.get_running_loop()
    before, beats = Usage.now(up), sum(s.heartbeats() for s in watchers + others)
    database = ThreadPoolExecutor(1)  # one thread, one database connection
    last, median, after_call, missed = [], [], [], 0
    beaten = []  # whether the watchers got a heartbeat while the move went out
    others_told = sum(s.told() for s in others)
    try:
        for i in range(moves):
            told = [s.told() for s in watchers]
            watchers_beats = sum(s.heartbeats() for s in watchers)
            move = await loop.run_in_executor(database, place, crowd.match_id, crowd.players[i % 2])
            returned = time.time()
            created = move.created.timestamp()
            ends = time.monotonic() + WAIT_SECONDS
            while time.monotonic() < ends and any(
                s.told() <= n and not s.ended for s, n in zip(watchers, told, strict=True)
            ):
                await asyncio.sleep(0.005)
            arrived = [s.told_at[n] for s, n in zip(watchers, told, strict=True) if s.told() > n]
            missed += len(watchers) - len(arrived)
            if arrived:
                last.append(max(arrived) - created)
                median.append(statistics.median(arrived) - created)
                after_call.append(max(arrived) - returned)
                beaten.append(sum(s.heartbeats() for s in watchers) > watchers_beats)
            await asyncio.sleep(0.5)
    finally:
        await loop.run_in_executor(database, connections.close_all)
        database.shutdown()
    others_told = sum(s.told() for s in others) - others_told
    used = Usage.now(up).since(before)
    beats = sum(s.heartbeats() for s in watchers + others) - beats

    def line(name: str, seconds: list[float]) -> str:
        ms = [v * 1000 for v in seconds]
        if not ms:
            return f"  {name:<46} -"
        return (
            f"  {name:<46} p50 {statistics.median(ms):6.1f} ms   p95 "
            f"{percentile(ms, 0.95):6.1f} ms   max {max(ms):6.1f} ms"
        )

    print(f"fan-out: {len(last)} moves in match {crowd.match_id}, {len(watchers)} watchers")
    print(line("commit -> the last watcher told", last))
    print(line("commit -> the median watcher told", median))
    print(line("service call returned -> the last watcher told", after_call))
    print(
        f"  watchers not told within {WAIT_SECONDS} s: {missed}; other streams told: {others_told}"
    )
    print(
        f"  live CPU {used.live * 1000 / moves:.1f} ms per move ({beats} heartbeats "
        f"meanwhile); {used.cores()}"
    )
    print(
        "  each move, commit -> the last watcher told (* a heartbeat went out meanwhile): "
        + ", ".join(f"{v * 1000:.0f}{'*' if b else ''}" for v, b in zip(last, beaten, strict=True))
        + " ms"
    )
    p95 = percentile([v * 1000 for v in last], 0.95) if last else float("inf")
    return p95, missed, others_told


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


async def measure(up: site.Site, crowd: Crowd, args) -> bool:
    """Everything printed, in order; whether every target was met and nothing went wrong."""
    # Warm up, not counted: each worker's first requests, each page's first reading.
    await page_times(up.port, crowd.pages, args.pages, args.clients)
    await asyncio.sleep(2)
    print(f"pages: {len(crowd.pages)} signed-in players' game pages, in turn")
    quiet_p95 = await pages_p95(up, crowd, args.pages, args.clients, "no stream open")
    threads, memory = readings(up)
    print(f"web processes, no stream open: {threads} threads, {memory / MB:.1f} MB")
    print(f"  {web_memory(up)}")
    await idle_cpu(up, args.idle, "with no stream open")

    streams, followers, refused, opening = await open_all(up, crowd)
    subscribed = sum(b"retry:" in s.data for s in streams)
    print(
        f"streams: opened {len(streams)} of {len(crowd.streams)} in {opening:.1f} s "
        f"({OPENING} at a time), {subscribed} subscribed; refused: {dict(refused) or 0}"
    )
    held = site.connections_to(up.live_port, up.workers_now(processes.LIVE))
    print("  held by each live worker: " + ", ".join(f"{p}: {n}" for p, n in held.items()))
    await asyncio.sleep(5)
    threads_with, memory_with = readings(up)
    more = (memory_with - memory) / MB
    print(
        f"  with them open: {threads_with} threads ({threads_with - threads:+d}), "
        f"{memory_with / MB:.1f} MB ({more:+.1f} MB, "
        f"{(memory_with - memory) / max(1, len(streams)) / 1024:.1f} kB per stream)"
    )
    print(f"  {web_memory(up)}")
    beats = sum(s.heartbeats() for s in streams)
    share = await idle_cpu(up, args.idle, "with them open")
    beats = sum(s.heartbeats() for s in streams) - beats
    print(f"    {beats} heartbeats meanwhile")
    busy_p95 = await pages_p95(up, crowd, args.pages, args.clients, "the streams open")

    watchers = [s for s in streams if s.owner.match_id == crowd.match_id]
    others = [s for s in streams if s.owner.match_id != crowd.match_id]
    fan_p95, missed, others_told = await fan_out(up, crowd, watchers, others, args.moves)
    ended = sum(s.ended for s in streams)
    print(f"streams ended meanwhile: {ended}")
    for s, follower in zip(streams, followers, strict=True):
        s.writer.close()
        follower.cancel()

    ratio = busy_p95 / quiet_p95
    checks = [
        (
            f"threads {threads_with - threads:+d} (<= +{TARGET_THREADS})",
            threads_with - threads <= TARGET_THREADS,
        ),
        (f"memory {more:+.0f} MB (<= +{TARGET_RSS_MB} MB)", more <= TARGET_RSS_MB),
        (
            f"idle CPU with the streams {share:.2f}% (<= {TARGET_IDLE_CPU:g}% of a core)",
            share <= TARGET_IDLE_CPU,
        ),
        (
            f"page p95 {busy_p95:.1f} / {quiet_p95:.1f} ms = {ratio:.2f} x "
            f"(<= {TARGET_PAGE_RATIO:g} x)",
            ratio <= TARGET_PAGE_RATIO,
        ),
        (
            f"fan-out p95 {fan_p95:.1f} ms (<= {TARGET_FAN_OUT_P95_MS} ms)",
            fan_p95 <= TARGET_FAN_OUT_P95_MS,
        ),
    ]
    print("targets:")
    for what, met in checks:
        print(f"  {what}: {verdict(met)}")
    clean = not refused and not missed and not others_told and not ended
    print(f"  every stream opened, told what it should and nothing else: {verdict(clean)}")
    return all(met for _, met in checks) and clean


def raise_open_files(streams: int) -> int:
    """Raise this process's open-files limit to the hard one (the site's processes inherit
    it): a socket for each stream here, and one in the live process, with ``SPARE_FILES``
    for the rest. The streams that fit: ``streams``, or fewer under a lower hard limit."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard == resource.RLIM_INFINITY or hard >= streams + SPARE_FILES:
        return streams
    fit = max(0, hard - SPARE_FILES)
    print(f"bench.crowd: {hard} open files at most (ulimit -Hn): {fit} streams, not {streams}")
    return fit


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.crowd",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--streams", type=int, default=10000, help="streams held open")
    parser.add_argument("--watchers", type=int, default=1000, help="of them, the watched match's")
    parser.add_argument("--matches", type=int, default=300, help="other matches the rest follow")
    parser.add_argument("--moves", type=int, default=20, help="moves in the watched match")
    parser.add_argument("--idle", type=float, default=60, help="seconds measured idle")
    parser.add_argument("--pages", type=int, default=300, help="game pages timed each time")
    parser.add_argument("--clients", type=int, default=4, help="clients asking for pages at once")
    parser.add_argument("--workers", type=int, default=2, help="the web process's sync workers")
    args = parser.parse_args(argv)
    if connection.vendor != "postgresql":
        raise SystemExit("bench.crowd runs against PostgreSQL: set DATABASE_URL.")
    args.streams = raise_open_files(args.streams)
    if not 0 < args.watchers <= args.streams:
        raise SystemExit("bench.crowd: --watchers must be from 1 to --streams.")
    if not 0 < args.moves < 2 * ROUNDS:
        raise SystemExit(f"bench.crowd: --moves must be from 1 to {2 * ROUNDS - 1}.")
    if args.streams > args.watchers and args.matches < 1:
        raise SystemExit("bench.crowd: the streams beyond the watchers need --matches >= 1.")
    print(f"sum(range(10**7)): {calibrate():.3f} s (before the run)")
    with site.test_database():
        started = time.perf_counter()
        crowd = make_crowd(args.streams, args.watchers, args.matches)
        signed_in = sum(one.session is not None for one in crowd.streams)
        print(
            f"set up in {time.perf_counter() - started:.1f} s: {len(crowd.streams)} streams, "
            f"{crowd.watchers} watching match {crowd.match_id}, {signed_in} players' own, "
            f"the rest watching {args.matches} other matches; open files: "
            f"{resource.getrlimit(resource.RLIMIT_NOFILE)[0]}"
        )
        env = {
            "LIVE_STREAMS_PER_CLIENT": "100000",
            "LIVE_STREAMS_MOST": str(max(args.streams, 10000)),
        }
        port = processes.free_port()
        with site.serve("procfile", port=port, workers=args.workers, env=env) as up:
            print(
                f"server: procfile, web: {up.workers} sync workers on {up.port}, live: one "
                f"uvicorn worker on {up.live_port} (pool {site.POOL})"
            )
            asyncio.run(measure(up, crowd, args))
        print(f"sum(range(10**7)): {calibrate():.3f} s (after the run)")


if __name__ == "__main__":
    main()
