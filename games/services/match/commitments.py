"""Commitments (``CommitRules``): a kind of move a player chooses before trying the move.

What the player of a seat committed to for the decision they owe (``Seat.commitment`` for
``Seat.committed_turn``), what they may commit to now, which moves a commitment refuses, and
the move made for them when their time runs out.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from games.contract import CommitRules, IllegalMove
from games.models import Seat
from games.services.match.record import Record

#: Why nothing is drafted or played for a player who may still commit to a kind of move.
MUST_COMMIT = gettext_noop("Choose first what you will do with this decision.")


def commitment_of(record: Record, seat: Seat) -> str:
    """What the player of ``seat`` committed to for the decision they owe now ("": nothing;
    a commitment made for an earlier decision is over)."""
    if not seat.commitment or seat.committed_turn != record.rules.turn(record.state, seat.index):
        return ""
    return seat.commitment


def offered_commitments(record: Record, seat: Seat) -> tuple[str, ...]:
    """What the player of ``seat`` may commit to now (``CommitRules``): nothing when they owe
    no decision or have committed for this one already."""
    rules, state = record.rules, record.state
    if not isinstance(rules, CommitRules) or seat.has_left or commitment_of(record, seat):
        return ()
    if seat.index not in rules.to_move(state):
        return ()
    return tuple(rules.commitments(state, seat.index))


def check_commitments(record: Record, seat: Seat, move, *, offered: bool = True) -> None:
    """IllegalMove if ``move`` breaks the commitment the player of ``seat`` made for this
    decision, or (``offered``) keeps one they are offered but have not made: they commit
    first, so that nothing the commitment decides is tried before (not even by the reasons
    a refused move would give)."""
    rules, state = record.rules, record.state
    if not isinstance(rules, CommitRules):  # nothing to commit to, nothing committed
        return
    kept = commitment_of(record, seat)
    if kept:
        rules.check_commitment(state, seat.index, kept, move)
        return
    for commitment in offered_commitments(record, seat) if offered else ():
        try:
            rules.check_commitment(state, seat.index, commitment, move)
        except IllegalMove:
            continue
        raise IllegalMove(gettext(MUST_COMMIT), code="commit first")


def auto_move(record: Record, seat: Seat):
    """The game's fallback move for the seat (its time ran out), keeping the commitment the
    player made for this decision."""
    rules, state = record.rules, record.state
    kept = commitment_of(record, seat)
    if kept and isinstance(rules, CommitRules):
        return rules.committed_auto_move(state, seat.index, kept)
    return rules.auto_move(state, seat.index)
