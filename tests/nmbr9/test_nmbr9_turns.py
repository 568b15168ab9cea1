"""docs/rules.md §6.7: how a turn is written, read back and refused."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scripted import T, scripted

from games.contract import InvalidMove
from games.nmbr9 import Build, Fill, InvalidTurn, Move, Place, Placement, Reject, Reserve, Turn

EXAMPLES = [
    "place 7@3,-2r1",
    "place 7@3,-2r1 with one,loose",
    "place 7m@3,-2r1 with black",
    "place 4@0,5r0 from 2",
    "place 4@0,5r0 with bridge from 2",
    "fill F2@5,0r1",
    "move 4@0,0r0 to 4@6,1r1",
    "reserve",
    "reserve from 3",
    "build 9@2,2r0",
    "reject",
    "fill F1@2,3r0; place 7@3,-2r1 with one; build 9@2,2r0",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_6_7_the_notation_round_trips(text):
    turn = Turn.parse(text)
    assert str(turn) == text
    assert Turn.parse(str(turn)) == turn
    assert eval(repr(turn), {**globals(), "Placement": Placement}) == turn


def test_6_7_steps_are_what_the_text_says():
    turn = T("fill F1@2,3r0; place 7m@3,-2r1 with loose,black from 1; build 9@2,2r0")
    fill, place, build = turn.steps
    assert fill == Fill(Placement("F1", 2, 3, 0))
    assert place == Place(Placement(7, 3, -2, 1, mirrored=True), ("black", "loose"), 1)
    assert build == Build(Placement(9, 2, 2, 0))
    assert turn.main is place
    assert T("move 4@0,0r0 to 4@6,1r1").steps == (
        Move(Placement(4, 0, 0, 0), Placement(4, 6, 1, 1)),
    )
    assert T("reserve from 2").main == Reserve(2) and T("reject").main == Reject()
    assert T("move 4@0,0r0 to 4@6,1r1").main is None


def test_6_7_spelling_is_forgiving_but_written_one_way():
    turn = T("  PLACE 7@3,-2R1  with LOOSE , one ;fill f2@5,0r1 ")
    assert str(turn) == "place 7@3,-2r1 with one,loose; fill F2@5,0r1"
    assert T("place 4@0,5r0 from 2 with one") == T("place 4@0,5r0 with one from 2")


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("", "not a turn"),
        ("place 7@3,-2r1;", "not a turn"),
        ("jump", "not a step"),
        ("place", "not a step"),
        ("place 7@3,-2r1 with", "not a step"),
        ("place 7@3,-2r1 with move", "not a special tile for the turn's tile"),
        ("place 7@3,-2r1 with one,one", "named once"),
        ("place F1@0,0r0", "number tile"),
        ("fill 7@0,0r0", "gap filler"),
        ("move 4@0,0r0 to 5@0,0r0", "stays the same tile"),
        ("move 4m@0,0r0 to 4@0,0r0", "stays the same tile"),
        ("reserve from 5", "marker is 0-4"),
        ("build 7m@0,0r0", "reserved number tile"),
        ("place 7@3r1", "not a placement"),
        ("place 11@0,0r0", "tile number must be 0-9"),
    ],
)
def test_6_7_text_that_is_not_a_turn_is_refused(text, detail):
    with pytest.raises(InvalidMove, match=detail) as info:
        Turn.parse(text)
    assert info.value.code in ("invalid turn", "invalid placement")
    assert isinstance(info.value, ValueError)


def test_6_7_turns_are_built_from_steps_only():
    with pytest.raises(InvalidTurn):
        Turn(())
    with pytest.raises(InvalidTurn):
        Turn(("place 7@0,0r0",))
    with pytest.raises(InvalidTurn):
        Place(Placement(7, 0, 0, 0), "one")
    assert Turn([Reject()]) == Turn((Reject(),))
    with pytest.raises(InvalidMove):
        Turn.parse(None)


def test_6_7_a_game_takes_turns_as_text_too():
    game = scripted([5, 9])
    game.play(0, "place 5@0,0r0")
    assert game.turns == ((0, T("place 5@0,0r0")),)
    with pytest.raises(InvalidTurn):
        game.play(0, 5)


placements = st.builds(
    Placement,
    st.integers(0, 9),
    st.integers(-60, 60),
    st.integers(-60, 60),
    st.integers(0, 3),
    st.booleans(),
)
fillers = st.builds(
    Placement,
    st.sampled_from(["F1", "F2"]),
    st.integers(-9, 9),
    st.integers(-9, 9),
    st.integers(0, 3),
)
markers = st.none() | st.integers(0, 4)
steps = st.one_of(
    st.builds(
        Place,
        placements,
        st.lists(st.sampled_from(["black", "one", "bridge", "loose"]), unique=True).map(tuple),
        markers,
    ),
    st.builds(Fill, fillers),
    placements.flatmap(
        lambda p: st.builds(
            Move, st.just(p), st.builds(p.moved, st.integers(-9, 9), st.integers(-9, 9))
        )
    ),
    st.builds(Reserve, markers),
    st.builds(Build, placements.map(lambda p: Placement(p.piece, p.x, p.y, p.rotation))),
    st.just(Reject()),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(steps, min_size=1, max_size=5))
def test_6_7_every_turn_round_trips(steps):
    turn = Turn(tuple(steps))
    assert Turn.parse(str(turn)) == turn
