"""docs/rules.md §3, clause by clause, on hand-built displays."""

import pytest
from reference import reference_level

from games.nmbr9 import WINDOW, Board, IllegalPlacement, InvalidPlacement, Placement
from games.nmbr9.board import GAP, NOT_ADJACENT, ONE_SUPPORT, OUT_OF_RANGE, OVERHANG, UNEVEN

P = Placement.parse

# 555999
# 555999
# ..599.
# 55599.
TWO = "5@0,0r0 9@3,0r0"
# the same pair again, turned half around, below it
FOUR = TWO + " 5@0,4r2 9@3,4r2"


def refused_placement(board: Board, placement: Placement) -> IllegalPlacement:
    before = board.copy()
    tiles = board.tiles
    with pytest.raises(IllegalPlacement) as info:
        board.place(placement)
    assert board == before and board.tiles == tiles and board.score() == before.score()
    with pytest.raises(IllegalPlacement):
        board.level_of(placement)
    assert not board.is_legal(placement)
    assert board.reason(placement) == info.value.reason
    assert placement not in board.legal_placements(placement.number)
    return info.value


@pytest.mark.parametrize("placement", ["7@0,0r0", "3@-20,17r3", "0@55,-60r1", "9@-60,-60r2"])
def test_first_tile_goes_anywhere_on_level_0(placement):
    board = Board()
    assert board.level_of(P(placement)) == 0
    assert board.place(P(placement)) == 0
    assert board.tiles == ((P(placement), 0),)


def test_empty_board_lists_the_distinct_orientations_at_the_origin():
    assert Board().legal_placements(7) == [Placement(7, 0, 0, r) for r in range(4)]
    assert Board().legal_placements(0) == [Placement(0, 0, 0, 0), Placement(0, 0, 0, 1)]
    assert Board().legal_placements(8) == [Placement(8, 0, 0, 0), Placement(8, 0, 0, 1)]


def test_level_0_tile_sharing_an_edge_is_adjacent():
    board = Board("5@0,0r0")
    assert board.place(P("9@3,0r0")) == 0


def test_level_0_tile_touching_only_at_a_corner_is_not_adjacent():
    board = Board("5@0,0r0")
    # (3, 4) touches the 5's square (2, 3) only at a corner.
    assert (3, 4) in P("1@3,4r0").cells()
    error = refused_placement(board, P("1@3,4r0"))
    assert error.reason == NOT_ADJACENT and error.code == "not adjacent"
    assert refused_placement(board, P("1@10,10r0")).reason == NOT_ADJACENT


def test_overhang():
    board = Board(TWO)
    error = refused_placement(board, P("1@2,2r1"))
    assert error.reason == OVERHANG and error.code == "overhang"
    # a tile half on the display and half beside it
    assert refused_placement(board, P("7@4,1r0")).reason == OVERHANG


def test_gap_over_the_hole_of_a_0():
    board = Board("0@0,0r0 0@3,0r0")
    # This 0 lies on both 0s, its left column over the first 0's hole (1, 1), (1, 2).
    placement = P("0@1,0r0")
    assert {(1, 1), (1, 2)} <= placement.cells()
    error = refused_placement(board, placement)
    assert error.reason == GAP and error.code == "gap"


def test_gap_between_two_tiles():
    board = Board(TWO)
    # the 1's stem runs down column 1, over the empty square (1, 2) between the 5's parts
    assert refused_placement(board, P("1@0,0r0")).reason == GAP


def test_uneven_tops():
    board = Board(TWO + " 1@2,0r1")
    assert board.tiles[-1][1] == 1
    # the 7 would lie on the 1 (level 1) and on the 5 and 9 (level 0)
    error = refused_placement(board, P("7@3,0r0"))
    assert error.reason == UNEVEN and error.code == "uneven"


def test_one_support_is_refused():
    board = Board(TWO)
    error = refused_placement(board, P("1@1,0r0"))
    assert error.reason == ONE_SUPPORT and error.code == "one support"
    assert error.placement == P("1@1,0r0")
    assert str(error).startswith("1@1,0r0: needs two tiles beneath")


def test_first_tile_of_a_new_level_needs_no_neighbour():
    board = Board(FOUR)
    assert board.height() == 1
    # anywhere on two level-0 tiles: the upper pair or the lower pair
    assert board.level_of(P("1@2,0r1")) == 1
    assert board.level_of(P("1@0,6r1")) == 1
    assert board.reason(P("1@0,6r1")) is None
    assert board.place(P("1@0,6r1")) == 1
    assert board.height() == 2 and board.score() == 1


def test_adjacency_on_an_upper_level():
    # two 5-9 pairs, one above the other, and a 1 on level 1 across the upper pair
    board = Board(FOUR + " 1@2,0r1")
    # on the lower 5 and 9 (two supports, level 1) but away from the 1
    lonely = P("1@0,6r1")
    assert reference_level(board.tiles, lonely) == "not adjacent"
    assert refused_placement(board, lonely).reason == NOT_ADJACENT
    # the same tile is fine where it shares an edge with the 1
    beside = P("1@0,2r1")
    assert reference_level(board.tiles, beside) == 1
    assert board.place(beside) == 1


COVERED = (
    "2@0,0r0 5@-4,1r1 4@-2,1r1 9@1,4r2 6@-6,0r1 3@2,-1r0 7@-6,-4r2 8@1,0r1 9@-1,4r0 "
    "5@2,-4r1 1@2,2r2 2@1,0r1 6@-5,4r2 7@-1,4r2 3@-7,3r2 0@-6,8r0 8@-10,5r0"
)


def test_adjacency_counts_tiles_now_covered_by_tiles_above():
    board = Board(COVERED)
    placement = P("1@2,-4r2")
    level = board.level_of(placement)
    assert level == 1
    on_level = set().union(*(p.cells() for p, lv in board.tiles if lv == level))
    seen_from_above = {
        (x, y): board.top_at(x, y)[1] for x, y in on_level if board.top_at(x, y) is not None
    }
    touching = {
        (x + dx, y + dy)
        for x, y in placement.cells()
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
    } & on_level
    assert touching, "the new tile touches a level-1 tile"
    assert all(seen_from_above[cell] > level for cell in touching), "only under covered squares"
    assert board.place(placement) == 1


def test_a_tile_need_not_go_on_the_highest_level():
    board = Board(FOUR + " 1@2,0r1")
    moves = board.legal_moves(7)
    assert {level for _, level in moves} == {0, 1}
    assert board.level_of(P("7@2,2r3")) == 1
    assert board.place(P("7@6,0r0")) == 0
    assert board.score() == 1


def test_a_tile_partly_on_the_display_is_not_on_level_0():
    board = Board(TWO)
    assert refused_placement(board, P("1@-1,0r1")).reason == OVERHANG


@pytest.mark.parametrize(
    "placement",
    [
        Placement(7, WINDOW - 1, 0, 0),
        Placement(7, -WINDOW - 1, 0, 0),
        Placement(7, 0, WINDOW - 2, 0),
        Placement(7, 0, -WINDOW - 1, 0),
        Placement(7, 10**9, 0, 0),
        Placement(7, 0, -(10**12), 0),
    ],
)
def test_out_of_range(placement):
    board = Board()
    error = refused_placement(board, placement)
    assert error.reason == OUT_OF_RANGE and error.code == "out of range"
    assert str(WINDOW) in error.reason
    assert Board().level_of(Placement(7, WINDOW - 2, WINDOW - 3, 0)) == 0


def test_legal_placements_near_the_edge_stay_in_the_window():
    board = Board([Placement(9, WINDOW - 2, WINDOW - 3, 0)])
    moves = board.legal_placements(1)
    assert moves
    for placement in moves:
        assert all(abs(x) <= WINDOW and abs(y) <= WINDOW for x, y in placement.cells())
    corner = Board([Placement(9, -WINDOW, -WINDOW, 0)])
    assert all(
        min(x for x, _ in p.cells()) >= -WINDOW and min(y for _, y in p.cells()) >= -WINDOW
        for p in corner.legal_placements(5)
    )
    assert len(corner.legal_placements(5)) < len(Board("9@0,0r0").legal_placements(5))


@pytest.mark.parametrize("number", [10, -1, True, 1.5, "7", None])
def test_legal_placements_refuses_bad_numbers(number):
    with pytest.raises(InvalidPlacement, match="tile number"):
        Board().legal_placements(number)


@pytest.mark.parametrize("value", ["7@0,0r0", (7, 0, 0, 0), None])
def test_board_wants_placements(value):
    with pytest.raises(InvalidPlacement, match="expected a Placement"):
        Board().level_of(value)


def test_from_placements_stops_at_the_first_illegal_one():
    with pytest.raises(IllegalPlacement, match="not adjacent"):
        Board.from_placements([P("5@0,0r0"), P("9@10,0r0")])


def test_board_reading():
    board = Board(TWO + " 1@2,0r1")
    assert len(board) == 3
    assert board.placements == (P("5@0,0r0"), P("9@3,0r0"), P("1@2,0r1"))
    assert board.tiles[2] == (P("1@2,0r1"), 1)
    assert board.score() == 1 and board.height() == 2
    assert board.bounds() == (0, 0, 5, 3)
    assert board.top_at(5, 0) == (P("1@2,0r1"), 1)
    assert board.top_at(0, 0) == (P("5@0,0r0"), 0)
    assert board.top_at(0, 2) is None
    assert board.top_at(500, 0) is None
    assert [level for _, level, _ in board.tile_cells()] == [0, 0, 1]
    assert board.tile_cells()[2][2] == P("1@2,0r1").cells()
    assert eval(repr(board), {"Board": Board}) == board
    assert Board(board.notation()) == board
    assert str(board).splitlines()[:3] == ["level 1:", ".....1", "..1111"]
    assert Board().height() == 0 and Board().bounds() is None and Board().score() == 0


def test_board_equality_and_copy():
    board = Board(TWO)
    same_display_other_order = Board("9@3,0r0 5@0,0r0")
    assert board == same_display_other_order
    assert board != Board("5@0,0r0")
    assert Board("0@0,0r0") == Board("0@0,0r2")
    copy = board.copy()
    copy.place(P("1@2,0r1"))
    assert len(board) == 2 and len(copy) == 3
    assert board != copy
    assert board.legal_placements(4) == Board(TWO).legal_placements(4)
    assert (board == "x") is False
