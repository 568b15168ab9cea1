import json
from pathlib import Path

import pytest

from games.nmbr9 import SHAPES, InvalidPlacement, Placement
from games.nmbr9.tiles import DISTINCT_ROTATIONS, ORIENTATIONS, SQUARES

TILES = json.loads((Path(__file__).parent / "data" / "tiles.json").read_text())["tiles"]


def test_shapes_match_the_shared_tile_file():
    for n in range(10):
        assert SHAPES[n] == tuple(tuple(cell) for cell in TILES[str(n)]["cells"])
        assert SQUARES[n] == TILES[str(n)]["squares"]
        assert DISTINCT_ROTATIONS[n] == TILES[str(n)]["distinct_rotations"]


def test_square_counts_from_the_rules():
    assert [SQUARES[n] for n in range(10)] == [10, 5, 9, 9, 8, 10, 9, 7, 8, 10]


def test_rotation_is_clockwise_with_y_down():
    # The 1's hook sits top-left; a quarter turn clockwise brings it to the top right.
    assert Placement(1, 0, 0, 1).cells() == {(3, 0), (0, 1), (1, 1), (2, 1), (3, 1)}
    assert Placement(1, 0, 0, 2).cells() == {(0, 0), (0, 1), (0, 2), (0, 3), (1, 3)}
    assert Placement(1, 0, 0, 3).cells() == {(0, 0), (1, 0), (2, 0), (3, 0), (0, 1)}


def test_cells_are_shifted_to_x_y():
    p = Placement(number=7, x=3, y=-2, rotation=1)
    cells = p.cells()
    assert min(x for x, _ in cells) == 3
    assert min(y for _, y in cells) == -2
    assert len(cells) == 7
    assert isinstance(cells, frozenset)


def test_orientations_of_0_and_8_repeat_after_a_half_turn():
    for n in range(10):
        shapes = ORIENTATIONS[n]
        if n in (0, 8):
            assert shapes[0] == shapes[2] and shapes[1] == shapes[3]
            assert shapes[0] != shapes[1]
            assert Placement(n, 4, 5, 2).canonical() == Placement(n, 4, 5, 0)
            assert Placement(n, 4, 5, 3).cells() == Placement(n, 4, 5, 1).cells()
        else:
            assert len(set(shapes)) == 4
            assert Placement(n, 4, 5, 3).canonical() == Placement(n, 4, 5, 3)


def test_notation_round_trip_and_repr():
    p = Placement(number=7, x=3, y=-2, rotation=1)
    assert str(p) == "7@3,-2r1"
    assert Placement.parse(str(p)) == p
    assert Placement.parse(" 7 @ 3 , -2 R1 ") == p
    assert eval(repr(p), {"Placement": Placement}) == p
    assert Placement(0, 0, 0) == Placement(0, 0, 0, 0)


def test_placement_is_frozen_and_hashable():
    p = Placement(2, 1, 1, 0)
    with pytest.raises(AttributeError):
        p.x = 5  # type: ignore[misc]
    assert len({p, Placement(2, 1, 1, 0)}) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((10, 0, 0, 0), "tile number must be 0-9, not 10"),
        ((-1, 0, 0, 0), "tile number must be 0-9, not -1"),
        ((7, 0, 0, 4), "rotation must be 0-3 quarter turns, not 4"),
        ((7, 0, 0, -1), "rotation must be 0-3 quarter turns, not -1"),
        ((7, 1.5, 0, 0), "x must be a whole number, not 1.5"),
        ((7, 0, 2.0, 0), "y must be a whole number, not 2.0"),
        ((True, 0, 0, 0), "tile number must be a whole number, not True"),
        ((7, 0, 0, False), "rotation must be a whole number, not False"),
        (("7", 0, 0, 0), "tile number must be a whole number, not '7'"),
        ((None, 0, 0, 0), "tile number must be a whole number, not None"),
    ],
)
def test_bad_values_are_refused_clearly(args, message):
    with pytest.raises(InvalidPlacement) as refused:
        Placement(*args)
    assert str(refused.value) == message
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize(
    "text",
    ["", "7", "7@3", "7@3,2", "7@3,2r", "a@1,2r0", "7@1,2r0x", "7@1;2r0", "7@1,2r1r1", "@1,2r0"],
)
def test_parse_garbage(text):
    with pytest.raises(InvalidPlacement, match="not a placement"):
        Placement.parse(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [("10@0,0r0", "tile number must be 0-9"), ("3@0,0r4", "rotation must be 0-3")],
)
def test_parse_out_of_range_values(text, message):
    with pytest.raises(InvalidPlacement, match=message):
        Placement.parse(text)


@pytest.mark.parametrize("value", [None, 7, b"7@0,0r0", ["7@0,0r0"]])
def test_parse_non_text(value):
    with pytest.raises(InvalidPlacement, match="must be text"):
        Placement.parse(value)
