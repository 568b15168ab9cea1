"""The writes a change makes: the unit of work.

Every change to a match locks the match row first (``lock``), so changes to one match never
interleave and no two ever deadlock, and collects what it writes in a ``Changes``, written
together when the change is done: new moves and notifications in one statement each,
changed seats with one statement per set of changed fields. Which seat fields changed is
told by the record's note of them as read (``Record.stored``, taken by ``lock`` or
``track``), not by anything kept on the seats themselves.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop

from games import metrics
from games.models import Match, Move, Notification, Profile, Seat
from games.services import live, pushes
from games.services.prepared import Prepared
from games.services.record import Record, moves_of, replay, seats_of

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
)

_locked_match = Prepared(Match, "id", for_update=True)


def lock(match_id: int) -> Record:
    """The match, locked until the transaction ends, replayed into a state of the caller's
    own, its seats' fields noted as read (``track``). Raises Match.DoesNotExist."""
    match = _locked_match.one(match_id)
    seats = seats_of(match)
    return track(replay(match, seats, moves_of(match)))


def track(record: Record) -> Record:
    """Note the fields of the record's seats as read, so that only what changes is written
    (a seat added to the record later has no note: all its fields are written). Its
    readers are told what changed for them once the change commits (``live.follow``)."""
    record.stored = {seat.pk: _fields(seat) for seat in record.seats}
    live.follow(record)
    return record


def _fields(seat: Seat) -> dict[str, Any]:
    return {name: getattr(seat, name) for name in SEAT_FIELDS}


class Changes:
    """What a change writes: moves, notifications, seat and match fields, and any other
    write (``later``), collected and then written together by ``flush`` (one change, or a
    whole batch of expiries). Until then nothing is written, so ``undo`` forgets a part of
    it completely."""

    def __init__(self) -> None:
        self.moves: list[Move] = []
        self.notifications: list[tuple[int, Match | None, str, dict[str, Any], str]] = []
        self.your_move: list[tuple[int, Match, bool]] = []
        self.seats: dict[int, tuple[Seat, set[str]]] = {}
        self.matches: dict[int, tuple[Match, set[str]]] = {}
        self.after: list = []

    def move(self, record: Record, seat: Seat, text: str, *, auto: bool = False) -> None:
        """Keep ``text`` as the record's next move (already applied to its state)."""
        move = Move(
            match=record.match,
            ply=record.ply,
            seat=seat,
            text=text,
            auto=auto,
            created=timezone.now(),
        )
        record.moves.append(move)
        self.moves.append(move)

    def notify(
        self, player_id: int, match: Match | None, text: str, /, *, push: str = "", **params: Any
    ) -> None:
        """A notification for the player: ``text`` is the English message (marked with
        ``gettext_noop``), written in the player's own language with ``params`` (anything,
        said as ``str()`` in that language) when the changes are written. With ``push`` (a
        kind of ``services.pushes``, and a match) the player's devices are told too."""
        self.notifications.append((player_id, match, text, params, push))

    def notify_your_move(self, player_id: int, match: Match) -> None:
        """The move in ``match`` is the player's (again): their "your move" notification
        comes up to date, and their devices are told (``services.pushes``)."""
        self.your_move.append((player_id, match, True))

    def move_made(self, player_id: int, match: Match) -> None:
        """The player owes no move in ``match`` now: their "your move" notification goes."""
        self.your_move.append((player_id, match, False))

    def save_match(self, match: Match, *fields: str) -> None:
        self.matches.setdefault(match.pk, (match, set()))[1].update(fields)

    def later(self, write) -> None:
        """Call ``write()`` when the changes are written."""
        self.after.append(write)

    def save(self, record: Record) -> None:
        """Write the fields of each of the record's seats that changed since they were read
        (``Record.stored``), or since the last ``save``; all of them for a seat never read."""
        for seat in record.seats:
            values = _fields(seat)
            stored = record.stored.get(seat.pk)
            if stored is None:
                changed = set(values)
            else:
                changed = {name for name, value in values.items() if stored[name] != value}
            if changed:
                self.seats.setdefault(seat.pk, (seat, set()))[1].update(changed)
            record.stored[seat.pk] = values

    def mark(self) -> tuple:
        """Where the writes stand now, for ``undo``."""
        return (
            len(self.moves),
            len(self.notifications),
            len(self.your_move),
            set(self.seats),
            set(self.matches),
            len(self.after),
        )

    def undo(self, mark: tuple) -> None:
        """Forget every write collected since ``mark``."""
        moves, notifications, your_move, seats, matches, after = mark
        del self.moves[moves:]
        del self.notifications[notifications:]
        del self.your_move[your_move:]
        for seat_id in set(self.seats) - seats:
            del self.seats[seat_id]
        for match_id in set(self.matches) - matches:
            del self.matches[match_id]
        del self.after[after:]

    def flush(self) -> None:
        for match, fields in self.matches.values():
            match.save(update_fields=sorted(fields))
        Move.objects.bulk_create(self.moves)
        Notification.objects.bulk_create(_in_their_languages(self.notifications))
        owed = _your_move_notifications(self.your_move)
        told = [(p, m, kind, text, params) for p, m, text, params, kind in self.notifications]
        moves = [(p, m, pushes.MOVE, text, params) for p, m, text, params in owed]
        pushes.write([push for push in told if push[2]] + moves)
        groups: dict[tuple[str, ...], list[Seat]] = defaultdict(list)
        for seat, fields in self.seats.values():
            groups[tuple(sorted(fields))].append(seat)
        for fields, seats in groups.items():
            _update_seats(seats, fields)
        for write in self.after:
            write()
        if self.moves:
            games = Counter(move.match.game for move in self.moves)
            transaction.on_commit(lambda: metrics.moves_committed(games))
        self.__init__()


def _in_their_languages(pending) -> list[Notification]:
    """The notifications, each written in its reader's language (else the site's)."""
    if not pending:
        return []
    saved = Profile.languages_of({player_id for player_id, *_rest in pending})
    made = []
    for player_id, match, text, params, *_push in pending:
        with translation.override(saved.get(player_id, settings.LANGUAGE_CODE)):
            words = gettext(text)
            if params:
                words %= {name: str(value) for name, value in params.items()}
        made.append(Notification(player_id=player_id, match=match, text=words[:200]))
    return made


def _update_seats(seats: list[Seat], fields: tuple[str, ...]) -> None:
    """Write ``fields`` of many seats with one statement sent for all rows at once.

    ``executemany`` sends the rows together (psycopg pipelines them), where
    ``bulk_update`` would build a CASE expression per row and field in Python.
    """
    meta = Seat._meta
    columns = [meta.get_field(name) for name in fields]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(column.column)} = %s" for column in columns)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
    rows = [
        [column.get_db_prep_save(getattr(seat, column.attname), connection) for column in columns]
        + [seat.pk]
        for seat in seats
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def _your_move_notifications(changes: list[tuple[int, Match, bool]]) -> list[tuple]:
    """One "your move" per player and match at most, read or not, and only while the move is
    theirs: each player's last change in a match says whether they owe it (``due``). The
    notification there was goes, and a player who owes the move gets it anew: unread, now,
    in their language. Two statements for them all. The moves owed: (player id, match,
    text, params)."""
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
    made = _in_their_languages(owed)
    for notification in made:
        notification.kind = Notification.Kind.MOVE
        notification.created = now
    Notification.objects.bulk_create(made)
    return owed
