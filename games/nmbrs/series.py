"""Series on the table: which runs of numbers are series, and what a play scores
(docs/rules.md §7.2).

A series is 3 or more cards whose numbers form an arithmetic progression with a step of 1 or
more, laid out ascending. With the advanced rules, counting it down by its step must reach 0
or 1: its smallest number modulo its step is 0 or 1.

>>> series_problem([10, 20, 30], advanced=True) is None
True
>>> print(series_problem([14, 20, 26], advanced=True))
14, 20, 26 does not count back to 0 or 1
>>> print(series_problem([12, 14], advanced=False))
a series needs at least 3 cards: 12, 14 has 2
>>> points(["12", "14", "16"], ["12", "14", "16"])  # values 1 + 1 + 1
3
>>> points(["11"], ["7", "9", "11"])  # 11 is worth 3; all three cards are red
6
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.contract import IllegalMove

from .cards import CARDS

__all__ = ["counts_down", "doubled", "listing", "points", "series_problem", "step_of"]


def listing(numbers: Iterable[int]) -> str:
    """Numbers as a player reads them: ``"14, 20, 26"``."""
    return ", ".join(str(n) for n in numbers)


def step_of(numbers: Sequence[int]) -> int | None:
    """The common step of ascending ``numbers`` (2 or more), or None if there is none.

    >>> step_of([3, 5, 7]), step_of([3, 5, 8]), step_of([4, 4, 4])
    (2, None, None)
    """
    if len(numbers) < 2:
        return None
    step = numbers[1] - numbers[0]
    if step < 1:
        return None
    for a, b in zip(numbers[1:], numbers[2:], strict=False):
        if b - a != step:
            return None
    return step


def counts_down(smallest: int, step: int) -> bool:
    """Whether counting down from ``smallest`` by ``step`` reaches 0 or 1 (advanced rules).

    >>> counts_down(11, 5), counts_down(14, 6), counts_down(1, 2)
    (True, False, True)
    """
    return smallest % step in (0, 1)


def series_problem(numbers: Sequence[int], *, advanced: bool) -> IllegalMove | None:
    """Why ascending ``numbers`` are not a series, or None if they are one."""
    numbers = list(numbers)
    shown = listing(numbers)
    if len(numbers) < 3:
        return IllegalMove(
            f"a series needs at least 3 cards: {shown} has {len(numbers)}",
            code="too-few-cards",
            numbers=numbers,
        )
    for a, b in zip(numbers, numbers[1:], strict=False):
        if a == b:
            return IllegalMove(
                f"{a} appears twice in {shown}", code="number-twice", number=a, numbers=numbers
            )
    step = step_of(numbers)
    if step is None:
        return IllegalMove(
            f"{shown} is not a series: the steps between the numbers differ",
            code="uneven-steps",
            numbers=numbers,
        )
    if advanced and not counts_down(numbers[0], step):
        return IllegalMove(
            f"{shown} does not count back to 0 or 1",
            code="does-not-count-down",
            numbers=numbers,
        )
    return None


def doubled(cards: Iterable[str], *, simplified: bool = False) -> bool:
    """Whether a series of these cards doubles a play's points: all of one colour, or all of
    different colours (only one colour counts in the simplified version).

    >>> doubled(["7", "9", "11"]), doubled(["1", "3", "5"]), doubled(["1", "2", "3"])
    (True, True, False)
    >>> doubled(["1", "3", "5"], simplified=True)
    False
    """
    colours = [CARDS[card].colour for card in cards]
    distinct = len(set(colours))
    return distinct == 1 or (not simplified and distinct == len(colours))


def points(new: Sequence[str], series: Iterable[str], *, simplified: bool = False) -> int:
    """What a play scores: the values of the ``new`` cards it put on the table (one point per
    card in the simplified version), doubled by the colours of the ``series`` it made."""
    base = len(new) if simplified else sum(CARDS[card].value for card in new)
    return base * 2 if doubled(series, simplified=simplified) else base
