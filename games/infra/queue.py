"""Sending Celery tasks without ever failing the change that sends them.

A task is sent once the transaction that asks for it has committed, so a worker never looks
for a row that is not there yet. When the broker cannot be reached the failure is logged and
the caller carries on: the committed change stands, and the periodic sweep
(``games.infra.sweep``) finds the work from the database and sends it again.

Tasks are named (``"games.tasks.rate_match"``), so that the code sending them need not
import the tasks module, which imports the services.

Slow work (par searches, puzzle refills, player figures) goes to a queue of its own, which
a worker of its own consumes: a deadline, a bot's move, a rating or a mail never waits behind
it. Expiries and the live tournaments' starts and rounds go to a fast queue of their own
(``FAST_TASKS``), behind nothing else. No task is ever sent with an ETA or a countdown: a
worker holding one when Redis goes away is killed by kombu's Redis transport, and the sweep
times all work from the database.
"""

import logging
import time
from collections.abc import Callable

from celery import current_app
from django.db import transaction

logger = logging.getLogger(__name__)

#: Once the broker has failed to take a task, this process sends none for this many seconds:
#: each try may wait out the broker's timeouts (a broker that accepts connections and never
#: answers), and one request may send several tasks (a finished match sends three), so a
#: move could be answered after the web server's own time limit. The sweep sends the work.
AWAY_SECONDS = 30.0
_away_until = 0.0

#: The tasks that may run for minutes: they go to the slow queue (see ``route``).
SLOW_TASKS = frozenset(
    {
        "games.tasks.compute_par",
        "games.tasks.refill_puzzles",
        "games.tasks.publish_daily",
        "games.tasks.refresh_player_stats",
    }
)


#: The tasks a deadline or a live tournament's start waits for: they go to the fast queue,
#: which a worker of its own consumes, so a real-time move's fallback never waits behind a
#: bot's search.
FAST_TASKS = frozenset(
    {"games.tasks.expire_seats", "games.tasks.run_live", "games.tasks.run_live_swiss"}
)


def queue_names(default: str | None = None) -> list[str]:
    """The queues the site's workers consume: the default one (``CELERY_QUEUE``, or
    ``default``), then the slow one, then the fast one."""
    default = default or current_app.conf.task_default_queue
    return [default, f"{default}-slow", f"{default}-fast"]


def route(name: str, args, kwargs, options, task=None, **rest) -> dict | None:
    """Celery's router (``CELERY_TASK_ROUTES``): slow tasks to the slow queue, expiries to
    the fast one, the rest to the default one. Read when each task is sent, so a changed
    default queue carries over."""
    if name in SLOW_TASKS:
        return {"queue": queue_names()[1]}
    if name in FAST_TASKS:
        return {"queue": queue_names()[2]}
    return None


def send_now(task: str, *args) -> bool:
    """Send the task named ``task`` with ``args`` now; False (logged) if the broker did not
    take it, or failed to take one in the last ``AWAY_SECONDS``."""
    global _away_until
    if time.monotonic() < _away_until:
        # The failure itself was logged; a sweep may skip hundreds of sends after it.
        logger.info("not queuing %s%r: the broker failed just now; the sweep will", task, args)
        return False
    try:
        current_app.tasks[task].apply_async(args)
    except Exception:  # any failure of the broker or its client
        _away_until = time.monotonic() + AWAY_SECONDS
        logger.warning("could not queue %s%r; the sweep will find it", task, args, exc_info=True)
        return False
    return True


def broker_back() -> None:
    """Try the broker again at the next send, however recently it failed."""
    global _away_until
    _away_until = 0.0


def send(
    task: str, *args, unsent: Callable[[], object] | None = None, at_once: bool = False
) -> None:
    """Send the task named ``task`` with ``args`` when the current transaction commits (at
    once outside one, or with ``at_once``); ``unsent`` is called if it is not sent (to release
    what waits for it)."""

    def now() -> None:
        if not send_now(task, *args) and unsent is not None:
            unsent()

    if at_once:
        now()
    else:
        transaction.on_commit(now)
