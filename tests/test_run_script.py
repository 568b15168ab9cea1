"""`./run start` as a player starts the site on their machine, stopped with Ctrl-C: every
process it started stops, Redis last (the Celery processes use it until they are gone), and
no traceback is printed."""

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from nmbr9site.processes import free_port
from tests.factories import assert_limited_by_its_own_address

ROOT = Path(__file__).resolve().parent.parent

#: How long the site may take to start (a new database is migrated) and to stop.
START_SECONDS, STOP_SECONDS = 90, 15

# One at a time, in the parallel run's process that runs the tests that write the working
# tree's files: each `./run start` compiles the translations, and keeps its Redis, metrics
# and beat schedule in the checkout's .state/, which it empties.
pytestmark = pytest.mark.xdist_group("working_tree")


def status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def wait_until(what, seconds: float, log: Path) -> None:
    """Until ``what()`` holds; after ``seconds``, fail with the site's output so far."""
    deadline = time.monotonic() + seconds
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; the output was:\n{log.read_text()}")
        time.sleep(0.2)


def connection_refused(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def start_site(tmp_path) -> tuple[subprocess.Popen, str, Path]:
    """``./run start`` as a terminal runs it, on a database of its own: the process, the
    site's address and the file its output goes to."""
    port = free_port()
    env = {name: value for name, value in os.environ.items() if name != "REDIS_URL"}
    env |= {"PORT": str(port), "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    log = tmp_path / "output.txt"
    # A terminal's Ctrl-C interrupts a process that has not been told to ignore it.
    interrupt = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with log.open("wb") as output:
            run = subprocess.Popen(
                [str(ROOT / "run"), "start"],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a process group of its own, as a terminal's job
            )
    finally:
        signal.signal(signal.SIGINT, interrupt)
    site = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: status(f"{site}/") == 200, START_SECONDS, log)
    except BaseException:
        stop_site(run)
        raise
    return run, site, log


def stop_site(run: subprocess.Popen) -> None:
    """Kill whatever is left of the site's processes (they share the script's session)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(run.pid, signal.SIGKILL)
    for pid, _parent, _args in processes_of(run):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    run.wait()


def processes_of(run: subprocess.Popen) -> list[tuple[int, int, str]]:
    """The processes of the site's session (each job has a process group of its own): their
    ids, their parents' and their command lines."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == run.pid:
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            args = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # it has just exited
            continue
        parent, session = int(fields[1]), int(fields[3])
        if session == run.pid:
            found.append((int(entry.name), parent, args))
    return found


#: The processes started again when they exit, by role, as the script names them.
ROLES = {
    "worker": "The Celery worker",
    "slow": "The slow Celery worker",
    "fast": "The fast Celery worker",
    "clock": "The clock",
    "beat": "Celery beat",
}


def celery_process(run: subprocess.Popen, role: str) -> int | None:
    """The main process of the site's Celery worker (``worker``), slow worker (``slow``), fast
    worker (``fast``), beat (``beat``) or clock (``clock``): the one whose parent is the
    script."""
    for pid, parent, args in processes_of(run):
        if parent != run.pid:
            continue
        if role == "clock" and "manage.py clock" in args:
            return pid
        if "celery" not in args:
            continue
        if role == "beat" and " beat " in args:
            return pid
        queues = re.search(r"--queues \S+-(slow|fast)\b", args)
        if " worker " in args and (queues[1] if queues else "worker") == role:
            return pid
    return None


def test_a_celery_worker_or_beat_that_exits_is_started_again_and_said_so(tmp_path):
    run, site, log = start_site(tmp_path)
    try:
        for role in ROLES:
            wait_until(lambda role=role: celery_process(run, role), START_SECONDS, log)
        for role in ROLES:
            pid = celery_process(run, role)
            os.kill(pid, signal.SIGKILL)
            wait_until(
                lambda role=role, pid=pid: celery_process(run, role) not in (None, pid),
                START_SECONDS,
                log,
            )
        said = log.read_text()
        for name in ROLES.values():
            assert f"{name} exited (exit status 137): starting it again" in said, said
        assert run.poll() is None and status(f"{site}/") == 200
        # The restarted worker does the work: a new daily puzzle's par is searched.
        assert status(f"{site}/daily/") == 200
        wait_until(lambda: "compute_par[" in log.read_text(), START_SECONDS, log)
    finally:
        stop_site(run)


def test_ctrl_c_stops_every_process_without_a_traceback(tmp_path):
    run, site, log = start_site(tmp_path)
    try:
        # The daily puzzle is published and its par computed: the slow worker is busy when
        # the Ctrl-C comes, and the tasks it is running still talk to Redis.
        assert status(f"{site}/daily/") == 200
        wait_until(lambda: "compute_par[" in log.read_text(), START_SECONDS, log)
        redis = int(re.search(r"Starting Redis \(.*\) on 127\.0\.0\.1:(\d+)", log.read_text())[1])

        os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C does
        stopped = time.monotonic()
        code = run.wait(timeout=STOP_SECONDS)
        assert time.monotonic() - stopped < STOP_SECONDS
    finally:
        stop_site(run)
    said = log.read_text()
    assert code == 130, said
    assert "Traceback" not in said and "ERROR/" not in said, said
    assert connection_refused(urllib.parse.urlsplit(site).port) and connection_refused(redis)


def test_the_site_is_served_by_the_asgi_server_with_its_live_streams(tmp_path):
    run, site, log = start_site(tmp_path)
    try:
        with urllib.request.urlopen(f"{site}/", timeout=5) as answer:
            assert answer.headers["Server"] == "uvicorn"
            assert 'data-live="/game/' not in answer.read().decode()  # no match on the home page
        assert status(f"{site}/static/js/live.js") == 200
        assert status(f"{site}/game/1/live/") == 404  # no such match: not an error
        assert_limited_by_its_own_address(site)
    finally:
        stop_site(run)
