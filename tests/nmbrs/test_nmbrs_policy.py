"""The fallback policy: takes what it can use, lays the best series, adds to the table,
discards its least useful card, and takes an offered card only when it is clearly useful."""

from games.nmbrs import CARDS, Move, Options, apply, position
from games.nmbrs.plays import legal_plays
from games.nmbrs.policy import choose, discard_choice


def finish_turn(state):
    """Let the policy play out the current player's turn; the moves it made."""
    player, turns, deal = state.current, state.turns[state.current], state.deal
    moves = []
    while state.turns[player] == turns and state.deal == deal and not state.over:
        move = choose(state, state.to_move)
        moves.append(str(move))
        apply(state, state.to_move, move)
    return moves


def test_it_takes_a_discard_it_can_use_and_passes_one_it_cannot():
    state = position(hands=["12,14,50,71", "2,3"], pile="5,16", phase="draw")
    assert choose(state, 0) == Move("take")
    state = position(hands=["12,14,50,71", "2,3"], pile="5,97", phase="draw")
    assert choose(state, 0) == Move("pass")
    state = position(hands=["12,14,50,71", "2,3"], pile="5,JO", phase="draw")
    assert choose(state, 0) == Move("take")


def test_it_draws_when_everybody_passed():
    state = position(hands=["12,14,50,71", "2,3"], pile="97", phase="draw")
    apply(state, 0, "pass")
    apply(state, 1, "pass")
    assert choose(state, 0) == Move("draw")


def test_offered_a_card_it_takes_it_only_when_clearly_useful():
    # 33 makes 11, 22, 33 with the hand (worth 3 + 2 + 2 = 7); 98 fits nothing
    for top, expected in [("33", "take"), ("JG", "take"), ("98", "pass")]:
        state = position(hands=["1,2,5", "11,22,40,99"], pile=f"7,{top}", phase="draw")
        apply(state, 0, "pass")
        assert str(choose(state, 1)) == expected, top


def test_it_lays_the_highest_scoring_series():
    state = position(hands=["4,6,8,11,31,51,90", "2,3"], laid=[False, False])
    plans = {str(p.move): p.points for p in legal_plays(state, 0)}
    assert plans["lay 11,31,51"] > plans["lay 4,6,8"]
    assert choose(state, 0) == Move.parse("lay 11,31,51")


def test_it_adds_cards_to_the_table_and_discards_what_is_left():
    state = position(hands=["40,50,88,93", "2,3"], table=["10,20,30"])
    moves = finish_turn(state)
    assert moves[0] == "extend 1: 40,50"
    assert moves[-1].startswith("discard ") and len(moves) == 2
    assert len(state.hands[0]) == 1


def test_it_goes_out_when_it_can():
    state = position(hands=["40,88", "2,3,97"], table=["10,20,30"])
    assert finish_turn(state) == ["extend 1: 40", "discard 88"]
    assert state.deal == 2 and state.last_deal["out"] == 0


def test_it_discards_a_lone_high_value_card_before_cards_that_go_together():
    state = position(hands=["20,21,97,60,JR", "2,3"])
    assert CARDS["97"].value == 3
    assert discard_choice(state, 0) == "97"
    state = position(hands=["JR,JB", "2,3"])
    assert discard_choice(state, 0) in ("JR", "JB")  # only jokers left


def test_it_keeps_a_card_that_fits_the_table_before_one_that_does_not():
    state = position(hands=["40,41", "2,3"], table=["10,20,30"], laid=[False, True])
    assert discard_choice(state, 0) == "41"


def test_it_plays_a_swapped_joker_again():
    state = position(hands=["20,41,42,99", "2,3"], table=["10,JR=20,30"])
    apply(state, 0, "swap 1: 20")
    move = choose(state, 0)
    assert move.is_play and "JR" in {c.card for c in move.cards}
    moves = finish_turn(state)
    assert moves[-1].startswith("discard") and "JR" not in state.hands[0]


def test_in_the_simplified_version_it_ends_the_turn_with_done():
    state = position(hands=["12,14,16,40", "2,3"], options=Options(simplified=True))
    assert finish_turn(state) == ["lay 12,14,16", "done"]
    state = position(hands=["12,14,16", "2,3"], options=Options(simplified=True))
    assert finish_turn(state) == ["lay 12,14,16"]  # the hand is empty: the deal is over
    assert state.deal == 2
