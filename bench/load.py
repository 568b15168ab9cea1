"""Load: the site as in production on this machine, played by 50 players as fast as it answers.

Run with ``./run bench`` (or ``python -m bench.load [--seconds 60] [--players 50]``) with
DATABASE_URL pointing at PostgreSQL. It creates a throw-away test database there, collects
the static files, and starts gunicorn (``--workers`` processes), one Celery worker and beat
on a queue of its own, all with ``DEBUG=0`` behind a (pretend) TLS proxy. The players are 25
pairs, each pair with a series of two-player free-pace matches; for ``--seconds`` every
player loads a match page, then for each tile previews a spot and places the default one,
moving to the next match when done, from one asyncio client process that speaks plain
HTTP/1.1 (a connection per request, as gunicorn's sync workers close each one). Every
request has a time limit and the run a total one.

Printed: placements per second, p50/p95/p99 latency per request kind, errors, a check
that every placement the site accepted is in the database exactly once and none other is,
the CPU time gunicorn spent per request and per placement (read from /proc:
the figures to compare on a machine that other programs share), and the whole machine's CPU
time per placement, split into gunicorn, PostgreSQL, Celery, the client and the rest, with
the share of the cores' time the hypervisor took.
Targets on the 2-core development machine: >= 150 placements/s, p95 <= 100 ms, no error,
nothing lost. Run it while no test run uses the same database server (it uses the test
database name).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from urllib.parse import urlencode

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")
os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", "bench-" + uuid.uuid4().hex * 2)
os.environ.setdefault("SITE_URL", "https://127.0.0.1")
os.environ["BEHIND_TLS_PROXY"] = "1"

import django  # noqa: E402

django.setup()

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402

from bench.movegen import percentile  # noqa: E402
from games import services  # noqa: E402
from games.models import Match, Move  # noqa: E402
from nmbr9site import processes  # noqa: E402

MATCHES_PER_PAIR = 40
REQUEST_TIMEOUT = 10.0
TARGET_RATE = 150
TARGET_P95_MS = 100
GHOST = re.compile(r'data-x="(-?\d+)" data-y="(-?\d+)" data-rotation="(\d)"')
PLY = re.compile(r'name="ply" value="(\d+)"')
NUMBER = re.compile(r'name="number" value="(\d)"')
CSRF = re.compile(r'"x-csrftoken": "([^"]+)"')


@dataclass
class Results:
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    placed: list[tuple[int, int, str]] = field(default_factory=list)  # match, player, move


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


def make_players(count: int) -> list[Player]:
    """``count`` players in pairs, each pair with its series of started matches."""
    users = [
        User.objects.create_user(f"load{i}", f"load{i}@example.com", None) for i in range(count)
    ]
    players = []
    for user in users:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "games.backends.Accounts"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        players.append(Player(user.pk, session.session_key, []))
    for first, second in zip(users[::2], users[1::2], strict=True):
        for _ in range(MATCHES_PER_PAIR):
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
    """One HTTP/1.1 request on a connection of its own (gunicorn's sync workers close every
    connection after answering): a client that costs next to nothing, so that the site, not
    the client, takes the machine's two cores."""
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


async def play(player: Player, port: int, stop_at: float, results: Results) -> None:
    base = {
        "X-Forwarded-Proto": "https",
        "Origin": f"https://127.0.0.1:{port}",
        "Accept-Encoding": "identity",
    }
    cookies = {"sessionid": player.session}

    async def request(
        kind: str, method: str, url: str, body: dict | None = None, **headers: str
    ) -> Answer | None:
        started = time.perf_counter()
        sent = base | headers | {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
        try:
            answer = await asyncio.wait_for(
                fetch(port, method, url, sent, urlencode(body or {}).encode()), REQUEST_TIMEOUT
            )
        except (OSError, TimeoutError, HttpError) as exc:
            results.errors.append(f"{kind} {url}: {exc!r}")
            return None
        results.times[kind].append(time.perf_counter() - started)
        cookies.update(answer.cookies)
        if answer.status >= 400:
            results.errors.append(f"{kind} {url}: HTTP {answer.status}")
            return None
        return answer

    htmx = {"HX-Request": "true"}
    for match_id in player.matches:
        url = f"/game/{match_id}/"
        page = await request("page", "GET", url)
        if page is None:
            return
        csrf = CSRF.search(page.text).group(1)
        text = page.text
        while time.monotonic() < stop_at:
            move = next_move(text)
            if move is None:
                break  # this match is over for the player
            query, data = move
            await request("preview", "GET", f"{url}?{urlencode(query)}", **htmx)
            placed = await request(
                "placement", "POST", f"{url}play/", data, **htmx, **{"X-CSRFToken": csrf}
            )
            if placed is None:
                return
            placement = f"place {data['number']}@{data['x']},{data['y']}r{data['rotation']}"
            results.placed.append((match_id, player.user_id, placement))
            text = placed.text
        if time.monotonic() >= stop_at:
            return


async def run_players(players: list[Player], port: int, seconds: float) -> tuple[Results, float]:
    results = Results()
    started = time.monotonic()
    stop_at = started + seconds
    await asyncio.wait_for(
        asyncio.gather(*(play(p, port, stop_at, results) for p in players)),
        timeout=seconds + 2 * REQUEST_TIMEOUT + 30,
    )
    return results, time.monotonic() - started


def check_stored(results: Results) -> tuple[int, int]:
    """(accepted placements missing from the database, moves stored that were not accepted).

    Counted, not compared as sets: a player may place the same number at the same spot twice
    in a match (the second copy on top of the first), and each must be stored once."""
    accepted = Counter(results.placed)
    stored = Counter(
        Move.objects.filter(match__kind=Match.Kind.MATCH).values_list(
            "match_id", "seat__player_id", "text"
        )
    )
    return (accepted - stored).total(), (stored - accepted).total()


def _parent(pid: int) -> int:
    """The parent of process ``pid`` (0 if it is gone; Linux's /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rpartition(")")[2].split()[1])
    except OSError:
        return 0


def _pids() -> list[int]:
    """Every process (Linux's /proc; none elsewhere)."""
    entries = os.listdir("/proc") if os.path.isdir("/proc") else []
    return [int(entry) for entry in entries if entry.isdigit()]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    return [child for child in _pids() if _parent(child) == pid]


def _cpu(pid: int) -> float:
    """The CPU time, user and system, that process ``pid`` has used, with that of its
    children that have ended (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _tree_cpu(pid: int) -> float:
    """The CPU time used by ``pid`` and every process below it, ended ones included: a
    process that ends between two readings is counted by its parent (PostgreSQL replaces
    its backends as their connections age, gunicorn and Celery may replace workers)."""
    return sum(_cpu(below) for below in _tree(pid))


def _named(name: str) -> list[int]:
    """The processes called ``name``."""

    def called(pid: int) -> str:
        try:
            with open(f"/proc/{pid}/comm") as comm:
                return comm.read().strip()
        except OSError:
            return ""

    return [pid for pid in _pids() if called(pid) == name]


def _tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    return [pid, *(below for child in _children(pid) for below in _tree(child))]


def _machine() -> tuple[float, float]:
    """(busy, stolen): the CPU seconds the machine's cores have been busy so far, every
    process together, and those the hypervisor gave to other machines (0, 0 without
    Linux's /proc/stat)."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:9]]
    except OSError:
        return 0.0, 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


@dataclass
class CpuUsed:
    """CPU seconds used so far: by each part of the stack, by this client, and by the whole
    machine (with the time stolen by the hypervisor)."""

    parts: dict[str, float]
    client: float
    machine: tuple[float, float]

    @classmethod
    def now(cls, gunicorn: int, celery: list[int]) -> CpuUsed:
        postgres = _named("postgres")
        roots = {
            "gunicorn": [gunicorn],
            "PostgreSQL": [pid for pid in postgres if _parent(pid) not in postgres],
            "Celery": celery,
        }
        return cls(
            {part: sum(_tree_cpu(pid) for pid in pids) for part, pids in roots.items()},
            time.process_time(),
            _machine(),
        )

    def since(self, before: CpuUsed) -> dict[str, float]:
        """Seconds used between ``before`` and this reading, by part."""
        used = {part: seconds - before.parts[part] for part, seconds in self.parts.items()}
        used["the client"] = self.client - before.client
        used["machine"] = self.machine[0] - before.machine[0]
        used["stolen"] = self.machine[1] - before.machine[1]
        return used


def report_cpu(used: dict[str, float], seconds: float, results: Results) -> None:
    """gunicorn's CPU time (its workers and the arbiter that replaces them) per request and
    per placement, the figures that other programs on a shared machine disturb least, and
    the whole machine's per placement, by part: what two cores must fit into a second for a
    rate of placements."""
    requests = sum(len(times) for times in results.times.values())
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
    print(
        f"the whole machine's CPU: {used['machine'] * 1000 / placed:.1f} ms per placement "
        f"({split}, the rest {rest * 1000 / placed:.1f}); {used['machine'] / seconds:.2f} of "
        f"{cores} cores busy, {100 * used['stolen'] / (seconds * cores):.0f}% of their time "
        "stolen by the hypervisor"
    )


def report(results: Results, seconds: float) -> None:
    rate = len(results.placed) / seconds
    print(f"{len(results.placed)} placements in {seconds:.1f} s: {rate:.0f} placements/s")
    worst = 0.0
    for kind in ("page", "preview", "placement"):
        ms = [t * 1000 for t in results.times[kind]]
        if not ms:
            continue
        p95 = percentile(ms, 0.95)
        worst = max(worst, p95)
        print(
            f"  {kind:<10} n={len(ms):<6} p50 {statistics.median(ms):6.1f} ms   "
            f"p95 {p95:6.1f} ms   p99 {percentile(ms, 0.99):6.1f} ms"
        )
    missing, extra = check_stored(results)
    print(f"errors: {len(results.errors)}   lost: {missing}   stored but not accepted: {extra}")
    for error in results.errors[:10]:
        print("  ", error)
    met = (
        rate >= TARGET_RATE
        and worst <= TARGET_P95_MS
        and not results.errors
        and not missing
        and not extra
    )
    print(
        f"targets: >= {TARGET_RATE} placements/s, p95 <= {TARGET_P95_MS} ms, 0 errors, 0 lost: "
        f"{'met' if met else 'MISSED'}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    args = parser.parse_args(argv)
    if connection.vendor != "postgresql":
        raise SystemExit("bench.load runs against PostgreSQL: set DATABASE_URL.")

    old = setup_databases(verbosity=0, interactive=False)
    queue = f"load-{uuid.uuid4().hex[:8]}"
    port = processes.free_port()
    children: list[subprocess.Popen] = []
    try:
        call_command("collectstatic", "--no-input", verbosity=0)
        started = time.perf_counter()
        players = make_players(args.players)
        print(f"set up {args.players} players in {time.perf_counter() - started:.1f} s")
        environment = os.environ | {
            "DATABASE_URL": processes.database_url(),
            "CELERY_QUEUE": queue,
            "ALLOWED_HOSTS": "127.0.0.1",
            "SITE_URL": f"https://127.0.0.1:{port}",
            "LOG_LEVEL": "WARNING",
        }
        children.append(processes.celery("worker", queue=queue, env=environment))
        children.append(
            processes.celery(
                "beat", queue=queue, env=environment, extra=["--schedule", f"/tmp/{queue}-beat"]
            )
        )
        web = [sys.executable, "-m", "gunicorn", "nmbr9site.wsgi"]
        web += ["--bind", f"127.0.0.1:{port}", "--workers", str(args.workers)]
        web += ["--log-level", "warning"]
        children.append(subprocess.Popen(web, cwd=processes.ROOT, env=environment))
        for _ in range(100):
            try:
                asyncio.run(fetch(port, "GET", "/", {}))
                break
            except OSError:
                time.sleep(0.2)
        celery = [child.pid for child in children[:2]]
        before = CpuUsed.now(children[-1].pid, celery)
        results, seconds = asyncio.run(run_players(players, port, args.seconds))
        used = CpuUsed.now(children[-1].pid, celery).since(before)
        report(results, seconds)
        report_cpu(used, seconds, results)
        print(f"database: {connection.vendor}, gunicorn workers: {args.workers}")
    finally:
        for child in children:
            processes.stop(child)
        connection.close()
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
