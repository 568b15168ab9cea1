"""Sending Celery tasks without ever failing the change that sends them.

A task is sent once the transaction that asks for it has committed, so a worker never looks
for a row that is not there yet. When the broker cannot be reached the failure is logged and
the caller carries on: the committed change stands, and the periodic sweep
(``games.sweep``) finds the work from the database and sends it again.

Tasks are named (``"games.tasks.rate_match"``), so that the code sending them need not
import the tasks module, which imports the services.
"""

import logging
import time
from collections.abc import Callable

from celery import current_app
from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)

#: Once the broker has failed to take a task, this process sends none for this many seconds:
#: each try may wait out the broker's timeouts (a broker that accepts connections and never
#: answers), and one request may send several tasks (a finished match sends three), so a
#: move could be answered after the web server's own time limit. The sweep sends the work.
AWAY_SECONDS = 30.0
_away_until = 0.0


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


def send(task: str, *args, unsent: Callable[[], object] | None = None) -> None:
    """Send the task named ``task`` when the current transaction commits (at once outside
    one); ``unsent`` is called if it is not sent (to release what waits for it)."""

    def now() -> None:
        if not send_now(task, *args) and unsent is not None:
            unsent()

    transaction.on_commit(now)


def queue_names() -> list[str]:
    """The Celery queues of the site: the default one, and the one for slow work."""
    default = settings.CELERY_TASK_DEFAULT_QUEUE
    return [default, f"{default}-slow"]
