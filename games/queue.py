"""Sending Celery tasks without ever failing the change that sends them.

A task is sent once the transaction that asks for it has committed, so a worker never looks
for a row that is not there yet. When the broker cannot be reached the failure is logged and
the caller carries on: the committed change stands, and the periodic sweep
(``games.sweep``) finds the work from the database and sends it again.
"""

import logging

from django.db import transaction

logger = logging.getLogger(__name__)


def send_now(task, *args) -> bool:
    """Send ``task(*args)`` now; False (logged) if the broker did not take it."""
    try:
        task.apply_async(args)
    except Exception:  # any failure of the broker or its client
        logger.warning("could not queue %s%r; the sweep will find it", task.name, args)
        return False
    return True


def send(task, *args) -> None:
    """Send ``task(*args)`` when the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send_now(task, *args))
