"""Load: the site as in production on this machine, played by players who think (or do not).

Run with ``./run bench`` (or ``python -m bench.load [--seconds 60] [--players 50] [--think 0]``)
with DATABASE_URL pointing at PostgreSQL. It creates a throw-away test database there,
collects the static files, and starts the site as in production (``bench.site``; ``--server
procfile``, the default: the Procfile's ``web`` process, gunicorn with ``--workers`` sync
workers, serving the pages, and its ``live`` process for the streams; ``--server router``:
the ``live`` process alone serving everything, as ``./run start`` does, pages through
Django's WSGI handler one at a time per uvicorn process; ``--server wsgi``: the ``web``
process alone), one Celery worker and beat on a queue of its own, all with ``DEBUG=0``
behind a (pretend) TLS proxy. The players are pairs, each pair with a series of two-player
free-pace matches: every player loads a match page, then for each tile previews a spot and
places the default one, moving to the next match when done, from one asyncio client process
that speaks plain HTTP/1.1, a connection per request (``Connection: close``: gunicorn's sync
workers close each one, and uvicorn, which would keep it, is asked to, so that both servers
do the same work). Every request has a time limit and the run a total one.

``--think 0`` (the default) is the closed loop: ``--players`` players (50) send their next
request the moment the last is answered, for ``--seconds``: the capacity of the machine,
not what a player sees. ``--think S`` gives each player a pause between a placement and its
next request, exponentially distributed with mean S seconds; the players join evenly over
the first ``--ramp`` seconds (15) and are measured for ``--seconds`` after it. Such a run
first measures the closed loop's capacity C (50 players for ``--closed-seconds``, 60) on the
same site and times one player alone: its time per placement is the service time R. N
players who think S seconds offer N / (S + R) placements a second; without ``--players``
the run takes as many as offer ``--share`` (3/4) of C, whatever the machine's speed that
hour. ``./run bench`` runs ``--think 3``.

Printed for each part: placements per second (offered and achieved when thinking), p50/p95/
p99 latency per request kind, errors, the CPU time gunicorn (every web process) spent per
request and per placement (read from /proc: the figures to compare on a machine that other
programs share), and the whole machine's CPU time per placement, split into gunicorn,
PostgreSQL, Celery, the client and the rest, with the share of the cores' time the
hypervisor took; then a check that every placement the site accepted is in the database
exactly once and none other is.
Every run prints the time ``sum(range(10**7))`` took before and after it, and the whole
machine's CPU per placement as a multiple of it. Targets on the 2-core development machine:
that CPU per placement (with its preview) <= 0.06 x; the closed loop >= 150 placements/s with
p95 <= 100 ms; players who think, offering about three quarters of the closed loop's capacity
(>= 0.7 of it), p95 <= 100 ms for previews and placements and <= 250 ms for pages after
the ramp; no error, nothing lost.
Run it while no test run uses the same database server (it uses the test database name).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from bench import site  # noqa: E402

site.production_settings()

import django  # noqa: E402

django.setup()

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.db import connection  # noqa: E402

from bench.calibration import calibrate  # noqa: E402
from bench.movegen import percentile  # noqa: E402
from games import services  # noqa: E402
from games.models import Match, Move  # noqa: E402
from nmbr9site import processes  # noqa: E402

MATCHES_PER_PAIR = 40
TILES = 20  # placements per player in a match
REQUEST_TIMEOUT = 10.0
TARGET_RATE = 150
TARGET_P95_MS = 100
THINKING_P95_MS = {"page": 250, "preview": 100, "placement": 100}
THINKING_SHARE = 0.7  # the least share of the closed loop's capacity a thinking run offers
CLOSED_PLAYERS = 50
#: The whole machine's CPU per placement (with its preview), as a multiple of the time of
#: ``sum(range(10**7))`` in the same run.
TARGET_CPU_SHARE = 0.06
KINDS = ("page", "preview", "placement")
GHOST = re.compile(r'data-x="(-?\d+)" data-y="(-?\d+)" data-rotation="(\d)"')
PLY = re.compile(r'name="ply" value="(\d+)"')
NUMBER = re.compile(r'name="number" value="(\d)"')
CSRF = re.compile(r'"x-csrftoken": "([^"]+)"')


@dataclass
class Results:
    """What the players saw, each with the time.monotonic() it happened at: requests (kind,
    sent, seconds to answer), errors (sent, what) and accepted placements (sent, and match,
    player, move)."""

    requests: list[tuple[str, float, float]] = field(default_factory=list)
    errors: list[tuple[float, str]] = field(default_factory=list)
    placed: list[tuple[float, tuple[int, int, str]]] = field(default_factory=list)
    out_of_matches: int = 0

    def window(self, start: float, stop: float) -> Results:
        """What was sent from ``start`` to ``stop``."""

        def inside(at: float) -> bool:
            return start <= at < stop

        return Results(
            [r for r in self.requests if inside(r[1])],
            [e for e in self.errors if inside(e[0])],
            [p for p in self.placed if inside(p[0])],
            self.out_of_matches,
        )

    def ms(self, kind: str) -> list[float]:
        return [seconds * 1000 for k, _, seconds in self.requests if k == kind]


@dataclass
class Player:
    user_id: int
    session: str
    matches: list[int]


def pair_match(first: User, second: User) -> int:
    """A started two-player free-pace match between ``first`` and ``second``: its id."""
    match = services.create_match(
        first,
        players=2,
        options={"pace": "free"},
        time_control="1d",
        rated=True,
        invite=[second.username],
    )
    services.join(match.pk, second)
    return match.pk


def make_players(count: int, matches: int = MATCHES_PER_PAIR, name: str = "load") -> list[Player]:
    """``count`` players in pairs (one more if ``count`` is odd), each pair with its series of
    ``matches`` started matches; their names start with ``name``."""
    count += count % 2
    users = [
        User.objects.create_user(f"{name}{i}", f"{name}{i}@example.com", None) for i in range(count)
    ]
    players = []
    for user in users:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "games.infra.backends.Accounts"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        players.append(Player(user.pk, session.session_key, []))
    for first, second in zip(users[::2], users[1::2], strict=True):
        for _ in range(matches):
            match_id = pair_match(first, second)
            for player in players:
                if player.user_id in (first.pk, second.pk):
                    player.matches.append(match_id)
    return players


def next_move(text: str) -> tuple[dict, dict] | None:
    """What a player does next on the page ``text``: the query of a preview one square right
    of the default spot and the form placing the tile on the default spot; None when the
    page offers no tile to place (the match is over for the player, or they wait)."""
    ghost, ply, number = GHOST.search(text), PLY.search(text), NUMBER.search(text)
    if ghost is None or ply is None or number is None:
        return None
    x, y, rotation = (int(v) for v in ghost.groups())
    form = {"number": number.group(1), "x": x, "y": y, "rotation": rotation, "ply": ply.group(1)}
    return {"x": x + 1, "y": y, "rotation": rotation}, form


class HttpError(Exception):
    """A request that got no complete answer in time."""


@dataclass
class Answer:
    status: int
    text: str
    cookies: dict[str, str]


async def fetch(
    port: int, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> Answer:
    """One HTTP/1.1 request on a connection of its own, closed after the answer (gunicorn's
    sync workers close every connection; uvicorn is asked to): a client that costs next to
    nothing, so that the site, not the client, takes the machine's two cores."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body:
        lines.append("Content-Type: application/x-www-form-urlencoded")
        lines.append(f"Content-Length: {len(body)}")
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        data = await reader.read(-1)
    finally:
        writer.close()
    head, _, content = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1."):
        raise HttpError("no HTTP answer")
    status_line, *fields = head.decode("latin-1").split("\r\n")
    cookies = {}
    for field_ in fields:
        name, _, value = field_.partition(":")
        if name.lower() == "set-cookie":
            key, _, rest = value.strip().partition("=")
            cookies[key] = rest.split(";", 1)[0]
    return Answer(int(status_line.split()[1]), content.decode(), cookies)


@dataclass
class Run:
    """How a set of players plays: each joins at its turn over the first ``ramp`` seconds
    after ``start``, pauses ``think`` seconds on average (exponentially distributed; 0: no
    pause) after each placement, and stops at ``stop_at`` (times of time.monotonic())."""

    port: int
    start: float
    ramp: float
    stop_at: float
    think: float
    random: random.Random


async def play(player: Player, run: Run, joins_at: float, results: Results) -> None:
    port = run.port
    base = {
        "X-Forwarded-Proto": "https",
        "Origin": f"https://127.0.0.1:{port}",
        "Accept-Encoding": "identity",
    }
    cookies = {"sessionid": player.session}

    async def request(
        kind: str, method: str, url: str, body: dict | None = None, **headers: str
    ) -> Answer | None:
        sent_at = time.monotonic()
        started = time.perf_counter()
        sent = base | headers | {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
        try:
            answer = await asyncio.wait_for(
                fetch(port, method, url, sent, urlencode(body or {}).encode()), REQUEST_TIMEOUT
            )
        except (OSError, TimeoutError, HttpError) as exc:
            results.errors.append((sent_at, f"{kind} {url}: {exc!r}"))
            return None
        results.requests.append((kind, sent_at, time.perf_counter() - started))
        cookies.update(answer.cookies)
        if answer.status >= 400:
            results.errors.append((sent_at, f"{kind} {url}: HTTP {answer.status}"))
            return None
        return answer

    async def think() -> bool:
        """Pause as a player thinking; False when the run ends first."""
        if run.think <= 0:
            return time.monotonic() < run.stop_at
        pause = run.random.expovariate(1 / run.think)
        if time.monotonic() + pause >= run.stop_at:
            return False
        await asyncio.sleep(pause)
        return True

    await asyncio.sleep(max(0.0, joins_at - time.monotonic()))
    htmx = {"HX-Request": "true"}
    for match_id in player.matches:
        url = f"/game/{match_id}/"
        page = await request("page", "GET", url)
        if page is None:
            return
        csrf = CSRF.search(page.text).group(1)
        text = page.text
        while time.monotonic() < run.stop_at:
            move = next_move(text)
            if move is None:
                break  # this match is over for the player
            query, data = move
            await request("preview", "GET", f"{url}?{urlencode(query)}", **htmx)
            sent_at = time.monotonic()
            placed = await request(
                "placement", "POST", f"{url}play/", data, **htmx, **{"X-CSRFToken": csrf}
            )
            if placed is None:
                return
            placement = f"place {data['number']}@{data['x']},{data['y']}r{data['rotation']}"
            results.placed.append((sent_at, (match_id, player.user_id, placement)))
            text = placed.text
            if not await think():
                return
        if time.monotonic() >= run.stop_at:
            return
    results.out_of_matches += 1


async def run_players(
    players: list[Player],
    port: int,
    *,
    seconds: float,
    think: float = 0.0,
    ramp: float = 0.0,
    cpu: Callable[[], CpuUsed] | None = None,
    seed: int = 0,
) -> tuple[Results, Results, dict[str, float]]:
    """Let ``players`` play: they join over ``ramp`` seconds and are measured for
    ``seconds`` after it. Returns everything they saw, what was sent in those ``seconds``
    and the CPU time used meanwhile (``cpu``, read at both ends; empty without it)."""
    results = Results()
    start = time.monotonic()
    run = Run(port, start, ramp, start + ramp + seconds, think, random.Random(seed))
    joins = [start + ramp * i / len(players) for i in range(len(players))]

    async def measure() -> dict[str, float]:
        if cpu is None:
            return {}
        await asyncio.sleep(max(0.0, start + ramp - time.monotonic()))
        before = await asyncio.to_thread(cpu)
        await asyncio.sleep(max(0.0, run.stop_at - time.monotonic()))
        return (await asyncio.to_thread(cpu)).since(before)

    playing = (play(p, run, at, results) for p, at in zip(players, joins, strict=True))
    *_, used = await asyncio.wait_for(
        asyncio.gather(*playing, measure()),
        timeout=ramp + seconds + 2 * REQUEST_TIMEOUT + 30,
    )
    return results, results.window(start + ramp, run.stop_at), used


def check_stored(placed: list[tuple[int, int, str]]) -> tuple[int, int]:
    """(accepted placements missing from the database, moves stored that were not accepted).

    Counted, not compared as sets: a player may place the same number at the same spot twice
    in a match (the second copy on top of the first), and each must be stored once."""
    accepted = Counter(placed)
    stored = Counter(
        Move.objects.filter(match__kind=Match.Kind.MATCH).values_list(
            "match_id", "seat__player_id", "text"
        )
    )
    return (accepted - stored).total(), (stored - accepted).total()


@dataclass
class CpuUsed:
    """CPU seconds used so far: by each part of the stack, by this client, and by the whole
    machine (with the time stolen by the hypervisor)."""

    parts: dict[str, float]
    client: float
    machine: tuple[float, float]

    @classmethod
    def now(cls, gunicorn: list[int], celery: list[int]) -> CpuUsed:
        postgres = site.named("postgres")
        roots = {
            "gunicorn": gunicorn,
            "PostgreSQL": [pid for pid in postgres if site.parent(pid) not in postgres],
            "Celery": celery,
        }
        return cls(
            {part: sum(site.tree_cpu(pid) for pid in pids) for part, pids in roots.items()},
            time.process_time(),
            site.machine(),
        )

    def since(self, before: CpuUsed) -> dict[str, float]:
        """Seconds used between ``before`` and this reading, by part."""
        used = {part: seconds - before.parts[part] for part, seconds in self.parts.items()}
        used["the client"] = self.client - before.client
        used["machine"] = self.machine[0] - before.machine[0]
        used["stolen"] = self.machine[1] - before.machine[1]
        return used


def report_cpu(
    used: dict[str, float], seconds: float, results: Results, calibration: float
) -> None:
    """gunicorn's CPU time (its workers and the arbiter that replaces them) per request and
    per placement, the figures that other programs on a shared machine disturb least, and
    the whole machine's per placement, by part, also as a multiple of ``calibration`` (the
    seconds of ``sum(range(10**7))`` in this run): what two cores must fit into a second for
    a rate of placements."""
    requests = len(results.requests)
    if not requests or not results.placed or seconds <= 0:
        return
    placed = len(results.placed)
    web = used["gunicorn"] * 1000
    print(
        f"gunicorn's CPU: {web / requests:.1f} ms per request, {web / placed:.1f} ms per placement"
    )
    parts = ("gunicorn", "PostgreSQL", "Celery", "the client")
    rest = used["machine"] - sum(used[part] for part in parts)
    split = ", ".join(f"{part} {used[part] * 1000 / placed:.1f}" for part in parts)
    cores = os.cpu_count() or 1
    per = used["machine"] / placed
    print(
        f"the whole machine's CPU: {per * 1000:.1f} ms per placement "
        f"= {per / calibration:.3f} x sum(range(10**7)) ({calibration:.3f} s; target "
        f"<= {TARGET_CPU_SHARE:g} x) "
        f"({split}, the rest {rest * 1000 / placed:.1f}); {used['machine'] / seconds:.2f} of "
        f"{cores} cores busy, {100 * used['stolen'] / (seconds * cores):.0f}% of their time "
        "stolen by the hypervisor"
    )


def report(results: Results, seconds: float) -> dict[str, float]:
    """Print the rates, the latencies per kind and the errors of ``results`` (what was sent
    in ``seconds``); return each kind's p95 in ms."""
    rate = len(results.placed) / seconds
    print(f"  {len(results.placed)} placements in {seconds:.1f} s: {rate:.1f} placements/s")
    p95 = {}
    for kind in KINDS:
        ms = results.ms(kind)
        if not ms:
            continue
        p95[kind] = percentile(ms, 0.95)
        print(
            f"  {kind:<10} n={len(ms):<6} {len(ms) / seconds:6.1f}/s   "
            f"p50 {statistics.median(ms):6.1f} ms   p95 {p95[kind]:6.1f} ms   "
            f"p99 {percentile(ms, 0.99):6.1f} ms"
        )
    print(f"  errors: {len(results.errors)}")
    for _, error in results.errors[:10]:
        print("    ", error)
    if results.out_of_matches:
        print(f"  players who ran out of matches: {results.out_of_matches}")
    return p95


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def service_time(port: int, player: Player, seconds: float) -> tuple[float, Results]:
    """Seconds per placement of ``player`` playing alone without pause on a quiet site
    (median preview and placement, and a page every match): the time a thinking player
    adds to its pause; and what it saw. Also warms the site up: the first 3 s (a new
    worker's first requests, its first connection to the database) are not counted."""
    alone, measured, _ = asyncio.run(run_players([player], port, seconds=seconds, ramp=3.0))
    ms = {kind: statistics.median(measured.ms(kind) or alone.ms(kind) or [0.0]) for kind in KINDS}
    return (ms["preview"] + ms["placement"] + ms["page"] / TILES) / 1000, alone


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seconds", type=float, default=60, help="measured (after the ramp)")
    parser.add_argument(
        "--players",
        type=int,
        help=f"players ({CLOSED_PLAYERS} without a pause; when thinking, as many as offer "
        "--share of the closed loop's capacity)",
    )
    parser.add_argument(
        "--think", type=float, default=0, help="mean pause after a placement, s (0: none)"
    )
    parser.add_argument(
        "--ramp", type=float, help="players join over this many seconds (15 when thinking)"
    )
    parser.add_argument(
        "--closed-seconds",
        type=float,
        default=60,
        help="when thinking, the closed loop measured first for its capacity (0: none)",
    )
    parser.add_argument(
        "--share",
        type=float,
        default=0.75,
        help="when thinking without --players, the share of that capacity the players offer",
    )
    parser.add_argument(
        "--server",
        choices=site.SERVERS,
        default="procfile",
        help="the Procfile's web (sync workers, the pages) and live (the streams) processes "
        "(procfile), the live process alone serving everything as ./run start does (router), "
        "or the web process alone (wsgi)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="gunicorn worker processes serving the pages (one per core)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads per gunicorn sync worker (not with router; gthread when > 1)",
    )
    args = parser.parse_args(argv)
    if connection.vendor != "postgresql":
        raise SystemExit("bench.load runs against PostgreSQL: set DATABASE_URL.")
    thinking = args.think > 0
    if thinking and args.players is None and args.closed_seconds <= 0:
        raise SystemExit("bench.load: thinking players need --players or --closed-seconds > 0.")
    ramp = args.ramp if args.ramp is not None else (15.0 if thinking else 0.0)
    if args.server == "router" and args.threads != 1:
        raise SystemExit("bench.load: --threads is for the sync workers (not --server router).")

    calibration = calibrate()
    print(f"sum(range(10**7)): {calibration:.3f} s (before the run)")
    with site.test_database():
        port = processes.free_port()
        started = time.perf_counter()
        closed = []
        if not thinking:
            closed = make_players(args.players or CLOSED_PLAYERS)
        elif args.closed_seconds > 0:
            closed = make_players(CLOSED_PLAYERS)
        print(f"set up {len(closed)} players in {time.perf_counter() - started:.1f} s")
        serving = site.serve(args.server, port=port, workers=args.workers, threads=args.threads)
        with serving as up:
            gunicorn, celery = up.arbiters(), [child.pid for child in up.celery]

            def cpu() -> CpuUsed:
                return CpuUsed.now(gunicorn, celery)

            placed: list[tuple[int, int, str]] = []
            errors = 0
            alone = 0.0
            if thinking:
                alone, everything = service_time(port, make_players(2, 2, name="alone")[0], 5.0)
                placed += [key for _, key in everything.placed]
                errors += len(everything.errors)
            capacity, met = None, False
            closed_seconds = args.closed_seconds if thinking else args.seconds
            if closed_seconds > 0:
                print(f"closed loop: {len(closed)} players, no pause, {closed_seconds:.0f} s")
                everything, results, used = asyncio.run(
                    run_players(closed, port, seconds=closed_seconds, cpu=cpu)
                )
                placed += [key for _, key in everything.placed]
                errors += len(everything.errors)
                closed_p95 = report(results, closed_seconds)
                report_cpu(used, closed_seconds, results, calibration)
                capacity = len(results.placed) / closed_seconds
                worst = max(closed_p95.values(), default=0.0)
                met = capacity >= TARGET_RATE and worst <= TARGET_P95_MS
            if thinking:
                count = args.players or math.ceil(args.share * capacity * (args.think + alone))
                # enough matches for twice the placements a player makes on average
                placements = 2 * (ramp + args.seconds) / args.think
                matches = min(MATCHES_PER_PAIR, math.ceil(placements / TILES) + 1)
                started = time.perf_counter()
                thinkers = make_players(count, matches, name="thinker")[:count]
                print(f"set up {count} players in {time.perf_counter() - started:.1f} s")
                offered = len(thinkers) / (args.think + alone)
                share = f" = {offered / capacity:.2f} of the closed loop's" if capacity else ""
                print(
                    f"thinking: {len(thinkers)} players, a pause of {args.think:g} s on average "
                    f"(exponential) after each placement, joining over {ramp:g} s, measured "
                    f"{args.seconds:g} s after that"
                )
                print(
                    f"  one player alone: {alone * 1000:.1f} ms per placement; offered "
                    f"{len(thinkers)} / ({args.think:g} s + {alone * 1000:.0f} ms) = "
                    f"{offered:.1f} placements/s{share}"
                )
                everything, results, used = asyncio.run(
                    run_players(
                        thinkers, port, seconds=args.seconds, think=args.think, ramp=ramp, cpu=cpu
                    )
                )
                placed += [key for _, key in everything.placed]
                errors += len(everything.errors)
                ramp_errors = len(everything.errors) - len(results.errors)
                p95 = report(results, args.seconds)
                if ramp_errors:
                    print(f"  errors during the ramp: {ramp_errors}")
                report_cpu(used, args.seconds, results, calibration)
            missing, extra = check_stored(placed)
            print(f"lost: {missing}   stored but not accepted: {extra}   errors in all: {errors}")
            clean = not errors and not missing and not extra
            if not thinking:
                print(
                    f"targets: >= {TARGET_RATE} placements/s, p95 <= {TARGET_P95_MS} ms, 0 errors, "
                    f"0 lost: {verdict(met and clean)}"
                )
            else:
                loaded = capacity is None or offered >= THINKING_SHARE * capacity
                fast = all(p95.get(kind, 0) <= limit for kind, limit in THINKING_P95_MS.items())
                print(
                    f"targets: offering about 3/4 of the closed loop's capacity (>= "
                    f"{THINKING_SHARE:g}), after the ramp p95 <= "
                    + " / ".join(f"{v} ms" for v in THINKING_P95_MS.values())
                    + f" ({' / '.join(THINKING_P95_MS)}), 0 errors, 0 lost: "
                    f"{verdict(loaded and fast and clean)}"
                )
            server = f"server: {args.server}, gunicorn workers for the pages: {args.workers}, " + (
                f"pool: {up.pool}" if up.pool else f"threads: {args.threads}"
            )
            print(f"database: {connection.vendor}, {server}")
        print(f"sum(range(10**7)): {calibrate():.3f} s (after the run)")


if __name__ == "__main__":
    main()
