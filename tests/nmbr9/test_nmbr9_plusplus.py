"""docs/rules.md §6.1-6.4 (NMBR 9 ++ pieces and modules), clause by clause, on hand-built displays
and scripted games. The variants (6.5, 6.6) are in test_nmbr9_variants.py."""

import json
from pathlib import Path

import pytest
from reference import reference_level_plusplus
from scripted import P, T, level0, placements_on, refused_turn, scripted

from games.contract import InvalidMove
from games.nmbr9 import Board, Game, IllegalPlacement, Options, Placement
from games.nmbr9.board import (
    COVERED,
    GAP,
    NOT_ADJACENT,
    NOT_MOVABLE,
    ONE_SUPPORT,
    OPEN_GAP,
    OVERHANG,
    PARTLY_COVERED_GAP,
)
from games.nmbr9.tiles import ROTATIONS_OF, SHAPE_INDEX, SHAPES
from games.nmbr9.turn import SPECIALS

TILES = json.loads((Path(__file__).parent / "data" / "tiles.json").read_text())

# 555999
# 555999
# ..599.
# 55599.
TWO = "5@0,0r0 9@3,0r0"
# the same pair again, turned half around, below it
FOUR = TWO + " 5@0,4r2 9@3,4r2"
# 000000   two 0s side by side: each holds a closed gap of two squares
# 0.00.0
# 0.00.0
# 000000
ZEROS = "0@0,0r0 0@3,0r0"


def turned(cells, quarter_turns):
    """``cells`` turned clockwise (y down) and moved back to the origin."""
    for _ in range(quarter_turns):
        cells = [(-y, x) for x, y in cells]
    min_x = min(x for x, _ in cells)
    min_y = min(y for _, y in cells)
    return {(x - min_x, y - min_y) for x, y in cells}


def board_refuses(board, placement, reason, **rules):
    """``placement`` is refused for ``reason`` under ``rules`` and changes nothing."""
    before = board.copy()
    with pytest.raises(IllegalPlacement) as info:
        board.place(placement, **rules)
    assert info.value.reason == reason
    assert board == before and board.tiles == before.tiles
    listed = board.legal_placements(placement.piece, mirrored=placement.mirrored, **rules)
    assert placement.canonical() not in listed
    return info.value


def reference_level_ok(board, placement, relax=()):
    """The engine agrees with the literal reading of the rules (tests/nmbr9/reference.py)."""
    level = board.level_of(placement, relax=relax)
    return reference_level_plusplus(board.tiles, placement, relax) == level


# ----------------------------------------------------------------- 6.1 pieces


@pytest.mark.parametrize("number", range(10))
def test_6_1_mirrored_shape_is_the_upright_shape_reflected_then_turned(number):
    width = max(x for x, _ in SHAPES[number]) + 1
    mirrored = {(width - 1 - x, y) for x, y in SHAPES[number]}
    for rotation in range(4):
        placement = Placement(number, 2, -3, rotation, mirrored=True)
        assert {(x - 2, y + 3) for x, y in placement.cells()} == turned(mirrored, rotation)
    assert str(Placement(number, 2, -3, 1, mirrored=True)) == f"{number}m@2,-3r1"
    assert P(f"{number}m@2,-3r1") == Placement(number, 2, -3, 1, True)


def test_6_1_start_tiles_and_fillers_are_the_shared_shapes():
    for name, data in TILES["plusplus"].items():
        cells = {tuple(cell) for cell in data["cells"]}
        assert Placement(name, 0, 0, 0).cells() == cells
        assert ROTATIONS_OF[SHAPE_INDEX[name, False]] == data["distinct_rotations"]
        assert P(f"{name}@1,-2r3") == Placement(name, 1, -2, 3)
        assert P(f"{name}@1,-2r3").number is None


def test_6_1_mirrored_tiles_start_tiles_and_fillers_score_nothing():
    board = Board([*FOUR.split(), "F2@1,0r0", "1@2,0r1", "7m@1,2r1"])
    assert [level for _, level in board.tiles[4:]] == [1, 1, 1]
    assert board.score() == 1  # the 1 alone: the filler and the mirrored 7 score nothing
    assert Board(["S1@0,0r0"]).score() == 0
    assert P("7m@0,0r0").number == 7 and P("7m@0,0r0").piece == 7


@pytest.mark.parametrize("text", ["F2m@0,0r0", "S7@0,0r0", "F3@0,0r0", "X1@0,0r0", "Sm@0,0r0"])
def test_6_1_pieces_that_do_not_exist_are_refused(text):
    with pytest.raises(InvalidMove):
        Placement.parse(text)


# ----------------------------------------------------------------- 6.2 new start tiles


def test_6_2_each_player_gets_a_different_start_tile_at_the_origin():
    dealt = set()
    for seed in range(12):
        game = Game(6, seed=seed, options=Options(start_tiles=True))
        starts = [game.start_tile(p) for p in range(6)]
        assert len({p.piece for p in starts}) == 6
        for player, start in enumerate(starts):
            assert (start.x, start.y, start.rotation) == (0, 0, 0)
            assert game.board(player).tiles == ((start, 0),)
            assert game.score(player) == 0
        again = Game(6, seed=seed, options=Options(start_tiles=True))
        assert [again.start_tile(p) for p in range(6)] == starts
        dealt.add(tuple(p.piece for p in starts))
    assert len(dealt) > 1, "the seed decides who gets which start tile"
    assert Game(2, seed=1).start_tile(0) is None


def test_6_2_round_one_must_touch_the_start_tile():
    game = scripted([5], starts=["S6"])
    refused_turn(game, 0, "place 5@10,10r0", "not adjacent")
    game.play(0, T("place 5@4,0r0"))
    assert game.board(0).tiles == ((P("S6@0,0r0"), 0), (P("5@4,0r0"), 0))


def test_6_2_a_start_tile_never_moves():
    with pytest.raises(InvalidMove, match="number tile"):
        T("move S6@0,0r0 to S6@0,4r0")
    board = Board(["S6@0,0r0", "5@4,0r0"])
    error = pytest.raises(IllegalPlacement, board.remove, P("S6@0,0r0")).value
    assert error.reason == NOT_MOVABLE and error.code == "not movable"
    assert len(board) == 2


# ----------------------------------------------------------------- 6.3 gap fillers


def test_6_3_fillers_need_no_second_support():
    board = Board(TWO)
    board_refuses(board, P("1@1,0r0"), ONE_SUPPORT)
    # both squares of the F2 rest on the 5 alone
    assert board.level_of(P("F2@0,0r0")) == 1
    assert board.level_of(P("F1@0,0r0")) == 1
    assert P("F2@0,0r0") in board.legal_placements("F2")


def test_6_3_fillers_are_not_exempt_from_adjacency_or_overhang():
    board = Board(TWO + " 1@2,0r1")
    # on the 5 alone (allowed for a filler) but away from the 1 on level 1
    error = board_refuses(board, P("F1@0,3r0"), NOT_ADJACENT)
    assert error.code == "not adjacent"
    assert board.level_of(P("F1@1,1r0")) == 1  # beside the 1
    board_refuses(board, P("F2@-1,0r0"), OVERHANG)
    assert reference_level_ok(board, P("F1@1,1r0"))


def test_6_3_a_filler_counts_as_a_tile_for_the_tiles_above():
    board = Board("5@0,0r0")
    placement = P("7@0,0r0")
    board_refuses(board, placement, OVERHANG)
    # the F2 fills the notch of the 5; the 7 then rests on the 5 and the filler
    assert board.place(P("F2@0,2r0")) == 0
    assert board.place(placement) == 1
    assert board.score() == 7


def test_6_3_fillers_go_with_a_placed_tile_once_each_in_any_order():
    game = scripted([5, 9, 1, 7], fillers=True)
    assert game.decision(0).fillers == ("F1", "F2")
    refused_turn(game, 0, "fill F1@3,0r0", "no card")
    game.play(0, T("place 5@0,0r0; fill F1@3,0r0"))
    assert game.decision(0).fillers == ("F2",)
    refused_turn(game, 0, "fill F1@4,0r0; place 9@5,0r0", "filler used")
    game.play(0, T("fill F2@0,-1r0; place 9@4,0r0"))
    assert game.decision(0).fillers == ()
    assert [p.kind for p, _ in game.board(0).tiles] == ["number", "filler", "filler", "number"]
    refused_turn(game, 0, f"place {level0(game, 0, 1)}; fill F2@0,-2r0", "filler used")


def test_6_3_no_fillers_without_the_module():
    game = scripted([5, 9])
    assert game.decision(0).fillers == ()
    refused_turn(game, 0, "place 5@0,0r0; fill F1@3,0r0", "no fillers")


def test_6_3_a_turn_that_only_rejects_or_reserves_builds_no_filler():
    game = scripted([5, 9, 1], variant="two_of_three", fillers=True, specials=("reserve",))
    refused_turn(game, 0, "reject; fill F1@0,0r0", "extras without tile")
    refused_turn(game, 0, "reserve; fill F1@0,0r0", "extras without tile")
    game.play(0, T("reject"))


def test_6_3_a_filler_never_moves():
    with pytest.raises(InvalidMove, match="number tile"):
        T("move F1@3,0r0 to F1@6,0r0")
    board = Board(TWO + " F1@6,0r0")
    error = pytest.raises(IllegalPlacement, board.remove, P("F1@6,0r0")).value
    assert error.reason == NOT_MOVABLE


# ----------------------------------------------------------------- 6.4 breaking rules


def test_6_4_special_tiles_in_play_drawn_from_the_seed_or_chosen():
    drawn = set()
    for seed in range(30):
        game = Game(2, seed=seed, options=Options(specials="random2"))
        assert len(game.specials) == 2 and set(game.specials) <= set(SPECIALS)
        assert game.specials == Game(2, seed=seed, options=Options(specials="random2")).specials
        assert game.decision(0).specials == game.specials and game.decision(0).markers == 2
        drawn.add(game.specials)
    assert len(drawn) > 5
    chosen = Game(1, seed=3, options=Options(specials=("loose", "move", "one")))
    assert chosen.specials == ("move", "one", "loose")
    assert Game(1, seed=3).decision(0).specials == () and Game(1, seed=3).decision(0).markers == 0


def test_6_4_a_special_tile_not_in_play_is_refused():
    game = scripted([5, 9, 1], specials=("one",))
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("place 9@3,0r0"))
    error = refused_turn(game, 0, "place 1@2,0r1 with loose", "special not in play")
    assert error.params["special"] == "loose"
    refused_turn(game, 0, "place 1@2,0r1; move 5@0,0r0 to 5@0,4r0", "special not in play")


def test_6_4_each_special_tile_once_per_player():
    game = scripted([5, 9, 1, 1], specials=("one", "loose"))
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("place 9@3,0r0"))
    game.play(0, T("place 1@1,0r0 with one"))
    assert game.board(0).tiles[-1] == (P("1@1,0r0"), 1)
    assert game.decision(0).specials == ("loose",) and game.decision(0).markers == 1
    refused_turn(game, 0, "place 1@3,0r0 with one", "special used")


def test_6_4_no_marker_left():
    game = scripted([5, 9, 5, 9, 1, 1, 0], specials=SPECIALS)
    for text in ("place 5@0,0r0", "place 9@3,0r0", "place 5@0,4r2", "place 9@3,4r2"):
        game.play(0, T(text))
    # two markers, two special tiles in one turn (the 1 rests on the upper 5 alone)
    game.play(0, T("place 1@1,0r0 with one,loose"))
    assert game.decision(0).markers == 0 and game.decision(0).specials == ()
    error = refused_turn(game, 0, "place 1@2,0r1 with bridge", "no marker left")
    assert error.params["special"] == "bridge"
    refused_turn(game, 0, "reserve", "no marker left")


def test_6_4_three_markers_in_two_of_three():
    game = scripted([5], variant="two_of_three", specials=SPECIALS)
    assert game.decision(0).markers == 3


def test_6_4_move_takes_an_uncovered_tile_before_or_after_the_turns_tile():
    game = scripted([5, 9, 1, 1, 7], specials=("move",))
    for text in ("place 5@0,0r0", "place 9@3,0r0", "place 1@6,0r0"):
        game.play(0, T(text))
    assert game.score(0) == 0
    # the 1 beside the 9 goes back to level 0 elsewhere, then the new 1 lies on level 1
    game.play(0, T("move 1@6,0r0 to 1@-2,0r0; place 1@2,0r1"))
    tiles = game.board(0).tiles
    assert (P("1@-2,0r0"), 0) in tiles and (P("1@6,0r0"), 0) not in tiles
    assert tiles[-1] == (P("1@2,0r1"), 1) and game.score(0) == 1
    assert game.decision(0).specials == ()


def test_6_4_a_moved_tile_keeps_its_number_and_scores_by_its_new_level():
    game = scripted([5, 9, 1, 7], specials=("move",))
    for text in ("place 5@0,0r0", "place 9@3,0r0", "place 1@2,0r1"):
        game.play(0, T(text))
    assert game.score(0) == 1
    # first the 7, then the 1 comes down from level 1 to level 0
    target = next(
        p for p in level_zero_targets(game, P("1@2,0r1")) if not p.cells() & P("7@6,0r0").cells()
    )
    game.play(0, T(f"place 7@6,0r0; move 1@2,0r1 to {target}"))
    assert game.score(0) == 0
    assert (target, 0) in game.board(0).tiles


def level_zero_targets(game, source):
    board = game.board(0)
    board.remove(source)
    return [p for p in board.legal_placements(source.piece, max_level=0) if p != source]


def test_6_4_move_of_a_covered_tile_is_refused():
    game = scripted([5, 9, 1, 7], specials=("move",))
    for text in ("place 5@0,0r0", "place 9@3,0r0", "place 1@2,0r1"):
        game.play(0, T(text))
    error = refused_turn(game, 0, "move 5@0,0r0 to 5@-3,4r0; place 7@6,0r0", "covered")
    assert error.reason == COVERED and error.params["placement"] == "5@0,0r0"
    refused_turn(game, 0, "move 8@0,0r0 to 8@-3,4r0; place 7@6,0r0", "not in display")


def test_6_4_move_to_a_higher_level_is_refused():
    game = scripted([5, 9, 1, 7], specials=("move",))
    for text in ("place 5@0,0r0", "place 9@3,0r0", "place 1@6,0r0"):
        game.play(0, T(text))
    # 1@2,0r1 would lie on the 5 and the 9: level 1, higher than the 1's level 0
    error = refused_turn(game, 0, "move 1@6,0r0 to 1@2,0r1; place 7@-3,0r0", "too high")
    assert error.params["max_level"] == 0
    refused_turn(game, 0, "move 1@6,0r0 to 1@6,0r0; place 7@-3,0r0", "move nowhere")


def test_6_4_black_builds_the_mirrored_tile_which_scores_nothing():
    game = scripted([5, 9, 7, 7], specials=("black",))
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("place 9@3,0r0"))
    refused_turn(game, 0, "place 7m@1,0r0", "mirrored without black")
    refused_turn(game, 0, "place 7@2,0r0 with black", "black not mirrored")
    game.play(0, T("place 7m@1,0r0 with black"))
    assert game.board(0).tiles[-1] == (P("7m@1,0r0"), 1)
    assert game.score(0) == 0


def test_6_4_one_lets_a_tile_rest_on_a_single_tile():
    game = scripted([5, 9, 1], specials=("one",))
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("place 9@3,0r0"))
    refused_turn(game, 0, "place 1@1,0r0", "one support")
    game.play(0, T("place 1@1,0r0 with one"))
    assert game.board(0).tiles[-1] == (P("1@1,0r0"), 1) and game.score(0) == 1


def test_6_4_bridge_needs_closed_gap():
    board = Board(ZEROS)
    placement = P("9@1,0r0")  # its left column covers the hole (1, 1), (1, 2) of the first 0
    assert {(1, 1), (1, 2)} <= placement.cells()
    board_refuses(board, placement, GAP)
    assert board.level_of(placement, relax={"bridge"}) == 1
    assert reference_level_ok(board, placement, {"bridge"})
    game = scripted([0, 0, 9], specials=("bridge",))
    game.play(0, T("place 0@0,0r0"))
    game.play(0, T("place 0@3,0r0"))
    refused_turn(game, 0, "place 9@1,0r0", "gap")
    game.play(0, T("place 9@1,0r0 with bridge"))
    assert game.board(0).tiles[-1] == (placement, 1) and game.score(0) == 9


def test_6_4_bridge_refused_over_an_open_gap():
    board = Board(TWO)
    # the 1's stem crosses (1, 2), which is open to the left of the 5
    placement = P("1@0,0r0")
    error = board_refuses(board, placement, OPEN_GAP, relax={"bridge"})
    assert error.code == "open gap"
    board_refuses(board, placement, GAP)
    game = scripted([5, 9, 1], specials=("bridge",))
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("place 9@3,0r0"))
    refused_turn(game, 0, "place 1@0,0r0 with bridge", "open gap")


def test_6_4_bridge_refused_when_the_gap_is_only_partly_covered():
    board = Board(ZEROS)
    # covers (4, 1) of the second 0's hole but not (4, 2)
    placement = P("9@2,0r0")
    assert (4, 1) in placement.cells() and (4, 2) not in placement.cells()
    error = board_refuses(board, placement, PARTLY_COVERED_GAP, relax={"bridge"})
    assert error.code == "partly covered gap"
    assert board.reason(P("0@0,0r1"), relax={"bridge"}) == PARTLY_COVERED_GAP


def test_6_4_bridge_still_needs_two_supports_unless_one():
    board = Board(ZEROS)
    # the 1 covers the hole of the first 0 and rests on that 0 alone
    placement = P("1@0,0r0")
    board_refuses(board, placement, ONE_SUPPORT, relax={"bridge"})
    assert board.level_of(placement, relax={"bridge", "one"}) == 1


def test_6_4_loose_needs_no_neighbour_on_level_1_and_up():
    game = scripted([5, 9, 5, 9, 1, 1], specials=("loose",))
    for text in ("place 5@0,0r0", "place 9@3,0r0", "place 5@0,4r2", "place 9@3,4r2"):
        game.play(0, T(text))
    game.play(0, T("place 1@2,0r1"))
    refused_turn(game, 0, "place 1@0,6r1", "not adjacent")
    game.play(0, T("place 1@0,6r1 with loose"))
    assert game.board(0).tiles[-1] == (P("1@0,6r1"), 1) and game.score(0) == 2


def test_6_4_loose_refused_on_level_0():
    board = Board(TWO)
    # on level 0 "loose" lifts nothing: the tile must still touch the display
    board_refuses(board, P("1@10,0r0"), NOT_ADJACENT, relax={"loose"})
    game = scripted([5, 9], specials=("loose", "one", "bridge"))
    game.play(0, T("place 5@0,0r0"))
    for name in ("loose", "one", "bridge"):
        error = refused_turn(game, 0, f"place 9@3,0r0 with {name}", "special on level 0")
        assert error.params["special"] == name
        assert "level" in str(error)


def test_6_4_reserve_kept_then_built():
    game = scripted([5, 8, 9, 1], specials=("reserve",))
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("reserve"))
    decision = game.decision(0)
    assert (
        decision.reserved == 8 and decision.reserved_limit == 0 and decision.cards == ((None, 9),)
    )
    refused_turn(game, 0, "build 8@-3,0r0", "no card")
    refused_turn(game, 0, "place 9@3,0r0; build 9@7,0r0", "not the reserved tile")
    game.play(0, T("place 9@3,0r0"))  # level 0: the reserve is kept
    assert game.decision(0).reserved == 8
    target = placements_on(game, 0, 8, 0)[0]
    game.play(0, T(f"place 1@2,0r1; build {target}"))  # level 1, and built in the same turn
    assert game.board(0).tiles[-1] == (target, 0)
    assert [p.number for p, _ in game.board(0).tiles] == [5, 9, 1, 8]
    assert game.view(0).reserved is None and game.view(0).lost == ()


def test_6_4_reserve_lost_after_the_first_build_on_a_new_highest_level():
    game = scripted([5, 8, 9, 1, 7], specials=("reserve",))
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("reserve"))
    game.play(0, T("place 9@3,0r0"))
    game.play(0, T("place 1@2,0r1"))  # level 1 is higher than level 0, and the 8 stays aside
    assert game.decision(0).reserved is None
    assert game.view(0).lost == (8,)
    refused_turn(game, 0, "place 7@6,0r0; build 8@-3,0r0", "nothing reserved")


def test_6_4_the_reserving_turn_builds_nothing_else():
    game = scripted([5, 8, 9], fillers=True, specials=("reserve", "move"))
    game.play(0, T("place 5@0,0r0"))
    refused_turn(game, 0, "reserve; fill F1@3,0r0", "extras without tile")
    refused_turn(game, 0, "reserve; place 8@3,0r0", "one card")
    game.play(0, T("reserve"))
    refused_turn(game, 0, "reserve", "special used")


def test_6_4_a_reserved_tile_left_unbuilt_at_the_end_is_lost():
    game = scripted([*range(10), *range(10)], specials=("reserve",))
    while game.decision(0).step < 19:
        game.play(0, T(f"place {level0(game, 0, game.decision(0).cards[0][1])}"))
    game.play(0, T("reserve"))
    assert game.is_over() and game.view(0).lost == (9,) and game.view(0).reserved is None


def test_6_4_refusals_name_their_reason_and_code():
    game = scripted([5, 9], specials=("one",))
    error = refused_turn(game, 0, "place 9@0,0r0", "wrong tile")
    assert error.params == {"expected": 5, "got": 9}
    assert str(error) == "the tile to place is a 5, not a 9"
    refused_turn(game, 0, "place 5@0,0r0; place 5@4,0r0", "one card")
    refused_turn(game, 0, "reject", "no rejects")
    refused_turn(game, 0, "place 5@0,0r0 from 1", "no markers")
    with pytest.raises(IllegalPlacement) as info:
        Board(TWO).place(P("1@1,0r0"))
    assert info.value.code == "one support" and info.value.params == {"placement": "1@1,0r0"}
