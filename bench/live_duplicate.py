"""A live duplicate of 200 players: how soon a round's card reaches every page.

Run with ``./run bench`` (or ``python -m bench.live_duplicate [--players 200] [--rounds
10]``) with DATABASE_URL pointing at PostgreSQL. Like ``bench.live`` it creates a throw-away
test database there and starts the site (``bench.site``) as ``./run start`` serves it: the
``router`` (the Procfile's ``live`` process alone, ``--workers`` uvicorn processes, pages and
streams on one port), one Celery worker and beat, ``DEBUG=0`` behind a pretend TLS proxy.

``--players`` accounts enter a live duplicate (NMBR 9, 15 s per move, one game), which is
started (``live_duplicate.run_due``); then the step's time is lifted to an hour, so that
the sweep closes no round while this process makes the moves one after another (each
round's moves take longer than 15 s here). Every player's page is loaded (the whole match
page, with their session cookie) and its stream opened as the page opens it (plain HTTP/1.1
on asyncio, ``bench.live.open_stream``, with the version the page shows), until each is
subscribed.

Each of ``--rounds`` rounds (10): all players but one place their card through the services
(``services.play``, as a page's placement does, in a thread of their own: the event loop
goes on reading the streams), each in turn; once every one of their streams has had the
news of their own move, the last one places theirs. Its commit deals the next card
(``live_duplicate.moved`` -> ``advance``, in this process, as in the web process that
takes the placement) and ``announce`` tells every page's stream. Each page, as soon as its
stream brings that version, fetches its page again (an htmx GET of #play, all pages at once
as the browsers would, a connection each); it has the card once its answer shows the
version announced with the tile to place (``data-current``), fetched once more if not (as
the page tries twice). Timed from the last move's commit (``Move.created``, taken just
before the commit: on the safe side), all on this machine's clock:

- the deal's commit (the start of ``announce``, run after ``advance`` commits) and the end
  of ``announce`` (every channel told);
- announce: commit -> each stream's event;
- card on page: commit -> each page's answer with the card.

Printed: p50 / p95 / max per round and over all rounds, the streams that missed an event
and the pages that did not show the card (both must be 0), the web processes' CPU per round
and per page, and ``sum(range(10**7))`` before and after. Target: every page within 1 s.
``--profile`` prints where ``announce`` spends its time (cProfile, over every round).
Run it while no test run uses the same database server (it uses the test database name).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import re
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

from bench import site  # noqa: E402

site.production_settings()

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.calibration import calibrate  # noqa: E402
from bench.live import OPENING, Stream, new_user, open_stream, place, session_of  # noqa: E402
from bench.load import REQUEST_TIMEOUT, HttpError, fetch  # noqa: E402
from bench.movegen import percentile  # noqa: E402
from games.models import Puzzle, Seat, Tournament  # noqa: E402
from games.services.features import live_duplicate, tournaments  # noqa: E402
from nmbr9site import processes  # noqa: E402

TARGET_S = 1.0  # the card on every page, from the last move's commit
WAIT_S = 20.0  # for an event, or a page
MOVERS = 4  # threads making the moves of all players but the last, a database connection each
ROUNDS = 20  # cards of a NMBR 9 game: the last one ends it, with no next card to deal
VERSION = re.compile(r'data-version="([^"]*)"')
CARD = re.compile(r"data-current>(\d+)<")


@dataclass(eq=False)
class Page:
    """A player's open match page: its stream, the version it shows, and each version its
    stream announced with the time (time.time()) it came."""

    user: object
    match_id: int
    session: str
    shown: str = ""
    stream: Stream | None = None
    heard: list[tuple[float, str]] = field(default_factory=list)
    news: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def path(self) -> str:
        return f"/game/{self.match_id}/"

    def headers(self, htmx: bool) -> dict[str, str]:
        sent = {
            "X-Forwarded-Proto": "https",
            "Accept-Encoding": "identity",
            "Cookie": f"{settings.SESSION_COOKIE_NAME}={self.session}",
        }
        if htmx:  # live.js: htmx.ajax("GET", data-refresh, {target: "#play"})
            sent |= {"HX-Request": "true", "HX-Target": "play"}
        return sent

    async def follow(self) -> None:
        """Read the stream, noting each announced version as it comes."""
        assert self.stream is not None
        pending = b""
        try:
            while chunk := await self.stream.reader.read(65536):
                now = time.time()
                self.stream.data += chunk
                pending += chunk
                *blocks, pending = pending.split(b"\n\n")
                for block in blocks:  # each in a chunk of its own (HTTP/1.1, chunked)
                    if b"event: changed" in block:
                        data = block.partition(b"data: ")[2]
                        self.heard.append((now, json.loads(data)["version"]))
                        self.news.set()
        except OSError:
            pass
        self.stream.ended = True
        self.news.set()

    async def heard_at_least(self, count: int, seconds: float) -> bool:
        ends = time.monotonic() + seconds
        while len(self.heard) < count and not self.stream.ended:
            self.news.clear()
            try:
                await asyncio.wait_for(self.news.wait(), max(0.0, ends - time.monotonic()))
            except TimeoutError:
                return len(self.heard) >= count
        return len(self.heard) >= count


@dataclass
class Reached:
    """One page in one round: when its stream told it (None: never) and when its answer
    showed the card (None: never), seconds from the last move's commit; the card shown."""

    told: float | None
    shown: float | None
    card: str | None = None


def make_field(players: int) -> tuple[Tournament, list[Page]]:
    """A live duplicate of ``players`` accounts, started, its step's time lifted to an
    hour: the pages of its entrants (in the order of their accounts)."""
    users = [new_user(f"entrant{i}") for i in range(players)]
    tournament = live_duplicate.create(
        users[0],
        name="Bench live duplicate",
        game="nmbr9",
        games=1,
        speed="15s",
        starts=timezone.now() + timedelta(minutes=5),
        open=True,
    )
    for user in users[1:]:
        tournaments.join(tournament.pk, user)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    done = live_duplicate.run_due()
    assert done["start"] == 1 and done["deal"] == 1, done
    hour = timedelta(hours=1)
    Tournament.objects.filter(pk=tournament.pk).update(time_per_move=hour)
    Puzzle.objects.filter(tournament=tournament).update(due=timezone.now() + hour)
    seats = dict(
        Seat.objects.filter(match__puzzle__tournament=tournament).values_list(
            "player_id", "match_id"
        )
    )
    return tournament, [Page(user, seats[user.pk], session_of(user)) for user in users]


async def open_pages(port: int, pages: list[Page]) -> list[asyncio.Task]:
    """Load each page, open its stream with the version it shows (``OPENING`` at a time),
    follow each and wait until each is subscribed (its first words, ``retry:``)."""
    gate = asyncio.Semaphore(OPENING)

    async def load_and_open(page: Page) -> None:
        async with gate:
            answer = await fetch(port, "GET", page.path, page.headers(htmx=False))
        assert answer.status == 200 and "data-live=" in answer.text, answer.status
        page.shown = VERSION.search(answer.text).group(1)
        page.stream = await open_stream(port, page.match_id, page.shown, page.session, page, gate)
        assert page.stream.status == 200, page.stream.status

    await asyncio.gather(*(load_and_open(page) for page in pages))
    followers = [asyncio.create_task(page.follow()) for page in pages]
    ends = time.monotonic() + 60
    while not all(b"retry:" in p.stream.data for p in pages) and time.monotonic() < ends:
        await asyncio.sleep(0.05)
    return followers


async def reach(page: Page, port: int, count: int, since: float) -> Reached:
    """Wait for the ``count``-th version announced on the page's stream, then fetch the
    page as live.js does (twice at most) until it shows that version with the card."""
    if not await page.heard_at_least(count, WAIT_S):
        return Reached(None, None)
    told, version = page.heard[count - 1]
    for _ in range(2):
        try:
            answer = await asyncio.wait_for(
                fetch(port, "GET", page.path, page.headers(htmx=True)), REQUEST_TIMEOUT
            )
        except (OSError, TimeoutError, HttpError):
            continue
        shown = VERSION.search(answer.text)
        card = CARD.search(answer.text)
        if answer.status == 200 and shown and shown.group(1) == version and card:
            page.shown = version
            return Reached(told - since, time.time() - since, card.group(1))
    return Reached(told - since, None)


class Announces:
    """``live_duplicate.announce`` timed in this process (its start: after the deal's
    commit; its end: every channel told), and profiled if asked."""

    def __init__(self, profile: bool) -> None:
        self.original = live_duplicate.announce
        self.marks: list[tuple[float, float, float]] = []  # start, end, thread CPU
        self.profile = cProfile.Profile() if profile else None
        live_duplicate.announce = self.announce

    def announce(self, deal_id: int) -> None:
        started, cpu = time.time(), time.thread_time()
        if self.profile is not None:
            self.profile.runcall(self.original, deal_id)
        else:
            self.original(deal_id)
        self.marks.append((started, time.time(), time.thread_time() - cpu))

    def close(self) -> None:
        live_duplicate.announce = self.original
        if self.profile is not None:
            out = io.StringIO()
            pstats.Stats(self.profile, stream=out).sort_stats("cumulative").print_stats(25)
            print("announce, profiled (cumulative):")
            print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


def close_each(pool: ThreadPoolExecutor, threads: int) -> None:
    """Close the database connection of each of the ``threads`` threads of ``pool``."""
    everyone = threading.Barrier(threads)

    def close(_) -> None:
        everyone.wait()  # each thread takes one
        connections.close_all()

    list(pool.map(close, range(threads)))
    pool.shutdown()


def ms_line(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    if not ms:
        return f"{name}: -"
    return (
        f"{name}: p50 {statistics.median(ms):6.0f} / p95 {percentile(ms, 0.95):6.0f} / "
        f"max {max(ms):6.0f} ms"
    )


async def play_rounds(up: site.Site, pages: list[Page], rounds: int, profile: bool) -> bool:
    """Play ``rounds`` rounds into the open pages; print the figures; whether the target
    was met and nothing went missing."""
    loop = asyncio.get_running_loop()
    database = ThreadPoolExecutor(1)  # the last move's thread
    moving_pool = ThreadPoolExecutor(MOVERS)
    announces = Announces(profile)
    told_all: list[float] = []
    shown_all: list[float] = []
    missed = no_card = late_moves = 0
    try:
        for number in range(rounds):
            last = pages[(len(pages) - 1 + number) % len(pages)]
            movers = [page for page in pages if page is not last]
            heard = {page: len(page.heard) for page in pages}
            started = time.perf_counter()
            await asyncio.gather(
                *(
                    loop.run_in_executor(moving_pool, place, page.match_id, page.user)
                    for page in movers
                )
            )
            moving = time.perf_counter() - started
            # each mover's page has the news of their own move (as its placement's answer)
            waited = await asyncio.gather(
                *(page.heard_at_least(heard[page] + 1, WAIT_S) for page in movers)
            )
            late_moves += waited.count(False)
            counts = {page: len(page.heard) + (2 if page is last else 1) for page in pages}
            cpu, busy, marks = up.cpu(), site.machine()[0], len(announces.marks)
            move = await loop.run_in_executor(database, place, last.match_id, last.user)
            since = move.created.timestamp()
            reached = await asyncio.gather(
                *(reach(page, up.port, counts[page], since) for page in pages)
            )
            web_cpu, busy = up.cpu() - cpu, site.machine()[0] - busy
            told = [r.told for r in reached if r.told is not None]
            shown = [r.shown for r in reached if r.shown is not None]
            cards = {r.card for r in reached if r.card is not None}
            missed += len(reached) - len(told)
            no_card += len(reached) - len(shown)
            told_all += told
            shown_all += shown
            dealt = ""
            if len(announces.marks) > marks:
                begun, ended, thread_cpu = announces.marks[-1]
                dealt = (
                    f"deal committed +{(begun - since) * 1000:.0f} ms, announced "
                    f"+{(ended - since) * 1000:.0f} ms ({thread_cpu * 1000:.0f} ms CPU); "
                )
            tiles = "/".join(sorted(cards)) or "?"
            print(
                f"step {number + 2:>2} (tile {tiles}): {len(movers)} moves in {moving:.1f} s; "
                f"{dealt}web CPU {web_cpu:.2f} s ({web_cpu / len(pages) * 1000:.1f} ms a page),"
                f" the machine's {busy:.2f} s"
            )
            print("  " + ms_line("announce     ", told))
            print("  " + ms_line("card on page ", shown))
            print(f"  missed: {len(reached) - len(told)} events, {len(reached) - len(shown)} pages")
            await asyncio.sleep(0.5)
    finally:
        await loop.run_in_executor(database, connections.close_all)
        database.shutdown()
        await loop.run_in_executor(None, close_each, moving_pool, MOVERS)
        announces.close()
    ended = sum(page.stream.ended for page in pages)
    print(f"over {rounds} rounds, {len(pages)} pages each:")
    spans = [(end - begin, cpu) for begin, end, cpu in announces.marks]
    print("  " + ms_line("announce (its own time)  ", [s for s, _ in spans]))
    print("  " + ms_line("announce (its thread CPU)", [c for _, c in spans]))
    print("  " + ms_line("commit -> stream's event ", told_all))
    print("  " + ms_line("commit -> card on page   ", shown_all))
    print(
        f"  streams that missed an event: {missed}; pages without the card: {no_card}; "
        f"movers' own news late: {late_moves}; streams ended: {ended}"
    )
    worst = max(shown_all, default=float("inf"))
    met = worst <= TARGET_S and not missed and not no_card and not ended
    print(
        f"  target: the card on every page within {TARGET_S:g} s (max {worst * 1000:.0f} ms, "
        f"p95 {percentile(shown_all, 0.95) * 1000 if shown_all else float('nan'):.0f} ms): "
        f"{'met' if met else 'MISSED'}"
    )
    return met


async def quiet_pages(up: site.Site, pages: list[Page], count: int) -> None:
    """Fetch ``count`` pages one after another (nothing else happening): each one's time
    and the web processes' CPU per page, the floor under 200 at once."""
    cpu, times = up.cpu(), []
    for page in pages[:count]:
        started = time.perf_counter()
        answer = await fetch(up.port, "GET", page.path, page.headers(htmx=True))
        assert answer.status == 200, answer.status
        times.append(time.perf_counter() - started)
    used = (up.cpu() - cpu) / count
    print(
        f"one page at a time ({count}, htmx #play): {ms_line('', times)[2:]}; web CPU "
        f"{used * 1000:.1f} ms a page ({len(pages)} pages: {used * len(pages):.1f} s of CPU)"
    )


async def measure(up: site.Site, pages: list[Page], args) -> bool:
    started = time.perf_counter()
    followers = await open_pages(up.port, pages)
    subscribed = sum(b"retry:" in page.stream.data for page in pages)
    print(
        f"pages loaded and streams opened in {time.perf_counter() - started:.1f} s: "
        f"{subscribed} of {len(pages)} subscribed"
    )
    await asyncio.sleep(1)
    try:
        met = await play_rounds(up, pages, args.rounds, args.profile)
        await quiet_pages(up, pages, 20)
    finally:
        for page, follower in zip(pages, followers, strict=True):
            page.stream.writer.close()
            follower.cancel()
    return met and subscribed == len(pages)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.live_duplicate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--players", type=int, default=200, help="entrants, a page each")
    parser.add_argument("--rounds", type=int, default=10, help="cards dealt and timed")
    parser.add_argument("--workers", type=int, default=2, help="web (router) processes")
    parser.add_argument("--profile", action="store_true", help="profile announce")
    args = parser.parse_args(argv)
    if connection.vendor != "postgresql":
        raise SystemExit("bench.live_duplicate runs against PostgreSQL: set DATABASE_URL.")
    if not 2 <= args.players <= settings.LIVE_STREAMS_MOST:
        raise SystemExit("bench.live_duplicate: --players must be 2 or more.")
    if not 1 <= args.rounds < ROUNDS:
        raise SystemExit(f"bench.live_duplicate: --rounds must be from 1 to {ROUNDS - 1}.")
    print(f"sum(range(10**7)): {calibrate():.3f} s (before the run)")
    with site.test_database():
        started = time.perf_counter()
        tournament, pages = make_field(args.players)
        print(
            f"set up in {time.perf_counter() - started:.1f} s: tournament {tournament.pk}, "
            f"{len(pages)} entrants, card 1 dealt"
        )
        port = processes.free_port()
        with site.serve("router", port=port, workers=args.workers) as up:
            print(f"server: router, workers: {up.workers}, pool: {up.pool}")
            asyncio.run(measure(up, pages, args))
        connections.close_all()
        print(f"sum(range(10**7)): {calibrate():.3f} s (after the run)")


if __name__ == "__main__":
    main()
