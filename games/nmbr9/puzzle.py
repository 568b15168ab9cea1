"""Puzzles: fixed solitaire deals whose first tile already lies in the centre, and par.

A puzzle is a seed. Its order is the 20-card deal of that seed (each number twice); its
first tile is placed in the centre of the display, turned by a rotation drawn from the
seed. The player places the other 19 tiles, seeing the supply but not the order.

Par is the best score the engine finds knowing the whole order: a wide beam search over the
fallback policy's best-valued placements, lines valued by the sum of the policy's values along
them, never worse than the policy playing alone.

>>> deal_ = puzzle(7)
>>> deal_.order == deal(7)[0], deal_.start.number == deal_.order[0]
(True, True)
>>> result = par(deal_, beam=2, branch=2)
>>> Board.from_placements(result.placements).score() == result.score
True
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from .board import Board
from .game import deal
from .placement import Placement
from .policy import DEFAULT, Weights, best_moves, choose
from .setup import check_seed
from .tiles import DISTINCT_ROTATIONS

__all__ = [
    "PAR_BEAM",
    "PAR_BRANCH",
    "PAR_SEARCHES",
    "ParResult",
    "PuzzleDeal",
    "best_par",
    "par",
    "par_search",
    "par_searches",
    "puzzle",
]

#: The search par uses at full effort: lines kept, and placements tried per line and tile.
PAR_BEAM = 1000
PAR_BRANCH = 20


#: The beam searches par runs at full effort, each (beam, branch); par is the best line any of
#: them finds. Beams of different shapes keep different lines (a wider beam is not always
#: better: it fills with lines alike), so several of them find far more than one wide one of
#: the same cost: on seeds 0-11, 1000 x 20 alone averages 109.8 and 3000 x 30 alone 113.3,
#: the eight together 123.9.
PAR_SEARCHES = (
    (3000, 30),
    (2000, 12),
    (1000, 20),
    (1000, 6),
    (600, 40),
    (500, 8),
    (300, 15),
    (150, 25),
)


def par_search(effort: float = 1.0, beam: int = PAR_BEAM, branch: int = PAR_BRANCH) -> dict:
    """One search's beam and branch for a share ``effort`` (0 < effort <= 1) of it.

    >>> par_search(), par_search(0.05)
    ({'beam': 1000, 'branch': 20}, {'beam': 50, 'branch': 4})
    """
    if not 0 < effort <= 1:
        raise ValueError(f"effort must be more than 0 and at most 1, not {effort!r}")
    return {
        "beam": max(2, round(beam * effort)),
        "branch": max(2, round(branch * effort**0.5)),
    }


def par_searches(effort: float = 1.0) -> list[dict[str, int]]:
    """The searches of ``PAR_SEARCHES`` for a share ``effort`` of each, each searched once.

    >>> par_searches(0.01)[:2]
    [{'beam': 30, 'branch': 3}, {'beam': 20, 'branch': 2}]
    """
    found = []
    for beam, branch in PAR_SEARCHES:
        search = par_search(effort, beam, branch)
        if search not in found:
            found.append(search)
    return found


def best_par(puzzle: PuzzleDeal, effort: float = 1.0, *, weights: Weights = DEFAULT) -> ParResult:
    """Par: the best line of the searches of ``par_searches(effort)`` (the first of equals)."""
    results = [par(puzzle, **search, weights=weights) for search in par_searches(effort)]
    return max(results, key=lambda result: result.score)


@dataclass(frozen=True, slots=True)
class PuzzleDeal:
    """A puzzle's seed, its order of 20 numbers and its pre-placed first tile."""

    seed: int | str
    order: tuple[int, ...]
    start: Placement

    def board(self) -> Board:
        """The display before the player's first placement: the start tile alone."""
        return Board.from_placements([self.start])

    def supply_after(self, index: int) -> dict[int, int]:
        """How many tiles of each number come after the tile at ``index`` of the order."""
        counts = Counter(self.order[index + 1 :])
        return {number: counts[number] for number in range(10)}


@dataclass(frozen=True, slots=True)
class ParResult:
    """The best score found and the 20 placements (the start tile first) that make it."""

    score: int
    placements: tuple[Placement, ...]


def puzzle(seed: int | str) -> PuzzleDeal:
    """The puzzle of ``seed``: the deal of that seed with its first tile in the centre.

    >>> puzzle(7).start == puzzle(7).start
    True
    """
    seed = check_seed(seed)
    order, _ = deal(seed)
    number = order[0]
    rotation = random.Random(f"puzzle-start:{seed}").randrange(DISTINCT_ROTATIONS[number])
    width, height = Placement(number, 0, 0, rotation).size
    start = Placement(number, -(width // 2), -(height // 2), rotation)
    return PuzzleDeal(seed=seed, order=order, start=start)


@dataclass(slots=True)
class _Line:
    board: Board
    placements: tuple[Placement, ...]
    value: float


def _greedy(puzzle: PuzzleDeal, weights: Weights) -> _Line:
    board = puzzle.board()
    placements = [puzzle.start]
    for index in range(1, len(puzzle.order)):
        placement = choose(
            board, puzzle.order[index], supply=puzzle.supply_after(index), weights=weights
        )
        board.place(placement)
        placements.append(placement)
    return _Line(board, tuple(placements), 0.0)


def par(
    puzzle: PuzzleDeal,
    *,
    beam: int = PAR_BEAM,
    branch: int = PAR_BRANCH,
    weights: Weights = DEFAULT,
) -> ParResult:
    """The best score found for ``puzzle`` by a search that knows the whole order.

    Each step keeps the ``beam`` lines of placements with the highest sum of policy values,
    extending each with its ``branch`` best-valued placements of the next tile. The policy's
    own game is a candidate too, so par is never below it.
    """
    if beam < 1 or branch < 1:
        raise ValueError("beam and branch must be at least 1")
    lines = [_Line(puzzle.board(), (puzzle.start,), 0.0)]
    for index in range(1, len(puzzle.order)):
        number = puzzle.order[index]
        supply = puzzle.supply_after(index)
        children: dict[frozenset[Placement], tuple[float, _Line, Placement]] = {}
        for line in lines:
            for placement, _, value in best_moves(
                line.board, number, branch, supply=supply, weights=weights
            ):
                key = frozenset((*line.placements, placement))
                total = line.value + value
                if key not in children or children[key][0] < total:
                    children[key] = (total, line, placement)
        best = sorted(children.values(), key=lambda child: -child[0])[:beam]
        lines = []
        for total, line, placement in best:
            board = line.board.copy()
            board.place(placement)
            lines.append(_Line(board, (*line.placements, placement), total))
    lines.append(_greedy(puzzle, weights))
    top = max(lines, key=lambda line: line.board.score())
    return ParResult(score=top.board.score(), placements=top.placements)
