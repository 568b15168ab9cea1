"""The site as in production on this machine, started for a benchmark, and its processes read
from /proc.

``serve`` starts the web server of the Procfile (gunicorn with uvicorn workers serving the
ASGI application, PostgreSQL connections from a pool of ``DATABASE_POOL``, 10) or the one
before it (``server="wsgi"``: gunicorn's sync workers, a connection kept per worker), one
Celery worker and beat on a queue of their own, all on the database Django is connected to,
with ``DEBUG=0`` behind a (pretend) TLS proxy: the benchmark's process sets that up before
``django.setup()`` (``production_settings``).

The readings of /proc (Linux) come to 0 or nothing elsewhere.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

SERVERS = ("asgi", "wsgi")
#: The size of each web process's pool of PostgreSQL connections under ASGI, as in the
#: Procfile (``DATABASE_POOL``).
POOL = 10


def production_settings() -> None:
    """The environment of production for this process and the servers it starts (before
    ``django.setup()``): DEBUG off, a secret key, behind a TLS proxy; a Celery queue of
    their own, so that the tasks this process sends (setting up matches) go to the worker
    it starts, not to another site's; and a par search of a fortieth of the full one, as in
    the tests: a run that passes the full hour publishes the day's puzzle in its new
    database (Celery beat), and the full search took about 30 s of a core in the middle of
    the measurement."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")
    os.environ["CELERY_QUEUE"] = f"bench-{uuid.uuid4().hex[:8]}"
    os.environ.setdefault("PUZZLE_PAR_EFFORT", "0.025")
    os.environ["DEBUG"] = "0"
    os.environ.setdefault("SECRET_KEY", "bench-" + uuid.uuid4().hex * 2)
    os.environ.setdefault("SITE_URL", "https://127.0.0.1")
    os.environ["BEHIND_TLS_PROXY"] = "1"


@dataclass
class Site:
    """The started site: its port, web server (``SERVERS``), its processes and the size of
    their pools of database connections (None: no pool)."""

    port: int
    server: str
    workers: int
    pool: int | None
    web: subprocess.Popen
    celery: list[subprocess.Popen] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def web_pids(self) -> list[int]:
        """gunicorn's arbiter and its workers."""
        return tree(self.web.pid)

    def workers_now(self) -> list[int]:
        """gunicorn's worker processes."""
        return children(self.web.pid)


def web_command(server: str, port: int, workers: int, threads: int = 1) -> list[str]:
    """The web server's command: the Procfile's (``asgi``), or gunicorn's sync workers
    (``wsgi``; gthread with ``threads`` > 1)."""
    command = [sys.executable, "-m", "gunicorn"]
    if server == "asgi":
        if threads != 1:
            raise ValueError("threads are a WSGI server's: uvicorn answers in threads of its own")
        command += ["nmbr9site.asgi", "--worker-class", "uvicorn_worker.UvicornWorker"]
        command += ["--graceful-timeout", "10", "--no-control-socket"]
    elif server == "wsgi":
        command += ["nmbr9site.wsgi", "--threads", str(threads)]
    else:
        raise ValueError(f"no server {server!r}: one of {', '.join(SERVERS)}")
    command += ["--bind", f"127.0.0.1:{port}", "--workers", str(workers)]
    return [*command, "--log-level", "warning"]


def web_environment(server: str, environment: dict[str, str]) -> dict[str, str]:
    """``environment`` for the web server: under ASGI each request runs in a thread of its
    own and takes a PostgreSQL connection from the pool (``DATABASE_POOL``); a sync worker
    keeps its one connection (``DATABASE_CONN_MAX_AGE``, no pool)."""
    if server == "asgi":
        return environment | {"DATABASE_POOL": environment.get("DATABASE_POOL") or str(POOL)}
    return {name: value for name, value in environment.items() if name != "DATABASE_POOL"}


async def _answers(port: int) -> bool:
    """Whether the web server answers a request on ``port``."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = await reader.read(-1)
        writer.close()
    except OSError:
        return False
    return answer.startswith(b"HTTP/1.1 ")


@contextmanager
def serve(server: str = "asgi", *, port: int, workers: int = 2, threads: int = 1) -> Iterator[Site]:
    """The site on ``port`` with ``workers`` web processes, until the block ends: its web
    server answering, one Celery worker and beat on this process's queue (``CELERY_QUEUE``,
    set by ``production_settings``)."""
    from nmbr9site import processes

    queue = os.environ.get("CELERY_QUEUE") or f"bench-{uuid.uuid4().hex[:8]}"
    environment = os.environ | {
        "DATABASE_URL": processes.database_url(),
        "CELERY_QUEUE": queue,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SITE_URL": f"https://127.0.0.1:{port}",
        "LOG_LEVEL": "WARNING",
    }
    celery = []
    web = None
    try:
        celery.append(processes.celery("worker", queue=queue, env=environment))
        celery.append(
            processes.celery(
                "beat", queue=queue, env=environment, extra=["--schedule", f"/tmp/{queue}-beat"]
            )
        )
        served = web_environment(server, environment)
        pool = int(served["DATABASE_POOL"]) if "DATABASE_POOL" in served else None
        web = subprocess.Popen(
            web_command(server, port, workers, threads), cwd=processes.ROOT, env=served
        )
        for _ in range(150):
            if asyncio.run(_answers(port)):
                break
            if web.poll() is not None:
                raise RuntimeError(f"the web server exited (status {web.returncode})")
            time.sleep(0.2)
        else:
            raise RuntimeError(f"the web server does not answer on port {port}")
        yield Site(port, server, workers, pool, web, celery)
    finally:
        for child in [*celery, web]:
            processes.stop(child)


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
