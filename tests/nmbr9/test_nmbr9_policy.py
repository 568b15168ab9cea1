import random
import statistics
import time

from scripted import auto_place

from games.nmbr9 import Board, Game, deal
from games.nmbr9.policy import choose


def solo_score(seed: int) -> int:
    game = Game(seed=seed)
    while not game.is_over():
        auto_place(game, 0)
    return game.score(0)


def test_policy_averages_at_least_50_over_200_seeded_solo_games():
    start = time.perf_counter()
    scores = [solo_score(seed) for seed in range(200)]
    elapsed = time.perf_counter() - start
    average = statistics.mean(scores)
    assert average >= 50, average
    assert elapsed / (200 * 20) < 0.05, "well under a second per move"


def test_policy_is_deterministic_and_legal():
    cards, _ = deal(99)
    board = Board()
    for number in cards:
        placement = choose(board, number)
        assert choose(board.copy(), number) == placement
        assert board.is_legal(placement) and placement.number == number
        board.place(placement)
    assert len(board) == 20


def test_policy_with_rng_breaks_ties_reproducibly():
    board = Board()
    picks = {choose(board, 5, rng=random.Random(seed)) for seed in range(20)}
    assert picks <= set(board.legal_placements(5))
    assert choose(board, 5, rng=random.Random(3)) == choose(board, 5, rng=random.Random(3))


def test_policy_uses_the_supply():
    board = Board("5@0,0r0 9@3,0r0")
    for supply in ({n: 2 for n in range(10)}, {n: 0 for n in range(10)}):
        assert board.is_legal(choose(board, 4, supply=supply))


def test_lookahead_plays_legal_deterministic_moves():
    game = Game(seed=5)
    for _ in range(6):
        board, number = game.board(0), game.current_number(0)
        placement = choose(board, number, supply=game.supply(0), lookahead=3)
        assert placement == choose(board, number, supply=game.supply(0), lookahead=3)
        assert board.is_legal(placement)
        assert board.is_legal(choose(board, number, lookahead=2))
        game.place(0, placement)


def test_lookahead_without_a_supply_passes_over_start_tiles_and_gap_fillers():
    # The supply it assumes counts number tiles alone: a start tile or a gap filler has none.
    for board in (Board("S1@0,0r0"), Board("8@0,0r0 F1@3,0r0")):
        assert board.is_legal(choose(board, 3, lookahead=2))


def policy_game(seed, options, modules=True):
    """A solo game played by ``choose_turn``: the score and the turns."""
    from games.nmbr9 import Options
    from games.nmbr9.policy import choose_turn

    game = Game(seed=seed, options=Options(**options))
    turns = []
    while not game.is_over():
        turn = choose_turn(game, 0, modules=modules)
        game.play(0, turn)
        turns.append(turn)
    return game.score(0), turns


def test_the_policy_plays_nmbr9_plusplus_sensibly():
    from games.nmbr9.turn import SPECIALS

    everything = {"start_tiles": True, "fillers": True, "specials": SPECIALS}
    start = time.perf_counter()
    with_modules, without, steps, count = [], [], set(), 0
    for seed in range(4):
        score, turns = policy_game(seed, everything)
        with_modules.append(score)
        without.append(policy_game(seed, everything, modules=False)[0])
        count += len(turns)
        steps.update(type(step).__name__ for turn in turns for step in turn.steps)
        steps.update(name for turn in turns for step in turn.steps for name in step_specials(step))
    elapsed = time.perf_counter() - start
    assert statistics.mean(with_modules) > statistics.mean(without) + 5
    assert {"Place", "Fill"} <= steps and steps & {"one", "bridge", "Move", "Reserve"}
    assert elapsed / (2 * count) < 0.05, "well under 50 ms a turn"


def step_specials(step):
    return getattr(step, "specials", ())


def test_the_policy_rejects_in_two_of_three_and_chooses_cards_in_level_to_level():
    rejected = sum(
        str(turn) == "reject"
        for seed in range(3)
        for turn in policy_game(seed, {"variant": "two_of_three"})[1]
    )
    assert rejected >= 3
    markers = {
        turn.main.marker
        for seed in range(3)
        for turn in policy_game(seed, {"variant": "level_to_level"})[1]
    }
    assert len(markers) >= 2
