"""The fallback policy (and the medium bot): one sensible step at a time, and random steps.

``choose`` gives the next step of the player who owes a decision; called again and again it
finishes a turn: it takes a discard it can use (else passes it on, then draws), lays the
highest-scoring series it finds, adds cards to the table while that scores, and discards its
least useful card (``done`` in the simplified version). Offered a discard, it takes it only
when the card is clearly useful: a joker, or a card that makes a play worth at least
``OFFER_POINTS`` with its hand. A joker taken back by a swap is always played again.

The platform's deadline fallback (``RULES.auto_move``) answers an offer with ``pass``, as
an unanswered offer counts as pass; ``choose`` as a bot may take it.

``random_step`` draws a random legal step for playouts; it plays at most ``RANDOM_PLAYS``
plays per turn, so random games end.

>>> from games.nmbrs.game import apply, position
>>> state = position(hands=["12,14,16,30,77", "1,2,3"], table=["10,20,JR=30"], laid=[False, True])
>>> str(choose(state, 0))
'lay 12,14,16'
>>> str(choose(apply(state, 0, "lay 12,14,16"), 0))
'discard 77'
"""

from __future__ import annotations

import random

from games.contract import IllegalMove

from .cards import CARDS, JOKERS
from .game import Plan, State
from .moves import Move
from .plays import legal_plays

__all__ = [
    "OFFER_POINTS",
    "RANDOM_PLAYS",
    "best_play",
    "choose",
    "discard_choice",
    "random_step",
    "usefulness",
]

#: An offered card is taken when it makes a play worth this much.
OFFER_POINTS = 4
#: Random play makes at most this many plays in a turn.
RANDOM_PLAYS = 4

TAKE, PASS, DRAW, DONE = Move("take"), Move("pass"), Move("draw"), Move("done")


def _check_to_move(state: State, player: int) -> None:
    if state.over:
        raise IllegalMove("the game is over", code="game-over")
    if state.to_move != player:
        raise IllegalMove(
            "it is not your decision now", code="not-your-turn", to_move=state.to_move
        )


def _hypothetical(state: State, player: int, card: str) -> State:
    """``state`` as if ``player`` had ``card`` in hand and were making plays."""
    other = state.copy()
    other.hands[player].append(card)
    other.current = player
    other.phase = "play"
    other.offer_to = None
    other.owed = None
    return other


def usefulness(state: State, player: int, card: str) -> int:
    """The points of the best play that ``card`` would let ``player`` make now."""
    if card in JOKERS:
        return 10
    other = _hypothetical(state, player, card)
    best = [p.points for p in legal_plays(other, player) if card in p.out]
    return max(best, default=0)


def _end_size(state: State) -> int:
    """Cards a hand keeps at the end of a turn: one to discard, none in the simplified game."""
    return 0 if state.options.simplified else 1


def _rank(state: State, player: int, plan: Plan) -> tuple[float, ...]:
    out = plan.out
    jokers = sum(1 for card in out if card in JOKERS)
    real = len(out) - jokers
    left = len(state.hands[player]) - len(out) + (plan.back is not None)
    going_out = left == _end_size(state) and plan.owed is None
    value = plan.points + 0.5 * real - 1.5 * jokers
    return (going_out, value, real)


def best_play(state: State, player: int) -> Plan | None:
    """The play the policy makes next, or None when it would end the turn."""
    plans = legal_plays(state, player)
    if state.owed is not None:
        owed = [p for p in plans if state.owed in p.out]
        return max(owed, key=lambda p: _rank(state, player, p), default=None)
    best: Plan | None = None
    best_rank: tuple[float, ...] | None = None
    for plan in plans:
        if plan.move.kind == "swap":
            if not _swap_pays(state, player, plan):
                continue
            rank: tuple[float, ...] = (False, 0.5, 0)
        else:
            rank = _rank(state, player, plan)
            if not rank[0] and rank[1] <= 0:
                continue
        if best_rank is None or rank > best_rank:
            best, best_rank = plan, rank
    return best


def _swap_pays(state: State, player: int, plan: Plan) -> bool:
    """A swap is worth it when the joker then makes a scoring play it could not make before."""
    if plan.back is None:
        return False
    after = state.copy()
    hand = after.hands[player]
    for card in plan.out:
        hand.remove(card)
    hand.append(plan.back)
    for number, slots in plan.changes:
        if slots is not None:
            after.table[number] = slots
    after.owed = plan.back
    return any(
        p.points >= 3 and sum(1 for c in p.out if c not in JOKERS) >= 1
        for p in legal_plays(after, player)
        if plan.back in p.out
    )


def discard_choice(state: State, player: int) -> str:
    """The card ``player`` can best do without: no partners for a series in the hand, no
    place on the table, a high value (it would be lost at the end of the deal); a joker last."""
    hand = state.hands[player]
    reals = [int(c) for c in hand if c not in JOKERS]
    ends: set[int] = set()
    highest = state.options.highest
    for slots in state.table.values():
        step = slots[1][1] - slots[0][1]
        ends.update(n for n in (slots[0][1] - step, slots[-1][1] + step) if 1 <= n <= highest)

    def keep(card: str) -> tuple[float, ...]:
        if card in JOKERS:
            return (1, 0.0, 0)
        number = int(card)
        partners = sum(
            1.0 / abs(other - number) for other in reals if 0 < abs(other - number) <= 12
        )
        fits = number in ends
        return (0, 2.0 * partners + 3.0 * fits - CARDS[card].value, -number)

    return min(hand, key=keep)


def choose(state: State, player: int) -> Move:
    """The fallback policy's next step for ``player``, who owes a decision: always legal."""
    _check_to_move(state, player)
    if state.phase == "offer":
        top = state.top
        assert top is not None
        return TAKE if usefulness(state, player, top) >= OFFER_POINTS else PASS
    if state.phase == "draw":
        if state.passed:
            return DRAW
        top = state.top
        assert top is not None
        return TAKE if usefulness(state, player, top) > 0 else PASS
    play = best_play(state, player)
    if play is not None:
        return play.move
    if state.options.simplified:
        return DONE
    return Move("discard", card=discard_choice(state, player))


def random_step(state: State, player: int, rng: random.Random) -> Move:
    """A random legal step for ``player``, who owes a decision."""
    _check_to_move(state, player)
    if state.phase == "offer":
        return TAKE if rng.random() < 0.25 else PASS
    if state.phase == "draw":
        if state.passed:
            return DRAW
        return TAKE if rng.random() < 0.5 else PASS
    if state.owed is not None:
        owed = [p for p in legal_plays(state, player) if state.owed in p.out]
        return rng.choice(owed).move
    if state.plays < RANDOM_PLAYS and rng.random() < 0.75:
        plans = legal_plays(state, player)
        if plans:
            return rng.choice(plans).move
    if state.options.simplified:
        return DONE
    return Move("discard", card=rng.choice(sorted(state.hands[player])))
