"""The site as in production on this machine, started for a benchmark, and its processes read
from /proc.

``serve`` starts the site's web processes as one of ``SERVERS`` says, one Celery worker and
beat on a queue of their own, all on the database Django is connected to, with ``DEBUG=0``
behind a (pretend) TLS proxy: the benchmark's process sets that up before ``django.setup()``
(``production_settings``). The web processes are started from the Procfile
(``processes.web``), as written there:

- ``procfile``: as in production, the ``web`` process (gunicorn's sync workers, a database
  connection kept by each) for the pages, on ``port``, and the ``live`` process (one uvicorn
  worker with a pool of ``DATABASE_POOL`` connections, 10) for the streams, on a port of its
  own (``Site.live_port``; nginx sends ``/game/*/live/`` there in production);
- ``wsgi``: the ``web`` process alone (its pages name their streams, which it answers 204:
  the pages poll);
- ``router``: the ``live`` process alone, serving pages and streams on one port as
  ``./run start`` does (a browser's page gets its stream from the same origin).

The readings of /proc (Linux) come to 0 or nothing elsewhere.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

SERVERS = ("procfile", "wsgi", "router")
#: The size of the live process's pool of PostgreSQL connections, as in the Procfile
#: (``DATABASE_POOL``).
POOL = 10


def production_settings() -> None:
    """The environment of production for this process and the servers it starts (before
    ``django.setup()``): DEBUG off, a secret key, behind a TLS proxy; a Celery queue of
    their own, so that the tasks this process sends (setting up matches) go to the worker
    it starts, not to another site's; and a par search of a fortieth of the full one, as in
    the tests: a run that passes the full hour publishes the day's puzzle in its new
    database (Celery beat), and the full search took about 30 s of a core in the middle of
    the measurement.

    Called again (a benchmark that imports another's helpers), it keeps the queue it chose
    first: Django's settings read it once."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")
    if not os.environ.get("CELERY_QUEUE", "").startswith("bench-"):
        os.environ["CELERY_QUEUE"] = f"bench-{uuid.uuid4().hex[:8]}"
    os.environ.setdefault("PUZZLE_PAR_EFFORT", "0.025")
    os.environ["DEBUG"] = "0"
    os.environ.setdefault("SECRET_KEY", "bench-" + uuid.uuid4().hex * 2)
    os.environ.setdefault("SITE_URL", "https://127.0.0.1")
    os.environ["BEHIND_TLS_PROXY"] = "1"


@dataclass
class Site:
    """The started site: the port of its pages and that of its streams (the same one but
    under ``procfile``), its web server (``SERVERS``), its web processes by kind
    (``processes.WEB``, ``processes.LIVE``: gunicorn's arbiters) and their workers."""

    port: int
    live_port: int
    server: str
    workers: int
    servers: dict[str, subprocess.Popen]
    celery: list[subprocess.Popen] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pool(self) -> int | None:
        """The pool of database connections of each process serving the pages (None: a
        connection kept by each sync worker)."""
        from nmbr9site import processes

        return None if processes.WEB in self.servers else POOL

    def arbiters(self, kind: str | None = None) -> list[int]:
        """gunicorn's arbiters, one per kind of web process (of ``kind`` alone, if given)."""
        return [server.pid for name, server in self.servers.items() if kind in (None, name)]

    def web_pids(self, kind: str | None = None) -> list[int]:
        """gunicorn's arbiters and their workers (of ``kind`` alone, if given)."""
        return [pid for arbiter in self.arbiters(kind) for pid in tree(arbiter)]

    def workers_now(self, kind: str | None = None) -> list[int]:
        """gunicorn's worker processes (of ``kind`` alone, if given)."""
        return [pid for arbiter in self.arbiters(kind) for pid in children(arbiter)]

    def cpu(self, kind: str | None = None) -> float:
        """The CPU seconds the web processes (of ``kind`` alone, if given) have used so far,
        replaced workers included."""
        return sum(tree_cpu(pid) for pid in self.arbiters(kind))

    def threads(self) -> int:
        """The threads of the web processes together."""
        return sum(status(pid, "Threads") for pid in self.web_pids())


def _log_tail(log: Path, lines: int = 20) -> str:
    with suppress(OSError):
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    return ""


@contextmanager
def serve(
    server: str = "procfile",
    *,
    port: int,
    workers: int = 2,
    threads: int = 1,
    env: dict[str, str] | None = None,
) -> Iterator[Site]:
    """The site on ``port`` as ``server`` (``SERVERS``) says, with ``workers`` processes
    serving the pages (``WEB_CONCURRENCY``; sync workers of ``threads`` each, gthread when
    more than 1),
    until the block ends: its web processes answering, one Celery worker and beat on this
    process's queue (``CELERY_QUEUE``, set by ``production_settings``); ``env`` added to
    their environment. The processes' output goes to files in a temporary folder, whose
    last lines are shown if one fails to start."""
    from nmbr9site import processes

    if server not in SERVERS:
        raise ValueError(f"no server {server!r}: one of {', '.join(SERVERS)}")
    if threads != 1 and server == "router":
        raise ValueError("threads are for the sync workers alone: uvicorn answers in its own")
    queue = os.environ.get("CELERY_QUEUE") or f"bench-{uuid.uuid4().hex[:8]}"
    logs = Path(tempfile.mkdtemp(prefix=f"{queue}-"))
    environment = {
        "DATABASE_URL": processes.database_url(),
        "CELERY_QUEUE": queue,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SITE_URL": f"https://127.0.0.1:{port}",
        "LOG_LEVEL": "WARNING",
        # No TLS proxy in front to redirect plain http: the clients say https themselves
        # (X-Forwarded-Proto), and what does not (a browser's stream) is not sent elsewhere.
        "SECURE_SSL_REDIRECT": "0",
        "WEB_CONCURRENCY": str(workers),
    } | (env or {})
    kinds = {
        "procfile": {processes.WEB: port, processes.LIVE: processes.free_port()},
        "wsgi": {processes.WEB: port},
        "router": {processes.LIVE: port},
    }[server]
    if server == "router":
        # ./run start's server: the live kind, as many processes as it starts
        environment.setdefault("LIVE_CONCURRENCY", str(workers))
    quiet = ["--log-level", "warning"]
    started: dict[str, subprocess.Popen] = {}
    celery = []
    try:
        celery.append(processes.celery("worker", queue=queue, env=environment))
        celery.append(
            processes.celery(
                "beat", queue=queue, env=environment, extra=["--schedule", f"{logs}/beat"]
            )
        )
        for kind, kind_port in kinds.items():
            extra = quiet + (
                ["--threads", str(threads)] if threads != 1 and kind == processes.WEB else []
            )
            started[kind] = processes.web(
                kind, kind_port, env=environment, log=logs / f"{kind}.log", extra=extra
            )
        for kind, kind_port in kinds.items():
            try:
                processes.wait_for_port(kind_port, 30, started[kind])
            except RuntimeError as exc:
                raise RuntimeError(f"{exc}\n{_log_tail(logs / f'{kind}.log')}") from None
        yield Site(port, kinds.get(processes.LIVE, port), server, workers, started, celery)
    finally:
        for child in [*celery, *started.values()]:
            processes.stop(child)


@contextmanager
def test_database() -> Iterator[None]:
    """A throw-away test database on the one Django is set up with, its static files
    collected, until the block ends (or the process is stopped by SIGTERM): then dropped."""
    from django.core.management import call_command
    from django.test.utils import setup_databases

    # stopped by a signal, the run still stops its servers and drops its database
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    old = setup_databases(verbosity=0, interactive=False)
    try:
        call_command("collectstatic", "--no-input", verbosity=0)
        yield
    finally:
        drop_test_databases(old)


def drop_test_databases(old) -> None:
    """Drop the test databases ``setup_databases`` made (``old``), once the connections of
    the stopped processes are gone: a PostgreSQL backend ends a moment after its client."""
    from django.db import connection
    from django.test.utils import teardown_databases

    if connection.vendor == "postgresql":
        query = (
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        for _ in range(100):
            with connection.cursor() as cursor:
                cursor.execute(query)
                if not cursor.fetchone()[0]:
                    break
            time.sleep(0.1)
    connection.close()
    teardown_databases(old, verbosity=0)


# ------------------------------------------------------------------ processes, from /proc


def parent(pid: int) -> int:
    """The parent of process ``pid`` (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rpartition(")")[2].split()[1])
    except OSError:
        return 0


def pids() -> list[int]:
    """Every process."""
    entries = os.listdir("/proc") if os.path.isdir("/proc") else []
    return [int(entry) for entry in entries if entry.isdigit()]


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    return [child for child in pids() if parent(child) == pid]


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    return [pid, *(below for child in children(pid) for below in tree(child))]


def cpu(pid: int) -> float:
    """The CPU time, user and system, that process ``pid`` has used, with that of its
    children that have ended (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int) -> float:
    """The CPU time used by ``pid`` and every process below it, ended ones included: a
    process that ends between two readings is counted by its parent (PostgreSQL replaces
    its backends as their connections age, gunicorn and Celery may replace workers)."""
    return sum(cpu(below) for below in tree(pid))


def status(pid: int, name: str) -> int:
    """A number from /proc/<pid>/status (``VmRSS`` in kB, ``Threads``; 0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as lines:
            for line in lines:
                key, _, value = line.partition(":")
                if key == name:
                    return int(value.split()[0])
    except OSError:
        pass
    return 0


def rss(pids_: list[int]) -> int:
    """The resident memory of the processes ``pids_`` together, bytes (shared pages are
    counted in each process that maps them)."""
    return sum(status(pid, "VmRSS") for pid in pids_) * 1024


def named(name: str) -> list[int]:
    """The processes called ``name``."""

    def called(pid: int) -> str:
        try:
            with open(f"/proc/{pid}/comm") as comm:
                return comm.read().strip()
        except OSError:
            return ""

    return [pid for pid in pids() if called(pid) == name]


def machine() -> tuple[float, float]:
    """(busy, stolen): the CPU seconds the machine's cores have been busy so far, every
    process together, and those the hypervisor gave to other machines."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:9]]
    except OSError:
        return 0.0, 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


def connections_to(port: int, pids_: list[int]) -> dict[int, int]:
    """How many established TCP connections on local ``port`` each of the processes
    ``pids_`` holds open (from /proc/net/tcp and the processes' file descriptors)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as rows:
                next(rows)
                for row in rows:
                    fields = row.split()
                    local, state, inode = fields[1], fields[3], fields[9]
                    if state == "01" and int(local.rpartition(":")[2], 16) == port:
                        inodes.add(f"socket:[{inode}]")
        except OSError:
            pass
    held = {}
    for pid in pids_:
        try:
            entries = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            held[pid] = 0
            continue
        count = 0
        for entry in entries:
            with suppress(OSError):
                count += os.readlink(f"/proc/{pid}/fd/{entry}") in inodes
        held[pid] = count
    return held
