"""What selected cards still need to become a play (``preview.needs``): the plays they can
grow into with more cards of the player's hand, how many more cards, and which."""

import pytest

from games.nmbrs import Options, position
from games.nmbrs.preview import Need, needs, plays, why_no_play
from games.nmbrs.view import view

OTHER = "91,92,93"


def needed(picked, hand, table=(), **options):
    state = position(hands=[hand, OTHER], table=list(table), **options)
    seen = view(state, 0)
    assert plays(seen, picked) == []
    return needs(seen, picked)


def test_two_cards_of_a_series_need_one_more_card_from_the_hand():
    assert needed(["12", "14"], "12,14,16,30,31,JR") == [Need("lay", 1, ("16", "JR"))]
    assert str(Need("lay", 1, ("16", "JR"))) == "1 more card for a series: 16 or JR"


def test_more_cards_needed_name_one_way_to_complete_the_series():
    assert needed(["12", "18"], "12,14,16,18,50,60") == [Need("lay", 2, ("14", "16"))]


def test_a_card_that_can_be_added_to_the_table_with_another_one():
    # extend: 26 and 28 after 20, 22, 24 (a cross 24, 26, 28 is the same cards: not listed)
    assert needed(["28"], "5,9,26,28,40", ["20,22,24"]) == [Need("extend", 1, ("26",), 1)]
    # insert: 15 and 25 into 10, 20, 30
    assert needed(["15"], "3,7,15,25", ["10,20,30"]) == [Need("insert", 1, ("25",), 1)]
    # cross: 13 and 27 through the 20 of 10, 20, 30
    assert needed(["13"], "13,27,50,60", ["10,20,30"]) == [Need("cross", 1, ("27",), 1)]
    # the plays that take the fewest more cards: 10 extends either series with one more
    # card, and joins them with two more
    assert needed(["10"], "8,10,12,50,60", ["2,4,6", "14,16,18"]) == [
        Need("extend", 1, ("8",), 1),
        Need("extend", 1, ("12",), 2),
    ]


def test_before_a_series_is_laid_only_a_new_series_counts():
    assert needed(["28"], "5,9,26,28,40", ["20,22,24"], laid=[False, True]) == []
    laying = needed(["12", "14"], "12,14,16,30", ["20,22,24"], laid=[False, True])
    assert laying == [Need("lay", 1, ("16",))]


@pytest.mark.parametrize(
    ("picked", "hand"),
    [
        (["12", "17"], "12,17,50,60"),  # no card of the hand makes a series of them
        (["12", "14"], "12,14,16"),  # the series would empty the hand: no discard left
        (["12", "14", "17"], "12,14,16,17,50"),  # 17 fits no series with 12 and 14
    ],
)
def test_cards_no_more_cards_make_a_play_need_nothing(picked, hand):
    assert needed(picked, hand) == []


def test_the_simplified_version_may_empty_the_hand():
    simplified = Options(simplified=True)
    assert needed(["12", "14"], "12,14,16", options=simplified) == [Need("lay", 1, ("16",))]


def test_a_joker_can_complete_or_be_completed():
    assert needed(["JR"], "12,14,JR,JG,50") == [Need("lay", 2, ("12", "14"))]
    # 12, 13, 14 or 12, 50, 88, the joker standing for 13 or 88
    assert needed(["12", "JR"], "12,14,JR,50") == [Need("lay", 1, ("14", "50"))]


def test_a_wrong_third_card_can_still_grow_into_a_series():
    # 12, 16, 18 is no series, but with 14 it is one: a hint, the refusal only without 14
    assert needed(["12", "16", "18"], "12,14,16,18,50") == [Need("lay", 1, ("14",))]
    state = position(hands=["12,16,18,50,60", OTHER])
    assert needs(view(state, 0), ["12", "16", "18"]) == []
    assert why_no_play(view(state, 0), ["12", "16", "18"]).code == "uneven-steps"


def test_only_the_player_to_move_with_cards_of_their_hand_has_needs():
    state = position(hands=["12,14,16,30", OTHER])
    assert needs(view(state, 1), ["91", "92"]) == []
    assert needs(view(state, None), ["12", "14"]) == []
    assert needs(view(state, 0), ["12", "99"]) == []
    assert needs(view(state, 0), []) == []
    drawing = position(hands=["12,14,16,30", OTHER], phase="draw", pile="77")
    assert needs(view(drawing, 0), ["12", "14"]) == []


def test_a_need_is_plain_data_for_the_pages_words():
    need = Need("join", 2, ("8", "JR"), 1, 2)
    assert need.code == "join"
    assert need.params == {"more": 2, "cards": ("8", "JR"), "series": 1, "other": 2}
    assert str(need) == "2 more cards to join series 1 and 2, such as 8 and JR"


def test_cards_that_can_make_no_series_are_told_so_not_to_lay_first():
    state = position(hands=["13,79,50,60", OTHER])
    assert needs(view(state, 0), ["13", "79"]) == []
    assert why_no_play(view(state, 0), ["13", "79"]).code == "no-series"
