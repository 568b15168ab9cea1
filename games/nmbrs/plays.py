"""Finding plays: the lays, extensions, inserts, crosses, joins and swaps a hand allows.

The generator is for the fallback policy and for random play, not a judge: it proposes
plays of the usual shapes (jokers filling gaps and ends, at most one joker from the hand in
a cross) and every proposal is checked by ``game.plan``, so each play it returns is legal.

>>> from games.nmbrs.game import position
>>> state = position(hands=["12,14,16,40,55,JR", "1,2,3"], table=["10,20,30"])
>>> found = {str(p.move): p.points for p in legal_plays(state, 0)}
>>> found["lay 12,14,16"], found["lay JR=10,12,14,16"], found["extend 1: 40"]
(3, 3, 1)
>>> found["cross 1@10: 12,14"], found["cross 1@30: 55,JR=80"]
(4, 2)
>>> "insert 1: 15,JR=25" in found  # the hand has no 15
False
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from games.contract import IllegalMove

from .cards import JOKERS
from .game import Plan, Slot, State, plan
from .moves import Move, Placed

__all__ = ["candidates", "legal_plays", "plays_with"]


def _placed(slots: Sequence[Slot]) -> tuple[Placed, ...]:
    return tuple(Placed(number, card) for card, number in slots)


class _Hand:
    """A hand split into its number cards (by number) and its jokers."""

    __slots__ = ("jokers", "reals")

    def __init__(self, cards: Sequence[str]) -> None:
        self.reals: dict[int, str] = {int(c): c for c in cards if c not in JOKERS}
        self.jokers: list[str] = [c for c in cards if c in JOKERS]

    def walk(self, start: int, step: int, highest: int, jokers: int) -> Iterator[list[Slot]]:
        """Runs from ``start`` onwards by ``step`` (down when negative), filled with number
        cards and up to ``jokers`` jokers; each prefix that ends on a number card, and each
        prefix of one joker."""
        run: list[Slot] = []
        used = 0
        number = start
        while 1 <= number <= highest:
            if number in self.reals:
                run.append((self.reals[number], number))
            elif used < min(jokers, len(self.jokers)):
                run.append((self.jokers[used], number))
                used += 1
            else:
                return
            if run[-1][0] not in JOKERS or len(run) == 1:
                yield list(run)
            number += step


def _lays(state: State, hand: _Hand) -> Iterator[Move]:
    highest = state.options.highest
    advanced = state.options.advanced
    numbers = sorted(hand.reals)
    jokers = hand.jokers
    for step in range(1, highest):
        for first in numbers:
            if advanced and first % step not in (0, 1):
                continue
            if first + step > highest or (first + 2 * step > highest and first - step < 1):
                continue
            starts: list[list[Slot]] = [[(hand.reals[first], first)]]
            below = first - step
            if jokers and below >= 1 and below not in hand.reals:
                starts.append([(jokers[-1], below), (hand.reals[first], first)])
            for start in starts:
                spare = len(jokers) - sum(1 for c, _ in start if c in JOKERS)
                run = list(start)
                used = 0
                number = first + step
                while number <= highest:
                    if number in hand.reals:
                        run.append((hand.reals[number], number))
                    elif used < spare:
                        run.append((jokers[used], number))
                        used += 1
                    else:
                        break
                    if len(run) >= 3 and (run[-1][0] not in JOKERS or len(run) == 3):
                        yield Move("lay", cards=_placed(run))
                    number += step


def _extends(state: State, hand: _Hand) -> Iterator[Move]:
    highest = state.options.highest
    for series, slots in state.table.items():
        step = slots[1][1] - slots[0][1]
        for start, direction in ((slots[-1][1] + step, step), (slots[0][1] - step, -step)):
            for run in hand.walk(start, direction, highest, len(hand.jokers)):
                yield Move("extend", cards=_placed(run), series=series)
            if 1 <= start <= highest:
                for joker in hand.jokers:
                    yield Move("extend", cards=(Placed(start, joker),), series=series)


def _inserts(state: State, hand: _Hand) -> Iterator[Move]:
    for series, slots in state.table.items():
        low, high = slots[0][1], slots[-1][1]
        step = slots[1][1] - slots[0][1]
        present = {number for _, number in slots}
        for smaller in range(1, step):
            if step % smaller:
                continue
            needed = [n for n in range(low, high + 1, smaller) if n not in present]
            run: list[Slot] = []
            jokers = iter(hand.jokers)
            for number in needed:
                if number in hand.reals:
                    run.append((hand.reals[number], number))
                else:
                    joker = next(jokers, None)
                    if joker is None:
                        break
                    run.append((joker, number))
            else:
                yield Move("insert", cards=_placed(run), series=series)


def _crosses(state: State, hand: _Hand) -> Iterator[Move]:
    highest = state.options.highest
    seen: set[str] = set()
    for series, slots in state.table.items():
        for card, at in slots:
            if card in seen:
                continue
            seen.add(card)
            # a cross has a card of the hand next to the table card
            for step in sorted({abs(number - at) for number in hand.reals} - {0}):
                ups = _reals(hand, at + step, step, highest)
                downs = _reals(hand, at - step, -step, highest)
                if not ups and not downs:
                    continue
                for i in range(len(downs) + 1):
                    for j in range(len(ups) + 1):
                        if i + j >= 2:
                            yield Move(
                                "cross", cards=_placed(downs[:i] + ups[:j]), series=series, at=at
                            )
                if len(ups) + len(downs) == 1 and hand.jokers:
                    for end in (at + step * (len(ups) + 1), at - step * (len(downs) + 1)):
                        if 1 <= end <= highest:
                            run = [*ups, *downs, (hand.jokers[0], end)]
                            yield Move("cross", cards=_placed(run), series=series, at=at)


def _reals(hand: _Hand, start: int, step: int, highest: int) -> list[Slot]:
    run = []
    number = start
    while 1 <= number <= highest and number in hand.reals:
        run.append((hand.reals[number], number))
        number += step
    return run


def _joins(state: State, hand: _Hand) -> Iterator[Move]:
    items = list(state.table.items())
    for index, (first, a) in enumerate(items):
        step = a[1][1] - a[0][1]
        for second, b in items[index + 1 :]:
            if b[1][1] - b[0][1] != step:
                continue
            lower, upper = (a, b) if a[0][1] < b[0][1] else (b, a)
            gap = range(lower[-1][1] + step, upper[0][1], step)
            if lower[-1][1] >= upper[0][1] or not gap or len(gap) > len(hand.reals) + 4:
                continue
            run: list[Slot] = []
            jokers = iter(hand.jokers)
            for number in gap:
                if number in hand.reals:
                    run.append((hand.reals[number], number))
                else:
                    joker = next(jokers, None)
                    if joker is None:
                        break
                    run.append((joker, number))
            else:
                yield Move("join", cards=_placed(run), series=first, other=second)


def _swaps(state: State, hand: _Hand) -> Iterator[Move]:
    for series, slots in state.table.items():
        for card, number in slots:
            if card in JOKERS and number in hand.reals:
                yield Move("swap", series=series, card=hand.reals[number])


def candidates(state: State, player: int) -> Iterator[Move]:
    """Plays of the usual shapes for ``player``'s hand, not yet checked."""
    hand = _Hand(state.hands[player])
    yield from _lays(state, hand)
    if state.laid[player]:
        yield from _extends(state, hand)
        yield from _inserts(state, hand)
        yield from _joins(state, hand)
        yield from _swaps(state, hand)
        yield from _crosses(state, hand)


def legal_plays(state: State, player: int) -> list[Plan]:
    """Every play ``candidates`` proposes that the rules allow now, as plans (each once)."""
    if state.phase != "play" or state.to_move != player:
        return []
    plans: dict[Move, Plan] = {}
    for move in candidates(state, player):
        if move in plans:
            continue
        try:
            plans[move] = plan(state, player, move)
        except IllegalMove:
            continue
    return list(plans.values())


def plays_with(state: State, player: int, card: str) -> list[Plan]:
    """The legal plays that put ``card`` on the table."""
    return [p for p in legal_plays(state, player) if card in p.out]
