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
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: How long the site may take to start (a new database is migrated) and to stop.
START_SECONDS, STOP_SECONDS = 90, 15


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def wait_for(what, seconds: float, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; the output was:\n{log.read_text()}")
        time.sleep(0.2)


def refused(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_ctrl_c_stops_every_process_without_a_traceback(tmp_path):
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
    try:
        site = f"http://127.0.0.1:{port}"
        wait_for(lambda: status(f"{site}/") == 200, START_SECONDS, log)
        # The daily puzzle is published and its par computed: the worker is busy when the
        # Ctrl-C comes, and the tasks it is running still talk to Redis.
        assert status(f"{site}/daily/") == 200
        wait_for(lambda: "compute_par[" in log.read_text(), START_SECONDS, log)
        redis = int(re.search(r"Starting Redis \(.*\) on 127\.0\.0\.1:(\d+)", log.read_text())[1])

        os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C does
        stopped = time.monotonic()
        code = run.wait(timeout=STOP_SECONDS)
        assert time.monotonic() - stopped < STOP_SECONDS
    finally:
        with contextlib.suppress(ProcessLookupError):  # anything left in its group
            os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    said = log.read_text()
    assert code == 130, said
    assert "Traceback" not in said and "ERROR/" not in said, said
    assert refused(port) and refused(redis)
