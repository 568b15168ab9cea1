"""The compiled kernel (games/nmbr9/_kernel.c) against the pure-Python engine, its reference.

Every perft position: the same legal placements in the same order, and the same values to
the last bit. Whole games of every bot strength, of par and of the NMBR 9 ++ policy: the same
moves and scores. A kernel that cannot answer (None) leaves the answer to Python.
"""

import json
import os
import random
from collections import Counter
from pathlib import Path

import pytest

from bench.plusplus import OPTION_SETS
from games.nmbr9 import Board, Game, Placement, kernel
from games.nmbr9.bots import BUDGETS, Budget, _monte_carlo, bot_game, bot_turn
from games.nmbr9.policy import Weights, best_moves, choose, choose_turn, scored_moves
from games.nmbr9.puzzle import par, puzzle

POSITIONS = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())["positions"]
BOARDS = [
    (Board.from_placements(Placement(*p) for p in position["placements"]), position["next"])
    for position in POSITIONS
]
RULES = [
    {},
    {"relax": {"one"}},
    {"relax": {"loose"}},
    {"relax": {"one", "loose"}},
    {"relax": {"bridge"}},
    {"relax": {"one", "bridge", "loose"}},
    {"mirrored": True},
    {"max_level": 0},
    {"max_level": 1},
    {"relax": {"one"}, "max_level": 2},
]


def both(function, *args, **kwargs):
    """``function``'s answer with the kernel, and without."""
    with_kernel = function(*args, **kwargs)
    with kernel.pure_python():
        assert kernel.KERNEL is None
        pure = function(*args, **kwargs)
    return with_kernel, pure


def test_the_kernel_is_built():
    """The build step compiled the kernel, and it is in use unless NMBR9_PURE_PYTHON says no."""
    assert kernel.built() is not None
    if os.environ.get("NMBR9_PURE_PYTHON", "") in ("", "0"):
        assert kernel.KERNEL is not None


@pytest.fixture(autouse=True)
def _needs_kernel(request):
    """The comparisons need the kernel in use (test_the_kernel_is_built fails without it)."""
    if kernel.KERNEL is None and request.node.name != "test_the_kernel_is_built":
        pytest.skip("the kernel is off (NMBR9_PURE_PYTHON) or not built")


def test_legal_moves_on_every_perft_position():
    """Every number on every position: the same placements, levels and order."""
    for board, _ in BOARDS:
        for number in range(10):
            with_kernel, pure = both(board._generate, number, frozenset(), False, None)
            assert with_kernel == pure, (board.notation(), number)


def test_legal_spots_are_the_legal_placements_spots():
    """``legal_spots``, with the kernel or without: the spots of ``legal_placements``, in its
    order, for every rule set and piece (the empty board too)."""
    for board, number in [*BOARDS, (Board(), 8)]:
        for piece, rules in [*((number, r) for r in RULES), ("F1", {}), ("S4", {})]:
            spots = [(p.x, p.y, p.rotation) for p in board.legal_placements(piece, **rules)]
            assert both(board.legal_spots, piece, **rules) == (spots, spots), (board, rules)


def test_rules_and_pieces_on_every_perft_position():
    """The relaxations, mirrored tiles, level caps, gap fillers and start tiles too."""
    for board, number in BOARDS:
        for rules in RULES:
            with_kernel, pure = both(board.legal_moves, number, **rules)
            assert with_kernel == pure, (board.notation(), number, rules)
        for piece in ("F1", "F2", "S4"):
            with_kernel, pure = both(board.legal_moves, piece)
            assert with_kernel == pure, (board.notation(), piece)


def test_values_on_every_perft_position():
    """``scored_moves``: the same floats (compared exactly) for every number on every
    position, at several phases of the game."""
    for board, _ in BOARDS:
        for number in range(10):
            for remaining in (0, 9, 19):
                with_kernel, pure = both(scored_moves, board, number, remaining=remaining)
                assert with_kernel == pure, (board.notation(), number, remaining)


def test_values_with_rules_and_other_weights():
    odd = Weights(points=1, area=(0.0, 0.5), thick=0.0, fit=2.5, holes=-0.3)
    for board, number in BOARDS[::3]:
        for weights in (odd, Weights(thick=0.3, fit=0.0)):
            for rules in RULES:
                with_kernel, pure = both(
                    scored_moves, board, number, weights=weights, remaining=7, **rules
                )
                assert with_kernel == pure, (board.notation(), number, rules)


def test_best_moves_and_choices_on_every_perft_position():
    for index, (board, number) in enumerate(BOARDS):
        supply = Counter(n for n in range(10) for _ in range(2 - (n + index) % 3))
        with_kernel, pure = both(best_moves, board, number, 7, supply=supply)
        assert with_kernel == pure
        assert pure == sorted(scored_moves(board, number, supply=supply), key=lambda m: -m[2])[:7]
        for lookahead in (0, 4) if index % 2 else (0,):
            with_kernel, pure = both(choose, board, number, supply=supply, lookahead=lookahead)
            assert with_kernel == pure, (board.notation(), number, lookahead)
        with_kernel, pure = both(choose, board, number, lookahead=2)
        assert with_kernel == pure
        rng_kernel, rng_pure = random.Random(index), random.Random(index)
        assert choose(board, number, rng=rng_kernel) == choose(board, number, rng=rng_pure)


@pytest.mark.parametrize("strength", ["easy", "medium"])
def test_bot_games_are_the_same(strength):
    for seed in range(4):
        with_kernel, pure = both(bot_game, strength, seed)
        assert with_kernel[:2] == pure[:2], (strength, seed)


def test_strong_bot_searches_the_same():
    """Monte Carlo over seeded playouts (with no time guard, which a slow run could hit)."""
    budget = Budget(candidates=4, playouts=24, cap=float("inf"))
    board = BOARDS[107][0]
    supply = Counter({2: 1, 3: 1, 4: 1, 6: 1, 8: 1, 0: 1, 1: 1})
    for number in (0, 6, 8):
        with_kernel, pure = both(
            _monte_carlo, board, number, supply, random.Random(number), budget, Weights()
        )
        assert with_kernel == pure


def test_strong_bot_game_is_the_same(monkeypatch):
    monkeypatch.setitem(BUDGETS, "strong", Budget(candidates=4, playouts=16, cap=float("inf")))
    with_kernel, pure = both(bot_game, "strong", 3)
    assert with_kernel[:2] == pure[:2]


def test_par_is_the_same():
    for seed in range(3):
        with_kernel, pure = both(par, puzzle(seed), beam=30, branch=5)
        assert with_kernel == pure


@pytest.mark.parametrize("label,options", OPTION_SETS, ids=[label for label, _ in OPTION_SETS])
def test_plusplus_turns_are_the_same(label, options):
    """``choose_turn`` (cards, rejects, fillers, special tiles, the reserved tile) and the
    bots' turns in NMBR 9 ++ games."""

    def play(seed: int) -> tuple[list[str], int]:
        game = Game(seed=seed, options=options)
        rng = random.Random(seed)
        turns = []
        while not game.is_over():
            # the policy's own turns and a bot's, in turn
            turn = choose_turn(game, 0) if len(turns) % 2 else bot_turn("medium", game, 0, rng)
            turns.append(str(turn))
            game.play(0, turn)
        return turns, game.score(0)

    for seed in range(2):
        with_kernel, pure = both(play, seed)
        assert with_kernel == pure, (label, seed)


class _Unanswering:
    """A kernel that never answers: the engine must fall back to Python throughout."""

    def __getattr__(self, name):
        return lambda *args: None


def test_a_kernel_that_cannot_answer_leaves_it_to_python(monkeypatch):
    expected = both(bot_game, "medium", 4)[1]
    board, number = BOARDS[45]
    moves = board.legal_moves(number)
    monkeypatch.setattr(kernel, "KERNEL", _Unanswering())
    assert bot_game("medium", 4)[:2] == expected[:2]
    assert board.legal_moves(number) == moves


def test_the_kernel_refuses_what_it_cannot_do():
    """Displays beyond its limits give None; bad arguments raise."""
    compiled = kernel.KERNEL
    tower = Board()
    tiles = [(Placement(0, 0, 0, 0), level) for level in range(20)]
    assert compiled.generate(tiles, [0] * 20, 3, -1, False, False) is None
    assert compiled.generate(tower._tiles, tower._shapes, 3, -1, False, False) == (
        [(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 0, 3)],
        [0, 4],
    )
    with pytest.raises(ValueError):
        compiled.generate([], [], 99, -1, False, False)
    with pytest.raises(AttributeError):
        compiled.generate([("5@0,0r0", 0)], [5], 3, -1, False, False)
