"""What views get of a match: data only.

A ``MatchView`` holds what one user may see of a match, worked out when it is made: their
game's view, their commitments, whether they may draft. It holds no rules, no state and
nothing that reaches either. What a page asks beyond that (the view while a move is drafted,
how a finished match went) it asks of the functions here, which take the MatchView: ``draft``
(from the match's kept state), ``history`` and ``solo_line`` (which step through moves), and
``timed_out`` (the moves made as a player's time ran out, which the match log marks).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext

from games.contract import DraftRules, IllegalMove
from games.models import Match, Move, Seat
from games.services.match.commitments import MUST_COMMIT, commitment_of, offered_commitments
from games.services.match.kept import cached_state, load
from games.services.match.lockstep import InStep
from games.services.match.record import Record, moves_of, rules_of, set_up

#: The audience of everybody who is not seated in a match (``services.match.versions``).
WATCH = "watch"
#: The choice (``Seat.prefs``) of a player who accepted a rematch of a finished match
#: (``services.features.rematch``): every player's page shows who did.
REMATCH = "rematch"
#: The choice (``Seat.prefs``) of a player who declined the rematch: the offer ended for all.
REMATCH_DECLINED = "rematch_declined"
#: How long after its end a real-time match between people offers its rematch.
REMATCH_WINDOW = timedelta(minutes=10)


def rematch_offered(match: Match, seats: Sequence[Seat], now: datetime) -> bool:
    """Whether ``match`` is a finished real-time match between people, over less than
    ``REMATCH_WINDOW`` ago and no table of a tournament: its players' pages follow the
    answers to its rematch offer (no query)."""
    return (
        match.kind == Match.Kind.MATCH
        and match.status == Match.Status.FINISHED
        and match.puzzle_id is None
        and match.tournament_id is None
        and match.realtime
        and len(seats) >= 2
        and not any(s.bot for s in seats)
        and match.finished is not None
        and now - match.finished < REMATCH_WINDOW
    )


@dataclass(frozen=True, slots=True)
class MatchView:
    """A match as one user may see it: never the game's state, only its view for them.

    ``seat`` is the user's own seat (None for a spectator); ``view`` is the game's view
    for that seat (``Rules.view``); ``ply`` the number of moves the viewer has made (none for
    a spectator), which a move form sends back so that a page that is out of date is
    noticed: never the whole match's count, which in free pace would tell how far the others
    have got. ``commitment`` is what the player committed to for the decision
    they owe (``CommitRules``), ``may_commit`` what they may still commit to: while they may,
    they draft nothing. ``drafts``: the player owes a move they may compose step by step
    (``DraftRules``; see ``draft``).
    """

    match: Match
    seats: list[Seat]
    seat: Seat | None
    view: Any
    ply: int
    extras: dict[str, Any] = field(default_factory=dict)
    commitment: str = ""
    may_commit: tuple[str, ...] = ()
    drafts: bool = False
    position: int = 0  # opaque: the kept state the view is of (``Record.stamp``)
    owes: bool = False  # the reader owes a decision now
    known_version: str = ""  # ``version``, when the match's kept state says it

    @property
    def is_player(self) -> bool:
        return self.seat is not None


@dataclass(frozen=True, slots=True)
class Frame:
    """One player's view of a finished match after ``ply`` moves; ``text`` is the move of
    theirs that led to it (None for the view at the start)."""

    ply: int
    player: int
    text: str | None
    view: Any


def view_of(record: Record, seat: Seat | None) -> MatchView:
    """What the player of ``seat`` (None: a spectator) may see of the record."""
    rules, state = record.rules, record.state
    view = rules.view(state, None if seat is None else seat.index)
    commitment = ""
    may_commit: tuple[str, ...] = ()
    owing = seat is not None and not seat.has_left and seat.index in rules.to_move(state)
    if owing and seat is not None:
        commitment = commitment_of(record, seat)
        may_commit = offered_commitments(record, seat)
    return MatchView(
        record.match,
        record.seats,
        seat,
        view,
        0 if seat is None else record.made_by(seat),
        commitment=commitment,
        may_commit=may_commit,
        drafts=owing and isinstance(rules, DraftRules),
        owes=owing,
        position=(record.stamp or 0) if owing else 0,
        # The version kept with the state of a game held in step is not what its reader
        # sees once the next step is dealt (no change of the match): worked out afresh.
        known_version="" if isinstance(rules, InStep) else _known_version(record, seat),
    )


def _known_version(record: Record, seat: Seat | None) -> str:
    """The version of what the reader of ``seat`` sees, if the record knows it."""
    if not record.versions:
        return ""
    return record.versions.get(WATCH if seat is None else str(seat.index), "")


def shown(record: Record, seat: Seat | None) -> MatchView:
    """What the player of ``seat`` (None: anybody else) sees on the match's page: its view
    once it has begun, only its seats while it waits for players or was called off."""
    match = record.match
    if match.status in (Match.Status.WAITING, Match.Status.CANCELLED):
        known = _known_version(record, seat)
        return MatchView(match, record.seats, seat, None, 0, known_version=known)
    return view_of(record, seat)


def version(mv: MatchView) -> str:
    """A word that changes whenever anything the viewer may see of the match changes, and
    tells nothing more: made of the viewer's own view and what every page shows of the
    seats. A page polls with it, and the live stream announces it (``services.match.versions``):
    worked out once per change and kept with the match's state."""
    if mv.known_version:
        return mv.known_version
    seen = [(s.state, s.total_strikes) for s in mv.seats]
    game = mv.view.to_dict() if mv.view is not None else None
    parts = [mv.match.status, seen, game, mv.commitment]
    rematch = [s.index for s in mv.seats if s.prefs.get(REMATCH)]
    declined = [s.index for s in mv.seats if s.prefs.get(REMATCH_DECLINED)]
    if rematch or declined:  # the answers to a rematch (none: the version it had before)
        parts.append(rematch)
    if declined:
        parts.append(declined)
    text = json.dumps(parts, sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return f"{mv.match.status}-{digest[:16]}"


def draft(mv: MatchView, text: str) -> tuple[Any, IllegalMove | None]:
    """The player's view after the steps ``text`` of the move they owe, and the first
    refused step (``DraftRules.draft``); their plain view when the game has no drafts or
    they owe nothing, and while they may still commit (``may_commit``), with the reason."""
    if not mv.drafts or mv.seat is None:
        return mv.view, None
    if mv.may_commit:
        return mv.view, IllegalMove(gettext(MUST_COMMIT), code="commit first")
    rules = rules_of(mv.match)
    if not isinstance(rules, DraftRules):  # ``drafts`` said it is one
        return mv.view, None
    state = cached_state(mv.match.pk, mv.position or None)
    if state is None:  # not in this process (or no longer): read again
        state = load(mv.match, mv.seats).state
    return rules.draft(state, mv.seat.index, text)


def history(mv: MatchView, *, everyone: bool = False) -> tuple[Frame, ...]:
    """How the match went, once it is over (empty before): every player's view at the
    start, then after each move the view of the player who made it (``everyone``: then
    every other player's view too, with no text). Replayed from the seed and the moves."""
    if mv.match.status != Match.Status.FINISHED:
        return ()
    match = mv.match
    moves = moves_of(match)
    fresh = set_up(match, mv.seats)
    rules = fresh.rules
    frames = [Frame(0, p, None, rules.view(fresh.state, p)) for p in range(match.players)]
    by_pk = {seat.pk: seat for seat in mv.seats}
    for ply, move in enumerate(moves, start=1):
        seat = by_pk[move.seat_id]
        fresh.apply(seat, move.text)
        frames.append(Frame(ply, seat.index, move.text, rules.view(fresh.state, seat.index)))
        if everyone:
            frames.extend(
                Frame(ply, p, None, rules.view(fresh.state, p))
                for p in range(match.players)
                if p != seat.index
            )
    return tuple(frames)


def solo_line(mv: MatchView, line: list[str]) -> list[Any]:
    """The views of the one player of a game set up from the match's seed and options, at
    the start and after each move of ``line`` (a puzzle's par line), that player's own."""
    rules = rules_of(mv.match)
    state = rules.setup(1, mv.match.seed, rules.options(mv.match.options))
    views = [rules.view(state, 0)]
    for text in line:
        state = rules.apply(state, 0, rules.parse_move(text))
        views.append(rules.view(state, 0))
    return views


def timed_out(mv: MatchView) -> dict[int, frozenset[int]]:
    """The moves made for the players as their time ran out (``Move.timed_out``), by seat
    index: the numbers of those moves among the seat's own moves, the first being 1, which a
    game's log counts as it says each player's moves. For every reader alike: a log marks
    only the moves it shows. One query, and a second when there are such moves."""
    moves = Move.objects.filter(match_id=mv.match.pk)
    if not moves.filter(timed_out=True).exists():
        return {}
    index = {seat.pk: seat.index for seat in mv.seats}
    made: dict[int, int] = {}
    found: dict[int, set[int]] = {}
    for seat_id, fallback in moves.order_by("ply").values_list("seat_id", "timed_out"):
        number = made[seat_id] = made.get(seat_id, 0) + 1
        if fallback:
            found.setdefault(index[seat_id], set()).add(number)
    return {seat: frozenset(numbers) for seat, numbers in found.items()}
