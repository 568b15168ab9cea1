"""games/nmbr9/rules.py: NMBR 9 as the platform hosts it (games.contract.Rules)."""

import random

import pytest

from games.contract import Due, IllegalMove, InvalidMove, Outcome, Rules
from games.nmbr9 import Options, Placement, Turn
from games.nmbr9.rules import RULES, MatchOptions
from games.registry import find_game


def test_registered_as_nmbr9():
    assert find_game("nmbr9") is RULES
    assert isinstance(RULES, Rules)
    assert (RULES.slug, RULES.name, RULES.players) == ("nmbr9", "NMBR 9", range(1, 7))


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({}, MatchOptions()),
        ({"players": 3, "pace": "free"}, MatchOptions("free")),
        (
            {"players": 2, "removed": "random", "fillers": True, "specials": ["one", "move"]},
            MatchOptions(
                "rounds", Options(fillers=True, specials=("move", "one"), removed="random")
            ),
        ),
        (
            {"specials": "random2", "start_tiles": True},
            MatchOptions(game=Options(True, specials="random2")),
        ),
        (
            {"players": 4, "variant": "level_to_level"},
            MatchOptions(game=Options(variant="level_to_level")),
        ),
        (
            {"players": 4, "pace": "free", "variant": "two_of_three"},
            MatchOptions("free", Options(variant="two_of_three")),
        ),
    ],
)
def test_options_from_plain_data_round_trip(data, expected):
    options = RULES.options(data)
    assert options == expected
    dumped = RULES.dump_options(options)
    assert RULES.options({**dumped, "players": data.get("players", 1)}) == options
    assert set(dumped) == {"pace", "removed", "start_tiles", "fillers", "specials", "variant"}


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"colour": "red"}, "unknown option 'colour'"),
        ({"pace": "fast"}, "pace must be"),
        ({"players": 7}, "players must be 1-6"),
        ({"players": "2"}, "players must be a whole number"),
        ({"removed": 5}, "removed must be 0-4"),
        ({"removed": "2"}, "removed must be 0-4"),
        ({"fillers": "yes"}, "fillers must be True or False"),
        ({"start_tiles": 1}, "start_tiles must be True or False"),
        ({"specials": ["jump"]}, "unknown special tile 'jump'"),
        ({"specials": ["one", "one"]}, "named once"),
        ({"specials": "one"}, "list of special tiles"),
        ({"variant": "chaos"}, "variant must be one of"),
        ({"players": 5, "variant": "two_of_three"}, "1-4 players, not 5"),
        ({"players": 6, "variant": "level_to_level"}, "1-4 players, not 6"),
        ({"pace": "free", "variant": "level_to_level"}, "rounds"),
        ({"variant": "two_of_three", "removed": 2}, "removed only in the base game"),
        ({"variant": "level_to_level", "removed": "random"}, "removed only in the base game"),
    ],
)
def test_invalid_options_are_refused_with_a_reason(data, reason):
    with pytest.raises(ValueError, match=reason):
        RULES.options(data)


def test_a_base_match_keeps_the_base_games_moves():
    options = RULES.options({"players": 2, "removed": 2})
    state = RULES.setup(2, 7, options)
    assert state.rounds == 18 and not state.plusplus
    move = RULES.auto_move(state, 0)
    assert str(move).startswith("place ") and RULES.parse_move(str(move)) == move
    assert RULES.parse_move("place 7@3,-2r1") == Turn.place(Placement(7, 3, -2, 1))
    state = RULES.apply(state, 0, move)
    assert state.moves[0] == (0, move.steps[0].placement)
    assert RULES.dump(state)["moves"] == [[0, str(move.steps[0].placement)]]


def test_moves_and_turns():
    state = RULES.setup(2, 3, RULES.options({"players": 2, "pace": "free"}))
    assert RULES.to_move(state) == {0, 1}
    assert RULES.turn(state, 0) == 0 and RULES.due(state, 0) == Due()
    state = RULES.apply(state, 0, RULES.auto_move(state, 0))
    assert RULES.turn(state, 0) == 1 and RULES.progress(state, 0) == 1
    assert RULES.to_move(state) == {0, 1}  # free pace: player 0 goes on
    with pytest.raises(InvalidMove):
        RULES.parse_move("place it somewhere")
    with pytest.raises(IllegalMove):
        RULES.apply(state, 0, "place 7@0,0r0")
    rounds = RULES.setup(2, 3, RULES.options({"players": 2}))
    rounds = RULES.apply(rounds, 1, RULES.auto_move(rounds, 1))
    assert RULES.to_move(rounds) == {0}


def test_progress_counts_number_tiles_only():
    options = RULES.options({"start_tiles": True, "fillers": True})
    state = RULES.setup(1, 3, options)
    number = state.decision(0).cards[0][1]
    placement = state.board(0).legal_placements(number)[0]
    filler = next(
        p for p in state.board(0).legal_placements("F1") if not p.cells() & placement.cells()
    )
    state = RULES.apply(state, 0, Turn.parse(f"place {placement}; fill {filler}"))
    assert RULES.progress(state, 0) == 1 and len(state.board(0)) == 3


def test_outcome_ranks_and_leaves():
    state = RULES.setup(3, 5, RULES.options({"players": 3}))
    state = RULES.leave(state, 2)
    while RULES.outcome(state) is None:
        for player in sorted(RULES.to_move(state)):
            state = RULES.apply(state, player, RULES.auto_move(state, player))
    outcome = RULES.outcome(state)
    assert isinstance(outcome, Outcome) and outcome.left == {2}
    assert outcome.scores == tuple(RULES.score(state, p) for p in range(3))
    assert outcome.ranks[2] == 3
    with pytest.raises(IllegalMove):
        RULES.leave(state, 0)


def test_random_moves_exercise_the_options():
    options = RULES.options(
        {
            "players": 2,
            "variant": "two_of_three",
            "fillers": True,
            "specials": list(("move", "black", "one", "bridge", "loose", "reserve")),
        }
    )
    seen = set()
    for seed in range(3):
        state = RULES.setup(2, seed, options)
        rng = random.Random(seed)
        while RULES.outcome(state) is None:
            for player in sorted(RULES.to_move(state)):
                move = RULES.random_move(state, player, rng)
                seen.update(type(step).__name__ for step in move.steps)
                seen.update(name for step in move.steps for name in getattr(step, "specials", ()))
                state = RULES.apply(state, player, move)
    assert {"Place", "Fill", "Reject", "Reserve", "Move", "Build"} <= seen
    assert {"black", "one", "bridge", "loose"} & seen


def test_level_to_level_random_moves_choose_cards():
    options = RULES.options({"players": 2, "variant": "level_to_level"})
    markers = set()
    state = RULES.setup(2, 1, options)
    rng = random.Random(2)
    while RULES.outcome(state) is None:
        for player in sorted(RULES.to_move(state)):
            move = RULES.random_move(state, player, rng)
            markers.add(move.main.marker)
            state = RULES.apply(state, player, move)
    assert len(markers) >= 2


def test_dump_holds_the_deal_and_differs_for_samples():
    state = RULES.setup(2, 9, RULES.options({"players": 2}))
    state = RULES.apply(state, 0, RULES.auto_move(state, 0))
    dump = RULES.dump(state)
    assert dump["seed"] == 9 and dump["deal"]["cards"] == list(state.deal.cards)
    sample = RULES.sample_hidden(state, 1, random.Random(0))
    assert RULES.dump(sample)["seed"] is None
    assert RULES.view(sample, 1) == RULES.view(state, 1)
    assert RULES.dump(state) == dump
