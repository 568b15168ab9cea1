"""A player's display: the tiles placed so far, the placement rules and the score.

The display is conceptually unbounded; this implementation supports every square with
``-WINDOW <= x <= WINDOW`` and ``-WINDOW <= y <= WINDOW`` (121 x 121 squares). A placement
reaching outside is refused as "out of range". A display started near the centre only gets
there as a nearly straight chain of 15 or more tiles, and even then there is always room for
a legal placement elsewhere along it.

Internally every level keeps three bitboards over that window (Python ints, row-major with a
row stride of 128 bits, so shifting by a tile's cell offsets never wraps a valid square into
the next row): the squares whose top tile lies on the level, the squares covered on the level
and the free squares edge-adjacent to a tile on the level. The ints are stored relative to a
base row near the board's top edge so that they stay small.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .placement import InvalidPlacement, Placement
from .tiles import DISTINCT_ROTATIONS, ORIENTATIONS, SIZES

__all__ = [
    "GAP",
    "NOT_ADJACENT",
    "ONE_SUPPORT",
    "OUT_OF_RANGE",
    "OVERHANG",
    "UNEVEN",
    "WINDOW",
    "Board",
    "IllegalPlacement",
]

#: Largest supported coordinate: every covered square has |x| <= WINDOW and |y| <= WINDOW.
WINDOW = 60

OUT_OF_RANGE = f"out of range: the display ends {WINDOW} squares from its centre"
OVERHANG = "overhang: part of the tile would hang over nothing"
GAP = "gap: the tile would bridge a hole"
UNEVEN = "uneven: the squares beneath are not all at the same height"
ONE_SUPPORT = "needs two tiles beneath: it would rest on a single tile"
NOT_ADJACENT = "not adjacent: it must share an edge with a tile on the same level"

_CODES = {
    OUT_OF_RANGE: "out of range",
    OVERHANG: "overhang",
    GAP: "gap",
    UNEVEN: "uneven",
    ONE_SUPPORT: "one support",
    NOT_ADJACENT: "not adjacent",
}


class IllegalPlacement(ValueError):
    """A placement the rules refuse. ``reason`` is one of the module's reason texts and
    ``code`` its short key ("overhang", "gap", "uneven", "one support", "not adjacent",
    "out of range")."""

    def __init__(self, reason: str, placement: Placement | None = None) -> None:
        super().__init__(reason if placement is None else f"{placement}: {reason}")
        self.reason = reason
        self.code = _CODES.get(reason, reason)
        self.placement = placement


_STRIDE = 128
_ORIGIN = 64
_MARGIN = 4
# A board whose squares all lie within this distance of the centre has no candidate outside
# the window: a new tile is at most 4 squares wide and touches or lies on an existing one.
_SAFE = WINDOW - _MARGIN

_OFFSETS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(cy * _STRIDE + cx for cx, cy in cells) for cells in by_rotation)
    for by_rotation in ORIENTATIONS
)
_MASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << off for off in offsets) for offsets in by_rotation) for by_rotation in _OFFSETS
)
_new_placement = Placement._unchecked


def _index(x: int, y: int) -> int:
    return (y + _ORIGIN) * _STRIDE + x + _ORIGIN


def _bits(mask: int) -> Iterator[int]:
    """The positions of the set bits of ``mask`` in increasing order."""
    text = bin(mask)[:1:-1]
    find = text.find
    i = find("1")
    while i >= 0:
        yield i
        i = find("1", i + 1)


def _check_number(number: object) -> int:
    if isinstance(number, bool) or not isinstance(number, int):
        raise InvalidPlacement(f"tile number must be a whole number, not {number!r}")
    if not 0 <= number <= 9:
        raise InvalidPlacement(f"tile number must be 0-9, not {number}")
    return number


def _missing_support_reason(placement: Placement, empty: list[bool]) -> str:
    """OVERHANG if an unsupported square sticks out, GAP if every one is bridged."""
    cells = placement.offsets()
    supported = [cell for cell, hole in zip(cells, empty, strict=True) if not hole]
    for (cx, cy), hole in zip(cells, empty, strict=True):
        if not hole:
            continue
        row = [sx for sx, sy in supported if sy == cy]
        column = [sy for sx, sy in supported if sx == cx]
        across = any(sx < cx for sx in row) and any(sx > cx for sx in row)
        along = any(sy < cy for sy in column) and any(sy > cy for sy in column)
        if not (across or along):
            return OVERHANG
    return GAP


class Board:
    """One player's display.

    >>> b = Board()
    >>> b.place(Placement(5, 0, 0, 0))
    0
    >>> b.place(Placement(9, 3, 0, 0))
    0
    >>> print(b)
    level 0:
    555999
    555999
    ..599.
    55599.
    >>> len(b.legal_placements(1))
    116
    >>> b.is_legal(Placement(1, 1, 0, 0))
    False
    >>> try:
    ...     b.place(Placement(1, 1, 0, 0))
    ... except IllegalPlacement as refused:
    ...     print(refused.reason)
    needs two tiles beneath: it would rest on a single tile
    >>> b.place(Placement(1, 2, 0, 1))
    1
    >>> b.score(), b.height(), len(b)
    (1, 2, 3)
    >>> b == Board("5@0,0r0 9@3,0r0 1@2,0r1")
    True
    """

    __slots__ = (
        "_base",
        "_bounds",
        "_neighbours",
        "_occupied",
        "_score",
        "_tiles",
        "_top",
        "_top_masks",
    )

    def __init__(self, placements: Iterable[Placement | str] | str = ()) -> None:
        self._tiles: list[tuple[Placement, int]] = []
        self._top: dict[int, int] = {}
        self._base = 0
        self._top_masks: list[int] = []
        self._occupied: list[int] = []
        self._neighbours: list[int] = []
        self._score = 0
        self._bounds: tuple[int, int, int, int] | None = None
        if isinstance(placements, str):
            placements = placements.split()
        for placement in placements:
            if isinstance(placement, str):
                placement = Placement.parse(placement)
            self.place(placement)

    @classmethod
    def from_placements(cls, placements: Iterable[Placement | str]) -> Board:
        """Place ``placements`` in order on an empty board (IllegalPlacement on a bad one)."""
        return cls(placements)

    # ----------------------------------------------------------------- reading the board

    @property
    def tiles(self) -> tuple[tuple[Placement, int], ...]:
        """Every tile placed, as ``(placement, level)`` in placement order."""
        return tuple(self._tiles)

    @property
    def placements(self) -> tuple[Placement, ...]:
        return tuple(p for p, _ in self._tiles)

    def __len__(self) -> int:
        return len(self._tiles)

    def height(self) -> int:
        """How many levels are in use (0 for an empty board)."""
        return len(self._top_masks)

    def score(self) -> int:
        """Sum over the tiles of number x level."""
        return self._score

    def bounds(self) -> tuple[int, int, int, int] | None:
        """``(min_x, min_y, max_x, max_y)`` of the covered squares, None when empty."""
        return self._bounds

    def tile_cells(self) -> tuple[tuple[Placement, int, frozenset[tuple[int, int]]], ...]:
        """``(placement, level, squares)`` of every tile in placement order, for drawing."""
        return tuple((p, level, p.cells()) for p, level in self._tiles)

    def top_at(self, x: int, y: int) -> tuple[Placement, int] | None:
        """The tile seen from above on square ``(x, y)`` and its level, or None."""
        if not (-WINDOW <= x <= WINDOW and -WINDOW <= y <= WINDOW):
            return None
        index = self._top.get(_index(x, y))
        return None if index is None else self._tiles[index]

    def notation(self) -> str:
        """The placements in order, separated by spaces (``Board(text)`` reads it back)."""
        return " ".join(str(p) for p, _ in self._tiles)

    def text(self) -> str:
        """Each level as a grid of the tile numbers ('.' = no tile on that level)."""
        if self._bounds is None:
            return "(empty display)"
        min_x, min_y, max_x, max_y = self._bounds
        grids: list[list[list[str]]] = [
            [["."] * (max_x - min_x + 1) for _ in range(max_y - min_y + 1)]
            for _ in range(self.height())
        ]
        for p, level in self._tiles:
            for x, y in p.cells():
                grids[level][y - min_y][x - min_x] = str(p.number)
        blocks = []
        for level in reversed(range(self.height())):
            rows = "\n".join("".join(row) for row in grids[level])
            blocks.append(f"level {level}:\n{rows}")
        return "\n\n".join(blocks)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Board({self.notation()!r})"

    def _content(self) -> frozenset[tuple[int, int, frozenset[tuple[int, int]]]]:
        return frozenset((p.number, level, p.cells()) for p, level in self._tiles)

    def __eq__(self, other: object) -> bool:
        """Boards are equal when they show the same tiles on the same squares and levels."""
        if not isinstance(other, Board):
            return NotImplemented
        if len(self._tiles) != len(other._tiles) or self._score != other._score:
            return False
        return self._tiles == other._tiles or self._content() == other._content()

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> Board:
        board = Board.__new__(Board)
        board._tiles = self._tiles.copy()
        board._top = self._top.copy()
        board._base = self._base
        board._top_masks = self._top_masks.copy()
        board._occupied = self._occupied.copy()
        board._neighbours = self._neighbours.copy()
        board._score = self._score
        board._bounds = self._bounds
        return board

    __copy__ = copy

    # ----------------------------------------------------------------- the rules

    def _probe(self, placement: Placement) -> tuple[int, int] | str:
        """``(level, square index of (x, y))`` of a legal placement, else the reason."""
        if not isinstance(placement, Placement):
            raise InvalidPlacement(f"expected a Placement, not {placement!r}")
        number, x, y, rotation = placement.number, placement.x, placement.y, placement.rotation
        width, height = SIZES[number][rotation]
        if x < -WINDOW or y < -WINDOW or x + width > WINDOW + 1 or y + height > WINDOW + 1:
            return OUT_OF_RANGE
        anchor = (y + _ORIGIN) * _STRIDE + x + _ORIGIN
        top = self._top
        if not top:
            return 0, anchor
        offsets = _OFFSETS[number][rotation]
        get = top.get
        beneath = [get(anchor + off) for off in offsets]
        if None in beneath:
            if beneath.count(None) != len(beneath):
                empty = [index is None for index in beneath]
                return _missing_support_reason(placement, empty)
            level = 0
        else:
            tiles = self._tiles
            first = beneath[0]
            below = tiles[first][1]
            single = True
            for index in beneath:
                if index != first:
                    single = False
                    if tiles[index][1] != below:
                        return UNEVEN
            if single:
                return ONE_SUPPORT
            level = below + 1
            if level == len(self._occupied):
                return level, anchor
        shift = anchor - self._base
        if shift < 0 or not (_MASKS[number][rotation] << shift) & self._neighbours[level]:
            return NOT_ADJACENT
        return level, anchor

    def _locate(self, placement: Placement) -> tuple[int, int]:
        """``(level, square index of (x, y))`` of a legal placement; raises IllegalPlacement."""
        found = self._probe(placement)
        if isinstance(found, str):
            raise IllegalPlacement(found, placement)
        return found

    def level_of(self, placement: Placement) -> int:
        """The level ``placement`` would lie on; raises IllegalPlacement if it is illegal.

        Never changes the board.
        """
        return self._locate(placement)[0]

    def is_legal(self, placement: Placement) -> bool:
        """Whether ``placement`` may be placed now (never raises for a refusal)."""
        return not isinstance(self._probe(placement), str)

    def reason(self, placement: Placement) -> str | None:
        """Why ``placement`` is refused (one of the reason texts), or None if it is legal."""
        found = self._probe(placement)
        return found if isinstance(found, str) else None

    def place(self, placement: Placement) -> int:
        """Place a tile and return its level. An illegal placement changes nothing."""
        level, anchor = self._locate(placement)
        self._add(placement, level, anchor)
        return level

    def _add(self, placement: Placement, level: int, anchor: int) -> None:
        number, rotation = placement.number, placement.rotation
        index = len(self._tiles)
        self._tiles.append((placement, level))
        top = self._top
        for off in _OFFSETS[number][rotation]:
            top[anchor + off] = index

        row = anchor // _STRIDE
        base_row = self._base // _STRIDE
        if index == 0:
            self._base = max(0, row - 2 * _MARGIN) * _STRIDE
        elif row - _MARGIN < base_row:
            new_base = max(0, row - 2 * _MARGIN) * _STRIDE
            up = self._base - new_base
            self._top_masks = [m << up for m in self._top_masks]
            self._occupied = [m << up for m in self._occupied]
            self._neighbours = [m << up for m in self._neighbours]
            self._base = new_base

        mask = _MASKS[number][rotation] << (anchor - self._base)
        if level == len(self._top_masks):
            self._top_masks.append(0)
            self._occupied.append(0)
            self._neighbours.append(0)
        if level:
            self._top_masks[level - 1] &= ~mask
        self._top_masks[level] |= mask
        occupied = self._occupied[level] | mask
        self._occupied[level] = occupied
        grown = mask << 1 | mask >> 1 | mask << _STRIDE | mask >> _STRIDE
        self._neighbours[level] = (self._neighbours[level] | grown) & ~occupied

        self._score += number * level
        width, height = SIZES[number][rotation]
        x, y = placement.x, placement.y
        if self._bounds is None:
            self._bounds = (x, y, x + width - 1, y + height - 1)
        else:
            min_x, min_y, max_x, max_y = self._bounds
            self._bounds = (
                min(min_x, x),
                min(min_y, y),
                max(max_x, x + width - 1),
                max(max_y, y + height - 1),
            )

    # ----------------------------------------------------------------- move generation

    def legal_moves(self, number: int) -> list[tuple[Placement, int]]:
        """Every legal placement of tile ``number`` with the level it would lie on.

        Each distinct set of covered squares appears once (0 and 8 only with rotations 0 and
        1), ordered by level, rotation, y and x. On an empty board: the distinct
        orientations at (0, 0).
        """
        number = _check_number(number)
        rotations = range(DISTINCT_ROTATIONS[number])
        if not self._tiles:
            return [(_new_placement(number, 0, 0, r), 0) for r in rotations]
        base = self._base
        min_x, min_y, max_x, max_y = self._bounds  # type: ignore[misc]
        near_edge = min(min_x, min_y) < -_SAFE or max(max_x, max_y) > _SAFE
        offsets_by_rotation = _OFFSETS[number]
        moves: list[tuple[Placement, int]] = []
        append = moves.append

        free = self._neighbours[0]
        taken = self._occupied[0]
        for rotation in rotations:
            offsets = offsets_by_rotation[rotation]
            touching = 0
            blocked = 0
            for off in offsets:
                touching |= free >> off
                blocked |= taken >> off
            anchors = touching & ~blocked
            if not anchors:
                continue
            for bit in _bits(anchors):
                row, col = divmod(bit + base, _STRIDE)
                placement = _new_placement(number, col - _ORIGIN, row - _ORIGIN, rotation)
                if near_edge and not self._in_window(placement):
                    continue
                append((placement, 0))

        top = self._top
        levels = len(self._top_masks)
        for level in range(1, levels + 1):
            below = self._top_masks[level - 1]
            if not below:
                continue
            neighbours = self._neighbours[level] if level < levels else 0
            for rotation in rotations:
                offsets = offsets_by_rotation[rotation]
                anchors = below >> offsets[0]
                for off in offsets[1:]:
                    anchors &= below >> off
                    if not anchors:
                        break
                if not anchors:
                    continue
                if neighbours:
                    touching = 0
                    for off in offsets:
                        touching |= neighbours >> off
                    anchors &= touching
                    if not anchors:
                        continue
                first, rest = offsets[0], offsets[1:]
                for bit in _bits(anchors):
                    anchor = bit + base
                    support = top[anchor + first]
                    for off in rest:
                        if top[anchor + off] != support:
                            row, col = divmod(anchor, _STRIDE)
                            placement = _new_placement(
                                number, col - _ORIGIN, row - _ORIGIN, rotation
                            )
                            append((placement, level))
                            break
        return moves

    def legal_placements(self, number: int) -> list[Placement]:
        """Every legal placement of tile ``number`` (see ``legal_moves``)."""
        return [placement for placement, _ in self.legal_moves(number)]

    @staticmethod
    def _in_window(placement: Placement) -> bool:
        width, height = placement.size
        x, y = placement.x, placement.y
        return min(x, y) >= -WINDOW and max(x + width, y + height) <= WINDOW + 1
