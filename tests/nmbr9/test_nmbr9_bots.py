"""The bots: legal, reproducible from their seed, ordered by strength, and their commands."""

import random
import re

import pytest
from scripted import auto_place
from test_nmbr9_cli import run

from games.nmbr9 import Game
from games.nmbr9.bots import BUDGETS, STRENGTHS, bot_game, place
from games.nmbr9.policy import choose


def late_position(seed: int, placed: int = 15):
    """A solo game of ``seed`` played by the policy up to ``placed`` tiles: the display, the
    next number and what may still come."""
    game = Game(1, seed=seed)
    for _ in range(placed):
        auto_place(game, 0)
    return game.board(0), game.current_number(0), game.supply(0)


@pytest.mark.parametrize("strength", STRENGTHS)
def test_every_strength_places_legally_and_the_same_on_the_same_seed(strength):
    for seed in range(3):
        board, number, supply = late_position(seed)
        first = place(strength, board, number, supply, random.Random(seed))
        assert board.is_legal(first)
        assert place(strength, board, number, supply, random.Random(seed)) == first


def test_a_bots_game_is_reproducible_and_easy_is_weaker_than_medium():
    easy = [bot_game("easy", seed)[0] for seed in range(8)]
    medium = [bot_game("medium", seed)[0] for seed in range(8)]
    assert [bot_game("easy", seed)[0] for seed in range(8)] == easy
    assert sum(medium) - sum(easy) >= 8 * 10


def test_the_strong_bot_plays_the_best_average_of_its_playouts():
    """On a late position the strong bot's choice is at least as good on average, over
    sampled orders of what may come, as the policy's choice."""
    board, number, supply = late_position(5, placed=16)
    strong = place("strong", board, number, supply, random.Random(5))
    plain = choose(board, number, supply=supply)
    future = [n for n, count in supply.items() for _ in range(count)]
    rng = random.Random(77)
    orders = [rng.sample(future, len(future)) for _ in range(40)]

    def average(placement):
        total = 0
        for order in orders:
            after = board.copy()
            after.place(placement)
            left = dict(supply)
            for n in order:
                left[n] -= 1
                after.place(choose(after, n, supply=left))
            total += after.score()
        return total / len(orders)

    assert average(strong) >= average(plain)


def test_an_unknown_strength_is_refused():
    board, number, supply = late_position(1)
    with pytest.raises(ValueError, match="strength must be one of easy, medium, strong"):
        place("grandmaster", board, number, supply, random.Random(1))
    assert set(BUDGETS) == set(STRENGTHS)


def test_the_bot_command_plays_a_game_per_seed():
    result = run("bot", "--strength", "easy", "--seeds", "5000-5002")
    assert result.returncode == 0, result.stderr
    scores = [int(s) for s in re.findall(r"^seed 500\d: (\d+) ", result.stdout, re.M)]
    assert scores == [bot_game("easy", seed)[0] for seed in (5000, 5001, 5002)]
    assert f"easy: average {sum(scores) / 3:.1f} over 3 games" in result.stdout
    assert run("bot", "--seeds", "9-3").returncode == 2


def test_the_par_command_prints_each_par_and_the_average():
    from games.nmbr9.puzzle import best_par, puzzle

    result = run("par", "--seeds", "5000-5001", "--effort", "0.02")
    assert result.returncode == 0, result.stderr
    pars = [best_par(puzzle(seed), 0.02).score for seed in (5000, 5001)]
    assert re.findall(r"^seed 500\d: par (\d+) ", result.stdout, re.M) == [str(p) for p in pars]
    assert f"average par {sum(pars) / 2:.1f} over 2 puzzles" in result.stdout
    assert run("par", "--effort", "2").returncode == 2


OPTION_SETS = [
    {},
    {"variant": "two_of_three"},
    {"variant": "level_to_level"},
    {"start_tiles": True, "fillers": True, "specials": ("one", "black", "bridge", "loose")},
    {"removed": 2},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "base")
@pytest.mark.parametrize("strength", ["easy", "medium"])
def test_bots_play_whole_legal_games_of_every_option_set(strength, options):
    from games.nmbr9.bots import bot_turn
    from games.nmbr9.game import Options

    game = Game(2, seed=21, options=Options(**options))
    rng = random.Random(4)
    while not game.is_over():
        for player in sorted(game.to_move()):
            turn = bot_turn(strength, game.sample_hidden(player, rng), player, rng)
            assert game.is_legal(player, turn)
            game.play(player, turn)
    assert all(game.score(p) > 0 for p in range(2))


@pytest.mark.parametrize("options", OPTION_SETS[1:4], ids=lambda o: ",".join(o))
def test_the_strong_bot_plays_legal_turns_of_every_option_set(options):
    from games.nmbr9.bots import bot_turn
    from games.nmbr9.game import Options

    game = Game(1, seed=8, options=Options(**options))
    rng = random.Random(2)
    for _ in range(2):  # the first turn, and one with a tile on the display
        turn = bot_turn("strong", game.sample_hidden(0, rng), 0, rng)
        assert game.is_legal(0, turn)
        game.play(0, turn)


def test_the_bots_own_placement_is_played_where_the_turn_is_a_plain_placement():
    """On a base game the strength decides the placement (medium looks a tile ahead, so it
    differs from the policy's choice somewhere in a game)."""
    from games.nmbr9.bots import bot_turn

    differs = 0
    for seed in range(4):
        game = Game(1, seed=seed)
        for _ in range(12):
            number = game.current_number(0)
            turn = bot_turn("medium", game, 0, random.Random(1))
            differs += str(turn) != f"place {choose(game.board(0), number)}"
            game.play(0, turn)
    assert differs > 0
