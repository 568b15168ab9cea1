import re

from games.nmbr9 import Board, Placement
from games.web.nmbr9.svg import NUMBER_COLOURS, board_svg, points_by_level, shade


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
    # each number its own colour, a level darker per level, the level in a badge
    assert f'fill="{NUMBER_COLOURS[5]}"' in svg and f'fill="{NUMBER_COLOURS[9]}"' in svg
    assert f'fill="{shade(NUMBER_COLOURS[1], 1)}"' in svg
    badge = r'class="level-badge" data-level="(\d)"><circle[^>]*/><text[^>]*>(\d)<'
    assert re.findall(badge, svg) == [("1", "1")]
    widths = re.findall(r'class="edge" stroke-width="([\d.]+)"', svg)
    assert float(widths[2]) > float(widths[0]) == float(widths[1])
    for number in (5, 9, 1):
        assert f">{number}</text>" in svg
    assert svg.count("h1v1h-1z") == 10 + 10 + 5


def test_the_ghost_is_green_when_legal_and_red_when_not():
    board = Board.from_placements([Placement(5, 0, 0, 0)])
    legal = board.legal_placements(4)[0]
    assert 'data-ghost="legal"' in board_svg(board, ghost=legal, ghost_legal=True)
    illegal = Placement(4, 0, 0, 0)
    assert 'data-ghost="illegal"' in board_svg(board, ghost=illegal, ghost_legal=False)


def test_a_gap_filler_being_placed_shows_its_name_in_its_dot():
    board = Board.from_placements([Placement(5, 0, 0, 0)])
    svg = board_svg(board, ghost=Placement("F2", 3, 0, 0), ghost_legal=True)
    assert re.search(r'<text class="label long"[^>]*data-ghost-label>F2</text>', svg)
    placed = board_svg(Board.from_placements([Placement(5, 0, 0, 0), Placement("F2", 3, 0, 0)]))
    assert ">F2<" not in placed  # a placed filler has no label
    number = board_svg(board, ghost=Placement(4, 3, 0, 0), ghost_legal=True)
    assert re.search(r'<text class="label"[^>]*data-ghost-label>4</text>', number)


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


def test_levels_are_darker_the_higher_they_lie():
    assert shade("#ffffff", 0) == "#ffffff"
    levels = [shade("#80b1d3", level) for level in range(4)]
    brightness = [sum(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in levels]
    assert brightness == sorted(brightness, reverse=True) and len(set(levels)) == 4


def test_a_covered_number_is_marked_and_the_top_number_is_not():
    board = Board.from_placements([Placement(5, 0, 0, 0), Placement(9, 3, 0, 0)])
    on_top = next(p for p in board.legal_placements(8) if board.level_of(p) == 1)
    board.place(on_top)
    svg = board_svg(board)
    label = r'<text class="label number( under)?"[^>]*>(\d)<'
    labels = {n: bool(u) for u, n in re.findall(label, svg)}
    assert labels["8"] is False  # the top tile's number shows
    assert True in labels.values()  # at least one number below it is covered


def test_the_tile_being_placed_is_hatched_with_a_dashed_outline_no_tile_has():
    board = Board.from_placements([Placement(5, 0, 0, 0)])
    legal = board.legal_placements(4)[0]
    svg = board_svg(board, ghost=legal, ghost_legal=True)
    assert 'id="hatch-legal"' in svg and 'fill="url(#hatch-legal)"' in svg
    illegal = board_svg(board, ghost=Placement(4, 0, 0, 0), ghost_legal=False)
    assert 'fill="url(#hatch-illegal)"' in illegal
    # the number of the moving tile sits on a dot of its own, not on the number beneath
    assert re.search(r'<circle class="label-dot"[^>]*/><text class="label"[^>]*>4</text>', svg)


def test_the_own_board_carries_coordinates_and_a_size_in_pixels():
    board = Board.from_placements([Placement(0, 0, 0, 0)])
    svg = board_svg(board, coordinates=True)
    x0, y0, w, h = map(int, re.search(r'viewBox="([-\d]+) ([-\d]+) (\d+) (\d+)"', svg).groups())
    assert f'width="{w * 30}" height="{h * 30}"' in svg
    axes = re.search(r"<g class=\"axes\"[^>]*>(.*?)</g>", svg).group(1)
    numbers = re.findall(r">(-?\d+)</text>", axes)
    assert "0" in numbers and str(x0 + 1) in numbers and str(y0 + 1) in numbers
    assert "data-coordinates" not in board_svg(board)


def test_points_by_level_add_up_to_the_score():
    board = Board.from_placements([Placement(5, 0, 0, 0), Placement(9, 3, 0, 0)])
    board.place(next(p for p in board.legal_placements(8) if board.level_of(p) == 1))
    assert points_by_level(board) == [(1, 8)] and board.score() == 8
    assert points_by_level(Board.from_placements([Placement(5, 0, 0, 0)])) == []


def test_a_tile_on_an_identical_one_is_outlined_alone():
    five = Placement(5, 0, 0, 0)
    board = Board.from_tiles([(five, 0), (five, 1)])
    svg = board_svg(board, highlight=[(five, 1)])
    (shift,) = re.findall(r'class="placed-now" transform="translate\(([-\d.]+) ', svg)
    assert float(shift) < 0  # the outline of the tile on level 1, drawn raised


def _stacked_boards(seeds: range) -> list[Board]:
    """Displays of every number twice, each tile placed as high as it may go."""
    import random

    boards = []
    for seed in seeds:
        rng = random.Random(seed)
        numbers = [n for n in range(10) for _ in range(2)]
        rng.shuffle(numbers)
        board = Board()
        for number in numbers:
            moves = board.legal_moves(number)
            if moves:
                high = max(level for _spot, level in moves)
                board.place(rng.choice([p for p, level in moves if level == high]))
        boards.append(board)
    return boards


def test_level_badges_cover_no_number():
    """A badge (a circle of radius .25) keeps clear of every number shown (.8 high, up to
    .6 wide with two digits' room), its own tile's first."""
    label = r'<text class="label number( under)?" x="([-\d.]+)" y="([-\d.]+)" data-level="\d">'
    circle = r'<circle cx="([-\d.]+)" cy="([-\d.]+)" r="\.25"/>'
    checked = 0
    for board in _stacked_boards(range(12)):
        svg = board_svg(board)
        shown = [(float(x), float(y)) for under, x, y in re.findall(label, svg) if not under]
        badges = [(float(x), float(y)) for x, y in re.findall(circle, svg)]
        assert len(badges) == sum(1 for _p, level in board.tiles if level)
        for bx, by in badges:
            for lx, ly in shown:
                nearest_x = min(max(bx, lx - 0.3), lx + 0.3)
                nearest_y = min(max(by, ly - 0.4), ly + 0.4)
                assert (bx - nearest_x) ** 2 + (by - nearest_y) ** 2 > 0.25**2, (bx, by, lx, ly)
            checked += 1
    assert checked > 30


def test_the_tutorials_spots_are_shaded_green_over_every_tile():
    """The shading of the spots a tutorial's step takes, laid over any tile at any level or
    over the empty board, is clearly green (not a grey), and its outline stands out."""
    from pathlib import Path

    from games.web.nmbr9 import svg

    css = (Path(svg.__file__).parent / "static/nmbr9/nmbr9.css").read_text()
    rule = re.search(r"\.spot-squares \{ fill: rgba\((\d+), (\d+), (\d+), ([\d.]+)\)", css)
    assert rule is not None
    *shading, alpha = (float(v) for v in rule.groups())
    grounds = [shade(colour, level) for colour in NUMBER_COLOURS for level in range(4)]
    for ground in [*grounds, "#fbfaf7"]:
        under = [int(ground[i : i + 2], 16) for i in (1, 3, 5)]
        r, g, b = (alpha * s + (1 - alpha) * u for s, u in zip(shading, under, strict=True))
        assert g >= r + 40 and g >= b + 40, (ground, r, g, b)
