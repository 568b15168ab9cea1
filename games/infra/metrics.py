"""Metrics in Prometheus's format (prometheus-client), served at /metrics.

Counted where things happen: requests by view and status with their latency
(``middleware.CountRequests``), moves per game and events by kind once committed, and the
subscribers to them that failed (``services.match.bus``), tasks
done and failed per kind (Celery's signals, in the worker), the sweep's duration, e-mails
and push notifications sent and failed. Read from the database and Redis when scraped
(``AtScrape``): seats owing a move against the clock, those overdue and the oldest one's
age, the length of each queue.

The web server and the Celery workers are several processes: with PROMETHEUS_MULTIPROC_DIR
set (the same empty directory for all of them on a machine, emptied before they start),
prometheus-client keeps each process's counts there and /metrics adds them up. Without it,
/metrics shows the counts of the process that answers it.
"""

import hmac
import ipaddress
import logging
import os
from contextlib import contextmanager

from celery.signals import task_failure, task_success
from django.conf import settings
from django.http import HttpRequest
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

logger = logging.getLogger(__name__)

REQUESTS = Counter(
    "nmbr9site_requests", "Requests answered, by view and status.", ["view", "status"]
)
REQUEST_SECONDS = Histogram(
    "nmbr9site_request_duration_seconds",
    "Time to answer a request, by view.",
    ["view"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
MOVES = Counter("nmbr9site_moves", "Moves committed, by game.", ["game"])
EVENTS = Counter("nmbr9site_events", "Events of committed changes to matches, by kind.", ["kind"])
SUBSCRIBER_FAILURES = Counter(
    "nmbr9site_subscriber_failures",
    "Subscribers to changes of matches that failed (the change stood), by subscriber.",
    ["subscriber"],
)
TASKS = Counter(
    "nmbr9site_tasks", "Celery tasks run, by task and outcome (done, failed).", ["task", "outcome"]
)
SWEEP_SECONDS = Histogram(
    "nmbr9site_sweep_duration_seconds",
    "Time the sweep took to find and send the due work.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
EXPIRY_LATENESS = Histogram(
    "nmbr9site_expiry_lateness_seconds",
    "How long after its deadline a seat's fallback move was made, by pace (realtime, other).",
    ["speed"],
    buckets=(0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30, 60, 300),
)
MAILS = Counter(
    "nmbr9site_mails", "E-mails, by kind and outcome (sent, failed).", ["kind", "outcome"]
)
PUSHES = Counter(
    "nmbr9site_pushes",
    "Push notifications, by kind and outcome (sent, failed, gone: the device was forgotten, "
    "dropped: no longer wanted, refused: the device's endpoint or its address is not one the "
    "site posts to, and the device was removed).",
    ["kind", "outcome"],
)
LIVE_STREAMS = Gauge(
    "nmbr9site_live_streams", "Live streams of game pages open now.", multiprocess_mode="livesum"
)
LIVE_EVENTS = Counter("nmbr9site_live_events", "New versions sent on live streams.")
LIVE_REFUSED = Counter(
    "nmbr9site_live_refused",
    "Live streams not opened: the client had its most open (client) or the process (full).",
    ["reason"],
)

#: What a view is called in the metrics when the address matched none.
UNRESOLVED = "unresolved"


def request_done(view: str, status: int, seconds: float) -> None:
    REQUESTS.labels(view, str(status)).inc()
    REQUEST_SECONDS.labels(view).observe(seconds)


def moves_committed(games: dict[str, int]) -> None:
    """Count moves (how many per game) once their transaction has committed."""
    for game, count in games.items():
        MOVES.labels(game).inc(count)


@contextmanager
def sending_mail(kind: str):
    """Count the e-mail sent in the block as sent, or as failed if the block raises."""
    try:
        yield
    except Exception:
        MAILS.labels(kind, "failed").inc()
        raise
    MAILS.labels(kind, "sent").inc()


@task_success.connect
def _task_done(sender=None, **kwargs) -> None:
    TASKS.labels(sender.name, "done").inc()


@task_failure.connect
def _task_failed(sender=None, **kwargs) -> None:
    TASKS.labels(sender.name, "failed").inc()


class AtScrape:
    """Gauges read when /metrics is asked for: the seats from the database, the queues
    from Redis. One that cannot be read is left out (and logged)."""

    def collect(self):
        yield from self._seats()
        yield from self._queues()

    def _seats(self):
        from games.infra import sweep

        try:
            timed = sweep.timed_seats().count()
            overdue = sweep.overdue_seats().count()
            oldest = sweep.oldest_overdue()
        except Exception as exc:  # the database away: the other metrics still answer
            logger.warning("metrics: could not read the seats: %r", exc)
            return
        yield GaugeMetricFamily(
            "nmbr9site_seats_due", "Seats owing a move against the clock in running matches.", timed
        )
        yield GaugeMetricFamily(
            "nmbr9site_seats_overdue", "Seats whose deadline has passed, not yet expired.", overdue
        )
        yield GaugeMetricFamily(
            "nmbr9site_oldest_overdue_seconds",
            "Seconds since the oldest passed deadline not yet expired (0: none).",
            oldest,
        )

    def _queues(self):
        from games.infra import health, queue

        names = queue.queue_names()
        try:
            with health.broker().pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.llen(name)
                lengths = pipe.execute()
        except Exception as exc:  # Redis away
            logger.warning("metrics: could not read the queues: %r", exc)
            return
        family = GaugeMetricFamily(
            "nmbr9site_queue_length", "Tasks waiting in each Celery queue.", labels=["queue"]
        )
        for name, length in zip(names, lengths, strict=True):
            family.add_metric([name], length)
        yield family


def exposition() -> tuple[bytes, str]:
    """The metrics as Prometheus reads them, and their content type."""
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(REGISTRY)
    registry.register(AtScrape())
    return generate_latest(registry), CONTENT_TYPE_LATEST


def allowed(request: HttpRequest) -> bool:
    """Whether the request may read the metrics: it shows METRICS_TOKEN as a bearer token,
    or comes from an address of METRICS_ALLOWED_IPS."""
    from games.infra.limits import client_ip

    token = settings.METRICS_TOKEN
    scheme, _space, given = request.headers.get("Authorization", "").partition(" ")
    if (
        token
        and scheme.lower() == "bearer"
        and hmac.compare_digest(given.strip().encode(), token.encode())
    ):
        return True
    try:
        address = ipaddress.ip_address(client_ip(request))
    except ValueError:
        return False
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in settings.METRICS_ALLOWED_IPS)
