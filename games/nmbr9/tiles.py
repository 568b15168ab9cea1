"""The ten NMBR 9 number tiles and their orientations.

Cells are ``(x, y)`` unit squares, x to the right and y downward, with the origin at the
top-left corner of the tile's bounding box. A tile may be turned in quarter turns clockwise
but never mirrored.

>>> SHAPES[1]
((0, 0), (1, 0), (1, 1), (1, 2), (1, 3))
>>> DISTINCT_ROTATIONS[0], DISTINCT_ROTATIONS[7]
(2, 4)
>>> oriented_cells(1, 1)
((3, 0), (0, 1), (1, 1), (2, 1), (3, 1))
"""

from __future__ import annotations

from types import MappingProxyType

NUMBERS = range(10)
ROTATIONS = range(4)

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


def _cells_from_rows(rows: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "#")


def _rotate(cells: tuple[tuple[int, int], ...], quarter_turns: int) -> tuple[tuple[int, int], ...]:
    """Turn ``cells`` clockwise (y down: (cx, cy) -> (-cy, cx)) and move them back to (0, 0)."""
    for _ in range(quarter_turns % 4):
        cells = tuple((-cy, cx) for cx, cy in cells)
    min_x = min(cx for cx, _ in cells)
    min_y = min(cy for _, cy in cells)
    return tuple(sorted(((cx - min_x, cy - min_y) for cx, cy in cells), key=lambda c: (c[1], c[0])))


#: ``SHAPES[n]``: the squares of the upright tile ``n`` in row-major order.
SHAPES: MappingProxyType[int, tuple[tuple[int, int], ...]] = MappingProxyType(
    {n: _cells_from_rows(rows) for n, rows in ROWS.items()}
)

#: ``ORIENTATIONS[n][r]``: the squares of tile ``n`` turned ``r`` quarter turns clockwise,
#: shifted so that its bounding box's top-left corner is at ``(0, 0)``.
ORIENTATIONS: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
    tuple(_rotate(SHAPES[n], r) for r in ROTATIONS) for n in NUMBERS
)

#: How many different shapes each tile shows when turned (0 and 8 look the same upside down).
DISTINCT_ROTATIONS: MappingProxyType[int, int] = MappingProxyType(
    {n: len(set(ORIENTATIONS[n])) for n in NUMBERS}
)

#: Squares per tile.
SQUARES: MappingProxyType[int, int] = MappingProxyType({n: len(SHAPES[n]) for n in NUMBERS})

#: ``SIZES[n][r]``: (width, height) of the bounding box of tile ``n`` at rotation ``r``.
SIZES: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((max(cx for cx, _ in cells) + 1, max(cy for _, cy in cells) + 1) for cells in by_rotation)
    for by_rotation in ORIENTATIONS
)


def oriented_cells(number: int, rotation: int) -> tuple[tuple[int, int], ...]:
    """The squares of tile ``number`` turned ``rotation`` quarter turns, top-left at (0, 0)."""
    return ORIENTATIONS[number][rotation]


def canonical_rotation(number: int, rotation: int) -> int:
    """The smallest rotation giving the same shape (0 and 8: a half turn changes nothing).

    >>> canonical_rotation(8, 3), canonical_rotation(7, 3)
    (1, 3)
    """
    return rotation % DISTINCT_ROTATIONS[number]
