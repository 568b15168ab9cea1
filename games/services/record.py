"""Stored matches as their game sees them.

A ``Record`` is a match with its seats and moves, replayed through its game
(``games.registry``) into the game's state. Replays are kept (a match's moves are only ever
added to, so the same moves always lead to the same state): a page replays nothing that a
page before it replayed, and a match moved in since is carried on from the state kept.
Changing a match starts with ``changes.lock``; what views get is ``matchview.MatchView``.
"""

from __future__ import annotations

import copy
import itertools
import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.db import connection

from games.contract import LEAVE, Rules
from games.models import Match, Move, Seat
from games.registry import find_game
from games.services.prepared import Prepared


class MoveRefused(ValueError):
    """A request that cannot be carried out; ``str()`` says why. ``code`` and ``params``
    name the reason, as a game's refusals do (``games.contract.IllegalMove``)."""

    def __init__(self, reason: str, *, code: str = "", **params: Any) -> None:
        super().__init__(reason)
        self.code = code or reason
        self.params = params


def rules_of(match: Match) -> Rules:
    return find_game(match.game)


def options_of(match: Match):
    """The match's options as its game reads them."""
    return rules_of(match).options({**match.options, "players": match.players})


class Made(NamedTuple):
    """A stored move as a replay reads it: the seat that made it and its text."""

    seat_id: int
    text: str


@dataclass(slots=True)
class Record:
    """A stored match and its game's state after its moves (each move read as ``Made``, or
    a ``Move`` made by the change at hand: both have ``seat_id`` and ``text``)."""

    match: Match
    seats: list[Seat]
    moves: list[Made | Move]
    rules: Rules
    state: Any
    #: The seats' fields as read from the database, by seat id, for a record that is to be
    #: changed (``changes.lock``): a change writes only the fields that differ from these.
    stored: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def ply(self) -> int:
        """How many moves the match has (the number of the next one)."""
        return len(self.moves)

    def moves_of(self, seat: Seat) -> list[Move]:
        """The moves made by the player of ``seat``, in order."""
        return [move for move in self.moves if move.seat_id == seat.pk]

    def seat_of(self, user) -> Seat:
        for seat in self.seats:
            if seat.player_id == user.pk:
                return seat
        raise Seat.DoesNotExist

    def apply(self, seat: Seat, text: str):
        """Make the move written ``text`` for ``seat`` in the state (a game's IllegalMove if
        it may not be made); returns the move as the game reads it."""
        if text == LEAVE:
            self.state = self.rules.leave(self.state, seat.index)
            return LEAVE
        move = self.rules.parse_move(text)
        self.state = self.rules.apply(self.state, seat.index, move)
        return move


#: Recently replayed states by (match, options, every move made): a match's moves are only
#: ever added to, so the same key always means the same state.
_replayed: OrderedDict[tuple, Any] = OrderedDict()
#: The state with the most moves kept for each match: (its moves, the state). A match
#: another process has moved in since is replayed from there, not from the start.
_newest: OrderedDict[tuple, tuple[tuple, Any]] = OrderedDict()
_REPLAYED = 256
_replaying = threading.Lock()
#: The positions views were made of, by the opaque number each view carries: what a page
#: asks next of the same position (a draft) replays and reads nothing while it is kept.
_viewed: OrderedDict[int, tuple] = OrderedDict()
_view_numbers = itertools.count(1)


def _key(match: Match, seats: list[Seat], moves: list[Made | Move]) -> tuple[tuple, tuple]:
    """(the match and its options, the moves made: (seat index, text) each)."""
    index = {seat.pk: seat.index for seat in seats}
    made = tuple((index[m.seat_id], m.text) for m in moves)
    return (match.pk, match.game, match.seed, match.players, repr(match.options)), made


def _remember(which: tuple, made: tuple, state: Any) -> None:
    """Keep ``state`` as the one ``made`` leads to (the caller holds ``_replaying``)."""
    _replayed[(*which, made)] = state
    _replayed.move_to_end((*which, made))
    while len(_replayed) > _REPLAYED:
        _replayed.popitem(last=False)
    newest = _newest.get(which)
    if newest is None or len(newest[0]) <= len(made):
        _newest[which] = (made, state)
    _newest.move_to_end(which)
    while len(_newest) > _REPLAYED:
        _newest.popitem(last=False)


def replay(
    match: Match,
    seats: list[Seat],
    moves: list[Made | Move],
    *,
    shared: bool = False,
    keep: bool = True,
) -> Record:
    """The match's state, from its seed and options and its moves in order.

    ``shared``: the state may be one that other readers hold too, so it must not be changed
    (for pages); otherwise it is the caller's own. ``keep``: remember it for the next time
    (not for a batch of many matches, which would only push out the ones being looked at).
    A state kept for the first moves of ``moves`` is carried on with the rest.
    """
    rules = rules_of(match)
    if not keep:
        return _replay(match, seats, moves, rules)
    which, made = _key(match, seats, moves)
    with _replaying:
        known = _replayed.get((*which, made))
        if known is not None:
            _replayed.move_to_end((*which, made))
        newest = _newest.get(which)
    if known is not None:
        state = known if shared else copy.deepcopy(known)
        return Record(match, seats, moves, rules, state)
    start = None
    if newest is not None and len(newest[0]) < len(made) and made[: len(newest[0])] == newest[0]:
        start = (len(newest[0]), copy.deepcopy(newest[1]))
    record = _replay(match, seats, moves, rules, start)
    with _replaying:
        _remember(which, made, record.state if shared else copy.deepcopy(record.state))
    return record


def mark(record: Record) -> int:
    """An opaque number for the position of ``record`` (read with ``marked``), for a view
    made of it to carry without carrying the moves or the state."""
    which, made = _key(record.match, record.seats, record.moves)
    number = next(_view_numbers)
    with _replaying:
        _viewed[number] = (*which, made)
        while len(_viewed) > _REPLAYED:
            _viewed.popitem(last=False)
    return number


def marked(number: int) -> Any | None:
    """The state of the position ``mark`` gave ``number`` for, while it is still kept (it
    is shared: it must not be changed); None once it is not."""
    with _replaying:
        key = _viewed.get(number)
        return None if key is None else _replayed.get(key)


def keep(record: Record) -> None:
    """Remember the record's state as the one its moves lead to, for the pages that follow a
    change (a player's next preview replays nothing). Called once the change is committed;
    the caller changes the state no more."""
    which, made = _key(record.match, record.seats, record.moves)
    with _replaying:
        _remember(which, made, record.state)


def _replay(
    match: Match,
    seats: list[Seat],
    moves: list[Made | Move],
    rules: Rules,
    start: tuple[int, Any] | None = None,
) -> Record:
    """Replay ``moves``; from ``start`` (the number of moves already made and the state they
    led to, the caller's own) when given, else from the match's setup."""
    done, state = start or (0, rules.setup(match.players, match.seed, options_of(match)))
    record = Record(match, seats, moves, rules, state)
    by_pk = {seat.pk: seat for seat in seats}
    for move in moves[done:]:
        record.apply(by_pk[move.seat_id], move.text)
    return record


def moves_of(match: Match) -> list[Made]:
    """The match's moves in order: one plain query, read into tuples, as every page and
    preview reads them (made into ``Move`` objects they took longer than the replay)."""
    meta = Move._meta
    quote = connection.ops.quote_name
    seat, text, match_id, ply = (
        quote(meta.get_field(name).column) for name in ("seat", "text", "match", "ply")
    )
    sql = f"SELECT {seat}, {text} FROM {quote(meta.db_table)} WHERE {match_id} = %s ORDER BY {ply}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [match.pk])
        return [Made(*row) for row in cursor.fetchall()]


_seats = Prepared(Seat, "match_id", related=("player",), order_by=("index",))


def seats_of(match: Match) -> list[Seat]:
    """The match's seats in order, with their players, each holding ``match`` itself."""
    seats = _seats(match.pk)
    for seat in seats:
        seat.match = match
    return seats


def load_many(matches: list[Match]) -> dict[int, Record]:
    """Matches replayed as they are stored now, for reading, by id: two queries whatever
    their number, one for their seats (with their players) and one for their moves."""
    by_id = {match.pk: match for match in matches}
    seated: dict[int, list[Seat]] = defaultdict(list)
    for seat in (
        Seat.objects.filter(match_id__in=by_id)
        .select_related("player")
        .order_by("match_id", "index")
    ):
        seat.match = by_id[seat.match_id]
        seated[seat.match_id].append(seat)
    moves: dict[int, list[Made]] = defaultdict(list)
    for match_id, seat_id, text in (
        Move.objects.filter(match_id__in=by_id)
        .order_by("match_id", "ply")
        .values_list("match_id", "seat_id", "text")
    ):
        moves[match_id].append(Made(seat_id, text))
    return {pk: replay(match, seated[pk], moves[pk], shared=True) for pk, match in by_id.items()}


def load(match: Match, seats: list[Seat] | None = None) -> Record:
    """A match replayed as it is stored now, for reading: nothing is locked, and its state
    must not be changed."""
    if seats is None:
        seats = seats_of(match)
    return replay(match, seats, moves_of(match), shared=True)


def set_up(match: Match, seats: list[Seat]) -> Record:
    """The match as its game sets it up, before any move: a state of the caller's own."""
    return _replay(match, seats, [], rules_of(match))
