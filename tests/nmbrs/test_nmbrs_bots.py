"""The nmbrs! bots: legal steps from what their seat sees, reproducible, and whole matches."""

import random

import pytest

from games.nmbrs.bots import BUDGETS, STRENGTHS, bot_match, bot_step
from games.nmbrs.game import Options, apply, setup
from games.nmbrs.policy import choose
from games.nmbrs.rules import RULES
from games.nmbrs.view import sample_hidden


@pytest.mark.parametrize("simplified", [False, True])
@pytest.mark.parametrize("strength", STRENGTHS)
def test_every_strength_makes_legal_steps_to_the_end_of_a_match(strength, simplified):
    options = Options(simplified=simplified, target=40)
    scores, seconds = bot_match([strength, "medium", strength], 3, options)
    assert len(scores) == 3 and max(scores) >= 40
    assert sum(len(s) for s in seconds) > 3  # every step was applied: each was legal


def test_the_same_position_and_generator_give_the_same_step():
    state = setup(2, 9)
    for _ in range(25):  # into the middle of the first deal
        apply(state, state.to_move, choose(state, state.to_move))
    player = state.to_move
    first = bot_step("strong", state.copy(), player, random.Random(5))
    assert bot_step("strong", state.copy(), player, random.Random(5)) == first


def test_medium_is_the_fallback_policy_and_easy_sometimes_is_not():
    state = setup(3, 2)
    differs = 0
    for _ in range(60):
        if state.over:
            break
        player = state.to_move
        policy = choose(state, player)
        assert bot_step("medium", state, player, random.Random(0)) == policy
        differs += bot_step("easy", state, player, random.Random(len(state.log))) != policy
        apply(state, player, policy)
    assert BUDGETS["easy"].noise > 0 and differs > 0


def test_the_strong_bots_steps_do_better_than_the_policys_on_fresh_samples():
    """Where the strong bot answers the discard differently from the policy, its answer is
    worth more on average over hands and decks it did not sample (the policy then plays
    every seat to the deal's end)."""
    from games.nmbrs.bots import _playout

    gained, departures = 0.0, 0
    for seed in range(8):
        state = setup(2, seed)
        for _ in range(80):
            if state.over or departures == 6:
                break
            player = state.to_move
            policy = choose(state, player)
            if state.phase == "draw" and not state.passed:
                strong = bot_step("strong", state, player, random.Random(seed))
                if strong != policy:
                    departures += 1
                    rng = random.Random(1000 + departures)
                    for _ in range(20):
                        world = sample_hidden(state, player, rng)
                        gained += _playout(world, player, strong) - _playout(world, player, policy)
            apply(state, player, policy)
    assert departures == 6 and gained > 0, (departures, gained)


def test_the_rules_give_bots_a_seat_sample_and_refuse_unknown_strengths():
    state = setup(2, 4)
    player = state.to_move
    rng = random.Random(1)
    move = RULES.bot_move(sample_hidden(state, player, rng), player, "medium", rng)
    apply(state.copy(), player, move)
    assert RULES.bot_strengths == STRENGTHS
    with pytest.raises(ValueError, match="strength must be one of"):
        bot_step("grandmaster", state, player, rng)
