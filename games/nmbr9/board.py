"""A player's display: the pieces placed so far, the placement rules and the score.

The display is conceptually unbounded; this implementation supports every square with
``-WINDOW <= x <= WINDOW`` and ``-WINDOW <= y <= WINDOW`` (121 x 121 squares). A placement
reaching outside is refused as "out of range". A display started near the centre only gets
there as a nearly straight chain of 15 or more tiles, and even then there is always room for
a legal placement elsewhere along it.

The rules of docs/rules.md §3 apply to every piece. NMBR 9 ++ lifts some of them:

- gap fillers (F1, F2) need not rest on two tiles;
- ``relax`` names the special tiles of docs/rules.md §6.4 that lift a rule for one placement:
  "one" (a single tile beneath is enough), "bridge" (on level 1 or higher the piece may span a
  gap that is closed all round and that it covers completely) and "loose" (on level 1 or
  higher it need not touch a piece on its level);
- ``max_level`` caps the level (variant "level to level");
- ``remove`` takes an uncovered number tile away (special tile "move").

Internally every level keeps three bitboards over that window (Python ints, row-major with a
row stride of 128 bits, so shifting by a piece's cell offsets never wraps a valid square into
the next row): the squares whose top piece lies on the level, the squares covered on the level
and the free squares edge-adjacent to a piece on the level. The ints are stored relative to a
base row near the board's top edge so that they stay small.

Evaluators (the fallback policy, the bots) read the board through a small public interface:
``STRIDE``, ``ORIGIN`` and ``SHAPE_MASKS`` describe the bit layout; ``Board.bitboards``
gives the per-level bitboards and their base; ``Board.kernel_position`` and
``kernel_rules`` are what the compiled kernel (``games.nmbr9.kernel``) reads.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any

from games.contract import IllegalMove

from . import kernel as _kernel
from .placement import (
    InvalidPlacement,
    Placement,
    _check_piece,
    _new,
    _set_mirrored,
    _set_piece,
    _set_rotation,
    _set_x,
    _set_y,
)
from .tiles import ORIENTATIONS, PIECE_OF, ROTATIONS_OF, SHAPE_INDEX, SIZES, VALUES

__all__ = [
    "COVERED",
    "GAP",
    "NOT_ADJACENT",
    "NOT_IN_DISPLAY",
    "NOT_MOVABLE",
    "ONE_SUPPORT",
    "OPEN_GAP",
    "OUT_OF_RANGE",
    "OVERHANG",
    "PARTLY_COVERED_GAP",
    "ORIGIN",
    "RELAXATIONS",
    "SHAPE_MASKS",
    "STRIDE",
    "TOO_HIGH",
    "UNEVEN",
    "WINDOW",
    "Board",
    "IllegalPlacement",
    "kernel_rules",
]

#: Largest supported coordinate: every covered square has |x| <= WINDOW and |y| <= WINDOW.
WINDOW = 60

#: The rules a placement may lift (special tiles "one", "bridge" and "loose").
RELAXATIONS = frozenset({"one", "bridge", "loose"})

OUT_OF_RANGE = f"out of range: the display ends {WINDOW} squares from its centre"
OVERHANG = "overhang: part of the tile would hang over nothing"
GAP = "gap: the tile would bridge a hole"
UNEVEN = "uneven: the squares beneath are not all at the same height"
ONE_SUPPORT = "needs two tiles beneath: it would rest on a single tile"
NOT_ADJACENT = "not adjacent: it must share an edge with a tile on the same level"
OPEN_GAP = "open gap: a bridged gap must be closed all round by tiles"
PARTLY_COVERED_GAP = "gap not covered: a bridging tile must cover the whole gap"
TOO_HIGH = "too high: this tile may only lie on levels 0-{max_level}"
COVERED = "covered: only a tile with nothing on it can be moved"
NOT_MOVABLE = "not movable: start tiles and gap fillers never move"
NOT_IN_DISPLAY = "not in the display: there is no such tile to move"

_CODES = {
    OUT_OF_RANGE: "out of range",
    OVERHANG: "overhang",
    GAP: "gap",
    UNEVEN: "uneven",
    ONE_SUPPORT: "one support",
    NOT_ADJACENT: "not adjacent",
    OPEN_GAP: "open gap",
    PARTLY_COVERED_GAP: "partly covered gap",
    TOO_HIGH: "too high",
    COVERED: "covered",
    NOT_MOVABLE: "not movable",
    NOT_IN_DISPLAY: "not in display",
}


class IllegalPlacement(IllegalMove):
    """A placement the rules refuse. ``reason`` is one of the module's reason texts and
    ``code`` its short key ("overhang", "gap", "uneven", "one support", "not adjacent",
    "out of range", "open gap", "partly covered gap", "too high", "covered", "not movable",
    "not in display"); ``params`` hold ``placement`` (its text) and, for "too high",
    ``max_level``."""

    def __init__(self, reason: str, placement: Placement | None = None, **params: Any) -> None:
        code = _CODES.get(reason, reason)
        text = reason.format(**params) if params else reason
        if placement is not None:
            params = {"placement": str(placement), **params}
        super().__init__(text, code=code, **params)
        if placement is not None:
            self.args = (f"{placement}: {text}",)
        self.placement = placement


#: Bits per row of a bitboard: square (x, y) is bit ``(y + ORIGIN) * STRIDE + x + ORIGIN``
#: (less the board's base, see ``Board.bitboards``). Wider than the window, so shifting a
#: piece's mask never wraps a square into the next row.
STRIDE = 128
#: The offset that makes the window's coordinates non-negative in a bit index.
ORIGIN = 64
_MARGIN = 4
# A board whose squares all lie within this distance of the centre has no candidate outside
# the window: a new piece is at most 4 squares wide and touches or lies on an existing one.
_SAFE = WINDOW - _MARGIN

_OFFSETS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(cy * STRIDE + cx for cx, cy in cells) for cells in by_rotation)
    for by_rotation in ORIENTATIONS
)
#: ``SHAPE_MASKS[shape][rotation]``: the squares a piece covers as a bitboard anchored at
#: bit 0 (shift it left by the bit index of the placement's x, y). ``shape`` is
#: ``Placement.shape``.
SHAPE_MASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << off for off in offsets) for offsets in by_rotation) for by_rotation in _OFFSETS
)
_FILLER_SHAPES = frozenset({SHAPE_INDEX["F1", False], SHAPE_INDEX["F2", False]})
_NUMBER_SHAPES = frozenset(range(20))
_NO_RELAX: frozenset[str] = frozenset()
_new_placement = Placement._unchecked


def _index(x: int, y: int) -> int:
    return (y + ORIGIN) * STRIDE + x + ORIGIN


def _bits(mask: int) -> Iterator[int]:
    """The positions of the set bits of ``mask`` in increasing order."""
    text = bin(mask)[:1:-1]
    find = text.find
    i = find("1")
    while i >= 0:
        yield i
        i = find("1", i + 1)


def _grow(mask: int) -> int:
    """``mask`` and its edge neighbours."""
    return mask | mask << 1 | mask >> 1 | mask << STRIDE | mask >> STRIDE


def _shape_of(piece: object, mirrored: object = False) -> int:
    """The shape index of ``piece`` (InvalidPlacement if it is not a piece)."""
    piece = _check_piece(piece)
    if not isinstance(mirrored, bool):
        raise InvalidPlacement(f"mirrored must be True or False, not {mirrored!r}")
    if mirrored and isinstance(piece, str):
        raise InvalidPlacement(f"only a number tile can be mirrored, not {piece}")
    return SHAPE_INDEX[piece, mirrored]


def _check_relax(relax: object) -> frozenset[str]:
    if isinstance(relax, str) or not isinstance(relax, Collection):
        raise InvalidPlacement(f"relax must be a set of rule names, not {relax!r}")
    relax = frozenset(relax)
    unknown = relax - RELAXATIONS
    if unknown:
        raise InvalidPlacement(
            f"relax names one, bridge or loose, not {', '.join(sorted(map(str, unknown)))}"
        )
    return relax


def _check_max_level(max_level: object) -> int | None:
    if max_level is None:
        return None
    if isinstance(max_level, bool) or not isinstance(max_level, int) or max_level < 0:
        raise InvalidPlacement(f"max_level must be a whole number 0 or more, not {max_level!r}")
    return max_level


def _shape_and_rules(
    piece: object, relax: Collection[str], mirrored: object, max_level: object
) -> tuple[int, Collection[str], int | None]:
    """The shape index of ``piece`` and the checked ``relax`` and ``max_level``
    (InvalidPlacement for a bad one)."""
    if piece.__class__ is int and mirrored is False and 0 <= piece <= 9:
        sid = piece
    else:
        sid = _shape_of(piece, mirrored)
    if relax or max_level is not None:
        relax, max_level = Board._rules(relax, max_level)
    return sid, relax, max_level


def _kernel_rules(
    sid: int, relax: Collection[str], max_level: int | None
) -> tuple[int, int, bool, bool]:
    """The compiled kernel's arguments for the rules (``relax`` without "bridge")."""
    one = "one" in relax or sid in _FILLER_SHAPES
    return sid, -1 if max_level is None else max_level, one, "loose" in relax


def kernel_rules(
    piece: object,
    relax: Collection[str] = frozenset(),
    mirrored: object = False,
    max_level: object = None,
) -> tuple[int, int, bool, bool] | None:
    """The compiled kernel's rule arguments for placing ``piece`` (as ``Board.legal_moves``
    takes them): its shape index, the level cap (-1: none), whether one tile beneath is
    enough and whether it may lie loose. None with "bridge", which the kernel does not know;
    InvalidPlacement for a bad argument.

    >>> kernel_rules(9), kernel_rules("F1", max_level=2), kernel_rules(5, {"bridge"})
    ((9, -1, False, False), (20, 2, True, False), None)
    """
    sid, relax, max_level = _shape_and_rules(piece, relax, mirrored, max_level)
    if "bridge" in relax:
        return None
    return _kernel_rules(sid, relax, max_level)


def _missing_support_reason(offsets: tuple[tuple[int, int], ...], empty: list[bool]) -> str:
    """OVERHANG if an unsupported square sticks out, GAP if every one is bridged."""
    supported = [cell for cell, hole in zip(offsets, empty, strict=True) if not hole]
    for (cx, cy), hole in zip(offsets, empty, strict=True):
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
    ...     print(refused.reason, "/", refused.code)
    needs two tiles beneath: it would rest on a single tile / one support
    >>> b.level_of(Placement(1, 1, 0, 0), relax={"one"})
    1
    >>> b.place(Placement(1, 2, 0, 1))
    1
    >>> b.score(), b.height(), len(b)
    (1, 2, 3)
    >>> b == Board("5@0,0r0 9@3,0r0 1@2,0r1")
    True

    NMBR 9 ++ pieces: a gap filler needs no second support, a mirrored tile scores nothing,
    and an uncovered number tile can be taken away again.

    >>> b.place(Placement.parse("F1@1,1r0"))
    1
    >>> b.place(Placement.parse("7m@6,0r0"))
    0
    >>> b.score(), len(b)
    (1, 5)
    >>> b.remove(Placement.parse("7m@6,0r0"))
    0
    >>> len(b), b.height()
    (4, 2)
    """

    __slots__ = (
        "_base",
        "_bounds",
        "_bridged",
        "_neighbours",
        "_occupied",
        "_score",
        "_shapes",
        "_tiles",
        "_top",
        "_top_masks",
    )

    def __init__(self, placements: Iterable[Placement | str] | str = ()) -> None:
        self._reset()
        if isinstance(placements, str):
            placements = placements.split()
        for placement in placements:
            if isinstance(placement, str):
                placement = Placement.parse(placement)
            self.place(placement)

    def _reset(self) -> None:
        self._tiles: list[tuple[Placement, int]] = []
        self._shapes: list[int] = []
        self._top: dict[int, int] = {}
        self._base = 0
        self._top_masks: list[int] = []
        self._occupied: list[int] = []
        self._neighbours: list[int] = []
        self._score = 0
        self._bounds: tuple[int, int, int, int] | None = None
        self._bridged = False

    @classmethod
    def from_placements(cls, placements: Iterable[Placement | str]) -> Board:
        """Place ``placements`` in order on an empty board (IllegalPlacement on a bad one)."""
        return cls(placements)

    @classmethod
    def from_tiles(cls, tiles: Iterable[tuple[Placement, int]]) -> Board:
        """A display from ``(placement, level)`` pairs in placement order, as ``tiles`` gives
        them: rebuilds displays made with special tiles, which the rules alone would not
        accept again in that order. Only checks that each level fits what lies beneath
        (IllegalPlacement otherwise).

        >>> board = Board("5@0,0r0 9@3,0r0")
        >>> board.place(Placement(1, 1, 0, 0), relax={"one"})
        1
        >>> Board.from_tiles(board.tiles) == board
        True
        """
        board = cls()
        for placement, level in tiles:
            if not isinstance(placement, Placement):
                raise InvalidPlacement(f"expected a Placement, not {placement!r}")
            sid = placement.shape
            width, height = SIZES[sid][placement.rotation]
            x, y = placement.x, placement.y
            if x < -WINDOW or y < -WINDOW or x + width > WINDOW + 1 or y + height > WINDOW + 1:
                raise IllegalPlacement(OUT_OF_RANGE, placement)
            anchor = _index(x, y)
            beneath = [board._top.get(anchor + off) for off in _OFFSETS[sid][placement.rotation]]
            levels = [board._tiles[i][1] for i in beneath if i is not None]
            if max(levels, default=-1) != level - 1:
                raise IllegalPlacement(UNEVEN, placement)
            board._add(placement, sid, level, anchor)
        return board

    # ----------------------------------------------------------------- reading the board

    @property
    def tiles(self) -> tuple[tuple[Placement, int], ...]:
        """Every piece placed, as ``(placement, level)`` in placement order."""
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
        """Sum over the number tiles of number x level (mirrored tiles, start tiles and gap
        fillers score nothing)."""
        return self._score

    def bounds(self) -> tuple[int, int, int, int] | None:
        """``(min_x, min_y, max_x, max_y)`` of the covered squares, None when empty."""
        return self._bounds

    def bitboards(self) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
        """``(base, tops, covered)``: per level, the squares whose top piece lies on it and
        the squares covered on it, as bitboards (see ``STRIDE``) from which ``base`` was
        subtracted from every bit index, for evaluators.

        >>> base, tops, covered = Board("5@0,0r0 9@3,0r0 1@2,0r1").bitboards()
        >>> [m.bit_count() for m in tops], [m.bit_count() for m in covered]
        ([15, 5], [20, 5])
        """
        return self._base, tuple(self._top_masks), tuple(self._occupied)

    def kernel_position(self) -> tuple[list[tuple[Placement, int]], list[int]]:
        """What the compiled kernel reads of the board: the ``(placement, level)`` pairs in
        placement order and their shape indices. The board's own lists, not copies (the
        kernel is called per move): read them, never change them."""
        return self._tiles, self._shapes

    def tile_cells(self) -> tuple[tuple[Placement, int, frozenset[tuple[int, int]]], ...]:
        """``(placement, level, squares)`` of every piece in placement order, for drawing."""
        return tuple((p, level, p.cells()) for p, level in self._tiles)

    def top_at(self, x: int, y: int) -> tuple[Placement, int] | None:
        """The piece seen from above on square ``(x, y)`` and its level, or None."""
        if not (-WINDOW <= x <= WINDOW and -WINDOW <= y <= WINDOW):
            return None
        index = self._top.get(_index(x, y))
        return None if index is None else self._tiles[index]

    def movable(self) -> tuple[tuple[Placement, int], ...]:
        """The number tiles with nothing on them, as ``(placement, level)``: what the special
        tile "move" may take away."""
        top = self._top
        out = []
        for index, (placement, level) in enumerate(self._tiles):
            sid = self._shapes[index]
            if sid >= 20:
                continue
            anchor = _index(placement.x, placement.y)
            if all(top[anchor + off] == index for off in _OFFSETS[sid][placement.rotation]):
                out.append((placement, level))
        return tuple(out)

    def notation(self) -> str:
        """The placements in order, separated by spaces (``Board(text)`` reads it back when
        no special tile was used)."""
        return " ".join(str(p) for p, _ in self._tiles)

    def text(self) -> str:
        """Each level as a grid ('.' = nothing on that level): the number of a number tile,
        ``*`` a mirrored tile, ``+`` a gap filler, ``s`` a start tile."""
        if self._bounds is None:
            return "(empty display)"
        min_x, min_y, max_x, max_y = self._bounds
        grids: list[list[list[str]]] = [
            [["."] * (max_x - min_x + 1) for _ in range(max_y - min_y + 1)]
            for _ in range(self.height())
        ]
        for p, level in self._tiles:
            kind = p.kind
            if kind == "number":
                mark = "*" if p.mirrored else str(p.piece)
            else:
                mark = "+" if kind == "filler" else "s"
            for x, y in p.cells():
                grids[level][y - min_y][x - min_x] = mark
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
        pairs = zip(self._tiles, self._shapes, strict=True)
        return frozenset((sid, level, p.cells()) for (p, level), sid in pairs)

    def __eq__(self, other: object) -> bool:
        """Boards are equal when they show the same pieces on the same squares and levels."""
        if not isinstance(other, Board):
            return NotImplemented
        if len(self._tiles) != len(other._tiles) or self._score != other._score:
            return False
        return self._tiles == other._tiles or self._content() == other._content()

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> Board:
        board = Board.__new__(Board)
        board._tiles = self._tiles.copy()
        board._shapes = self._shapes.copy()
        board._top = self._top.copy()
        board._base = self._base
        board._top_masks = self._top_masks.copy()
        board._occupied = self._occupied.copy()
        board._neighbours = self._neighbours.copy()
        board._score = self._score
        board._bounds = self._bounds
        board._bridged = self._bridged
        return board

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> Board:
        return self.copy()

    # ----------------------------------------------------------------- the rules

    def _probe(
        self,
        placement: Placement,
        relax: frozenset[str] = _NO_RELAX,
        max_level: int | None = None,
    ) -> tuple[int, int, int] | str:
        """``(level, square index of (x, y), shape)`` of a legal placement, else the reason."""
        if not isinstance(placement, Placement):
            raise InvalidPlacement(f"expected a Placement, not {placement!r}")
        piece = placement.piece
        sid = piece if piece.__class__ is int and not placement.mirrored else placement.shape
        x, y, rotation = placement.x, placement.y, placement.rotation
        width, height = SIZES[sid][rotation]
        if x < -WINDOW or y < -WINDOW or x + width > WINDOW + 1 or y + height > WINDOW + 1:
            return OUT_OF_RANGE
        anchor = (y + ORIGIN) * STRIDE + x + ORIGIN
        top = self._top
        if not top:
            return 0, anchor, sid
        offsets = _OFFSETS[sid][rotation]
        get = top.get
        beneath = [get(anchor + off) for off in offsets]
        if None in beneath:
            if beneath.count(None) != len(beneath):
                if relax and "bridge" in relax:
                    return self._bridge(sid, rotation, anchor, beneath, relax, max_level)
                empty = [index is None for index in beneath]
                return _missing_support_reason(ORIENTATIONS[sid][rotation], empty)
            level = 0
        else:
            tiles = self._tiles
            covered: list[int] = beneath  # type: ignore[assignment]  # no None in it here
            first = covered[0]
            below = tiles[first][1]
            single = True
            for index in covered:
                if index != first:
                    single = False
                    if tiles[index][1] != below:
                        if relax and "bridge" in relax:
                            return self._bridge(sid, rotation, anchor, beneath, relax, max_level)
                        return UNEVEN
            if single and not (relax and "one" in relax) and sid not in _FILLER_SHAPES:
                return ONE_SUPPORT
            level = below + 1
            if max_level is not None and level > max_level:
                return TOO_HIGH
            if level == len(self._occupied) or (relax and "loose" in relax):
                return level, anchor, sid
        shift = anchor - self._base
        if shift < 0 or not (SHAPE_MASKS[sid][rotation] << shift) & self._neighbours[level]:
            return NOT_ADJACENT
        return level, anchor, sid

    def _bridge(
        self,
        sid: int,
        rotation: int,
        anchor: int,
        beneath: list[int | None],
        relax: frozenset[str],
        max_level: int | None,
    ) -> tuple[int, int, int] | str:
        """The level of a placement over a gap with "bridge" allowed, or the reason."""
        tiles = self._tiles
        top = self._top
        offsets = _OFFSETS[sid][rotation]
        levels = [-1 if index is None else tiles[index][1] for index in beneath]
        below = max(levels)
        cells = {anchor + off for off in offsets}
        gaps = [anchor + off for off, lv in zip(offsets, levels, strict=True) if lv < below]
        supports = {index for index, lv in zip(beneath, levels, strict=True) if lv == below}

        def low(square: int) -> bool:
            index = top.get(square)
            return index is None or tiles[index][1] < below

        escaping = [
            n
            for g in gaps
            for n in (g - 1, g + 1, g - STRIDE, g + STRIDE)
            if n not in cells and low(n)
        ]
        if escaping:
            return self._gap_reason(escaping, low)
        if len(supports) < 2 and "one" not in relax and sid not in _FILLER_SHAPES:
            return ONE_SUPPORT
        level = below + 1
        if max_level is not None and level > max_level:
            return TOO_HIGH
        if level == len(self._occupied) or "loose" in relax:
            return level, anchor, sid
        shift = anchor - self._base
        if shift < 0 or not (SHAPE_MASKS[sid][rotation] << shift) & self._neighbours[level]:
            return NOT_ADJACENT
        return level, anchor, sid

    def _gap_reason(self, start: list[int], low) -> str:
        """OPEN_GAP if the low squares reached from ``start`` run out of the display,
        PARTLY_COVERED_GAP if they are walled in (a closed gap not covered completely)."""
        min_x, min_y, max_x, max_y = self._bounds  # type: ignore[misc]
        seen = set(start)
        todo = list(start)
        while todo:
            square = todo.pop()
            row, col = divmod(square, STRIDE)
            x, y = col - ORIGIN, row - ORIGIN
            if not (min_x <= x <= max_x and min_y <= y <= max_y):
                return OPEN_GAP
            for n in (square - 1, square + 1, square - STRIDE, square + STRIDE):
                if n not in seen and low(n):
                    seen.add(n)
                    todo.append(n)
        return PARTLY_COVERED_GAP

    def _locate(
        self,
        placement: Placement,
        relax: frozenset[str] = _NO_RELAX,
        max_level: int | None = None,
    ) -> tuple[int, int, int]:
        """``(level, square index of (x, y), shape)`` of a legal placement; raises
        IllegalPlacement."""
        found = self._probe(placement, relax, max_level)
        if isinstance(found, str):
            if found is TOO_HIGH:
                raise IllegalPlacement(found, placement, max_level=max_level)
            raise IllegalPlacement(found, placement)
        return found

    @staticmethod
    def _rules(relax: object, max_level: object) -> tuple[frozenset[str], int | None]:
        relax = _NO_RELAX if not relax else _check_relax(relax)
        return relax, _check_max_level(max_level)

    def level_of(
        self,
        placement: Placement,
        relax: Collection[str] = _NO_RELAX,
        max_level: int | None = None,
    ) -> int:
        """The level ``placement`` would lie on; raises IllegalPlacement if it is illegal.

        ``relax`` (a subset of ``RELAXATIONS``) lifts rules, ``max_level`` caps the level.
        Never changes the board.
        """
        if relax or max_level is not None:
            relax, max_level = self._rules(relax, max_level)
        return self._locate(placement, relax, max_level)[0]  # type: ignore[arg-type]

    def is_legal(
        self,
        placement: Placement,
        relax: Collection[str] = _NO_RELAX,
        max_level: int | None = None,
    ) -> bool:
        """Whether ``placement`` may be placed now (never raises for a refusal)."""
        if relax or max_level is not None:
            relax, max_level = self._rules(relax, max_level)
        return not isinstance(self._probe(placement, relax, max_level), str)  # type: ignore[arg-type]

    def reason(
        self,
        placement: Placement,
        relax: Collection[str] = _NO_RELAX,
        max_level: int | None = None,
    ) -> str | None:
        """Why ``placement`` is refused (one of the reason texts), or None if it is legal."""
        if relax or max_level is not None:
            relax, max_level = self._rules(relax, max_level)
        found = self._probe(placement, relax, max_level)  # type: ignore[arg-type]
        if found is TOO_HIGH:
            return TOO_HIGH.format(max_level=max_level)
        return found if isinstance(found, str) else None

    def place(
        self,
        placement: Placement,
        relax: Collection[str] = _NO_RELAX,
        max_level: int | None = None,
    ) -> int:
        """Place a piece and return its level. An illegal placement changes nothing."""
        if relax or max_level is not None:
            relax, max_level = self._rules(relax, max_level)
        level, anchor, sid = self._locate(placement, relax, max_level)  # type: ignore[arg-type]
        self._add(placement, sid, level, anchor)
        return level

    def remove(self, placement: Placement) -> int:
        """Take the number tile at ``placement`` away (special tile "move") and return the
        level it lay on. Only a number tile with nothing on it can be taken; otherwise
        IllegalPlacement, and nothing changes. The other pieces keep their levels."""
        if not isinstance(placement, Placement):
            raise InvalidPlacement(f"expected a Placement, not {placement!r}")
        sid = placement.shape
        cells = placement.cells()
        # the newest match: with "one" a tile may lie exactly on another of the same shape
        for index in reversed(range(len(self._tiles))):
            p, level = self._tiles[index]
            if self._shapes[index] == sid and p.cells() == cells:
                break
        else:
            raise IllegalPlacement(NOT_IN_DISPLAY, placement)
        if sid not in _NUMBER_SHAPES:
            raise IllegalPlacement(NOT_MOVABLE, placement)
        top = self._top
        anchor = _index(p.x, p.y)
        if any(top[anchor + off] != index for off in _OFFSETS[sid][p.rotation]):
            raise IllegalPlacement(COVERED, placement)
        rest = self._tiles[:index] + self._tiles[index + 1 :]
        shapes = self._shapes[:index] + self._shapes[index + 1 :]
        self._reset()
        for (q, lv), shape in zip(rest, shapes, strict=True):
            self._add(q, shape, lv, _index(q.x, q.y))
        return level

    def _add(self, placement: Placement, sid: int, level: int, anchor: int) -> None:
        rotation = placement.rotation
        index = len(self._tiles)
        self._tiles.append((placement, level))
        self._shapes.append(sid)
        top = self._top
        for off in _OFFSETS[sid][rotation]:
            top[anchor + off] = index

        row = anchor // STRIDE
        base_row = self._base // STRIDE
        if index == 0:
            self._base = max(0, row - 2 * _MARGIN) * STRIDE
        elif row - _MARGIN < base_row:
            new_base = max(0, row - 2 * _MARGIN) * STRIDE
            up = self._base - new_base
            self._top_masks = [m << up for m in self._top_masks]
            self._occupied = [m << up for m in self._occupied]
            self._neighbours = [m << up for m in self._neighbours]
            self._base = new_base

        mask = SHAPE_MASKS[sid][rotation] << (anchor - self._base)
        while level >= len(self._top_masks):
            self._top_masks.append(0)
            self._occupied.append(0)
            self._neighbours.append(0)
        if level:
            self._top_masks[level - 1] &= ~mask
            if mask & ~self._occupied[level - 1]:
                self._bridged = True
                for lower in range(level - 1):
                    self._top_masks[lower] &= ~mask
        self._top_masks[level] |= mask
        occupied = self._occupied[level] | mask
        self._occupied[level] = occupied
        grown = mask << 1 | mask >> 1 | mask << STRIDE | mask >> STRIDE
        self._neighbours[level] = (self._neighbours[level] | grown) & ~occupied

        self._score += VALUES[sid] * level
        width, height = SIZES[sid][rotation]
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

    def legal_moves(
        self,
        piece: int | str,
        relax: Collection[str] = _NO_RELAX,
        mirrored: bool = False,
        max_level: int | None = None,
    ) -> list[tuple[Placement, int]]:
        """Every legal placement of ``piece`` with the level it would lie on.

        ``relax`` lifts rules (a subset of ``RELAXATIONS``), ``mirrored`` turns a number
        tile over, ``max_level`` caps the level. Each distinct set of covered squares appears
        once (0 and 8 only with rotations 0 and 1), ordered by level, rotation, y and x. On
        an empty board: the distinct orientations at (0, 0).
        """
        placements, starts = self._generate(piece, relax, mirrored, max_level)
        moves: list[tuple[Placement, int]] = []
        for level in range(len(starts) - 1):
            moves.extend((p, level) for p in placements[starts[level] : starts[level + 1]])
        return moves

    def legal_placements(
        self,
        piece: int | str,
        relax: Collection[str] = _NO_RELAX,
        mirrored: bool = False,
        max_level: int | None = None,
    ) -> list[Placement]:
        """Every legal placement of ``piece`` (see ``legal_moves``)."""
        return self._generate(piece, relax, mirrored, max_level)[0]

    def can_place(
        self,
        piece: int | str,
        relax: Collection[str] = _NO_RELAX,
        mirrored: bool = False,
        max_level: int | None = None,
    ) -> bool:
        """Whether ``piece`` has a legal placement (as ``legal_placements``, but quick: away
        from the window's edge there is always room on level 0).

        >>> Board("5@0,0r0").can_place(9, max_level=0)
        True
        """
        sid = _shape_of(piece, mirrored)
        if not self._tiles:
            return True
        min_x, min_y, max_x, max_y = self._bounds  # type: ignore[misc]
        if min(min_x, min_y) >= -_SAFE and max(max_x, max_y) <= _SAFE:
            free = self._neighbours[0]
            taken = self._occupied[0]
            if self._bridged:
                for covered in self._occupied[1:]:
                    taken |= covered
            for offsets in _OFFSETS[sid][: ROTATIONS_OF[sid]]:
                touching = 0
                blocked = 0
                for off in offsets:
                    touching |= free >> off
                    blocked |= taken >> off
                if touching & ~blocked:
                    return True
        return bool(self._generate(piece, relax, mirrored, max_level)[0])

    def legal_spots(
        self,
        piece: int | str,
        relax: Collection[str] = _NO_RELAX,
        mirrored: bool = False,
        max_level: int | None = None,
    ) -> list[tuple[int, int, int]]:
        """Where ``piece`` may go: ``(x, y, rotation)`` of each placement of
        ``legal_placements``, in its order, without building the placements where the
        compiled kernel finds them (quicker when only the spots matter).

        >>> Board().legal_spots(1)
        [(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 0, 3)]
        """
        sid, relax, max_level = _shape_and_rules(piece, relax, mirrored, max_level)
        found = self._compiled(sid, relax, max_level) if self._tiles else None
        if found is not None:
            return found[0]
        return [
            (p.x, p.y, p.rotation) for p in self.legal_placements(piece, relax, mirrored, max_level)
        ]

    def _compiled(
        self, sid: int, relax: Collection[str], max_level: int | None
    ) -> tuple[list[tuple[int, int, int]], list[int]] | None:
        """What the compiled kernel generates (spots and level starts, as ``_generate``), or
        None where it is not built or the rules are ones it does not know."""
        compiled = _kernel.KERNEL
        if compiled is None or "bridge" in relax:
            return None
        return compiled.generate(self._tiles, self._shapes, *_kernel_rules(sid, relax, max_level))

    def _generate(
        self,
        piece: int | str,
        relax: Collection[str],
        mirrored: bool,
        max_level: int | None,
    ) -> tuple[list[Placement], list[int]]:
        """The legal placements in order, and where each level's placements start (one more
        entry than levels: the end)."""
        sid, relax, max_level = _shape_and_rules(piece, relax, mirrored, max_level)
        piece, mirrored = PIECE_OF[sid]
        rotations = range(ROTATIONS_OF[sid])
        if not self._tiles:
            spots = [_new_placement(piece, 0, 0, r, mirrored) for r in rotations]
            return spots, [0, len(spots)]
        found = self._compiled(sid, relax, max_level)
        if found is not None:
            coords, starts = found
            placements = [_new_placement(piece, x, y, r, mirrored) for x, y, r in coords]
            return placements, starts
        base = self._base
        min_x, min_y, max_x, max_y = self._bounds  # type: ignore[misc]
        near_edge = min(min_x, min_y) < -_SAFE or max(max_x, max_y) > _SAFE
        offsets_by_rotation = _OFFSETS[sid]
        placements = []
        append = placements.append
        starts = [0]

        free = self._neighbours[0]
        taken = self._occupied[0]
        if self._bridged:
            for covered in self._occupied[1:]:
                taken |= covered
        # placements are built inline (the hot loop of the move generator)
        new, cls, stride, origin = _new, Placement, STRIDE, ORIGIN
        set_piece, set_x, set_y = _set_piece, _set_x, _set_y
        set_rotation, set_mirrored = _set_rotation, _set_mirrored
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
            text = bin(anchors)[:1:-1]
            find = text.find
            bit = find("1")
            while bit >= 0:
                row, col = divmod(bit + base, stride)
                placement = new(cls)
                set_piece(placement, piece)
                set_x(placement, col - origin)
                set_y(placement, row - origin)
                set_rotation(placement, rotation)
                set_mirrored(placement, mirrored)
                if not near_edge or self._in_window(placement):
                    append(placement)
                bit = find("1", bit + 1)
        starts.append(len(placements))

        top = self._top
        levels = len(self._top_masks)
        highest = levels if max_level is None else min(levels, max_level)
        one = "one" in relax or sid in _FILLER_SHAPES
        loose = "loose" in relax
        bridge = "bridge" in relax
        for level in range(1, highest + 1):
            neighbours = self._neighbours[level] if level < levels and not loose else 0
            if bridge:
                self._bridge_level(sid, level, neighbours, one, append)
                starts.append(len(placements))
                continue
            below = self._top_masks[level - 1]
            if not below:
                starts.append(len(placements))
                continue
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
                if one:
                    for bit in _bits(anchors):
                        row, col = divmod(bit + base, STRIDE)
                        append(
                            _new_placement(piece, col - ORIGIN, row - ORIGIN, rotation, mirrored)
                        )
                    continue
                first, rest = offsets[0], offsets[1:]
                for bit in _bits(anchors):
                    anchor = bit + base
                    support = top[anchor + first]
                    for off in rest:
                        if top[anchor + off] != support:
                            row, col = divmod(anchor, stride)
                            placement = new(cls)
                            set_piece(placement, piece)
                            set_x(placement, col - origin)
                            set_y(placement, row - origin)
                            set_rotation(placement, rotation)
                            set_mirrored(placement, mirrored)
                            append(placement)
                            break
            starts.append(len(placements))
        return placements, starts

    def _rect(self, x0: int, y0: int, x1: int, y1: int) -> int:
        """The squares of a rectangle as a mask relative to the base."""
        row = ((1 << (x1 - x0 + 1)) - 1) << (x0 + ORIGIN)
        mask = 0
        for y in range(y0, y1 + 1):
            mask |= row << ((y + ORIGIN) * STRIDE)
        return mask >> self._base

    def _holes(self, level: int) -> list[int]:
        """The closed gaps under ``level``: each 4-connected region of squares whose top is
        below ``level - 1`` (or empty) that is walled in, as a mask (relative to the base)."""
        high = 0
        for covered in self._occupied[level - 1 :]:
            high |= covered
        min_x, min_y, max_x, max_y = self._bounds  # type: ignore[misc]
        box = self._rect(min_x - 1, min_y - 1, max_x + 1, max_y + 1)
        low = box & ~high
        outside = box & ~self._rect(min_x, min_y, max_x, max_y)
        while True:
            grown = _grow(outside) & low
            if grown == outside:
                break
            outside = grown
        holes = low & ~outside
        regions = []
        while holes:
            region = holes & -holes
            while True:
                grown = _grow(region) & holes
                if grown == region:
                    break
                region = grown
            regions.append(region)
            holes &= ~region
        return regions

    def _bridge_level(self, sid: int, level: int, neighbours: int, one: bool, append) -> None:
        """Append every legal placement on ``level`` with "bridge" allowed."""
        sup = self._top_masks[level - 1]
        if not sup:
            return
        regions = self._holes(level)
        holes = 0
        for region in regions:
            holes |= region
        allowed = sup | holes
        top = self._top
        base = self._base
        piece, mirrored = PIECE_OF[sid]
        for rotation in range(ROTATIONS_OF[sid]):
            offsets = _OFFSETS[sid][rotation]
            anchors = -1
            resting = 0
            for off in offsets:
                anchors &= allowed >> off
                resting |= sup >> off
            anchors &= resting
            if not anchors:
                continue
            if neighbours:
                touching = 0
                for off in offsets:
                    touching |= neighbours >> off
                anchors &= touching
                if not anchors:
                    continue
            shape = SHAPE_MASKS[sid][rotation]
            for bit in _bits(anchors):
                mask = shape << bit
                gap = mask & ~sup
                if gap and any(region & gap and region & ~mask for region in regions):
                    continue
                anchor = bit + base
                if not one:
                    supports = {top[anchor + off] for off in offsets if (1 << (bit + off)) & sup}
                    if len(supports) < 2:
                        continue
                row, col = divmod(anchor, STRIDE)
                append(_new_placement(piece, col - ORIGIN, row - ORIGIN, rotation, mirrored))

    @staticmethod
    def _in_window(placement: Placement) -> bool:
        width, height = placement.size
        x, y = placement.x, placement.y
        return min(x, y) >= -WINDOW and max(x + width, y + height) <= WINDOW + 1
