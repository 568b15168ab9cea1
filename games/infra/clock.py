"""The clock: deadlines enforced within a second or two, for real-time matches.

The sweep (``games.infra.sweep``, every half minute) stays the safety net; this loop, a
process of its own (``manage.py clock``), asks the database every ``PERIOD`` seconds for the
seats whose deadline has passed and hands them to Celery on the fast queue
(``games.infra.queue``), in batches of ``BATCH``: a worker of its own expires them as the
sweep's tasks would (``services.match.deadlines.expire_many``, which acts once however often
a seat is sent). A seat sent is not sent again for ``RESEND`` seconds: if it is still due
then, its task was lost or is late, and it goes again. No task carries an ETA.

At each look the loop also runs the ``ticks`` it is given: a ``Ticker`` hands one kind of due
work (a live tournament's start, round or step) to the fast workers as a task that finds the
work in the database itself and claims it, so that a copy sent twice does it once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime

from django.db import close_old_connections
from django.utils import timezone

from games.infra import queue, sweep

logger = logging.getLogger(__name__)

#: Seconds between two looks at the database.
PERIOD = 0.25
#: Seats per task: a worker expires a batch in one transaction per match.
BATCH = 20
#: Seconds after which a seat sent and still due is sent again (its task lost, or late
#: behind a backlog that a copy would only lengthen).
RESEND = 5.0
#: The most seats one look hands on (the most overdue first).
MOST = 2000
#: Seconds after which the task of a ``Ticker`` whose work is still due is sent again.
AGAIN = 1.0


class Clock:
    """What the loop remembers between looks: the seats it sent, and when."""

    def __init__(self, send: Callable[..., bool] = queue.send_now) -> None:
        self.send = send
        self.sent: dict[int, float] = {}

    def tick(self, now: datetime | None = None, moment: float | None = None) -> int:
        """Hand on the seats due now that were not sent in the last ``RESEND`` seconds;
        how many were sent."""
        moment = time.monotonic() if moment is None else moment
        due = sweep.due_seats(now or timezone.now(), limit=MOST)
        # Forget the seats no longer due (expired, or their player moved).
        still = set(due)
        self.sent = {seat: at for seat, at in self.sent.items() if seat in still}
        fresh = [seat for seat in due if moment - self.sent.get(seat, -RESEND) >= RESEND]
        count = 0
        for start in range(0, len(fresh), BATCH):
            batch = fresh[start : start + BATCH]
            if not self.send("games.tasks.expire_seats", batch):
                break  # the broker is away: the next look tries again
            for seat in batch:
                self.sent[seat] = moment
            count += len(batch)
        if count:
            logger.info("sent %d of %d due seats to expire", count, len(due))
        return count


class Ticker:
    """At each look: when ``due(now)`` finds work, hand the task named ``task`` (no
    arguments: it finds the due work itself) to the fast workers, once, and again after
    ``AGAIN`` seconds if the work is still due (its task lost, or behind others)."""

    def __init__(
        self,
        task: str,
        due: Callable[[datetime], object],
        send: Callable[..., bool] = queue.send_now,
    ) -> None:
        self.task, self.due, self.send = task, due, send
        self.sent = -AGAIN

    def __call__(self, now: datetime, moment: float | None = None) -> None:
        moment = time.monotonic() if moment is None else moment
        if moment - self.sent < AGAIN:
            return
        if self.due(now) and self.send(self.task):
            self.sent = moment


def run(stop: Callable[[], bool], period: float = PERIOD, ticks=()) -> None:
    """Look every ``period`` seconds until ``stop()`` says so; ``ticks``: more work done at
    each look (each given the time). A failed look is logged and the next one goes on."""
    clock = Clock()
    while not stop():
        started = time.monotonic()
        try:
            queue.broker_back()  # a broker that failed a look ago is tried again at once
            now = timezone.now()
            clock.tick(now, started)
            for tick in ticks:
                tick(now)
        except Exception:
            logger.exception("the clock's look failed; looking again")
        finally:
            close_old_connections()
        time.sleep(max(0.0, period - (time.monotonic() - started)))
