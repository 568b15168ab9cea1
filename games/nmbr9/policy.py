"""The fallback placement policy: a quick heuristic player.

It places a tile for a player whose time ran out and plays as a bot. Every legal placement is
scored by the points it makes now plus terms that keep each level compact and keep room for
high numbers higher up; the best one is chosen (ties broken by the move order, or by ``rng``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from .board import _MASKS, _STRIDE, Board
from .placement import Placement

__all__ = ["Weights", "choose", "evaluate", "scored_moves"]


@dataclass(frozen=True, slots=True)
class Weights:
    """Coefficients of the evaluation of one placement of tile n on level L.

    ``phase`` is the share of the game still to come (tiles that may follow / 19).

    - ``points``: n x L, the points made now;
    - ``area[L]``: per covered square, the worth of raising it from level L-1 to L
      (``area[L] - area[L-1]``, times phase): room for later tiles higher up;
    - ``contact``: edges shared with tiles on the same level (a compact level);
    - ``exposed``: edges left against the uncovered rest of the level below (times phase):
      do not cut up the room there;
    - ``holes``: new free squares walled in on three sides on the tile's level;
    - ``thick`` and ``fit``: change in the room to build on the two levels touched (squares
      inside 2x2 blocks; places for a 2x3 block), weighted by ``area``, times phase;
    - ``waste``: n x (highest level this tile could reach - L);
    - ``climb``: L times phase, a small push up or down for any tile.
    """

    points: float = 0.546
    area: tuple[float, ...] = (0.0, 0.427, 0.451, 1.208, 1.008, 6.36)
    contact: float = 0.605
    exposed: float = 0.858
    holes: float = 0.272
    thick: float = 0.845
    fit: float = 0.057
    waste: float = 0.105
    climb: float = 0.03


DEFAULT = Weights()


def _edges(mask: int, other: int) -> int:
    """How many square edges ``mask`` shares with ``other``."""
    return (
        ((mask << 1) & other).bit_count()
        + ((mask >> 1) & other).bit_count()
        + ((mask << _STRIDE) & other).bit_count()
        + ((mask >> _STRIDE) & other).bit_count()
    )


def _holes(occupied: int) -> int:
    """Free squares with at least three occupied neighbours."""
    left, right = occupied << 1, occupied >> 1
    up, down = occupied << _STRIDE, occupied >> _STRIDE
    three = (left & right & (up | down)) | (up & down & (left | right))
    return (three & ~occupied).bit_count()


def _thick(top: int) -> int:
    """Squares of ``top`` inside a 2x2 block of ``top`` (room to build on)."""
    blocks = top & top >> 1
    blocks &= blocks >> _STRIDE
    blocks |= blocks << 1
    return (blocks | blocks << _STRIDE).bit_count()


def _fit(top: int) -> int:
    """Places for a 2x3 or 3x2 block on ``top``."""
    two = top & top >> 1
    three = two & top >> 2
    tall = two & two >> _STRIDE & two >> 2 * _STRIDE
    wide = three & three >> _STRIDE
    return tall.bit_count() + wide.bit_count()


def _remaining(board: Board, supply: Mapping[int, int] | None) -> int:
    if supply is not None:
        return max(0, sum(supply.values()))
    return max(0, 19 - len(board))


class _Context:
    """What the evaluation needs from the board, computed once per choice."""

    __slots__ = ("area", "base", "fit", "holes", "occupied", "phase", "thick", "tops", "weights")

    def __init__(self, board: Board, remaining: int, weights: Weights) -> None:
        height = board.height()
        self.weights = weights
        self.base = board._base
        self.phase = remaining / 19
        self.tops = [*board._top_masks, 0]
        self.occupied = [*board._occupied, 0]
        self.holes = [_holes(m) for m in self.occupied]
        self.thick = [_thick(m) for m in self.tops] if weights.thick else []
        self.fit = [_fit(m) for m in self.tops] if weights.fit else []
        area = weights.area
        self.area = [area[min(level, len(area) - 1)] for level in range(height + 1)]


def _score(context: _Context, placement: Placement, level: int, best_level: int) -> float:
    weights = context.weights
    number = placement.number
    anchor = (placement.y + 64) * _STRIDE + placement.x + 64 - context.base
    mask = _MASKS[number][placement.rotation] << anchor
    phase = context.phase
    area = context.area
    occupied = context.occupied[level]
    score = weights.points * number * level + weights.climb * phase * level
    score -= weights.waste * number * (best_level - level)
    gained = area[level] - (area[level - 1] if level else 0.0)
    score += phase * mask.bit_count() * gained
    score += weights.contact * _edges(mask, occupied)
    score -= weights.holes * (_holes(occupied | mask) - context.holes[level])
    tops = context.tops
    top = tops[level]
    if level:
        lower = tops[level - 1]
        rest = lower & ~mask
        score -= weights.exposed * phase * _edges(mask, rest)
    if weights.thick:
        upper = area[level] * (_thick(top | mask) - context.thick[level])
        if level:
            upper += area[level - 1] * (_thick(rest) - context.thick[level - 1])
        score += weights.thick * phase * upper
    if weights.fit:
        upper = area[level] * (_fit(top | mask) - context.fit[level])
        if level:
            upper += area[level - 1] * (_fit(rest) - context.fit[level - 1])
        score += weights.fit * phase * upper
    return score


def evaluate(
    board: Board,
    placement: Placement,
    level: int,
    remaining: int,
    weights: Weights = DEFAULT,
) -> float:
    """How good placing ``placement`` (legal, on ``level``) looks; higher is better.

    ``remaining``: how many tiles may still come after this one.
    """
    context = _Context(board, remaining, weights)
    return _score(context, placement, level, level)


def _assumed_supply(board: Board, number: int) -> dict[int, int]:
    """Two of each number minus the tiles on the board and the one being placed."""
    supply = dict.fromkeys(range(10), 2)
    for placement in (*board.placements, Placement._unchecked(number, 0, 0, 0)):
        supply[placement.number] = max(0, supply[placement.number] - 1)
    return supply


def _best_next(board: Board, supply: Mapping[int, int], weights: Weights) -> float:
    """The expected evaluation of the best placement of the next tile."""
    total = sum(supply.values())
    context = _Context(board, total - 1, weights)
    expected = 0.0
    for number, count in supply.items():
        if count:
            moves = board.legal_moves(number)
            best_level = moves[-1][1]
            best = max(_score(context, p, level, best_level) for p, level in moves)
            expected += count / total * best
    return expected


def scored_moves(
    board: Board,
    number: int,
    *,
    supply: Mapping[int, int] | None = None,
    weights: Weights = DEFAULT,
) -> list[tuple[Placement, int, float]]:
    """Every legal placement of tile ``number`` with its level and the policy's value of it.

    ``supply`` as for ``choose``. In the order of ``Board.legal_moves``.

    >>> [(str(p), level, round(value, 2)) for p, level, value in scored_moves(Board(), 0)]
    [('0@0,0r0', 0, -0.54), ('0@0,0r1', 0, -0.54)]
    """
    moves = board.legal_moves(number)
    context = _Context(board, _remaining(board, supply), weights)
    best_level = moves[-1][1]
    return [(p, level, _score(context, p, level, best_level)) for p, level in moves]


def choose(
    board: Board,
    number: int,
    *,
    supply: Mapping[int, int] | None = None,
    rng: random.Random | None = None,
    weights: Weights = DEFAULT,
    lookahead: int = 0,
) -> Placement:
    """The policy's placement of tile ``number`` on ``board`` (deterministic without ``rng``).

    ``supply`` maps each number to how many of its tiles may still come after this one (as
    ``Game.supply`` gives it); without it the policy assumes a full 20-card game.
    ``lookahead`` > 0 looks one tile further for that many of the best-looking placements
    (stronger, and some tens of milliseconds per move instead of about one).

    >>> board = Board()
    >>> choose(board, 3)
    Placement(number=3, x=0, y=0, rotation=0)
    >>> board.is_legal(choose(Board("3@0,0r0 5@3,0r0"), 9))
    True
    """
    scored = scored_moves(board, number, supply=supply, weights=weights)
    moves = [(placement, level) for placement, level, _ in scored]
    values = [value for _, _, value in scored]
    remaining = _remaining(board, supply)
    if lookahead > 0 and remaining > 0 and len(moves) > 1:
        future = dict(supply) if supply is not None else _assumed_supply(board, number)
        order = sorted(range(len(moves)), key=lambda i: -values[i])[:lookahead]
        looked = {}
        for i in order:
            placement, level = moves[i]
            after = board.copy()
            after.place(placement)
            looked[i] = weights.points * number * level + _best_next(after, future, weights)
        values = [looked.get(i, float("-inf")) for i in range(len(moves))]
    top = max(values)
    best = [moves[i][0] for i, value in enumerate(values) if value > top - 1e-9]
    if rng is not None and len(best) > 1:
        return rng.choice(best)
    return best[0]
