"""Live streams: how soon a move reaches the other player's open page, and what open streams
cost the web server.

Run with ``./run bench`` (or ``python -m bench.live [--moves 200] [--streams 500] [--idle
60]``) with DATABASE_URL pointing at PostgreSQL. Like ``bench.load`` it creates a throw-away
test database there, collects the static files and starts the site (``bench.site``) as
``./run start`` serves it, its pages and their streams from one origin, as a browser's page
must get them: the Procfile's ``live`` process alone (``router``: gunicorn with ``--workers``
uvicorn processes, each with a pool of database connections, the streams from the event loop
and the pages through Django's WSGI handler), one Celery worker and beat, ``DEBUG=0`` behind
a pretend TLS proxy. The time ``sum(range(10**7))`` takes is printed before and after.

Latency (``--moves`` moves, 200): two players play two-player NMBR 9 matches in rounds pace,
each with the match page open in headless Chromium, signed in by a session cookie. Each
round one of them (alternately) places a tile first and loads the page again, which then
waits for the other and follows the match's stream; once the stream is open and subscribed
to, the other places theirs. This process makes the moves through the services
(``services.play`` with the policy's placement: a committed move, announced after the
commit as a page's placement is) and a MutationObserver in the waiting page notes the time
#play shows a new version. A move's latency is that time less the move's ``Move.created``
(taken just before its transaction commits, so the figure is on the safe side), both on
this machine's clock. Printed: p50 / p95 / max over the moves, split into the commit to the
announcement (heard by a subscriber in this process), the announcement to the page's fetch,
and the fetch to the new version shown; and the requests the pages made (no poll,
``?poll=``, while a stream is open). Target: p95 <= 300 ms.

Open streams (``--streams``, 500): as many waiting players, each of whom has placed the first
tile of a two-player match of their own while the other has not, and a stream for each,
opened by this process (plain HTTP/1.1 on asyncio) as the waiting page would open it.
Printed: the resident memory of the web processes (gunicorn's arbiter and workers, VmRSS
summed) before and with the streams open, and per stream; their CPU over ``--idle``
seconds (60) with no stream open, then with nothing to do but the streams' heartbeats, as a
share of one core; how the streams fell to the workers; and, after one move in one of the
matches, which streams were told of it (that match's alone).
Targets: the web processes under 300 MB together and under 2% of a core.
Run it while no test run uses the same database server (it uses the test database name).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any
from urllib.parse import quote

from bench import site  # noqa: E402

site.production_settings()
# Sync Playwright runs an event loop in this thread, between whose calls the moves are made.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

import django  # noqa: E402

django.setup()

import redis  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.db import connection, connections  # noqa: E402

from bench.calibration import calibrate  # noqa: E402
from bench.movegen import percentile  # noqa: E402
from games import services  # noqa: E402
from games.infra import events  # noqa: E402
from games.models import Match, Move, Seat  # noqa: E402
from games.nmbr9.policy import choose  # noqa: E402
from nmbr9site import processes  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu"]
ROUNDS = 20  # rounds of a NMBR 9 match
TARGET_P95_MS = 300
TARGET_RSS_MB = 300
TARGET_IDLE_CPU = 2.0  # % of one core
WAIT_MS = 10_000
OPENING = 50  # streams being opened at once
MB = 1024 * 1024

# Run in each page before its own scripts: the times (Date.now()) #play showed each version,
# and those the page fetched its view of the match (htmx, from #play: an announced version)
# and got the answer.
OBSERVER = """
(() => {
  const versions = [];
  const fetches = [];
  const answers = [];
  let last;
  const note = () => {
    const play = document.getElementById("play");
    if (play && play.dataset.version !== last) {
      last = play.dataset.version;
      versions.push([Date.now(), last]);
    }
  };
  window.benchVersions = versions;
  window.benchFetches = fetches;
  window.benchAnswers = answers;
  new MutationObserver(note).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-version"],
  });
  document.addEventListener("htmx:beforeRequest", (event) => {
    if (event.detail.elt.id === "play") fetches.push(Date.now());
  });
  // Fired on #play before the answer replaces it (after that it no longer bubbles here).
  document.addEventListener("htmx:beforeSwap", (event) => {
    if (event.target.id === "play") answers.push(Date.now());
  });
})();
"""


def new_user(name: str) -> User:
    return User.objects.create_user(name, f"{name}@example.com", None)


def session_of(user: User) -> str:
    """The key of a new session signed in as ``user``."""
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "games.infra.backends.Accounts"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def rounds_match(first: User, second: User, seed: int) -> int:
    """A started two-player NMBR 9 match in rounds pace, a day per move: its id."""
    match = services.create_match(
        first,
        players=2,
        options={"pace": "rounds"},
        time_control="1d",
        rated=False,
        invite=[second.username],
        seed=seed,
    )
    services.join(match.pk, second)
    return match.pk


def place(match_id: int, user: User) -> Move:
    """``user`` places their tile where the policy would (as the tests do): the move, once
    committed."""
    record = services.load(Match.objects.get(pk=match_id))
    seat = record.seat_of(user)
    game = record.state
    placement = choose(game.board(seat.index), game.current_number(seat.index))
    services.play(match_id, user, f"place {placement}", record.made_by(seat))
    return Move.objects.filter(seat=seat).latest("ply")


class Announcements:
    """Every version announced on the site's live channels, with the time (time.time()) this
    process heard it: a subscriber as each web process's hub is."""

    def __init__(self) -> None:
        self.client = redis.Redis.from_url(settings.REDIS_URL)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.pubsub.psubscribe(events.channel("*", "*"))  # type: ignore[arg-type]
        self.heard: dict[tuple[str, str], float] = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    def _listen(self) -> None:
        while not self.stopped.is_set():
            message = self.pubsub.get_message(timeout=0.2)
            if message and message["type"] == "pmessage":
                # {"event": "changed", "version": ...}; other kinds carry no version
                version = json.loads(message["data"]).get("version")
                key = (message["channel"].decode(), version)
                self.heard.setdefault(key, time.time())

    def subscribers(self, channel: str) -> int:
        """How many connections listen on ``channel`` (a web process's hub is one)."""
        return dict(self.client.pubsub_numsub(channel)).get(channel.encode(), 0)

    def close(self) -> None:
        self.stopped.set()
        self.thread.join()
        self.pubsub.close()
        self.client.close()


@dataclass
class Latency:
    """One move's way to the other player's page, seconds from the move's commit: to the
    announcement, to the page's fetch, to its answer and to the new version shown."""

    announced: float
    fetched: float
    answered: float
    shown: float


class Reader:
    """A player's page in the browser, with the requests it made by kind."""

    def __init__(self, browser, base_url: str, user: User) -> None:
        self.base_url = base_url
        # The pretend TLS proxy's header, on every request (the site redirects plain http).
        self.context = browser.new_context(extra_http_headers={"X-Forwarded-Proto": "https"})
        self.context.set_default_timeout(WAIT_MS)
        cookie = {"name": settings.SESSION_COOKIE_NAME, "value": session_of(user)}
        self.context.add_cookies([cookie | {"url": base_url}])
        self.context.add_init_script(OBSERVER)
        self.requests: Counter[str] = Counter()
        self.errors: list[str] = []
        self.context.on("request", self._request)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on(
            "console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}")
        )

    def _request(self, request) -> None:
        url = request.url
        if "poll=" in url.partition("?")[2]:
            kind = "poll"
        elif "/live/" in url:
            kind = "stream"
        elif "/static/" in url:
            kind = "static"
        elif request.is_navigation_request():
            kind = "page"
        elif request.headers.get("hx-request"):
            kind = "fetch"
        else:
            kind = "other"
        self.requests[kind] += 1

    def open(self, path: str, announcements: Announcements, channel: str) -> float:
        """Load the page at ``path``, which waits for the other player; return the seconds
        from its stream's opening to the server's subscription to ``channel``."""
        self.page.goto(self.base_url + path)
        self.wait_for("() => document.documentElement.dataset.live === 'open'")
        opened = time.perf_counter()
        while announcements.subscribers(channel) < 1:
            if time.perf_counter() - opened > WAIT_MS / 1000:
                raise RuntimeError(f"nobody subscribed to {channel}")
            time.sleep(0.002)
        return time.perf_counter() - opened

    def wait_for(self, script: str, arg=None) -> None:
        """Wait until ``script`` is true in the page, asking every few milliseconds (the
        page's policy allows no script from a string, as Playwright's own wait would
        evaluate); the times measured are noted in the page itself."""
        ends = time.monotonic() + WAIT_MS / 1000
        while not self.page.evaluate(script, arg):
            if time.monotonic() > ends:
                raise TimeoutError(f"not true within {WAIT_MS} ms: {script}")
            self.page.wait_for_timeout(5)

    def shown(self) -> tuple[int, str]:
        """(versions noted, the version shown)."""
        return self.page.evaluate(
            "[window.benchVersions.length, document.getElementById('play').dataset.version]"
        )

    def next_version(self, noted: int, shown: str, since: float) -> tuple[Latency, str]:
        """Wait until the page shows a version other than ``shown`` (noted after the first
        ``noted``): the times since ``since`` (s) of its fetch, its answer and the version
        shown; and that version."""
        self.wait_for(
            "([n, v]) => window.benchVersions.slice(n).some(([, x]) => x !== v)", [noted, shown]
        )
        versions, fetches, answers = self.page.evaluate(
            "[window.benchVersions, window.benchFetches, window.benchAnswers]"
        )
        at, version = next((t, v) for t, v in versions[noted:] if v != shown)
        fetch = next((t for t in reversed(fetches) if t <= at), math.nan)
        answer = next((t for t in reversed(answers) if t <= at), math.nan)
        times = (fetch / 1000 - since, answer / 1000 - since, at / 1000 - since)
        return Latency(math.nan, *times), version

    def close(self) -> None:
        self.context.close()


def latency(base_url: str, moves: int) -> bool:
    """Play ``moves`` moves into a waiting page, print the figures; whether the target and
    the checks were met."""
    from playwright.sync_api import sync_playwright

    first, second = new_user("alice"), new_user("bob")
    announcements = Announcements()
    timings: list[Latency] = []
    subscribed: list[float] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        readers = {user.pk: Reader(browser, base_url, user) for user in (first, second)}
        started = time.perf_counter()
        try:
            for seed in range(math.ceil(moves / ROUNDS)):
                match_id = rounds_match(first, second, seed)
                path = Match.objects.get(pk=match_id).get_absolute_url()
                seats = dict(Seat.objects.filter(match_id=match_id).values_list("player", "index"))
                for reader in readers.values():
                    reader.page.goto(base_url + path)
                for round_ in range(ROUNDS):
                    if len(timings) >= moves:
                        break
                    waiter, mover = (second, first) if round_ % 2 == 0 else (first, second)
                    place(match_id, waiter)
                    reader = readers[waiter.pk]
                    channel = events.channel(match_id, str(seats[waiter.pk]))
                    subscribed.append(reader.open(path, announcements, channel))
                    noted, shown = reader.shown()
                    move = place(match_id, mover)
                    created = move.created.timestamp()
                    timing, version = reader.next_version(noted, shown, created)
                    timing.announced = (
                        announcements.heard.get((channel, version), math.nan) - created
                    )
                    timings.append(timing)
        except Exception:
            for reader in readers.values():  # what the pages said, for the failure's cause
                for error in reader.errors:
                    print("    ", error)
            raise
        finally:
            # Sync Playwright's event loop made this a context of its own, with a database
            # connection of its own: closed, or the test database cannot be dropped.
            connections.close_all()
        seconds = time.perf_counter() - started
        requests = sum((reader.requests for reader in readers.values()), Counter())
        errors = [error for reader in readers.values() for error in reader.errors]
        for reader in readers.values():
            reader.close()
        browser.close()
    announcements.close()

    def line(name: str, values: list[float]) -> str:
        ms = [v * 1000 for v in values if not math.isnan(v)]
        if not ms:
            return f"  {name:<34} -"
        return (
            f"  {name:<34} p50 {statistics.median(ms):6.1f} ms   p95 {percentile(ms, 0.95):6.1f}"
            f" ms   max {max(ms):6.1f} ms"
        )

    print(f"latency: {len(timings)} moves into a waiting page in {seconds:.0f} s")
    print(line("commit -> page shows it", [t.shown for t in timings]))
    print(line("commit -> announced", [t.announced for t in timings]))
    print(line("commit -> the page fetches", [t.fetched for t in timings]))
    print(line("fetch -> its answer", [t.answered - t.fetched for t in timings]))
    print(line("answer -> the page shows it", [t.shown - t.answered for t in timings]))
    print(line("stream open -> subscribed", subscribed))
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(requests.items()))
    print(f"  the pages' requests: {kinds}")
    print(f"  polls (?poll=): {requests['poll']}   JavaScript errors: {len(errors)}")
    for error in errors[:5]:
        print("    ", error)
    p95 = percentile([t.shown * 1000 for t in timings], 0.95)
    met = p95 <= TARGET_P95_MS and not requests["poll"] and not errors
    print(
        f"  targets: p95 <= {TARGET_P95_MS} ms, no poll, no JavaScript error: "
        f"{'met' if met else 'MISSED'}"
    )
    return met


@dataclass
class Waiting:
    """A player waiting for the other in a match of their own: what their page would open
    its stream with, and the other player, whose move ends the wait."""

    match_id: int
    channel: str
    session: str
    version: str
    other: User


def make_waiting(count: int) -> list[Waiting]:
    """``count`` players, each of whom has placed the first tile of a two-player match in
    rounds pace, the other player not yet."""
    waiting = []
    for i in range(count):
        waits, other = new_user(f"waits{i}"), new_user(f"other{i}")
        match_id = rounds_match(waits, other, seed=i)
        move = place(match_id, waits)
        version = services.version(services.view_match(match_id, waits))
        channel = events.channel(match_id, str(move.seat.index))
        waiting.append(Waiting(match_id, channel, session_of(waits), version, other))
    return waiting


CHANGED = b"event: changed"


@dataclass
class Stream:
    """An open stream, opened for ``owner`` (the benchmark's record of whose it is): what
    the server has sent on it so far, and when (time.time()) each announced version came."""

    owner: Any
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    status: int
    data: bytearray = field(default_factory=bytearray)
    told_at: list[float] = field(default_factory=list)
    ended: bool = False

    async def follow(self) -> None:
        try:
            while chunk := await self.reader.read(65536):
                told = self.told()
                self.data += chunk
                self.told_at += [time.time()] * (self.told() - told)
        except OSError:
            pass
        self.ended = True

    def told(self) -> int:
        """The versions announced on it."""
        return self.data.count(CHANGED)

    def heartbeats(self) -> int:
        return self.data.count(b": still here")


async def open_stream(
    port: int,
    match_id: int,
    version: str,
    session: str | None,
    owner: Any,
    gate: asyncio.Semaphore,
) -> Stream:
    """The stream of a page of match ``match_id`` showing ``version``, as a browser signed
    in with ``session`` (None: a visitor) opens it, once the server has answered with its
    head."""
    path = f"/game/{match_id}/live/?version={quote(version)}"
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Accept: text/event-stream"]
    lines.append("X-Forwarded-Proto: https")
    if session is not None:
        lines.append(f"Cookie: {settings.SESSION_COOKIE_NAME}={session}")
    async with gate:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
    return Stream(owner, reader, writer, int(head.split(b" ", 2)[1]))


def web_memory(up: site.Site) -> str:
    """Each web process's resident memory and threads."""
    return ", ".join(
        f"{pid}: {site.status(pid, 'VmRSS') / 1024:.1f} MB, {site.status(pid, 'Threads')} threads"
        for pid in up.web_pids()
    )


async def web_cpu(up: site.Site, seconds: float) -> float:
    """The web processes' CPU over the next ``seconds``, % of one core."""
    used, at = up.cpu(), time.perf_counter()
    await asyncio.sleep(seconds)
    return 100 * (up.cpu() - used) / (time.perf_counter() - at)


async def warm_up(up: site.Site, waiting: list[Waiting]) -> None:
    """A few game pages from each worker: what the first requests load is not a stream's."""
    for one in waiting[:20]:
        reader, writer = await asyncio.open_connection("127.0.0.1", up.port)
        lines = [f"GET /game/{one.match_id}/ HTTP/1.1", f"Host: 127.0.0.1:{up.port}"]
        lines += ["Connection: close", "X-Forwarded-Proto: https"]
        lines += [f"Cookie: {settings.SESSION_COOKIE_NAME}={one.session}"]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await reader.read(-1)
        writer.close()


async def hold(up: site.Site, waiting: list[Waiting], idle: float) -> bool:
    """Open a stream for each of ``waiting``, measure the web processes, make one move;
    print the figures; whether the targets and the check were met."""
    await warm_up(up, waiting)
    await asyncio.sleep(2)
    before = site.rss(up.web_pids())
    print(f"streams: {len(waiting)} waiting players; before: {before / MB:.1f} MB")
    print(f"  {web_memory(up)}")
    idle_cpu = await web_cpu(up, idle)
    print(f"  idle with no stream open: {idle_cpu:.2f}% of a core")
    gate = asyncio.Semaphore(OPENING)
    started = time.perf_counter()
    opened = await asyncio.gather(
        *(
            open_stream(up.live_port, one.match_id, one.version, one.session, one, gate)
            for one in waiting
        ),
        return_exceptions=True,
    )
    streams = [s for s in opened if isinstance(s, Stream) and s.status == 200]
    refused = Counter(
        repr(s) if not isinstance(s, Stream) else f"HTTP {s.status}"
        for s in opened
        if not isinstance(s, Stream) or s.status != 200
    )
    followers = [asyncio.create_task(s.follow()) for s in streams]
    client = redis.Redis.from_url(settings.REDIS_URL)
    channels = [s.owner.channel for s in streams]
    listened = 0
    for _ in range(300):
        listened = sum(count > 0 for _, count in client.pubsub_numsub(*channels))
        if listened == len(streams):
            break
        await asyncio.sleep(0.1)
    opening = time.perf_counter() - started
    print(
        f"  opened {len(streams)} streams in {opening:.1f} s ({OPENING} at a time), "
        f"{listened} channels subscribed; refused: {dict(refused) or 0}"
    )
    workers = up.workers_now()
    held = site.connections_to(up.live_port, workers)
    print("  streams held by each worker: " + ", ".join(f"{p}: {n}" for p, n in held.items()))
    await asyncio.sleep(5)
    with_streams = site.rss(up.web_pids())
    per_stream = (with_streams - before) / max(1, len(streams))
    print(
        f"  with them open: {with_streams / MB:.1f} MB, {(with_streams - before) / MB:.1f} MB "
        f"more, {per_stream / 1024:.1f} kB per stream"
    )
    print(f"  {web_memory(up)}")
    beats = sum(s.heartbeats() for s in streams)
    share = await web_cpu(up, idle)
    beats = sum(s.heartbeats() for s in streams) - beats
    per_beat = (share - idle_cpu) / 100 * idle / max(1, beats) * 1000
    print(
        f"  idle with them open: {share:.2f}% of a core; {beats} heartbeats in {idle:g} s "
        f"({beats / idle:.1f}/s), {per_beat:.2f} ms of CPU each with its presence note"
    )
    told = [s.told() for s in streams]
    chosen = streams[len(streams) // 2]
    place(chosen.owner.match_id, chosen.owner.other)
    connections.close_all()  # this event loop's connection, not the main thread's
    await asyncio.sleep(3)
    news = [s for s, before_ in zip(streams, told, strict=True) if s.told() > before_]
    right = [s.owner.match_id for s in news] == [chosen.owner.match_id]
    ended = sum(s.ended for s in streams)
    print(
        f"  one move in match {chosen.owner.match_id}: {len(news)} stream(s) told "
        f"({', '.join(str(s.owner.match_id) for s in news) or 'none'}): "
        f"{'right' if right else 'WRONG'}; streams ended meanwhile: {ended}"
    )
    for s in streams:
        s.writer.close()
    for follower in followers:
        follower.cancel()
    client.close()
    met = with_streams < TARGET_RSS_MB * MB and share < TARGET_IDLE_CPU
    print(
        f"  targets: web processes < {TARGET_RSS_MB} MB together, idle < {TARGET_IDLE_CPU:g}% "
        f"of a core: {'met' if met else 'MISSED'}"
    )
    return met and right and not ended and not refused


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.live",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--moves", type=int, default=200, help="moves timed (0: none)")
    parser.add_argument("--streams", type=int, default=500, help="streams held (0: none)")
    parser.add_argument("--idle", type=float, default=60, help="seconds measured idle")
    parser.add_argument("--workers", type=int, default=2, help="web processes")
    args = parser.parse_args(argv)
    if connection.vendor != "postgresql":
        raise SystemExit("bench.live runs against PostgreSQL: set DATABASE_URL.")

    print(f"sum(range(10**7)): {calibrate():.3f} s (before the run)")
    with site.test_database():
        port = processes.free_port()
        started = time.perf_counter()
        waiting = make_waiting(args.streams)
        print(f"set up {len(waiting)} waiting players in {time.perf_counter() - started:.1f} s")
        with site.serve("router", port=port, workers=args.workers) as up:
            print(f"server: router, gunicorn workers: {up.workers}, pool: {up.pool}")
            if args.moves:
                latency(up.url, args.moves)
            if waiting:
                asyncio.run(hold(up, waiting, args.idle))
        print(f"sum(range(10**7)): {calibrate():.3f} s (after the run)")


if __name__ == "__main__":
    main()
