"""Placements: which piece goes where, turned how, and whether a number tile is turned over.

The notation is ``PIECE@X,YrROTATION``: ``7@3,-2r1`` for a number tile, ``7m@3,-2r1`` for
the same tile mirrored (special tile "black"), ``F2@5,0r1`` for a gap filler and ``S3@0,0r0``
for a start tile.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.contract import InvalidMove

from .tiles import FILLERS, ORIENTATIONS, ROTATIONS_OF, SHAPE_INDEX, SIZES, START_TILES

__all__ = ["InvalidPlacement", "Placement"]


class InvalidPlacement(InvalidMove):
    """A placement that cannot even be described: bad piece, rotation, coordinate or text.

    ``code`` is "invalid placement"; ``params["detail"]`` holds the English detail.
    """

    def __init__(self, reason: str, **params: Any) -> None:
        super().__init__(reason, code="invalid placement", detail=reason, **params)


_NOTATION = re.compile(
    r"\s*(?:(-?\d+)\s*(m?)|([fs]\d+))\s*@\s*(-?\d+)\s*,\s*(-?\d+)\s*r\s*(-?\d+)\s*",
    re.IGNORECASE | re.ASCII,
)
_NAMED = frozenset((*FILLERS, *START_TILES))
_NAME_LIKE = re.compile(r"[A-Za-z]\w*")
_MISSING: Any = object()


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidPlacement(f"{name} must be a whole number, not {value!r}")
    return value


def _check_piece(piece: object) -> int | str:
    if isinstance(piece, str) and piece in _NAMED:
        return piece
    if isinstance(piece, str) and _NAME_LIKE.fullmatch(piece):
        raise InvalidPlacement(f"piece must be a number 0-9, F1, F2 or S1-S6, not {piece!r}")
    _check_int("tile number", piece)
    if not 0 <= piece <= 9:  # type: ignore[operator]
        raise InvalidPlacement(f"tile number must be 0-9, not {piece}")
    return piece  # type: ignore[return-value]


@dataclass(frozen=True, slots=True, init=False, repr=False)
class Placement:
    """Piece ``piece`` turned ``rotation`` quarter turns clockwise, its bounding box's top-left
    corner on square ``(x, y)`` (x to the right, y downward); ``mirrored``: a number tile
    turned over (special tile "black").

    ``piece`` is a number 0-9, a gap filler "F1" or "F2" or a start tile "S1".."S6". For a
    number tile ``number`` is the same number (also when mirrored); for the other pieces it is
    None. ``Placement(7, 3, -2, 1)`` and ``Placement(number=7, x=3, y=-2, rotation=1)`` are the
    same placement.

    >>> p = Placement(number=7, x=3, y=-2, rotation=1)
    >>> str(p)
    '7@3,-2r1'
    >>> Placement.parse("7@3,-2r1") == p == Placement(7, 3, -2, 1)
    True
    >>> sorted(Placement(1, 0, 0, 0).cells())
    [(0, 0), (1, 0), (1, 1), (1, 2), (1, 3)]
    >>> m = Placement.parse("1m@0,0r0")
    >>> m
    Placement(number=1, x=0, y=0, rotation=0, mirrored=True)
    >>> m.piece, m.number, m.mirrored, sorted(m.cells())
    (1, 1, True, [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)])
    >>> f = Placement.parse("F2@5,0r1")
    >>> f, f.piece, f.number, f.kind, str(f)
    (Placement(piece='F2', x=5, y=0, rotation=1), 'F2', None, 'filler', 'F2@5,0r1')
    >>> Placement(10, 0, 0, 0)
    Traceback (most recent call last):
        ...
    games.nmbr9.placement.InvalidPlacement: tile number must be 0-9, not 10
    """

    piece: int | str
    x: int
    y: int
    rotation: int
    mirrored: bool

    def __init__(
        self,
        piece: int | str = _MISSING,
        x: int = _MISSING,
        y: int = _MISSING,
        rotation: int = 0,
        mirrored: bool = False,
        *,
        number: int = _MISSING,
    ) -> None:
        if number is not _MISSING:
            if piece is not _MISSING:
                raise InvalidPlacement("give either piece or number, not both")
            piece = number
        if piece is _MISSING or x is _MISSING or y is _MISSING:
            raise InvalidPlacement("a placement needs a piece, x and y")
        piece = _check_piece(piece)
        _check_int("x", x)
        _check_int("y", y)
        _check_int("rotation", rotation)
        if not 0 <= rotation <= 3:
            raise InvalidPlacement(f"rotation must be 0-3 quarter turns, not {rotation}")
        if not isinstance(mirrored, bool):
            raise InvalidPlacement(f"mirrored must be True or False, not {mirrored!r}")
        if mirrored and isinstance(piece, str):
            raise InvalidPlacement(f"only a number tile can be mirrored, not {piece}")
        _set_piece(self, piece)
        _set_x(self, x)
        _set_y(self, y)
        _set_rotation(self, rotation)
        _set_mirrored(self, mirrored)

    @property
    def number(self) -> int | None:
        """The number of a number tile (mirrored or not); None for a filler or start tile."""
        piece = self.piece
        return piece if piece.__class__ is int else None

    @property
    def kind(self) -> str:
        """ "number", "filler" or "start"."""
        piece = self.piece
        if piece.__class__ is int:
            return "number"
        return "filler" if piece in FILLERS else "start"

    @property
    def shape(self) -> int:
        """The shape index (see ``games.nmbr9.tiles``): the number for an upright number tile."""
        piece = self.piece
        if piece.__class__ is int:
            return piece + 10 if self.mirrored else piece
        return SHAPE_INDEX[piece, False]

    def offsets(self) -> tuple[tuple[int, int], ...]:
        """The covered squares relative to ``(x, y)``."""
        return ORIENTATIONS[self.shape][self.rotation]

    def cells(self) -> frozenset[tuple[int, int]]:
        """The squares the piece covers."""
        x, y = self.x, self.y
        return frozenset((x + cx, y + cy) for cx, cy in ORIENTATIONS[self.shape][self.rotation])

    @property
    def size(self) -> tuple[int, int]:
        """Width and height of the piece's bounding box."""
        return SIZES[self.shape][self.rotation]

    def canonical(self) -> Placement:
        """The same squares with the smallest rotation (0 and 8 turned half around: 0 or 1).

        >>> Placement(8, 1, 2, 3).canonical()
        Placement(number=8, x=1, y=2, rotation=1)
        >>> Placement.parse("F1@4,4r3").canonical()
        Placement(piece='F1', x=4, y=4, rotation=0)
        """
        rotation = self.rotation % ROTATIONS_OF[self.shape]
        if rotation == self.rotation:
            return self
        return Placement._unchecked(self.piece, self.x, self.y, rotation, self.mirrored)

    def moved(self, x: int, y: int, rotation: int | None = None) -> Placement:
        """The same piece at ``(x, y)``, turned ``rotation`` (default: as it is)."""
        rotation = self.rotation if rotation is None else rotation
        return Placement(self.piece, x, y, rotation, self.mirrored)

    def __str__(self) -> str:
        mark = "m" if self.mirrored else ""
        return f"{self.piece}{mark}@{self.x},{self.y}r{self.rotation}"

    def __repr__(self) -> str:
        mirrored = ", mirrored=True" if self.mirrored else ""
        head = f"number={self.piece}" if self.piece.__class__ is int else f"piece={self.piece!r}"
        return f"Placement({head}, x={self.x}, y={self.y}, rotation={self.rotation}{mirrored})"

    @classmethod
    def parse(cls, text: str) -> Placement:
        """Read the notation of ``str(placement)``: ``PIECE["m"]@X,YrROTATION``."""
        if not isinstance(text, str):
            raise InvalidPlacement(f"placement notation must be text, not {text!r}")
        match = _NOTATION.fullmatch(text)
        if match is None:
            raise InvalidPlacement(f"not a placement (expected e.g. '7@3,-2r1'): {text!r}")
        number, mark, name, x, y, rotation = match.groups()
        piece: int | str = int(number) if name is None else name.upper()
        return cls(piece, int(x), int(y), int(rotation), bool(mark))

    @classmethod
    def _unchecked(
        cls, piece: int | str, x: int, y: int, rotation: int, mirrored: bool = False
    ) -> Placement:
        """Build a placement from values known to be valid, skipping the checks."""
        p = _new(cls)
        _set_piece(p, piece)
        _set_x(p, x)
        _set_y(p, y)
        _set_rotation(p, rotation)
        _set_mirrored(p, mirrored)
        return p


def _slot_setter(name: str) -> Callable[[Placement, Any], None]:
    """The setter of ``Placement``'s slot ``name``, which bypasses the frozen check."""
    return getattr(Placement, name).__set__


_new = object.__new__
_set_piece = _slot_setter("piece")
_set_x = _slot_setter("x")
_set_y = _slot_setter("y")
_set_rotation = _slot_setter("rotation")
_set_mirrored = _slot_setter("mirrored")
