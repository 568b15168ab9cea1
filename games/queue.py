"""Sending Celery tasks without ever failing the change that sends them.

A task is sent once the transaction that asks for it has committed, so a worker never looks
for a row that is not there yet. When the broker cannot be reached the failure is logged and
the caller carries on: the committed change stands, and the periodic sweep
(``games.sweep``) finds the work from the database and sends it again.

Tasks are named (``"games.tasks.rate_match"``), so that the code sending them need not
import the tasks module, which imports the services.
"""

import logging

from celery import current_app
from django.db import transaction

logger = logging.getLogger(__name__)


def send_now(task: str, *args) -> bool:
    """Send the task named ``task`` with ``args`` now; False (logged) if the broker did not
    take it."""
    try:
        current_app.tasks[task].apply_async(args)
    except Exception:  # any failure of the broker or its client
        logger.warning("could not queue %s%r; the sweep will find it", task, args, exc_info=True)
        return False
    return True


def send(task: str, *args) -> None:
    """Send the task named ``task`` when the current transaction commits (at once outside
    one)."""
    transaction.on_commit(lambda: send_now(task, *args))
