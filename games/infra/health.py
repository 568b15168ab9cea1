"""Health for a load balancer: ``/healthz`` (the process answers) and ``/readyz`` (it can
serve: the database and Redis answer, the migrations are applied, the beat's sweep runs and
deadlines do not wait).

Each check of ``/readyz`` is answered on its own; one that fails (or raises: the database or
Redis away) says so by the name of its error alone, never with the error's text, which may
name hosts, ports or users. The sweep notes when it last ran in the database
(``Heartbeat``): a fact about work done from the database, kept across restarts of Redis,
which holds nothing the site needs to keep.
"""

import logging
from datetime import datetime, timedelta
from functools import lru_cache

import redis
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers

from games.infra import sweep
from games.models import Heartbeat

logger = logging.getLogger(__name__)

#: The sweep runs every 30 seconds; one older than this means beat or the workers stopped.
SWEEP_LATE = timedelta(minutes=2)
#: A deadline passed longer ago than this and not yet expired means the work waits.
OVERDUE_LATE = timedelta(minutes=5)
#: Seconds to wait for Redis before calling it unreachable.
REDIS_TIMEOUT = 1.0

SWEEP = "sweep"


def swept(at: datetime | None = None) -> None:
    """Note that the sweep ran (now)."""
    Heartbeat.objects.update_or_create(name=SWEEP, defaults={"at": at or timezone.now()})


@lru_cache(maxsize=4)
def redis_client(url: str) -> redis.Redis:
    """A client of the Redis at ``url`` that gives up quickly (kept per process)."""
    return redis.Redis.from_url(
        url, socket_connect_timeout=REDIS_TIMEOUT, socket_timeout=REDIS_TIMEOUT
    )


def broker() -> redis.Redis:
    """The Redis the Celery queues are kept in."""
    return redis_client(settings.CELERY_BROKER_URL)


def check_database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"ok": True}


def check_migrations() -> dict:
    executor = MigrationExecutor(connection)
    unapplied = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return {"ok": not unapplied, "unapplied": len(unapplied)}


def check_redis() -> dict:
    broker().ping()
    return {"ok": True}


def check_sweep(now: datetime) -> dict:
    at = Heartbeat.objects.filter(name=SWEEP).values_list("at", flat=True).first()
    if at is None:
        return {"ok": False, "age_seconds": None}
    age = max(0.0, (now - at).total_seconds())
    return {"ok": age < SWEEP_LATE.total_seconds(), "age_seconds": round(age, 1)}


def check_overdue(now: datetime) -> dict:
    age = sweep.oldest_overdue(now)
    return {"ok": age <= OVERDUE_LATE.total_seconds(), "oldest_seconds": round(age, 1)}


def _run(name: str, check, *args) -> dict:
    try:
        return check(*args)
    except Exception as exc:  # the database or Redis away, or anything else: not ready
        logger.warning("readiness check %s failed: %r", name, exc)
        return {"ok": False, "error": type(exc).__name__}


def readiness(now: datetime | None = None) -> dict:
    """Every check's result, and whether they all passed."""
    now = now or timezone.now()
    checks = {"database": _run("database", check_database)}
    if checks["database"]["ok"]:
        checks["migrations"] = _run("migrations", check_migrations)
        checks["sweep"] = _run("sweep", check_sweep, now)
        checks["overdue"] = _run("overdue", check_overdue, now)
    else:  # not tried: each would wait for the database again
        for name in ("migrations", "sweep", "overdue"):
            checks[name] = {"ok": False, "error": "database unreachable"}
    checks["redis"] = _run("redis", check_redis)
    return {"ready": all(check["ok"] for check in checks.values()), "checks": checks}


def healthz() -> HttpResponse:
    """The process is alive: nothing else is looked at."""
    response = HttpResponse("ok\n", content_type="text/plain; charset=utf-8")
    add_never_cache_headers(response)
    return response


def readyz() -> HttpResponse:
    report = readiness()
    response = JsonResponse(report, status=200 if report["ready"] else 503)
    add_never_cache_headers(response)
    return response
