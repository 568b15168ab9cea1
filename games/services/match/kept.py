"""Matches' states kept in the database (``MatchState``), and each process's cache of them.

Every change to a match writes the match's new state in its own transaction (``unit``), so a
page, a preview or a move reads the state instead of replaying the match: one query gives a
match's state row and the number of its moves. Each process keeps the states it read or
wrote lately by their ``stamp`` (new, random, with every state written): a state the process
has already is not sent again by the database nor read back, and a page that follows a move
made in the same process reads nothing but the row's figures.

The moves stay the truth. A state kept behind them (moves written some other way) is carried
on with the moves it lacks; one missing, written by another version of the game's code
(``Rules.state_format``) or unreadable is rebuilt from the seed and all the moves. Either way
the result is written back for the next reader, unless a newer state was written meanwhile.
"""

from __future__ import annotations

import copy
import hashlib
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, NamedTuple

from django.db import connection

from games.models import Match, MatchState, Move, Seat
from games.services.match.prepared import Prepared, column
from games.services.match.record import Record, moves_of, replay, rules_of, seats_of

#: States a process keeps at most (a few tens of kB each).
CACHE = 256

#: (match id, stamp) -> (moves, moves made by seat, state): shared, never to be changed.
_cache: OrderedDict[tuple[int, int], tuple[int, tuple[int, ...], Any]] = OrderedDict()
#: match id -> the stamp of its state this process wrote or read last.
_newest: OrderedDict[int, int] = OrderedDict()
_guard = threading.Lock()

_locked_match = Prepared(Match, "id", for_update=True)


def new_stamp() -> int:
    return secrets.randbits(62) + 1


def format_of(match: Match) -> str:
    """What a kept state of ``match`` must have been written as to be read: its game's
    state format, and the seed, players and options it was dealt from (a match may be dealt
    again while it waits for its players)."""
    basis = json.dumps([match.game, match.seed, match.players, match.options], sort_keys=True)
    digest = hashlib.sha256(basis.encode()).hexdigest()[:12]
    return f"{rules_of(match).state_format}:{digest}"


def encode_versions(versions: dict[str, str] | None) -> str:
    return json.dumps(versions, sort_keys=True) if versions else ""


def _remember(match_id: int, stamp: int, ply: int, made: Sequence[int], state: Any) -> None:
    with _guard:
        _cache[(match_id, stamp)] = (ply, tuple(made), state)
        _cache.move_to_end((match_id, stamp))
        while len(_cache) > CACHE:
            (gone, gone_stamp), _ = _cache.popitem(last=False)
            if _newest.get(gone) == gone_stamp:
                del _newest[gone]  # a read asks for its state's bytes again, with the rest
        _newest[match_id] = stamp
        _newest.move_to_end(match_id)
        while len(_newest) > CACHE:
            _newest.popitem(last=False)


def _cached(match_id: int, stamp: int | None) -> tuple[int, tuple[int, ...], Any] | None:
    if stamp is None:
        return None
    with _guard:
        found = _cache.get((match_id, stamp))
        if found is not None:
            _cache.move_to_end((match_id, stamp))
        return found


def cached_state(match_id: int, stamp: int | None) -> Any | None:
    """The state kept as ``stamp`` of the match, if this process has it (shared: it must not
    be changed)."""
    found = _cached(match_id, stamp)
    return None if found is None else found[2]


def keep(record: Record) -> None:
    """The record's state is the one kept as its stamp: this process keeps it for the pages
    that follow (called once the change that wrote it has committed; the caller changes
    the state no more)."""
    if record.stamp is not None:
        _remember(record.match.pk, record.stamp, record.ply, record.made, record.state)


# ------------------------------------------------------------------ reading


def _quoted() -> dict[str, str]:
    quote = connection.ops.quote_name
    names = {
        "move": quote(Move._meta.db_table),
        "move_match": quote(column(Move, "match")),
        "move_ply": quote(column(Move, "ply")),
        "kept": quote(MatchState._meta.db_table),
        "match": quote(Match._meta.db_table),
        "match_id": quote(column(Match, "pk")),
    }
    for name in ("match", "ply", "format", "stamp", "data", "made", "versions"):
        names[f"k_{name}"] = quote(column(MatchState, name))
    return names


def _read_sql(matches: int, stamps: int) -> str:
    """Each match's id, number of moves and kept state's figures, with the state itself
    only where its stamp is not one of ``stamps`` this process has."""
    q = _quoted()
    known = ", ".join(["%s"] * stamps)
    ids = ", ".join(["%s"] * matches)
    return (
        f"SELECT m.{q['match_id']},"
        f" (SELECT COALESCE(MAX(v.{q['move_ply']}) + 1, 0) FROM {q['move']} v"
        f" WHERE v.{q['move_match']} = m.{q['match_id']}),"
        f" s.{q['k_ply']}, s.{q['k_format']}, s.{q['k_stamp']}, s.{q['k_made']},"
        f" s.{q['k_versions']},"
        f" CASE WHEN s.{q['k_stamp']} IN ({known}) THEN NULL ELSE s.{q['k_data']} END"
        f" FROM {q['match']} m LEFT JOIN {q['kept']} s ON s.{q['k_match']} = m.{q['match_id']}"
        f" WHERE m.{q['match_id']} IN ({ids})"
    )


def _rows(matches: Sequence[Match]) -> dict[int, tuple]:
    with _guard:
        stamps = [_newest[m.pk] for m in matches if m.pk in _newest] or [0]
    sql = _read_sql(len(matches), len(stamps))
    with connection.cursor() as cursor:
        cursor.execute(sql, [*stamps, *(m.pk for m in matches)])
        return {row[0]: row[1:] for row in cursor.fetchall()}


def _data(match_id: int, stamp: int) -> bytes | None:
    """The kept state's bytes (a state this process had when it asked, gone since)."""
    row = MatchState.objects.filter(match_id=match_id, stamp=stamp).values_list("data").first()
    return None if row is None else bytes(row[0])


def _from_row(match: Match, seats: list[Seat], row: tuple, *, private: bool) -> Record | None:
    """The record of the kept state ``row`` (carried on with the moves it lacks), or None
    when it must be rebuilt from the seed."""
    moves, ply, format_, stamp, made, versions, data = row
    rules = rules_of(match)
    if ply is None or format_ != format_of(match) or ply > moves:
        return None
    found = _cached(match.pk, stamp)
    if found is not None:
        state = copy.deepcopy(found[2]) if private else found[2]
    else:
        if data is None:
            data = _data(match.pk, stamp)
        try:
            state = rules.restore(data) if data is not None else None
        except ValueError:
            state = None
        if state is None:
            return None
        if not private:
            _remember(match.pk, stamp, ply, json.loads(made), state)
    record = Record(match, seats, rules, state, ply, list(json.loads(made)), stamp)
    if versions:
        record.versions = json.loads(versions)
    if ply < moves:  # moves written some other way: carried on from the kept state
        if not private:
            record.state = copy.deepcopy(state)  # the shared one stays as it was
        by_pk = {seat.pk: seat for seat in seats}
        for move in moves_of(match, since=ply):
            record.apply(by_pk[move.seat_id], move.text)
    return record


def _rebuilt(match: Match, seats: list[Seat]) -> Record:
    return replay(match, seats, moves_of(match))


def load(match: Match, seats: list[Seat] | None = None) -> Record:
    """The match as it is stored now, for reading: nothing is locked, and its state must
    not be changed (other readers in this process share it)."""
    if seats is None:
        seats = seats_of(match)
    return load_many([match], {match.pk: seats})[match.pk]


def load_many(
    matches: Sequence[Match], seated: dict[int, list[Seat]] | None = None
) -> dict[int, Record]:
    """Matches as they are stored now, for reading, by id: one query for their states (and
    one for their seats with their players, unless ``seated`` gives them) whatever their
    number; the states must not be changed."""
    if not matches:
        return {}
    if seated is None:
        by_id = {match.pk: match for match in matches}
        seated = {pk: [] for pk in by_id}
        for seat in (
            Seat.objects.filter(match_id__in=by_id)
            .select_related("player")
            .order_by("match_id", "index")
        ):
            seat.match = by_id[seat.match_id]
            seated[seat.match_id].append(seat)
    rows = _rows(matches)
    records = {}
    for match in matches:
        seats = seated[match.pk]
        record = _from_row(match, seats, rows[match.pk], private=False)
        if record is None or record.stamp is None:
            record = record or _rebuilt(match, seats)
            store(record, versions=None, only_if_newer=True)
        records[match.pk] = record
    return records


def lock(match_id: int, *, state: bool = True) -> Record:
    """The match, locked until the transaction ends, as it is stored now, with a state of
    the caller's own (none with ``state=False``). Raises Match.DoesNotExist."""
    match = _locked_match.one(match_id)
    seats = seats_of(match)
    if not state:
        return Record(match, seats, rules_of(match), None)
    return locked(match, seats)


def locked(match: Match, seats: list[Seat]) -> Record:
    """A match the caller has locked, as it is stored now, with a state of its own."""
    record = _from_row(match, seats, _rows([match])[match.pk], private=True)
    return record if record is not None else _rebuilt(match, seats)


class Locked(NamedTuple):
    """A match locked by ``lock_many``, with its seats and its kept state's row."""

    match: Match
    seats: list[Seat]
    row: tuple


def lock_many(match_ids: Sequence[int]) -> list[Locked]:
    """The running matches among ``match_ids``, locked in id order (so that two batches
    never deadlock) until the transaction ends, with their seats and their kept states'
    rows: three queries whatever their number (``record_of`` makes each a record)."""
    matches = list(
        Match.objects.select_for_update()
        .filter(pk__in=match_ids, status=Match.Status.ACTIVE)
        .order_by("pk")
    )
    if not matches:
        return []
    by_id = {match.pk: match for match in matches}
    seated: dict[int, list[Seat]] = {pk: [] for pk in by_id}
    for seat in (
        Seat.objects.filter(match__in=matches)
        .select_related("player")
        .order_by("match_id", "index")
    ):
        seat.match = by_id[seat.match_id]
        seated[seat.match_id].append(seat)
    rows = _rows(matches)
    return [Locked(match, seated[match.pk], rows[match.pk]) for match in matches]


def record_of(locked: Locked) -> Record:
    """The record of a match ``lock_many`` locked, with a state of the caller's own."""
    record = _from_row(locked.match, locked.seats, locked.row, private=True)
    return record if record is not None else _rebuilt(locked.match, locked.seats)


# ------------------------------------------------------------------ writing


def _write_sql(only_if_newer: bool) -> str:
    q = _quoted()
    columns = ("match", "ply", "format", "stamp", "data", "made", "versions")
    names = ", ".join(q[f"k_{name}"] for name in columns)
    updates = ", ".join(f"{q[f'k_{name}']} = excluded.{q[f'k_{name}']}" for name in columns[1:])
    sql = (
        f"INSERT INTO {q['kept']} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"
        f" ON CONFLICT ({q['k_match']}) DO UPDATE SET {updates}"
    )
    if only_if_newer:
        sql += (
            f" WHERE {q['kept']}.{q['k_ply']} < excluded.{q['k_ply']}"
            f" OR {q['kept']}.{q['k_format']} <> excluded.{q['k_format']}"
        )
    return sql


def row(record: Record, versions: dict[str, str] | None) -> list:
    """The values of the record's kept state, under a new stamp (set on the record)."""
    record.stamp = new_stamp()
    return [
        record.match.pk,
        record.ply,
        format_of(record.match),
        record.stamp,
        record.rules.save(record.state),
        json.dumps(record.made),
        encode_versions(versions),
    ]


def write(rows: list[list]) -> None:
    """Write kept states (``row``s), each replacing the match's last one (one statement
    sent for all rows at once)."""
    if rows:
        with connection.cursor() as cursor:
            cursor.executemany(_write_sql(only_if_newer=False), rows)


def write_versions(values: list[tuple[str, int]]) -> None:
    """Write the readers' versions of kept states that did not change (versions, match id)."""
    if not values:
        return
    q = _quoted()
    sql = f"UPDATE {q['kept']} SET {q['k_versions']} = %s WHERE {q['k_match']} = %s"
    with connection.cursor() as cursor:
        cursor.executemany(sql, values)


def store(record: Record, versions: dict[str, str] | None, *, only_if_newer: bool) -> None:
    """Write the record's state (rebuilt by a reader: ``only_if_newer``, so that it never
    replaces a state written since by a change) and keep it in this process if it was
    written."""
    values = row(record, versions)
    with connection.cursor() as cursor:
        cursor.execute(_write_sql(only_if_newer), values)
        written = cursor.rowcount != 0
    if written:
        keep(record)
    else:
        record.stamp = None
