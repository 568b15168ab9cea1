"""Puzzles: the deal and start tile from a seed, and par from a search knowing the order."""

from collections import Counter

import pytest

from games.nmbr9 import Board, GameError, Placement, deal
from games.nmbr9.policy import choose
from games.nmbr9.puzzle import ParResult, PuzzleDeal, par, puzzle
from games.nmbr9.tiles import DISTINCT_ROTATIONS


def greedy_score(deal_: PuzzleDeal) -> int:
    board = deal_.board()
    for index in range(1, 20):
        board.place(choose(board, deal_.order[index], supply=deal_.supply_after(index)))
    return board.score()


@pytest.mark.parametrize("seed", [0, 7, 12345, "daily-2026-11-22"])
def test_a_puzzle_is_the_deal_of_its_seed_with_the_first_tile_placed(seed):
    deal_ = puzzle(seed)
    assert deal_ == puzzle(seed)
    assert deal_.seed == seed
    assert deal_.order == deal(seed)[0]
    assert Counter(deal_.order) == {n: 2 for n in range(10)}
    assert deal_.start.number == deal_.order[0]
    assert deal_.start.rotation < DISTINCT_ROTATIONS[deal_.start.number]
    assert deal_.board().placements == (deal_.start,)


def test_the_start_tile_lies_in_the_centre():
    for seed in range(60):
        cells = puzzle(seed).start.cells()
        xs = [x for x, _ in cells]
        ys = [y for _, y in cells]
        assert -1 <= min(xs) + max(xs) <= 0 and -1 <= min(ys) + max(ys) <= 0, seed
        assert (0, 0) in cells or (0, -1) in cells or (-1, 0) in cells or (-1, -1) in cells


def test_start_rotations_vary_with_the_seed():
    turned = {puzzle(seed).start.rotation for seed in range(60)}
    assert turned >= {0, 1}
    assert len(turned) >= 3


def test_supply_after_counts_what_is_still_to_come():
    deal_ = puzzle(3)
    assert sum(deal_.supply_after(0).values()) == 19
    assert sum(deal_.supply_after(19).values()) == 0
    last = deal_.order[19]
    assert deal_.supply_after(18) == {n: int(n == last) for n in range(10)}


@pytest.mark.parametrize("seed", [True, 1.5, None, [1]])
def test_bad_seeds_are_refused(seed):
    with pytest.raises(GameError, match="seed"):
        puzzle(seed)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_par_is_a_legal_game_of_the_order_and_its_score(seed):
    deal_ = puzzle(seed)
    result = par(deal_, beam=6, branch=3)
    assert isinstance(result, ParResult)
    assert result.placements[0] == deal_.start
    assert tuple(p.number for p in result.placements) == deal_.order
    assert Board.from_placements(result.placements).score() == result.score
    assert result.score >= greedy_score(deal_)


def test_par_beats_the_policy_alone_on_average():
    seeds = range(20, 30)
    searched = sum(par(puzzle(seed), beam=8, branch=4).score for seed in seeds)
    alone = sum(greedy_score(puzzle(seed)) for seed in seeds)
    assert searched > alone


def test_par_is_deterministic_and_a_one_line_beam_is_the_policy():
    deal_ = puzzle(11)
    assert par(deal_, beam=1, branch=1).score == greedy_score(deal_)
    assert par(deal_, beam=4, branch=2) == par(deal_, beam=4, branch=2)


@pytest.mark.parametrize("beam, branch", [(0, 3), (3, 0), (-1, -1)])
def test_par_refuses_an_empty_search(beam, branch):
    with pytest.raises(ValueError, match="at least 1"):
        par(puzzle(1), beam=beam, branch=branch)


def test_a_placement_from_the_start_is_judged_against_the_start_tile():
    deal_ = puzzle(5)
    board = deal_.board()
    with pytest.raises(ValueError):
        board.place(Placement(deal_.order[1], deal_.start.x, deal_.start.y, deal_.start.rotation))
    assert board.placements == (deal_.start,)


def test_par_is_the_best_line_of_several_searches():
    from games.nmbr9.puzzle import best_par, par_searches

    searches = par_searches(0.03)
    assert len(searches) > 1 and len({tuple(s.values()) for s in searches}) == len(searches)
    for seed in (3, 5, 11):
        deal_ = puzzle(seed)
        each = [par(deal_, **search).score for search in searches]
        found = best_par(deal_, 0.03)
        assert found.score == max(each)
        board = Board.from_placements(found.placements)  # the line reaches its score
        assert board.score() == found.score and len(found.placements) == 20
