import os
import pathlib
import shutil
import urllib.parse
import uuid

import pytest
from django.contrib.auth.models import User

from tests.factories import CHROMIUM_FLAGS, TIMED_SENDS

#: The FREE_PORTS range of parallel worker gwN (``nmbr9site.processes.free_port``):
#: PORTS_PER_WORKER from FIRST_PORT + N * PORTS_PER_WORKER, below the system's range of
#: ephemeral ports (32768 and up), from which it picks for everything else.
FIRST_PORT, PORTS_PER_WORKER = 20000, 1000


def worker_redis_url(url: str, index: int) -> str:
    """The Redis of parallel worker ``index`` (gw0, gw1, ...): REDIS_URL's database number
    (0 if it names none) plus the index, so redis://host:6379/10 gives gw0 database 10, gw1
    11, gw2 12. The base plus the number of workers must stay within the databases Redis has
    (16 unless configured otherwise): a run that shares a Redis with others gives a base
    above the databases they use."""
    parts = urllib.parse.urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    return urllib.parse.urlunsplit(parts._replace(path=f"/{base + index}"))


def pytest_configure(config):
    """A parallel worker of pytest-xdist (``./run test`` runs the suite in several) has,
    besides the test database pytest-django names after it (test_nmbr9site_gw1), a Redis
    database and ports of its own: Celery's queues and workers, the cache, the rate limits,
    the presence notes and the live streams of one worker never meet another's, whatever a
    test deletes or a worker consumes, and a port one picks is never picked by another."""
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker is None:  # one process runs every test
        return
    import redis
    from django.conf import settings

    from nmbr9site.celery import app

    index = int(worker.removeprefix("gw"))
    first = FIRST_PORT + index * PORTS_PER_WORKER
    if first + PORTS_PER_WORKER > 32768:
        raise pytest.UsageError(f"too many workers for their port ranges ({worker})")
    os.environ["FREE_PORTS"] = f"{first}-{first + PORTS_PER_WORKER - 1}"
    url = worker_redis_url(settings.REDIS_URL, index)
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.ResponseError as error:  # no such database
        raise pytest.UsageError(f"{worker} cannot use {url}: see worker_redis_url") from error
    except redis.ConnectionError:
        pass  # the tests that need Redis say so
    # The site's processes that tests start (web servers, Celery workers) read the
    # environment, this process its settings and its Celery app, whose configuration may
    # already have been read.
    os.environ["REDIS_URL"] = url
    settings.REDIS_URL = settings.CELERY_BROKER_URL = url
    settings.CACHES["default"]["LOCATION"] = url
    app.conf.broker_url = url


@pytest.fixture(scope="session", autouse=True)
def celery_queue():
    """A queue of this test run's own, so no other worker on the same Redis takes its tasks.

    Set before any test runs: Celery fixes its routes when it first sends a task.
    """
    from games.infra.queue import queue_names
    from nmbr9site.celery import app

    queue = f"test-{uuid.uuid4().hex[:12]}"
    app.conf.task_default_queue = queue
    yield queue
    with app.connection_for_write() as connection:
        connection.default_channel.client.delete(*queue_names())


@pytest.fixture(scope="session", autouse=True)
def timed_sends_recorded():
    """Each task the test run sends is looked at as it is published (by the web code, the
    services, the sweep and the workers alike)."""
    from celery.signals import before_task_publish

    def record(sender=None, headers=None, **rest):
        if headers and headers.get("eta"):
            TIMED_SENDS.append((sender, headers["eta"]))

    before_task_publish.connect(record, weak=False)
    yield
    before_task_publish.disconnect(record)


@pytest.fixture(autouse=True)
def no_task_sent_with_an_eta(timed_sends_recorded):
    """No task is ever sent with an ETA or a countdown: a worker holding one when Redis goes
    away is killed by kombu's Redis transport. Any test whose code sends one fails."""
    TIMED_SENDS.clear()
    yield
    assert TIMED_SENDS == [], f"tasks sent with an ETA or a countdown: {TIMED_SENDS}"


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing():
    """Tests create many accounts; a real password hash costs a good part of a second."""
    from django.conf import settings
    from django.contrib.auth.hashers import get_hashers

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    get_hashers.cache_clear()


@pytest.fixture(scope="session", autouse=True)
def quick_par():
    """The full par search takes seconds per puzzle; the site's tests spend a fortieth."""
    from django.conf import settings

    settings.PUZZLE_PAR_EFFORT = 0.025


@pytest.fixture(scope="session", autouse=True)
def cache_prefix():
    """Cache keys of this test run's own (the rate limits live in the cache, on Redis)."""
    from django.conf import settings
    from django.core.cache import caches

    prefix = f"test-{uuid.uuid4().hex[:12]}"
    settings.CACHES["default"]["KEY_PREFIX"] = prefix
    caches["default"].key_prefix = prefix
    yield prefix
    caches["default"].delete_pattern("*")


@pytest.fixture(autouse=True)
def english_outside_requests():
    """Each test starts in the site's default language: a request in another language
    leaves it active in the thread, as any later request would replace it."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def forget_match_games():
    """A rolled-back test's match numbers are handed out again on SQLite; the games this
    process knows matches by start empty in every test."""
    from games import services

    services.game_of.cache_clear()


@pytest.fixture(autouse=True)
def broker_tried_afresh():
    """A broker a test made fail is tried again at the next send of the next test."""
    from games.infra import queue

    queue.broker_back()


@pytest.fixture(autouse=True)
def empty_cache(cache_prefix):
    """Every test starts with no rate limit counted, and nobody noted as looking at a match
    (on SQLite a test's players and matches have the ids of an earlier test's)."""
    from django.core.cache import cache

    from games.infra import limits, presence

    cache.delete_pattern("*")
    limits.limiter().storage.reset()
    # Not a client an earlier test left for a Redis that was away (redis_away: a page it
    # served may note presence after that fixture is gone and before its settings are).
    presence.client.cache_clear()
    notes = list(presence.client().scan_iter(presence.key("*", "*"), count=1000))
    if notes:
        presence.client().delete(*notes)


@pytest.fixture
def celery_worker(celery_queue, transactional_db):
    """A real Celery worker (in a thread) consuming this run's queues, the slow one too, from
    the real Redis."""
    from celery.contrib.testing.worker import start_worker

    from games.infra.queue import queue_names
    from nmbr9site.celery import app

    with app.connection_for_write() as connection:
        connection.default_channel.client.delete(*queue_names())  # no earlier test's tasks
    with start_worker(
        app, perform_ping_check=False, loglevel="WARNING", queues=queue_names()
    ) as worker:
        yield worker


def _user(username: str) -> User:
    return User.objects.create_user(username, f"{username}@example.com", "a-Long-pa55word")


@pytest.fixture
def alice(db) -> User:
    return _user("alice")


@pytest.fixture
def bob(db) -> User:
    return _user("bob")


@pytest.fixture
def carol(db) -> User:
    return _user("carol")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is not installed (apt-get install chromium).")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium).")
    return path


@pytest.fixture(scope="session")
def accessibility_check() -> str:
    """The script every browser test's pages run: axe-core (package.json, installed by
    ``./run test`` with npm) and what reports its findings (tests/browser/accessibility.js)."""
    root = pathlib.Path(__file__).resolve().parent.parent
    axe = root / "node_modules" / "axe-core" / "axe.min.js"
    if not axe.exists():
        why = "axe-core is not installed (npm ci, which ./run test runs when npm is there)."
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    check = root / "tests" / "browser" / "accessibility.js"
    return axe.read_text() + "\n" + check.read_text()


@pytest.fixture(scope="session")
def browser(chromium_path, accessibility_check):
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


class BrowserSession:
    """A browser context on the live server that records every JavaScript error and every
    accessibility violation axe-core finds on its pages."""

    def __init__(self, browser, base_url: str, check: str, **options):
        self.base_url = base_url
        self.context = browser.new_context(**options)
        self.context.add_init_script(script=check)
        self.context.set_default_timeout(10_000)
        self.errors: list[str] = []
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))

    def _console(self, message) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def goto(self, path: str):
        return self.page.goto(self.base_url + path)

    def finish(self) -> None:
        """Wait for the accessibility checks still running on the pages left open."""
        for page in self.context.pages:
            try:
                page.evaluate("() => window.accessibilityChecked && window.accessibilityChecked()")
            except Exception as error:  # a closed or crashed page has nothing left to check
                if not page.is_closed():
                    self.errors.append(f"accessibility check: {error}")

    def close(self) -> None:
        self.context.close()


def _sessions(browser, base_url: str, check: str):
    """Open browser sessions on ``base_url``; each must end the test without a JavaScript
    error."""
    sessions: list[BrowserSession] = []

    def opener(**options) -> BrowserSession:
        session = BrowserSession(browser, base_url, check, **options)
        sessions.append(session)
        return session

    yield opener
    for session in sessions:
        session.finish()
    errors = [e for s in sessions for e in s.errors]
    for session in sessions:
        session.close()
    assert errors == [], errors


@pytest.fixture
def open_browser(browser, live_server, accessibility_check):
    """Browser sessions on Django's test server (WSGI: its pages poll, they stream nothing)."""
    yield from _sessions(browser, live_server.url, accessibility_check)


@pytest.fixture
def asgi_server(transactional_db, settings):
    """The site served by uvicorn as its ``live`` process serves it (``nmbr9site.asgi``), in
    a thread of this process on the test database: its pages, and their live streams."""
    import asyncio
    import contextlib
    import contextvars
    import os
    import socket
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    import uvicorn
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.db import connections

    kept_environment = os.environ.get("LIVE_STREAMS")
    from nmbr9site.asgi import application

    if kept_environment is None:  # the module sets it for its own process
        os.environ.pop("LIVE_STREAMS", None)
    settings.LIVE_STREAMS = True
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # Pages run in one thread, which closes its connection after each (CONN_MAX_AGE 0), as
    # the streams' steps do in the pool's threads.
    database = connections["default"].settings_dict
    kept, database["CONN_MAX_AGE"] = database["CONN_MAX_AGE"], 0

    class Others(ThreadPoolExecutor):
        """The event loop's default executor, where the streams' steps run: one thread here,
        whose database connection is closed when the server stops."""

        def shutdown(self, *args, **kwargs):
            with contextlib.suppress(RuntimeError):
                self.submit(connections.close_all).result()
            super().shutdown(*args, **kwargs)

    others = Others(max_workers=1)
    served = ASGIStaticFilesHandler(application)  # as the test server does

    async def app(scope, receive, send):
        asyncio.get_running_loop().set_default_executor(others)
        # as the site's application runs each page (nmbr9site.asgi), here a static file too
        await asyncio.create_task(served(scope, receive, send), context=contextvars.Context())

    config = uvicorn.Config(
        app, lifespan="off", log_level="warning", timeout_graceful_shutdown=1, proxy_headers=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    yield SimpleNamespace(url=f"http://127.0.0.1:{sock.getsockname()[1]}")
    server.should_exit = True
    thread.join(10)
    sock.close()
    others.shutdown()
    database["CONN_MAX_AGE"] = kept


@pytest.fixture
def open_asgi_browser(browser, asgi_server, accessibility_check):
    """Browser sessions on the ASGI server (pages that follow their match live)."""
    yield from _sessions(browser, asgi_server.url, accessibility_check)


def _closed_port() -> int:
    from nmbr9site.processes import free_port

    return free_port()


@pytest.fixture
def database_away(django_db_blocker):
    """The database cannot be reached (a closed port; SQLite: a file that cannot be made)."""
    from django.db import connection

    saved = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = "/nonexistent/directory/db.sqlite3"
    else:
        connection.settings_dict["HOST"] = "127.0.0.1"
        connection.settings_dict["PORT"] = _closed_port()
    with django_db_blocker.unblock():
        yield
        connection.close()
    connection.settings_dict.clear()
    connection.settings_dict.update(saved)


@pytest.fixture
def redis_away(settings):
    """Redis cannot be reached by the live streams and the presence notes."""
    from games.infra import events, presence

    settings.REDIS_URL = f"redis://127.0.0.1:{_closed_port()}/0"
    presence.client.cache_clear()
    yield
    presence.client.cache_clear()
    events._away_until = 0.0


@pytest.fixture
def vapid(settings) -> str:
    """VAPID keys of the test's own, so that the site sends push notifications, to push
    services on this machine too; the public key."""
    from cryptography.hazmat.primitives.asymmetric import ec

    from tests.pushservice import b64encode, public_bytes

    key = ec.generate_private_key(ec.SECP256R1())
    settings.VAPID_PRIVATE_KEY = b64encode(key.private_numbers().private_value.to_bytes(32, "big"))
    settings.VAPID_PUBLIC_KEY = b64encode(public_bytes(key))
    settings.VAPID_SUBJECT = "mailto:tests@example.org"
    settings.PUSH_LOCAL_ENDPOINTS = True
    return settings.VAPID_PUBLIC_KEY


@pytest.fixture
def push_service(vapid):
    """A push service of the test's own (tests/pushservice.py), for the site's keys."""
    from tests.pushservice import PushService

    service = PushService(vapid)
    yield service
    service.close()
    assert service.problems == [], service.problems


# ------------------------------------------------------------------ kept states


def _uses_database(item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    if "database_away" in names:
        return False
    return bool(names & {"db", "transactional_db"}) or item.get_closest_marker("django_db")


def check_kept_states() -> None:
    """Every match's kept state is the match replayed from its seed and moves: the same
    state (its dump and every reader's view) and the same moves counted per seat
    (``services.match.kept``). A state a test made stale (moves written, a match dealt again by
    hand) is left out: the site rebuilds it when it reads it."""
    import json

    from django.db import connection

    from games.models import MatchState
    from games.services.match import kept
    from games.services.match.record import moves_of, replay, seats_of

    if connection.in_atomic_block and connection.needs_rollback:
        return  # the test left its transaction broken on purpose
    for stored in MatchState.objects.select_related("match"):
        match = stored.match
        seats, moves = seats_of(match), moves_of(match)
        if stored.format != kept.format_of(match) or stored.ply != len(moves):
            continue  # stale: never read as it is
        replayed = replay(match, seats, moves)
        rules = replayed.rules
        state = rules.restore(bytes(stored.data))
        where = f"the kept state of match {match.pk} after {stored.ply} moves"
        assert rules.dump(state) == rules.dump(replayed.state), where
        viewers = [*range(match.players), None]
        assert [rules.view(state, p).to_dict() for p in viewers] == [
            rules.view(replayed.state, p).to_dict() for p in viewers
        ], where
        made = json.loads(stored.made)
        assert made + [0] * (len(replayed.made) - len(made)) == replayed.made, where


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    """After every test that used the database, whatever matches it made: their kept states
    are what their moves replay to."""
    result = yield
    if _uses_database(pyfuncitem):
        check_kept_states()
    return result
