"""The writes of a change, collected and then written together (``Writes``).

A change to a match (``services.match.unit``) collects what it writes: new moves and notifications
in one statement each, changed seats with one statement per set of changed fields, the
match's kept state in one. Which seat fields changed is told by the record's note of them as
read (``Record.stored``, taken when the match is locked), not by anything kept on the seats
themselves. Until ``flush`` nothing is written, so ``undo`` forgets a part of it completely.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from games import notices
from games.infra import metrics
from games.models import Match, Move, Notification, Seat
from games.services.features import push_devices
from games.services.match import kept
from games.services.match.prepared import column, field_of
from games.services.match.record import Record

logger = logging.getLogger(__name__)

#: The fields of a seat that a change may write.
SEAT_FIELDS = (
    "state",
    "progress",
    "score",
    "rank",
    "deadline",
    "turn",
    "strike",
    "overdue",
    "strikes",
    "total_strikes",
    "reminded",
    "remind_at",
    "mail_at",
    "mail_reminder",
    "extensions_left",
    "bot_due",
    "commitment",
    "committed_turn",
    "prefs",
    "finished",
)


def fields_of(seat: Seat) -> dict[str, Any]:
    return {name: getattr(seat, name) for name in SEAT_FIELDS}


class Writes:
    """What a change writes: moves, notifications, seat and match fields, the match's kept
    state, and any other write (``later``), collected and then written together by
    ``flush`` (one change, or a whole batch of expiries). Until then nothing is written, so
    ``undo`` forgets a part of it completely."""

    def __init__(self) -> None:
        self._clear()

    def _clear(self) -> None:
        self.moves: list[Move] = []
        self.notifications: list[tuple[int, Match | None, str, dict[str, Any], str]] = []
        self.your_move: list[tuple[int, Match, bool]] = []
        self.seats: dict[int, tuple[Seat, set[str]]] = {}
        self.matches: dict[int, tuple[Match, set[str]]] = {}
        self.after: list[tuple[Any, bool]] = []
        self.states: list[list] = []
        self.versions: list[tuple[str, int]] = []

    def move(
        self, record: Record, seat: Seat, text: str, *, auto: bool = False, timed_out: bool = False
    ) -> Move:
        """Keep ``text`` as the record's next move (already made on its state), counted;
        ``timed_out``: made for the player as their time ran out (``auto`` too)."""
        move = Move(
            match=record.match,
            ply=record.ply,
            seat=seat,
            text=text,
            auto=auto or timed_out,
            timed_out=timed_out,
            created=timezone.now(),
        )
        record.counted(seat)
        self.moves.append(move)
        return move

    def notify(
        self, player_id: int, match: Match | None, text: str, /, *, push: str = "", **params: Any
    ) -> None:
        """A notification for the player: ``text`` is the English message (marked with
        ``gettext_noop``), kept with ``params`` (a match, a player as ``notices.Player``, a
        number; ``notices.stored``) and said in the reader's language when read. With
        ``push`` (a kind of ``services.features.push_devices``, and a match) the player's
        devices are told too, in the player's language."""
        self.notifications.append((player_id, match, text, params, push))

    def notify_your_move(self, player_id: int, match: Match) -> None:
        """The move in ``match`` is the player's (again): their "your move" notification
        comes up to date, and their devices are told (``services.features.push_devices``)."""
        self.your_move.append((player_id, match, True))

    def move_made(self, player_id: int, match: Match) -> None:
        """The player owes no move in ``match`` now: their "your move" notification goes."""
        self.your_move.append((player_id, match, False))

    def save_match(self, match: Match, *fields: str) -> None:
        self.matches.setdefault(match.pk, (match, set()))[1].update(fields)

    def later(self, write, *, apart: bool = False) -> None:
        """Call ``write()`` when the changes are written; ``apart``: in a savepoint of its
        own, so that its failure (logged and counted) undoes only what it wrote."""
        self.after.append((write, apart))

    def save(self, record: Record) -> None:
        """Write the fields of each of the record's seats that changed since they were read
        (``Record.stored``), or since the last ``save``; all of them for a seat never read."""
        for seat in record.seats:
            values = fields_of(seat)
            stored = record.stored.get(seat.pk)
            if stored is None:
                changed = set(values)
            else:
                changed = {name for name, value in values.items() if stored[name] != value}
            if changed:
                self.seats.setdefault(seat.pk, (seat, set()))[1].update(changed)
            record.stored[seat.pk] = values

    def keep_state(self, record: Record, versions: dict[str, str]) -> None:
        """Write the record's state as the match's kept state (``services.match.kept``), with what
        each of its readers sees of it."""
        self.states.append(kept.row(record, versions))

    def keep_versions(self, record: Record, versions: dict[str, str]) -> None:
        """The match's kept state stands; what its readers see of it changed."""
        self.versions.append((kept.encode_versions(versions), record.match.pk))

    def mark(self) -> tuple:
        """Where the writes stand now, for ``undo``."""
        return (
            len(self.moves),
            len(self.notifications),
            len(self.your_move),
            set(self.seats),
            set(self.matches),
            len(self.after),
            len(self.states),
            len(self.versions),
        )

    def undo(self, mark: tuple) -> None:
        """Forget every write collected since ``mark``."""
        moves, notifications, your_move, seats, matches, after, states, versions = mark
        del self.moves[moves:]
        del self.notifications[notifications:]
        del self.your_move[your_move:]
        for seat_id in set(self.seats) - seats:
            del self.seats[seat_id]
        for match_id in set(self.matches) - matches:
            del self.matches[match_id]
        del self.after[after:]
        del self.states[states:]
        del self.versions[versions:]

    def flush(self) -> None:
        for match, fields in self.matches.values():
            match.save(update_fields=sorted(fields))
        Move.objects.bulk_create(self.moves)
        Notification.objects.bulk_create(notifications_of(self.notifications))
        owed = _your_move_notifications(self.your_move)
        told = [
            (p, m, kind, text, params)
            for p, m, text, params, kind in self.notifications
            if kind and m is not None
        ]
        moves = [(p, m, push_devices.MOVE, text, params) for p, m, text, params in owed]
        push_devices.write(told + moves)
        groups: dict[tuple[str, ...], list[Seat]] = defaultdict(list)
        for seat, fields in self.seats.values():
            groups[tuple(sorted(fields))].append(seat)
        for names, seats in groups.items():
            _update_seats(seats, names)
        kept.write(self.states)
        kept.write_versions(self.versions)
        for write, apart in self.after:
            if not apart:
                write()
                continue
            try:
                with transaction.atomic():
                    write()
            except Exception:
                logger.exception("a write of a change failed; the change stands")
                metrics.SUBSCRIBER_FAILURES.labels(getattr(write, "__qualname__", "write")).inc()
        self._clear()


def notifications_of(pending) -> list[Notification]:
    """The notifications as they are kept: each (player id, match, English message, params)
    by its message and parameters (``notices.stored``), to be said when read."""
    return [
        Notification(player_id=player_id, match=match, message=text, params=notices.stored(params))
        for player_id, match, text, params, *_push in pending
    ]


def _update_seats(seats: list[Seat], fields: tuple[str, ...]) -> None:
    """Write ``fields`` of many seats with one statement sent for all rows at once.

    ``executemany`` sends the rows together (psycopg pipelines them), where
    ``bulk_update`` would build a CASE expression per row and field in Python.
    """
    columns = [field_of(Seat, name) for name in fields]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(column(Seat, name))} = %s" for name in fields)
    table, pk = quote(Seat._meta.db_table), quote(column(Seat, "pk"))
    sql = f"UPDATE {table} SET {assignments} WHERE {pk} = %s"
    rows = [
        [field.get_db_prep_save(getattr(seat, field.attname), connection) for field in columns]
        + [seat.pk]
        for seat in seats
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def _your_move_notifications(changes: list[tuple[int, Match, bool]]) -> list[tuple]:
    """One "your move" per player and match at most, read or not, and only while the move is
    theirs: each player's last change in a match says whether they owe it (``due``). The
    notification there was goes, and a player who owes the move gets it anew: unread, now.
    Two statements for them all. The moves owed: (player id, match, text, params)."""
    last = {(player_id, match.pk): (player_id, match, due) for player_id, match, due in changes}
    if not last:
        return []
    players: dict[int, list[int]] = defaultdict(list)
    for player_id, match_id in last:
        players[match_id].append(player_id)
    stale = Q()
    for match_id, ids in players.items():
        stale |= Q(match_id=match_id, player_id__in=ids)
    Notification.objects.filter(stale, kind=Notification.Kind.MOVE).delete()
    owed = [
        (player_id, match, gettext_noop("Your move in %(match)s."), {"match": match})
        for player_id, match, due in last.values()
        if due
    ]
    now = timezone.now()
    made = notifications_of(owed)
    for notification in made:
        notification.kind = Notification.Kind.MOVE
        notification.created = now
    Notification.objects.bulk_create(made)
    return owed
