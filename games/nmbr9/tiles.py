"""The NMBR 9 pieces and their orientations: number tiles 0-9, and the NMBR 9 ++ pieces.

Cells are ``(x, y)`` unit squares, x to the right and y downward, with the origin at the
top-left corner of the piece's bounding box. A piece may be turned in quarter turns
clockwise. A number tile is never mirrored, except as the special tile "black": turned over,
its shape is the upright shape reflected left-right (``x -> width - 1 - x``), then turned as
usual. NMBR 9 ++ adds the start tiles S1-S6 and the gap fillers F1 and F2; none of them
scores, and neither does a mirrored tile.

Every shape has a small whole number, its *shape index*, by which the tables below are
indexed: the number tiles 0-9 are their own index, a mirrored number tile ``n`` is
``10 + n``, then F1, F2 and S1-S6 (``SHAPE_INDEX``).

>>> SHAPES[1]
((0, 0), (1, 0), (1, 1), (1, 2), (1, 3))
>>> DISTINCT_ROTATIONS[0], DISTINCT_ROTATIONS[7]
(2, 4)
>>> oriented_cells(1, 1)
((3, 0), (0, 1), (1, 1), (2, 1), (3, 1))
>>> MIRRORED[1]
((0, 0), (1, 0), (0, 1), (0, 2), (0, 3))
>>> shape_index("F2"), shape_index(7, mirrored=True), VALUES[shape_index(7, mirrored=True)]
(21, 17, 0)
"""

from __future__ import annotations

from types import MappingProxyType

NUMBERS = range(10)
ROTATIONS = range(4)
FILLERS = ("F1", "F2")
START_TILES = ("S1", "S2", "S3", "S4", "S5", "S6")
#: Every piece: the numbers 0-9, the gap fillers and the start tiles.
PIECES: tuple[int | str, ...] = (*NUMBERS, *FILLERS, *START_TILES)

#: The upright tiles as text, one string per row ("#" = square of the tile).
ROWS: MappingProxyType[int, tuple[str, ...]] = MappingProxyType(
    {
        0: ("###", "#.#", "#.#", "###"),
        1: ("##", ".#", ".#", ".#"),
        2: (".##", ".##", "##.", "###"),
        3: ("###", "..#", ".##", "###"),
        4: (".##", ".#.", "###", ".##"),
        5: ("###", "###", "..#", "###"),
        6: ("##.", "#..", "###", "###"),
        7: ("###", ".#.", "##.", "#.."),
        8: (".##", ".##", "##.", "##."),
        9: ("###", "###", "##.", "##."),
    }
)

#: The NMBR 9 ++ pieces as text. The printed start tiles are not known to us: these six
#: shapes are the project's own.
PLUSPLUS_ROWS: MappingProxyType[str, tuple[str, ...]] = MappingProxyType(
    {
        "F1": ("#",),
        "F2": ("##",),
        "S1": ("##..", "##..", "####", "####"),
        "S2": ("#..#", "#..#", "####", "####"),
        "S3": ("####", "####", ".##.", ".##."),
        "S4": (".###", ".###", "###.", "###."),
        "S5": (".##.", "####", "####", ".##."),
        "S6": ("####", "#..#", "#..#", "####"),
    }
)

Cells = tuple[tuple[int, int], ...]


def _cells_from_rows(rows: tuple[str, ...]) -> Cells:
    return tuple((x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "#")


def _normalise(cells) -> Cells:
    min_x = min(cx for cx, _ in cells)
    min_y = min(cy for _, cy in cells)
    return tuple(sorted(((cx - min_x, cy - min_y) for cx, cy in cells), key=lambda c: (c[1], c[0])))


def _rotate(cells: Cells, quarter_turns: int) -> Cells:
    """Turn ``cells`` clockwise (y down: (cx, cy) -> (-cy, cx)) and move them back to (0, 0)."""
    for _ in range(quarter_turns % 4):
        cells = tuple((-cy, cx) for cx, cy in cells)
    return _normalise(cells)


def _mirror(cells: Cells) -> Cells:
    """Reflect ``cells`` left-right within their bounding box."""
    width = max(cx for cx, _ in cells) + 1
    return _normalise([(width - 1 - cx, cy) for cx, cy in cells])


#: ``SHAPES[n]``: the squares of the upright tile ``n`` in row-major order.
SHAPES: MappingProxyType[int, Cells] = MappingProxyType(
    {n: _cells_from_rows(rows) for n, rows in ROWS.items()}
)

#: ``MIRRORED[n]``: the squares of tile ``n`` turned over (special tile "black"), upright.
MIRRORED: MappingProxyType[int, Cells] = MappingProxyType(
    {n: _mirror(cells) for n, cells in SHAPES.items()}
)

#: ``PLUSPLUS_SHAPES[name]``: the squares of a start tile or gap filler, unturned.
PLUSPLUS_SHAPES: MappingProxyType[str, Cells] = MappingProxyType(
    {name: _cells_from_rows(rows) for name, rows in PLUSPLUS_ROWS.items()}
)

#: The unturned squares of every shape, by shape index.
_BY_INDEX: tuple[Cells, ...] = (
    *(SHAPES[n] for n in NUMBERS),
    *(MIRRORED[n] for n in NUMBERS),
    *(PLUSPLUS_SHAPES[name] for name in (*FILLERS, *START_TILES)),
)

#: ``SHAPE_INDEX[(piece, mirrored)]``: the shape index of a piece.
SHAPE_INDEX: MappingProxyType[tuple[int | str, bool], int] = MappingProxyType(
    {
        **{(n, False): n for n in NUMBERS},
        **{(n, True): 10 + n for n in NUMBERS},
        **{(name, False): 20 + i for i, name in enumerate((*FILLERS, *START_TILES))},
    }
)

#: ``PIECE_OF[index]``: the piece and whether it is mirrored, by shape index.
PIECE_OF: tuple[tuple[int | str, bool], ...] = tuple(
    sorted(SHAPE_INDEX, key=SHAPE_INDEX.__getitem__)
)

#: ``ORIENTATIONS[i][r]``: the squares of shape ``i`` turned ``r`` quarter turns clockwise,
#: shifted so that its bounding box's top-left corner is at ``(0, 0)``. For the number tiles
#: the shape index is the number.
ORIENTATIONS: tuple[tuple[Cells, ...], ...] = tuple(
    tuple(_rotate(cells, r) for r in ROTATIONS) for cells in _BY_INDEX
)

#: ``ROTATIONS_OF[i]``: how many different shapes shape ``i`` shows when turned; rotations
#: ``0 .. ROTATIONS_OF[i] - 1`` are the distinct ones.
ROTATIONS_OF: tuple[int, ...] = tuple(len(set(by_rotation)) for by_rotation in ORIENTATIONS)

#: How many different shapes each number tile shows when turned (0 and 8 look the same
#: upside down).
DISTINCT_ROTATIONS: MappingProxyType[int, int] = MappingProxyType(
    {n: ROTATIONS_OF[n] for n in NUMBERS}
)

#: Squares per number tile.
SQUARES: MappingProxyType[int, int] = MappingProxyType({n: len(SHAPES[n]) for n in NUMBERS})

#: ``SIZES[i][r]``: (width, height) of the bounding box of shape ``i`` at rotation ``r``.
SIZES: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((max(cx for cx, _ in cells) + 1, max(cy for _, cy in cells) + 1) for cells in by_rotation)
    for by_rotation in ORIENTATIONS
)

#: ``VALUES[i]``: the points per level of shape ``i``: the number for an upright number tile,
#: 0 for a mirrored tile, a start tile or a gap filler.
VALUES: tuple[int, ...] = tuple(
    piece if isinstance(piece, int) and not mirrored else 0 for piece, mirrored in PIECE_OF
)


def shape_index(piece: int | str, mirrored: bool = False) -> int:
    """The shape index of ``piece`` (KeyError for an unknown piece or a mirrored non-number)."""
    return SHAPE_INDEX[piece, mirrored]


def oriented_cells(number: int, rotation: int) -> Cells:
    """The squares of tile ``number`` turned ``rotation`` quarter turns, top-left at (0, 0)."""
    return ORIENTATIONS[number][rotation]


def canonical_rotation(number: int, rotation: int) -> int:
    """The smallest rotation giving the same shape (0 and 8: a half turn changes nothing).

    >>> canonical_rotation(8, 3), canonical_rotation(7, 3)
    (1, 3)
    """
    return rotation % DISTINCT_ROTATIONS[number]
