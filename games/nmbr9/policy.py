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

__all__ = ["Weights", "choose", "evaluate"]


@dataclass(frozen=True, slots=True)
class Weights:
    """Coefficients of the evaluation (see ``evaluate``)."""

    points: float = 0.752
    area: tuple[float, ...] = (0.0, 0.495, 0.449, 1.285, 1.723, 2.327)
    contact: float = 0.764
    exposed: float = 0.562
    holes: float = 0.466
    thick: float = 0.139


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


def _remaining(board: Board, supply: Mapping[int, int] | None) -> int:
    if supply is not None:
        return max(0, sum(supply.values()))
    return max(0, 19 - len(board))


def evaluate(
    board: Board,
    placement: Placement,
    level: int,
    remaining: int,
    weights: Weights = DEFAULT,
) -> float:
    """How good placing ``placement`` (legal, on ``level``) looks; higher is better."""
    number = placement.number
    anchor = (placement.y + 64) * _STRIDE + placement.x + 64 - board._base
    mask = _MASKS[number][placement.rotation] << anchor
    squares = mask.bit_count()
    phase = remaining / 19
    score = weights.points * number * level
    area = weights.area
    top_level = min(level, len(area) - 1)
    below = min(level - 1, len(area) - 1)
    gained = area[top_level] - (area[below] if level else 0.0)
    score += phase * squares * gained
    occupied = board._occupied[level] if level < len(board._occupied) else 0
    score += weights.contact * _edges(mask, occupied)
    if level:
        rest = board._top_masks[level - 1] & ~mask
        score -= weights.exposed * phase * _edges(mask, rest)
    if weights.thick:
        tops = board._top_masks
        current = tops[level] if level < len(tops) else 0
        change = _thick(current | mask) - _thick(current)
        upper = area[top_level] * change
        if level:
            lower = tops[level - 1]
            upper += area[below] * (_thick(lower & ~mask) - _thick(lower))
        score += weights.thick * phase * upper
    before = _holes(occupied)
    after = _holes(occupied | mask)
    score -= weights.holes * (after - before)
    return score


def choose(
    board: Board,
    number: int,
    *,
    supply: Mapping[int, int] | None = None,
    rng: random.Random | None = None,
    weights: Weights = DEFAULT,
) -> Placement:
    """The policy's placement of tile ``number`` on ``board`` (deterministic without ``rng``).

    ``supply`` maps each number to how many of its tiles may still come after this one (as
    ``Game.supply`` gives it); without it the policy assumes a full 20-card game.

    >>> board = Board()
    >>> choose(board, 3)
    Placement(number=3, x=0, y=0, rotation=0)
    >>> board.is_legal(choose(Board("3@0,0r0 5@3,0r0"), 9))
    True
    """
    moves = board.legal_moves(number)
    remaining = _remaining(board, supply)
    best: list[Placement] = []
    best_score = float("-inf")
    for placement, level in moves:
        value = evaluate(board, placement, level, remaining, weights)
        if value > best_score + 1e-9:
            best_score = value
            best = [placement]
        elif value > best_score - 1e-9:
            best.append(placement)
    if rng is not None and len(best) > 1:
        return rng.choice(best)
    return best[0]
