"""docs/rules.md §7.3: how a move is written, read back and printed canonically."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.contract import IllegalMove, InvalidMove
from games.nmbrs import JOKERS, Move, Placed

EXAMPLES = [
    "take",
    "pass",
    "draw",
    "lay 12,14,16",
    "extend 3: 18,20",
    "insert 3: 13,15",
    "cross 3@14: 7,21",
    "join 3+5: 22",
    "swap 4: 42",
    "discard 57",
    "done",
    "lay 40,JR=42,44",
    "discard JR",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_7_3_every_example_reads_and_prints_back(text):
    move = Move.parse(text)
    assert str(move) == text
    assert Move.parse(str(move)) == move


def test_7_3_the_fields_of_each_kind():
    cross = Move.parse("cross 3@14: 7,21")
    assert (cross.kind, cross.series, cross.at) == ("cross", 3, 14)
    assert cross.cards == (Placed(7, "7"), Placed(21, "21"))
    join = Move.parse("join 3+5: 22")
    assert (join.series, join.other, join.cards) == (3, 5, (Placed(22, "22"),))
    swap = Move.parse("swap 4: 42")
    assert (swap.series, swap.card, swap.cards) == (4, "42", ())
    assert Move.parse("discard 57").card == "57"
    assert Move.parse("lay JB=7,8,9").cards[0] == Placed(7, "JB")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("lay 16,14,12", "lay 12,14,16"),
        ("  LAY 12 , jr=14,16 ", "lay 12,JR=14,16"),
        ("join 5+3: 22", "join 3+5: 22"),
        ("extend 3 :20,18", "extend 3: 18,20"),
        ("cross 3 @ 14 : 21, 7", "cross 3@14: 7,21"),
        ("discard jg", "discard JG"),
        ("Take", "take"),
        ("lay 07,8,9", "lay 7,8,9"),
    ],
)
def test_7_3_the_printed_form_is_canonical(text, canonical):
    move = Move.parse(text)
    assert str(move) == canonical
    assert Move.parse(canonical) == move


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "not-a-move"),
        ("fold", "unknown-move"),
        ("take 42", "not-a-move"),
        ("lay", "no-cards"),
        ("lay 12,,16", "no-cards"),
        ("lay 12,14,0", "no-such-number"),
        ("lay 12,14,101", "no-such-number"),
        ("lay JR,14,16", "joker-without-number"),
        ("lay JX=12,14,16", "no-such-joker"),
        ("lay twelve", "not-a-number"),
        ("extend 3 18,20", "colon"),
        ("extend x: 18", "not-a-series-number"),
        ("extend 0: 18", "not-a-series-number"),
        ("cross 3: 7,21", "at"),
        ("join 3: 22", "plus"),
        ("swap 4: JR", "not-a-number"),
        ("discard JR=42", "not-a-move"),
    ],
)
def test_7_3_texts_that_are_no_move_are_refused_with_a_code(text, code):
    with pytest.raises(InvalidMove) as refused:
        Move.parse(text)
    assert refused.value.code == code
    assert isinstance(refused.value, IllegalMove) and str(refused.value)


def test_moves_built_in_python_are_checked_like_texts():
    with pytest.raises(InvalidMove, match="extend needs at least one card"):
        Move("extend", series=2)
    with pytest.raises(InvalidMove, match="take takes no cards"):
        Move("take", cards=(Placed(3, "3"),))
    with pytest.raises(InvalidMove, match="cannot stand for"):
        Placed(3, "4")
    assert Move("lay", cards=(Placed(9, "9"), Placed(8, "8"), Placed(7, "JR"))) == Move.parse(
        "lay JR=7,8,9"
    )


def test_a_move_is_a_small_frozen_value():
    move = Move.parse("lay 12,14,16")
    with pytest.raises(AttributeError):
        move.kind = "pass"
    assert hash(move) == hash(Move.parse("lay 16,14,12"))
    assert eval(repr(move), {"Move": Move, "Placed": Placed}) == move


cards = st.builds(
    lambda number, joker: Placed.of(number, joker),
    st.integers(1, 100),
    st.sampled_from([None, *JOKERS]),
)
card_lists = st.lists(cards, min_size=1, max_size=8)
series = st.integers(1, 40)
moves = st.one_of(
    st.sampled_from([Move("take"), Move("pass"), Move("draw"), Move("done")]),
    st.builds(lambda c: Move("lay", cards=tuple(c)), card_lists),
    st.builds(
        lambda k, s, c: Move(k, cards=tuple(c), series=s),
        st.sampled_from(["extend", "insert"]),
        series,
        card_lists,
    ),
    st.builds(
        lambda s, at, c: Move("cross", cards=tuple(c), series=s, at=at),
        series,
        st.integers(1, 100),
        card_lists,
    ),
    st.builds(
        lambda s, o, c: Move("join", cards=tuple(c), series=s, other=o), series, series, card_lists
    ),
    st.builds(lambda s, n: Move("swap", series=s, card=str(n)), series, st.integers(1, 100)),
    st.builds(
        lambda c: Move("discard", card=c),
        st.one_of(st.integers(1, 100).map(str), st.sampled_from(JOKERS)),
    ),
)


@settings(max_examples=300, deadline=None)
@given(moves)
def test_notation_round_trip(move):
    assert Move.parse(str(move)) == move
    assert str(Move.parse(str(move))) == str(move)
