"""An NMBR 9 display -> SVG. Geometry is computed here; the markup lives in
templates/games/nmbr9/board*.svg and legend.svg.

One user unit is one square of the display. Each number tile has its own colour (as the
physical tiles do); its level shows three ways: the higher the tile, the darker its shade and
the thicker its outline, and from level 1 on a badge with the level sits in another of its
squares than its number's (one no higher tile covers, where it has one). Tiles
on higher levels are drawn later and shifted up-left a little, so stacks read as stacks. A
tile's number is marked ``under`` where a higher tile covers the square it is written on
(pages hide it, except when showing one level at a time). The tile being placed is hatched
with a dashed outline, a look no placed tile has.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from games.nmbr9 import Board, Placement

#: The colour of each number tile, 0-9 (light enough for a dark number on it).
NUMBER_COLOURS = (
    "#8dd3c7",
    "#ffffb3",
    "#bebada",
    "#fb8072",
    "#80b1d3",
    "#fdb462",
    "#b3de69",
    "#fccde5",
    "#d9d9d9",
    "#bc80bd",
)
#: How much darker each level is than the one below (a share of the way to black).
LEVEL_SHADE = 0.13
#: A tile's outline: this wide on level 0, and this much wider per level.
EDGE_WIDTH, EDGE_STEP = 0.07, 0.05
LEVEL_SHIFT = 0.12
MARGIN = 3
MIN_SPAN = 12


@dataclass(frozen=True, slots=True)
class TileShape:
    cells: tuple[tuple[int, int], ...]
    label_cell: tuple[int, int]
    squares: str
    outline: str
    label: str
    label_x: float
    label_y: float
    fill: str
    shift: float
    level: int
    kind: str
    edge: float


#: How the pieces that are not plain number tiles look: the label and the fill.
PIECE_LOOKS = {"filler": ("", "#bdbdbd"), "start": ("S", "#8d6e63")}
MIRRORED_FILL = "#37474f"


def piece_kind(placement: Placement) -> str:
    """ "number", "mirrored" (special tile black), "filler" or "start"."""
    if placement.mirrored:
        return "mirrored"
    return placement.kind


def piece_label(placement: Placement) -> str:
    kind = piece_kind(placement)
    return PIECE_LOOKS[kind][0] if kind in PIECE_LOOKS else str(placement.number)


def _outline(cells: frozenset[tuple[int, int]]) -> str:
    """An SVG path of the edges between a tile's squares and the outside."""
    parts = []
    for x, y in cells:
        if (x, y - 1) not in cells:
            parts.append(f"M{x} {y}h1")
        if (x, y + 1) not in cells:
            parts.append(f"M{x} {y + 1}h1")
        if (x - 1, y) not in cells:
            parts.append(f"M{x} {y}v1")
        if (x + 1, y) not in cells:
            parts.append(f"M{x + 1} {y}v1")
    return "".join(sorted(parts))


def _squares(cells: Iterable[tuple[int, int]]) -> str:
    """An SVG path filling the given unit squares."""
    return "".join(f"M{x} {y}h1v1h-1z" for x, y in sorted(cells))


def _grid(x0: int, y0: int, w: int, h: int) -> str:
    vertical = "".join(f"M{x} {y0}v{h}" for x in range(x0, x0 + w + 1))
    return vertical + "".join(f"M{x0} {y}h{w}" for y in range(y0, y0 + h + 1))


def _label_cell(cells: frozenset[tuple[int, int]]) -> tuple[int, int]:
    """The square nearest the tile's centre of mass, where its number is written."""
    cx = sum(x for x, _ in cells) / len(cells)
    cy = sum(y for _, y in cells) / len(cells)
    return min(cells, key=lambda c: ((c[0] - cx) ** 2 + (c[1] - cy) ** 2, c))


def _number(value: float) -> str:
    """A coordinate as SVG wants it, whatever the language: "0.0", "-0.12"."""
    return repr(round(float(value), 2))


def shade(colour: str, level: int) -> str:
    """``colour`` ("#rrggbb") darkened for ``level``: a step towards black per level."""
    keep = max(0.0, 1 - LEVEL_SHADE * level)
    channels = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c * keep):02x}" for c in channels)


@lru_cache(maxsize=16384)
def tile_shape(placement: Placement, level: int) -> TileShape:
    cells = placement.cells()
    lx, ly = _label_cell(cells)
    shift = -round(LEVEL_SHIFT * level, 2) if level else 0.0
    kind = piece_kind(placement)
    number = placement.number if isinstance(placement.number, int) else 0
    fill = shade(NUMBER_COLOURS[number % len(NUMBER_COLOURS)], level)
    if kind in PIECE_LOOKS:
        fill = PIECE_LOOKS[kind][1]
    elif kind == "mirrored":
        fill = MIRRORED_FILL
    return TileShape(
        cells=tuple(sorted(cells)),
        label_cell=(lx, ly),
        squares=_squares(cells),
        outline=_outline(cells),
        label=piece_label(placement),
        label_x=round(lx + 0.5 + shift, 2),
        label_y=round(ly + 0.5 + shift, 2),
        fill=fill,
        shift=shift,
        level=level,
        kind=kind,
        edge=round(EDGE_WIDTH + EDGE_STEP * level, 2),
    )


def points_by_level(board: Board) -> list[tuple[int, int]]:
    """A display's score by level, from level 1 up (level 0 scores nothing): (level, points)."""
    points: dict[int, int] = {}
    for placement, level in board.tiles:
        number = placement.number  # None: a filler or a start tile, which score nothing
        if level and number is not None and not placement.mirrored:
            points[level] = points.get(level, 0) + number * level
    return [(level, points.get(level, 0)) for level in range(1, board.height())]


@lru_cache(maxsize=1)
def legend() -> SafeString:
    """The picture of one number tile on levels 0-3, for the legend under a board (the same
    for every board: made once)."""
    levels = [
        {
            "level": str(level),
            "fill": shade(NUMBER_COLOURS[5], level),
            "edge": _number(EDGE_WIDTH + EDGE_STEP * level),
            "x": _number(level * 1.4),
        }
        for level in range(4)
    ]
    return SafeString(render_to_string("games/nmbr9/legend.svg", {"legend": levels}).strip())


def _bounds(cells: Iterable[tuple[int, int]]) -> tuple[int, int, int, int]:
    xs, ys = [], []
    for x, y in cells:
        xs.append(x)
        ys.append(y)
    if not xs:
        return -MIN_SPAN // 2, -MIN_SPAN // 2, MIN_SPAN, MIN_SPAN
    x0, y0 = min(xs) - MARGIN, min(ys) - MARGIN
    w, h = max(xs) + 1 + MARGIN - x0, max(ys) + 1 + MARGIN - y0
    if w < MIN_SPAN:
        x0 -= (MIN_SPAN - w) // 2
        w = MIN_SPAN
    if h < MIN_SPAN:
        y0 -= (MIN_SPAN - h) // 2
        h = MIN_SPAN
    return x0, y0, w, h


@lru_cache(maxsize=4096)
def _tiles(tiles: tuple[tuple[Placement, int], ...]) -> tuple[SafeString, tuple]:
    """The markup of a display's tiles, and the squares they cover.

    By level, then by position: never in the order placed, which may be a secret. Boards
    repeat from request to request (an opponent's display, one's own under the moving
    tile), so the markup is kept; a board one tile larger than a kept one reuses the markup
    of the tiles they share.
    """
    shapes = sorted((tile_shape(p, level) for p, level in tiles), key=lambda t: (t.level, t.cells))
    top: dict[tuple[int, int], int] = {}
    for t in shapes:
        for cell in t.cells:
            top[cell] = t.level
    markup = "".join(
        _tile_markup(t, top[t.label_cell] > t.level, _badge_cell(t, top)) for t in shapes
    )
    return SafeString(markup), tuple(c for t in shapes for c in t.cells)


def _badge_cell(t: TileShape, top: dict[tuple[int, int], int]) -> tuple[int, int] | None:
    """The square of ``t`` its level badge sits on: the one nearest its number's square,
    not that one and, where it can be, one no higher tile covers (upper left first); None
    for a piece of one square (the badge then sits in its corner)."""
    others = [cell for cell in t.cells if cell != t.label_cell]
    if not others:
        return None
    lx, ly = t.label_cell
    return min(
        others,
        key=lambda c: (top[c] > t.level, abs(c[0] - lx) + abs(c[1] - ly), c[1], c[0]),
    )


@lru_cache(maxsize=16384)
def _tile_markup(t: TileShape, under: bool, badge: tuple[int, int] | None = None) -> str:
    """One tile's markup (``under``: a higher tile covers its number; ``badge``: the square
    its level badge sits on, None: the corner of its number's square)."""
    if badge is None:
        badge_x, badge_y = t.label_x - 0.32, t.label_y - 0.32
    else:
        badge_x, badge_y = badge[0] + 0.5 + t.shift, badge[1] + 0.5 + t.shift
    tile = {
        "level": str(t.level),
        "kind": t.kind,
        "shift": _number(t.shift),
        "label": t.label,
        "fill": t.fill,
        "edge": _number(t.edge),
        "squares": t.squares,
        "outline": t.outline,
        "label_x": _number(t.label_x),
        "label_y": _number(t.label_y),
        "under": under,
        "badge_x": _number(badge_x),
        "badge_y": _number(badge_y),
    }
    return render_to_string("games/nmbr9/board_tiles.svg", {"tiles": [tile]})


@lru_cache(maxsize=1024)
def _grid_path(x0: int, y0: int, w: int, h: int) -> str:
    return _grid(x0, y0, w, h)


#: A player's own board is drawn at least this many CSS pixels per square where the screen
#: is narrow (the board then scrolls inside its frame).
SQUARE_PX = 30


@lru_cache(maxsize=1024)
def _axes(x0: int, y0: int, w: int, h: int) -> SafeString:
    """The coordinates along the top row and the left column of the view (the markup, made
    once per view: a board keeps its view from preview to preview)."""
    axes = {
        "columns": [(str(x), _number(x + 0.5), _number(y0 + 0.5)) for x in range(x0 + 1, x0 + w)],
        "rows": [(str(y), _number(x0 + 0.5), _number(y + 0.5)) for y in range(y0 + 1, y0 + h)],
    }
    return SafeString(render_to_string("games/nmbr9/board_axes.svg", {"axes": axes}).strip())


def board_svg(
    board: Board,
    *,
    ghost: Placement | None = None,
    ghost_legal: bool = False,
    title: str = "",
    interactive: bool = False,
    css_class: str = "board",
    highlight: Iterable[tuple[Placement, int]] = (),
    coordinates: bool = False,
    spots: Iterable[tuple[int, int]] = (),
) -> SafeString:
    """Render ``board`` (and an optional ghost tile) as inline SVG markup; the tiles in
    ``highlight`` (``(placement, level)``: those just placed, in a replay) are outlined.
    With ``coordinates`` the top row and left column carry the squares' coordinates (for
    placing by coordinates), and the picture has a size in pixels that narrow screens keep
    (``SQUARE_PX`` a square). ``spots``: squares shaded and outlined as the places the ghost
    may go (the squares a tutorial's step accepts it on)."""
    tiles, cells = _tiles(board.tiles)
    spots = frozenset(spots)
    marked = set(highlight)
    highlights = [
        {"outline": shape.outline, "shift": _number(shape.shift)}
        for shape in (tile_shape(p, level) for p, level in board.tiles if (p, level) in marked)
    ]
    ghost_cells = ghost.cells() if ghost is not None else frozenset()
    x0, y0, w, h = _bounds([*cells, *ghost_cells, *spots])
    if ghost is not None:
        label_x, label_y = _label_cell(ghost_cells)
        ghost_context = {
            "squares": _squares(ghost_cells),
            "outline": _outline(ghost_cells),
            "legal": ghost_legal,
            # A gap filler's name ("F2") where a placed filler has no label.
            "label": piece_label(ghost) or ghost.piece,
            "kind": piece_kind(ghost),
            "label_x": _number(label_x + 0.5),
            "label_y": _number(label_y + 0.5),
        }
    context = {
        "tiles": tiles,
        "ghost": ghost_context if ghost is not None else None,
        "highlights": highlights,
        "spots": {"squares": _squares(spots), "outline": _outline(spots)} if spots else None,
        "x0": str(x0),
        "y0": str(y0),
        "w": str(w),
        "h": str(h),
        "grid": _grid_path(x0, y0, w, h),
        "title": title,
        "interactive": interactive,
        "css_class": css_class,
        "axes": _axes(x0, y0, w, h) if coordinates else None,
        "px_w": w * SQUARE_PX,
        "px_h": h * SQUARE_PX,
    }
    return SafeString(render_to_string("games/nmbr9/board.svg", context))
