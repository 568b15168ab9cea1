"""Stored matches as their game sees them.

A ``Record`` is a match with its seats and its game's state after its moves, with how many
moves each seat made. Pages and moves get it from the state kept with the match
(``services.match.kept``); ``replay`` rebuilds it from the seed and the moves, which stay the truth
(a state never kept, or kept by another version of the game's code) and which a finished
match's replay steps through. Changing a match is the unit of work's
(``services.match.unit``); what views get is ``matchview.MatchView``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.db import connection

from games.contract import LEAVE, Rules
from games.models import Match, Move, Seat
from games.registry import find_game
from games.services.match import lockstep
from games.services.match.prepared import Prepared, column


class MoveRefused(ValueError):
    """A request that cannot be carried out; ``str()`` says why. ``code`` and ``params``
    name the reason, as a game's refusals do (``games.contract.IllegalMove``)."""

    def __init__(self, reason: str, *, code: str = "", **params: Any) -> None:
        super().__init__(reason)
        self.code = code or reason
        self.params = params


def rules_of(match: Match) -> Rules:
    """The match's game's rules; for a game on a live deal, held at the steps dealt
    (``lockstep``)."""
    rules = find_game(match.game)
    if lockstep.in_step(match) and match.puzzle is not None:
        return lockstep.held_at(rules, match.puzzle.dealt)
    return rules


def options_of(match: Match):
    """The match's options as its game reads them."""
    return rules_of(match).options({**match.options, "players": match.players})


class Made(NamedTuple):
    """A stored move as a replay reads it: the seat that made it and its text."""

    seat_id: int
    text: str


@dataclass(slots=True)
class Record:
    """A stored match and its game's state after its first ``ply`` moves; ``made`` counts
    the moves of each seat, by seat index.

    ``stamp`` names the kept state this record's state is (``services.match.kept``; None for a
    state rebuilt or changed since it was read), and ``versions`` what each reader saw of
    it (``services.match.versions``; None when unknown). A record read to be changed (``kept.lock``)
    holds a state of its own and notes its seats' fields as read in ``stored``: a change
    writes only the fields that differ from these.
    """

    match: Match
    seats: list[Seat]
    rules: Rules
    state: Any
    ply: int = 0
    made: list[int] = field(default_factory=list)
    stamp: int | None = None
    versions: dict[str, str] | None = None
    stored: dict[int, dict[str, Any]] = field(default_factory=dict)

    def made_by(self, seat: Seat) -> int:
        """How many moves the player of ``seat`` has made."""
        return self.made[seat.index] if seat.index < len(self.made) else 0

    def seat_of(self, user) -> Seat:
        for seat in self.seats:
            if seat.player_id == user.pk:
                return seat
        raise Seat.DoesNotExist

    def apply(self, seat: Seat, text: str):
        """Make the move written ``text`` for ``seat`` in the state (a game's IllegalMove if
        it may not be made), counted as the next one; returns the move as the game reads
        it."""
        if text == LEAVE:
            self.state = self.rules.leave(self.state, seat.index)
            move = LEAVE
        else:
            move = self.rules.parse_move(text)
            self.state = self.rules.apply(self.state, seat.index, move)
        self.counted(seat)
        return move

    def counted(self, seat: Seat) -> None:
        """A move of ``seat`` was made on the state: the record's counts follow it."""
        while len(self.made) <= seat.index:
            self.made.append(0)
        self.made[seat.index] += 1
        self.ply += 1
        self.stamp = None
        self.versions = None


def replay(match: Match, seats: list[Seat], moves: Sequence[Made | Move]) -> Record:
    """The match's state from its seed and options and ``moves`` in order: a record of the
    caller's own."""
    return _replay(match, seats, moves, rules_of(match))


def _replay(
    match: Match,
    seats: list[Seat],
    moves: Sequence[Made | Move],
    rules: Rules,
) -> Record:
    state = rules.setup(match.players, match.seed, options_of(match))
    record = Record(match, seats, rules, state, made=[0] * len(seats))
    by_pk = {seat.pk: seat for seat in seats}
    for move in moves:
        record.apply(by_pk[move.seat_id], move.text)
    return record


def moves_of(match: Match, since: int = 0) -> list[Made]:
    """The match's moves in order (from its move ``since`` on): one plain query, read into
    tuples (made into ``Move`` objects they took longer than the replay)."""
    quote = connection.ops.quote_name
    seat, text, match_id, ply = (
        quote(column(Move, name)) for name in ("seat", "text", "match", "ply")
    )
    sql = (
        f"SELECT {seat}, {text} FROM {quote(Move._meta.db_table)}"
        f" WHERE {match_id} = %s AND {ply} >= %s ORDER BY {ply}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [match.pk, since])
        return [Made(*row) for row in cursor.fetchall()]


_seats = Prepared(Seat, "match_id", related=("player",), order_by=("index",))


def seats_of(match: Match) -> list[Seat]:
    """The match's seats in order, with their players, each holding ``match`` itself."""
    seats = _seats(match.pk)
    for seat in seats:
        seat.match = match
    return seats


def set_up(match: Match, seats: list[Seat]) -> Record:
    """The match as its game sets it up, before any move: a state of the caller's own."""
    return _replay(match, seats, [], rules_of(match))
