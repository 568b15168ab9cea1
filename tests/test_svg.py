import re

from games.nmbr9 import Board, Placement
from games.web.nmbr9.svg import LEVEL_COLOURS, board_svg


def test_an_empty_board_is_a_grid():
    svg = board_svg(Board())
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert 'class="tile' not in svg
    assert 'viewBox="-6 -6 12 12"' in svg


def test_tiles_are_drawn_per_level_with_their_numbers():
    board = Board.from_placements([Placement(5, 0, 0, 0), Placement(9, 3, 0, 0)])
    board.place(next(p for p in board.legal_placements(1) if board.level_of(p) == 1))
    svg = board_svg(board)
    drawn = re.findall(r'class="tile level-(\d) number" transform="translate\(([-\d.]+) ', svg)
    assert drawn == [("0", "0.0"), ("0", "0.0"), ("1", "-0.12")]
    assert LEVEL_COLOURS[0] in svg and LEVEL_COLOURS[1] in svg
    for number in (5, 9, 1):
        assert f">{number}</text>" in svg
    assert svg.count("h1v1h-1z") == 10 + 10 + 5


def test_the_ghost_is_green_when_legal_and_red_when_not():
    board = Board.from_placements([Placement(5, 0, 0, 0)])
    legal = board.legal_placements(4)[0]
    assert 'data-ghost="legal"' in board_svg(board, ghost=legal, ghost_legal=True)
    illegal = Placement(4, 0, 0, 0)
    assert 'data-ghost="illegal"' in board_svg(board, ghost=illegal, ghost_legal=False)


def test_the_view_box_covers_every_tile_and_the_ghost():
    board = Board.from_placements([Placement(0, 10, 10, 0)])
    svg = board_svg(board, ghost=Placement(7, -20, 3, 2))
    x0, y0, w, h = map(int, re.search(r'viewBox="([-\d]+) ([-\d]+) (\d+) (\d+)"', svg).groups())
    assert x0 <= -20 and x0 + w >= 13 and y0 <= 3 and y0 + h >= 14


def test_start_tiles_fillers_and_mirrored_tiles_are_drawn_distinctly():
    board = Board.from_tiles(
        [
            (Placement.parse("S2@0,0r0"), 0),
            (Placement.parse("7m@5,0r0"), 0),
            (Placement.parse("F1@0,5r0"), 0),
        ]
    )
    svg = board_svg(board)
    kinds = re.findall(r'data-number="([^"]*)" data-level="0" data-kind="(\w+)"', svg)
    assert sorted(kinds) == [("", "filler"), ("7", "mirrored"), ("S", "start")]
    assert "None" not in svg
