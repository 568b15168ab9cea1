"""docs/rules.md §7.2, clause by clause, on hand-built positions: dealing, the draw with its
offers, series, the six plays, scoring, the end of a deal and of the game, the simplified
version."""

import pytest

from games.contract import IllegalMove
from games.nmbrs import CARDS, Options, apply, leave, outcome, position, setup
from games.nmbrs.game import hand_value, shuffled_deck


def value(*cards):
    return sum(CARDS[c].value for c in cards)


def colours(*cards):
    return [CARDS[c].colour for c in cards]


def refused_move(state, player, text, code):
    """``text`` by ``player`` is refused with ``code`` and changes nothing."""
    before = state.dump()
    with pytest.raises(IllegalMove) as info:
        apply(state, player, text)
    assert info.value.code == code, str(info.value)
    assert state.dump() == before
    return info.value


def table(state):
    return {n: [f"{c}={v}" if not c.isdigit() else c for c, v in s] for n, s in state.table.items()}


# ---------------------------------------------------------------------- 7.2 a game


@pytest.mark.parametrize("players", range(2, 9))
def test_7_2_two_to_eight_players_start_with_50_points_and_7_cards_or_9_with_two(players):
    state = setup(players, seed=3)
    size = 9 if players == 2 else 7
    assert state.scores == [50] * players
    assert [len(hand) for hand in state.hands] == [size] * players
    assert len(state.pile) == 1
    assert len(state.deck) == 104 - size * players - 1
    cards = [c for hand in state.hands for c in hand] + state.deck + state.pile
    assert sorted(cards) == sorted(CARDS)


@pytest.mark.parametrize("players", [1, 9, 0])
def test_7_2_other_player_counts_are_refused(players):
    with pytest.raises(ValueError, match="2-8 players"):
        setup(players, seed=1)


def test_7_2_each_deal_is_shuffled_from_the_seed_and_the_deal_number():
    assert setup(3, seed=5).dump() == setup(3, seed=5).dump()
    assert setup(3, seed=5).dump()["deck"] != setup(3, seed=6).dump()["deck"]
    assert shuffled_deck(5, 1) != shuffled_deck(5, 2)
    state = setup(2, seed=5)
    dealt = shuffled_deck(5, 1)
    assert state.pile == [dealt[-19]] and state.deck == dealt[:-19]


def test_7_2_the_first_deal_starts_with_seat_0_and_each_later_deal_with_the_next_seat():
    from games.nmbrs.policy import choose

    state = setup(3, seed=2, options=Options(target=10**6))
    starters = {}
    while state.deal <= 5:
        if state.deal not in starters:
            starters[state.deal] = state.starter
            assert state.current == state.starter and state.phase in ("draw", "play")
        apply(state, state.to_move, choose(state, state.to_move))
    assert starters == {1: 0, 2: 1, 3: 2, 4: 0, 5: 1}


# ---------------------------------------------------------------------- 7.2 the draw


def test_7_2_take_the_discards_top_card():
    state = position(hands=["1,2", "3,4"], pile="50,42", phase="draw")
    apply(state, 0, "take")
    assert state.hands[0] == ["1", "2", "42"]
    assert state.pile == ["50"] and state.phase == "play" and state.to_move == 0


def test_7_2_a_declined_discard_is_offered_to_the_others_in_turn_order():
    state = position(hands=["1,2", "3,4", "5,6", "7,8"], pile="42", deck="60,61", current=1)
    state.phase = "draw"
    apply(state, 1, "pass")
    order = []
    while state.phase == "offer":
        order.append(state.to_move)
        refused_move(state, 1, "draw", "not-your-turn")
        apply(state, state.to_move, "pass")
    assert order == [2, 3, 0]
    assert (state.phase, state.passed, state.to_move) == ("draw", True, 1)
    refused_move(state, 1, "take", "draw-now")
    refused_move(state, 1, "pass", "draw-now")
    apply(state, 1, "draw")
    assert state.hands[1] == ["3", "4", "61"] and state.pile == ["42"]
    assert state.phase == "play"


def test_7_2_the_first_taker_also_draws_then_the_player_decides_again_on_the_new_top():
    state = position(hands=["1,2", "3,4", "5,6"], pile="30,42", deck="60,61", phase="draw")
    apply(state, 0, "pass")
    apply(state, 1, "pass")
    apply(state, 2, "take")
    assert state.hands[2] == ["5", "6", "42", "61"]
    assert state.pile == ["30"] and state.deck == ["60"]
    assert (state.phase, state.passed, state.to_move) == ("draw", False, 0)
    apply(state, 0, "pass")  # the new top is offered round the table again
    assert state.to_move == 1
    apply(state, 1, "take")
    assert state.hands[1] == ["3", "4", "30", "60"]
    assert state.pile == [] and state.deck == []
    # nothing left to take or to draw: the player's draw is skipped
    assert (state.phase, state.to_move) == ("play", 0)
    assert state.hands[0] == ["1", "2"]


def test_7_2_when_a_take_empties_the_pile_the_player_draws_from_the_deck():
    state = position(hands=["1,2", "3,4"], pile="42", deck="60,61", phase="draw")
    apply(state, 0, "pass")
    apply(state, 1, "take")
    assert (state.phase, state.passed, state.to_move) == ("draw", True, 0)
    refused_move(state, 0, "take", "no-discard")
    apply(state, 0, "draw")
    assert state.hands[0] == ["1", "2", "60"]


def test_7_2_the_draw_comes_before_any_play():
    state = position(hands=["12,14,16,30", "3,4"], pile="42", phase="draw")
    refused_move(state, 0, "lay 12,14,16", "take-or-pass")
    refused_move(state, 0, "discard 30", "take-or-pass")
    refused_move(state, 0, "draw", "take-or-pass")
    apply(state, 0, "take")
    refused_move(state, 0, "take", "already-drawn")
    refused_move(state, 0, "pass", "already-drawn")


def test_7_2_an_empty_deck_is_refilled_from_the_discard_pile_under_its_top_card():
    drawn = set()
    for seed in range(12):
        state = position(
            hands=["1,2", "3,4"], pile="70,71,72,73,74", deck="", phase="draw", seed=seed
        )
        apply(state, 0, "pass")
        apply(state, 1, "pass")
        apply(state, 0, "draw")
        assert state.pile == ["74"]
        assert len(state.deck) == 3 and state.hands[0][:2] == ["1", "2"]
        assert sorted(state.deck + state.hands[0][2:]) == ["70", "71", "72", "73"]
        assert state.reshuffles == 1
        drawn.add(state.hands[0][2])
        again = position(
            hands=["1,2", "3,4"], pile="70,71,72,73,74", deck="", phase="draw", seed=seed
        )
        for player, text in [(0, "pass"), (1, "pass"), (0, "draw")]:
            apply(again, player, text)
        assert again.dump() == state.dump()  # the reshuffle comes from the seed
    assert len(drawn) > 1  # ... and it is a shuffle


def test_7_2_the_taker_of_an_offer_draws_from_a_refilled_deck():
    state = position(hands=["1,2", "3,4"], pile="70,71,72,73", deck="", phase="draw")
    apply(state, 0, "pass")
    apply(state, 1, "take")
    assert state.hands[1][:3] == ["3", "4", "73"] and len(state.hands[1]) == 4
    assert state.pile == ["72"]
    assert sorted(state.deck + state.hands[1][3:]) == ["70", "71"]


def test_7_2_when_no_card_is_left_to_draw_the_draw_is_skipped():
    state = position(hands=["1,2", "3,4"], pile="42", deck="", phase="draw")
    apply(state, 0, "pass")
    apply(state, 1, "pass")
    assert (state.phase, state.to_move) == ("play", 0)
    assert state.hands[0] == ["1", "2"]
    refused_move(state, 0, "draw", "already-drawn")
    # an offer taken with nothing left to draw gives just the card
    state = position(hands=["1,2", "3,4"], pile="42", deck="", phase="draw")
    apply(state, 0, "pass")
    apply(state, 1, "take")
    assert state.hands[1] == ["3", "4", "42"]
    assert state.phase == "play" and state.hands[0] == ["1", "2"]


# ---------------------------------------------------------------------- 7.2 series


def test_7_2_a_series_is_three_or_more_cards_with_a_common_step_laid_ascending():
    state = position(hands=["16,12,14,40,41,80", "3"], table=[], laid=[False, False])
    apply(state, 0, "lay 16,12,14")
    assert table(state) == {1: ["12", "14", "16"]}
    refused_move(state, 0, "lay 40,41", "too-few-cards")
    refused_move(state, 0, "lay 40,41,80", "uneven-steps")
    refused_move(state, 0, "lay 40,JR=40,80", "not-in-hand")
    assert "12, 14" in str(
        refused_move(position(hands=["12,14,20", "3"]), 0, "lay 12,14", "too-few-cards")
    )


def test_7_2_jokers_stand_for_the_missing_number_they_state():
    state = position(hands=["12,16,JR,JO,50", "3"])
    apply(state, 0, "lay 12,JR=14,16")
    assert state.table[1] == (("12", 12), ("JR", 14), ("16", 16))
    refused_move(state, 0, "extend 1: JO=16", "not-at-an-end")


def test_7_2_a_card_or_number_may_not_appear_twice_in_a_series():
    state = position(hands=["12,14,16,JR,60", "3"])
    refused_move(state, 0, "lay 12,JR=12,14", "number-twice")
    refused_move(state, 0, "lay 12,12,14", "card-twice")


@pytest.mark.parametrize(
    ("cards", "ok"),
    [
        ("10,20,30", True),
        ("11,16,21", True),
        ("1,3,5", True),
        ("4,5,6", True),
        ("14,20,26", False),
        ("JR=14,20,26", False),
        ("22,25,28", True),
        ("23,26,29", False),
    ],
)
def test_7_2_advanced_rules_a_series_counts_back_to_0_or_1(cards, ok):
    hand = ",".join(c.split("=")[0] for c in cards.split(",")) + ",99"
    advanced = position(hands=[hand, "2"], options=Options(advanced=True))
    basic = position(hands=[hand, "2"])
    apply(basic, 0, f"lay {cards}")
    if ok:
        apply(advanced, 0, f"lay {cards}")
    else:
        error = refused_move(advanced, 0, f"lay {cards}", "does-not-count-down")
        numbers = ", ".join(c.split("=")[-1] for c in cards.split(","))
        assert str(error) == f"{numbers} does not count back to 0 or 1"


def test_7_2_advanced_rules_apply_to_a_cross_too():
    state = position(hands=["14,26,99", "2"], table=["10,20,30"], options=Options(advanced=True))
    refused_move(state, 0, "cross 1@20: 14,26", "does-not-count-down")
    apply(position(hands=["14,26,99", "2"], table=["10,20,30"]), 0, "cross 1@20: 14,26")


# ---------------------------------------------------------------------- 7.2 plays


def test_7_2_lay_a_new_series_and_score_its_values():
    state = position(hands=["12,14,16,99", "2"], laid=[False, False])
    apply(state, 0, "lay 12,14,16")
    assert colours("12", "14", "16") == ["red", "red", "green"]
    assert state.scores == [50 + value("12", "14", "16"), 50]
    assert state.laid == [True, False] and state.hands[0] == ["99"]
    assert state.next_series == 2 and state.plays == 1


def test_7_2_you_must_lay_a_series_before_adding_cards():
    state = position(hands=["40,12,14,16,18,99", "2"], table=["10,20,30"], laid=[False, True])
    for text in ("extend 1: 40", "insert 1: 15,25", "cross 1@10: 12,14", "swap 1: 20"):
        error = refused_move(state, 0, text, "lay-first")
        assert str(error) == "you must lay a series before adding cards to the table"
    apply(state, 0, "lay 12,14,16")
    apply(state, 0, "extend 1: 40")  # in the same turn
    assert table(state)[1] == ["10", "20", "30", "40"]


def test_7_2_a_series_laid_counts_for_later_turns_of_the_deal():
    state = position(hands=["12,14,16,40,50,88", "2,60,61"], table=["10,20,30"], laid=[False, True])
    apply(state, 0, "lay 12,14,16")
    apply(state, 0, "discard 88")
    for player, text in [(1, "take"), (1, "discard 2"), (0, "pass"), (1, "pass"), (0, "draw")]:
        apply(state, player, text)
    apply(state, 0, "extend 1: 40")
    assert state.laid == [True, True]


def test_7_2_extend_a_series_at_either_end_by_one_or_more_cards():
    state = position(hands=["10,50,60,JR,99", "2"], table=["20,30,40"])
    apply(state, 0, "extend 1: 50,60")
    assert state.scores[0] == 50 + value("50", "60")
    apply(state, 0, "extend 1: 10")
    apply(state, 0, "extend 1: JR=70")
    assert table(state)[1] == ["10", "20", "30", "40", "50", "60", "JR=70"]
    assert state.hands[0] == ["99"]


def test_7_2_extend_refusals():
    state = position(hands=["10,25,50,55,70,99", "2"], table=["20,30,40"])
    refused_move(state, 0, "extend 1: 10,50", "both-ends")
    refused_move(state, 0, "extend 1: 25", "not-at-an-end")
    refused_move(state, 0, "extend 1: 55", "does-not-continue")
    refused_move(state, 0, "extend 1: 50,70", "does-not-continue")
    refused_move(state, 0, "extend 2: 50", "no-such-series")
    refused_move(state, 0, "extend 1: 60", "not-in-hand")


def test_7_2_insert_cards_so_that_the_series_gets_a_smaller_step():
    state = position(hands=["15,25,99", "2"], table=["10,20,30"])
    apply(state, 0, "insert 1: 15,25")
    assert table(state)[1] == ["10", "15", "20", "25", "30"]
    assert state.scores[0] == 50 + value("15", "25")


def test_7_2_insert_must_fill_every_new_gap_in_the_same_play():
    state = position(hands=["15,25,35,12,99", "2"], table=["10,20,30"])
    error = refused_move(state, 0, "insert 1: 15", "gaps-left")
    assert "every new gap" in str(error)
    refused_move(state, 0, "insert 1: 15,35", "not-inside")
    refused_move(state, 0, "insert 1: 12", "gaps-left")


def test_7_2_insert_with_a_joker():
    state = position(hands=["15,JB,99", "2"], table=["10,20,30"])
    apply(state, 0, "insert 1: 15,JB=25")
    assert table(state)[1] == ["10", "15", "20", "JB=25", "30"]
    assert state.scores[0] == 50 + value("15")


def test_7_2_cross_through_one_card_of_the_table():
    state = position(hands=["7,21,99", "2"], table=["10,14,18"])
    apply(state, 0, "cross 1@14: 7,21")
    assert table(state) == {1: ["10", "14", "18"], 2: ["7", "14", "21"]}
    assert colours("7", "14", "21") == ["red", "red", "orange"]
    assert state.scores[0] == 50 + value("7", "21")  # the shared 14 does not score again
    assert state.next_series == 3


def test_7_2_cross_needs_two_cards_and_a_card_of_that_series():
    state = position(hands=["7,21,28,99", "2"], table=["10,14,18"])
    refused_move(state, 0, "cross 1@14: 21", "too-few-cards")
    refused_move(state, 0, "cross 1@15: 7,21", "not-in-series")
    refused_move(state, 0, "cross 1@14: 7,28", "uneven-steps")
    refused_move(state, 0, "cross 2@14: 7,21", "no-such-series")


def test_7_2_cross_through_a_joker_and_with_a_joker():
    state = position(hands=["7,21,JG,40,99", "2"], table=["10,JR=14,18"])
    apply(state, 0, "cross 1@14: 7,21")
    assert state.table[2] == (("7", 7), ("JR", 14), ("21", 21))
    apply(state, 0, "cross 2@21: JG=2,40")
    assert table(state)[3] == ["JG=2", "21", "40"]


def test_7_2_a_crossed_card_belongs_to_both_series():
    state = position(hands=["7,21,28,22,14,99", "2"], table=["10,JR=14,18"])
    apply(state, 0, "cross 1@14: 7,21")
    apply(state, 0, "extend 1: 22")
    apply(state, 0, "extend 2: 28")
    assert table(state) == {1: ["10", "JR=14", "18", "22"], 2: ["7", "JR=14", "21", "28"]}
    apply(state, 0, "swap 2: 14")  # the real card replaces the joker in both series
    assert table(state) == {1: ["10", "14", "18", "22"], 2: ["7", "14", "21", "28"]}
    assert sorted(state.hands[0]) == ["99", "JR"]


def test_7_2_join_two_series_with_the_same_step_by_the_cards_between_them():
    state = position(hands=["16,40,41,42,99", "2"], table=["10,12,14", "30,31,32", "18,20,22"])
    apply(state, 0, "join 1+3: 16")
    assert table(state) == {1: ["10", "12", "14", "16", "18", "20", "22"], 2: ["30", "31", "32"]}
    assert len(set(colours("10", "12", "14", "16", "18", "20", "22"))) > 1
    assert state.scores[0] == 50 + value("16")
    apply(state, 0, "lay 40,41,42")
    assert list(state.table) == [1, 2, 4]  # series keep their numbers; new ones count on


def test_7_2_join_refusals():
    state = position(
        hands=["16,26,JR,99", "2"], table=["10,12,14", "30,33,36", "20,22,24", "11,13,15"]
    )
    refused_move(state, 0, "join 1+2: 16", "different-steps")
    refused_move(state, 0, "join 1+3: 16", "gap-not-filled")
    refused_move(state, 0, "join 1+4: 16", "overlap")
    refused_move(state, 0, "join 1+1: 16", "same-series")
    refused_move(state, 0, "join 1+7: 16", "no-such-series")


def test_7_2_join_with_a_joker():
    state = position(hands=["18,JO,99", "2"], table=["10,12,14", "20,22,24"])
    apply(state, 0, "join 1+2: JO=16,18")
    assert table(state) == {1: ["10", "12", "14", "JO=16", "18", "20", "22", "24"]}
    assert state.scores[0] == 50 + value("18")


def test_7_2_swap_a_joker_for_its_real_card_which_scores_nothing():
    state = position(hands=["20,41,42,43,99", "2"], table=["10,JR=20,30"])
    apply(state, 0, "swap 1: 20")
    assert table(state)[1] == ["10", "20", "30"]
    assert sorted(state.hands[0]) == ["41", "42", "43", "99", "JR"]
    assert state.scores[0] == 50 and state.owed == "JR"


def test_7_2_the_swapped_joker_must_be_played_again_in_the_same_turn():
    state = position(hands=["20,41,42,43,99", "2"], table=["10,JR=20,30"])
    apply(state, 0, "swap 1: 20")
    refused_move(state, 0, "discard 99", "joker-owed")
    refused_move(state, 0, "discard JR", "joker-owed")
    apply(state, 0, "lay 41,42,43")  # other plays are fine meanwhile
    apply(state, 0, "extend 1: JR=40")
    assert state.owed is None
    apply(state, 0, "discard 99")


def test_7_2_in_the_simplified_version_too_the_joker_is_not_kept():
    state = position(
        hands=["20,41,42", "2"], table=["10,JR=20,30"], options=Options(simplified=True)
    )
    apply(state, 0, "swap 1: 20")
    refused_move(state, 0, "done", "joker-owed")
    apply(state, 0, "extend 1: JR=40")
    apply(state, 0, "done")


def test_7_2_swap_refusals():
    state = position(hands=["20,30,41,99", "2"], table=["10,JR=20,JG=30", "5,6,7"])
    refused_move(state, 0, "swap 2: 6", "not-in-hand")
    refused_move(state, 0, "swap 1: 41", "no-joker-there")
    refused_move(state, 0, "swap 2: 20", "no-joker-there")
    apply(state, 0, "swap 1: 20")
    refused_move(state, 0, "swap 1: 30", "joker-owed")  # one joker at a time


def test_7_2_a_swap_is_refused_when_the_joker_could_not_be_played_again():
    # the hand would be the joker alone: playing it would empty the hand
    state = position(hands=["20", "2"], table=["10,JR=20,30"])
    refused_move(state, 0, "swap 1: 20", "joker-stuck")
    # no series has a free end for it
    state = position(hands=["50,60", "2"], table=["1,JR=50,99"])
    refused_move(state, 0, "swap 1: 50", "joker-stuck")


def test_7_2_plays_may_not_strand_a_joker_that_is_owed():
    state = position(hands=["20,61,62,63", "2"], table=["10,JR=20,30"])
    apply(state, 0, "swap 1: 20")
    refused_move(state, 0, "lay 61,62,63", "joker-stuck")
    apply(state, 0, "lay JR=60,61,62")
    assert state.owed is None and state.hands[0] == ["63"]


def test_7_2_plays_never_empty_the_hand():
    state = position(hands=["12,14,16", "2"])
    error = refused_move(state, 0, "lay 12,14,16", "keep-a-card")
    assert "discard" in str(error)
    state = position(hands=["40", "2"], table=["10,20,30"])
    refused_move(state, 0, "extend 1: 40", "keep-a-card")


# ---------------------------------------------------------------------- 7.2 scoring


def test_7_2_points_doubled_when_the_series_is_all_one_colour():
    assert colours("7", "9", "11") == ["red"] * 3
    state = position(hands=["7,9,11,99", "2"])
    apply(state, 0, "lay 7,9,11")
    assert state.scores[0] == 50 + 2 * value("7", "9", "11")


def test_7_2_points_doubled_when_the_series_is_all_different_colours():
    assert len(set(colours("1", "3", "5"))) == 3
    state = position(hands=["1,3,5,99", "2"])
    apply(state, 0, "lay 1,3,5")
    assert state.scores[0] == 50 + 2 * value("1", "3", "5")


def test_7_2_a_joker_brings_its_colour_and_no_value():
    assert CARDS["JR"].colour == "red" and CARDS["JR"].value == 0
    state = position(hands=["7,9,JR,99", "2"])
    apply(state, 0, "lay 7,9,JR=11")
    assert state.scores[0] == 50 + 2 * value("7", "9")


def test_7_2_an_added_card_is_doubled_by_the_series_it_makes_and_old_cards_never_score_again():
    state = position(hands=["11,99", "2"], table=["5,7,9"])
    assert colours("5", "7", "9", "11") == ["orange", "red", "red", "red"]
    apply(state, 0, "extend 1: 11")
    assert state.scores[0] == 50 + value("11")
    state = position(hands=["12,99", "2"], table=["9,10,11"])
    assert colours("9", "10", "11", "12") == ["red"] * 4
    apply(state, 0, "extend 1: 12")
    assert state.scores[0] == 50 + 2 * value("12")
    state = position(hands=["7,99", "2"], table=["1,3,5"])
    assert len(set(colours("1", "3", "5", "7"))) == 4
    apply(state, 0, "extend 1: 7")
    assert state.scores[0] == 50 + 2 * value("7")


def test_7_2_a_swap_scores_nothing_and_neither_does_the_card_it_brings():
    state = position(hands=["20,41,42,99", "2"], table=["10,JR=20,30"])
    apply(state, 0, "swap 1: 20")
    assert state.scores[0] == 50


def test_7_2_the_simplified_version_scores_a_point_per_card_doubled_only_by_one_colour():
    options = Options(simplified=True)
    state = position(hands=["1,3,5,7,9,11,20", "2"], options=options)
    apply(state, 0, "lay 1,3,5")  # all different colours: not doubled here
    apply(state, 0, "lay 7,9,11")  # all red: doubled
    assert state.scores[0] == 20 + 3 + 2 * 3


# ---------------------------------------------------------------------- 7.2 end of a deal


def test_7_2_a_deal_ends_when_a_player_discards_their_last_card():
    state = position(hands=["12,14,16,88", "2,97,JR,50", "30,31"], table=["40,41,42"])
    lost = [hand_value(state, 1), hand_value(state, 2)]
    assert lost == [value("2", "97", "50"), value("30", "31")]
    apply(state, 0, "lay 12,14,16")
    apply(state, 0, "discard 88")
    assert state.scores == [50 + value("12", "14", "16"), 50 - lost[0], 50 - lost[1]]
    assert state.last_deal == {"deal": 1, "out": 0, "lost": [0, *lost]}
    # the next deal: fresh cards, next seat starts, nobody has laid
    assert state.deal == 2 and state.starter == 1 and state.current == 1
    assert [len(h) for h in state.hands] == [7, 7, 7] and state.table == {}
    assert state.laid == [False, False, False]


def test_7_2_scores_may_go_below_zero():
    state = position(hands=["12,14,16,88", "97,89,83"], scores=[50, 3])
    apply(state, 0, "lay 12,14,16")
    apply(state, 0, "discard 88")
    assert state.scores[1] == 3 - 9


def test_7_2_the_game_ends_after_a_deal_in_which_someone_reaches_100():
    state = position(hands=["12,14,16,88", "97,2"], scores=[97, 99])
    apply(state, 0, "lay 12,14,16")
    assert state.scores[0] == 100 and not state.over  # the deal goes on
    apply(state, 0, "discard 88")
    assert state.over and state.to_move is None
    result = outcome(state)
    assert result.scores == (97 + value("12", "14", "16"), 99 - value("97", "2"))
    assert result.winners == (0,) and result.ranks == (1, 2)
    refused_move(state, 1, "pass", "game-over")


def test_7_2_reaching_100_during_a_deal_is_not_enough_when_the_hand_is_lost_at_its_end():
    state = position(hands=["97,89,83", "12,14,16,88"], scores=[99, 50], current=1)
    apply(state, 1, "lay 12,14,16")
    apply(state, 1, "discard 88")
    assert not state.over and state.deal == 2 and state.scores[0] == 99 - 9


def test_7_2_the_highest_score_wins_and_ties_share():
    state = position(hands=["12,14,16,88", "2", "97"], scores=[90, 110, 111])
    apply(state, 0, "lay 12,14,16")
    apply(state, 0, "discard 88")
    result = outcome(state)
    assert result.scores == (93, 108, 108)
    assert result.ranks == (3, 1, 1) and result.winners == (1, 2)


def test_7_2_a_lower_target_ends_the_game_sooner():
    state = position(hands=["12,14,16,88", "2"], options=Options(target=52))
    apply(state, 0, "lay 12,14,16")
    apply(state, 0, "discard 88")
    assert state.over and outcome(state).winners == (0,)


# ---------------------------------------------------------------------- simplified version


@pytest.mark.parametrize(("players", "size"), [(2, 7), (3, 5), (8, 5)])
def test_7_2_simplified_cards_1_to_50_20_points_5_cards_or_7_with_two(players, size):
    state = setup(players, seed=4, options=Options(simplified=True))
    assert state.scores == [20] * players
    assert [len(h) for h in state.hands] == [size] * players
    cards = [c for h in state.hands for c in h] + state.deck + state.pile
    assert len(cards) == 54 and all(c in CARDS for c in cards)
    assert max(CARDS[c].number or 0 for c in cards) == 50


def test_7_2_simplified_a_turn_ends_with_done_and_plays_may_empty_the_hand():
    options = Options(simplified=True)
    state = position(hands=["12,14,16,30", "2,3"], options=options)
    refused_move(state, 0, "discard 30", "no-discard-in-simplified")
    apply(state, 0, "lay 12,14,16")
    apply(state, 0, "done")
    assert state.current == 1 and state.pile == []
    state = position(hands=["12,14,16", "2,3"], options=options)
    refused_move(position(hands=["12,14,16", "2,3"]), 0, "done", "discard-to-end")
    apply(state, 0, "lay 12,14,16")  # the last cards: the deal is over
    assert state.deal == 2 and state.last_deal == {
        "deal": 1,
        "out": 0,
        "lost": [0, value("2", "3")],
    }


def test_7_2_simplified_jokers_stand_only_for_1_to_50():
    state = position(hands=["47,49,JR,2", "3"], options=Options(simplified=True))
    error = refused_move(state, 0, "lay 47,49,JR=51", "number-too-high")
    assert "50" in str(error)
    apply(state, 0, "lay JR=45,47,49")


def test_7_2_simplified_a_blocked_deal_ends_when_a_round_passes_without_a_card_drawn_or_played():
    options = Options(simplified=True)
    state = position(hands=["1,30", "2,40", "3,48"], options=options, deck="", phase="draw")
    for player in (0, 1, 2):
        assert state.phase == "play" and state.current == player  # nothing to draw
        apply(state, player, "done")
    assert state.deal == 2
    assert state.last_deal == {
        "deal": 1,
        "out": None,
        "lost": [value("1", "30"), value("2", "40"), value("3", "48")],
    }


# ---------------------------------------------------------------------- leaving a match


def test_a_player_who_leaves_is_skipped_and_the_last_one_left_ends_the_game():
    state = position(hands=["1,2", "3,4", "5,6"], pile="42", deck="60,61", phase="draw")
    apply(state, 0, "pass")
    leave(state, 1)  # the one being offered the card
    assert state.to_move == 2 and state.phase == "offer"
    apply(state, 2, "pass")
    apply(state, 0, "draw")
    apply(state, 0, "discard 1")
    assert state.current == 2  # seat 1 is skipped
    leave(state, 2)  # during their own turn
    assert state.over
    result = outcome(state)
    assert result.ranks == (1, 2, 2) and result.left == frozenset({1, 2})


def test_wrong_players_are_refused():
    state = position(hands=["12,14,16,30", "2"])
    refused_move(state, 1, "lay 12,14,16", "not-your-turn")
    refused_move(state, 5, "pass", "no-such-player")
    leave(state, 1)
    assert state.over
