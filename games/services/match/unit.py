"""The unit of work: the one way a match changes.

``change(match_id)`` is a block in which a service changes a match (a move, a commitment,
resigning, more time, joining, starting, calling it off, a reminder, a chat message); the
deadlines' expiry changes many at once with ``each``. In one transaction the unit

1. locks the match's row (changes to one match never interleave; a batch locks its matches in
   id order, so that no two changes ever deadlock) and reads the match as it is stored, with
   a state of the change's own (``kept``);
2. hands it to the service as a ``Change``: the record to change, and ``move`` and ``emit``
   to record what happened as events (``bus``), in order;
3. when the block ends, works out once what each reader of the match sees now
   (``versions.versions``; what they saw before was kept with the state) and records the
   readers whose page changed as an event; hands the events to the subscribers that write
   with the change; writes everything together (``Writes``): moves, seats, the match,
   notifications, and the match's new kept state with its readers' versions;
4. commits; then keeps the new state in this process for the pages that follow, and hands
   the events to the subscribers that act after commit.

An exception inside the block rolls all of it back: nothing is written and no event is
handed on. No other code locks a match or writes a change (``tests/test_unit.py`` looks).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import partial

from django.db import transaction

from games.models import Match, Seat
from games.services.match import bus, kept, versions
from games.services.match.record import Record
from games.services.match.writes import Writes, fields_of

logger = logging.getLogger(__name__)


class Change:
    """A change to one match, under way: its ``record`` (locked, with a state of its own),
    the ``writes`` it collects and the ``events`` it records."""

    def __init__(self, record: Record, writes: Writes) -> None:
        self.record = record
        self.writes = writes
        self.events: list[bus.Event] = []
        record.stored = {seat.pk: fields_of(seat) for seat in record.seats}
        # What each reader saw before the change: kept with the state, else worked out now.
        self.before = record.versions
        if self.before is None and record.state is not None:
            self.before = versions.versions(record)

    @property
    def match(self) -> Match:
        return self.record.match

    def move(self, seat: Seat, text: str, *, auto: bool = False, timed_out: bool = False) -> None:
        """The move written ``text`` was made for ``seat`` on the record's state: stored as
        the match's next move, and told (``MoveMade``). ``auto``: the site made it for the
        player (``timed_out``: as their time ran out, the fallback)."""
        made = self.writes.move(self.record, seat, text, auto=auto, timed_out=timed_out)
        self.emit(bus.MoveMade(self.match, seat, made.ply, made.auto))

    def emit(self, event: bus.Event) -> None:
        """Record that ``event`` happened (handed on when the change is written)."""
        self.events.append(event)

    def save_match(self, *fields: str) -> None:
        """Write these fields of the match with the change."""
        self.writes.save_match(self.match, *fields)

    def seated(self, seat: Seat) -> None:
        """``seat`` was added to the match (created in the change): it is written whole."""
        self.record.seats.append(seat)


@contextmanager
def change(match_id: int, *, state: bool = True) -> Iterator[Change]:
    """Change the match ``match_id`` in the block (see the module); with ``state=False``
    something beside the game (a chat message), read without the game's state. Raises
    Match.DoesNotExist when there is no such match."""
    with transaction.atomic():
        writes = Writes()
        started = Change(kept.lock(match_id, state=state), writes)
        yield started
        _write([started], writes)


def each(
    match_ids: Iterable[int], act: Callable[[Change], int], *, failed: str = "change to %s"
) -> int:
    """Change each running match of ``match_ids`` with ``act(change)`` in one transaction,
    all written together; returns the sum of what ``act`` returned. A match whose loading
    or change raises is logged (``failed`` % its id, then "failed") and left as it was,
    and the others go on."""
    done = 0
    with transaction.atomic():
        writes = Writes()
        standing = []
        for locked in kept.lock_many(sorted(set(match_ids))):
            mark = writes.mark()
            try:
                one = Change(kept.record_of(locked), writes)
                counted = act(one)
            except Exception:
                logger.exception(f"{failed} failed; skipped", locked.match.pk)
                writes.undo(mark)
                continue
            standing.append(one)
            done += counted
        _write(standing, writes)
    return done


def _write(changes: list[Change], writes: Writes) -> None:
    """Write the changes (see the module), and hand their events on once committed."""
    new_versions: list[dict[str, str] | None] = []
    for one in changes:
        record = one.record
        if record.state is None:  # beside the game: what its readers see did not change
            new_versions.append(None)
            continue
        record.versions = None  # what the readers saw is not what they see now
        after = versions.versions(record)
        before = one.before or {}
        news = {audience: v for audience, v in after.items() if before.get(audience) != v}
        if news:
            one.emit(bus.ReadersChanged(record.match, news))
        new_versions.append(after)
    events = [event for one in changes for event in one.events]
    bus.with_change(events, writes)
    for one, seen in zip(changes, new_versions, strict=True):
        record = one.record
        writes.save(record)
        if seen is None:
            continue
        if record.stamp is None:  # a new state (moves made), or one rebuilt from the moves
            writes.keep_state(record, seen)
        elif seen != one.before:
            writes.keep_versions(record, seen)
        record.versions = seen
    writes.flush()
    transaction.on_commit(partial(_committed, [one.record for one in changes], events))


def _committed(records: list[Record], events: list[bus.Event]) -> None:
    for record in records:
        kept.keep(record)
    bus.after_commit(events)
