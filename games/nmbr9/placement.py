"""Placements: which tile goes where, turned how."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .tiles import DISTINCT_ROTATIONS, ORIENTATIONS, SIZES


class InvalidPlacement(ValueError):
    """A placement that cannot even be described: bad number, rotation, coordinate or text."""


_NOTATION = re.compile(
    r"\s*(-?\d+)\s*@\s*(-?\d+)\s*,\s*(-?\d+)\s*r\s*(-?\d+)\s*", re.IGNORECASE | re.ASCII
)


def _check_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidPlacement(f"{name} must be a whole number, not {value!r}")


@dataclass(frozen=True, slots=True)
class Placement:
    """Tile ``number`` turned ``rotation`` quarter turns clockwise, its bounding box's top-left
    corner on square ``(x, y)`` (x to the right, y downward).

    >>> p = Placement(number=7, x=3, y=-2, rotation=1)
    >>> str(p)
    '7@3,-2r1'
    >>> Placement.parse("7@3,-2r1") == p
    True
    >>> sorted(Placement(1, 0, 0, 0).cells())
    [(0, 0), (1, 0), (1, 1), (1, 2), (1, 3)]
    >>> Placement(10, 0, 0, 0)
    Traceback (most recent call last):
        ...
    games.nmbr9.placement.InvalidPlacement: tile number must be 0-9, not 10
    """

    number: int
    x: int
    y: int
    rotation: int = 0

    def __post_init__(self) -> None:
        _check_int("tile number", self.number)
        _check_int("x", self.x)
        _check_int("y", self.y)
        _check_int("rotation", self.rotation)
        if not 0 <= self.number <= 9:
            raise InvalidPlacement(f"tile number must be 0-9, not {self.number}")
        if not 0 <= self.rotation <= 3:
            raise InvalidPlacement(f"rotation must be 0-3 quarter turns, not {self.rotation}")

    def offsets(self) -> tuple[tuple[int, int], ...]:
        """The covered squares relative to ``(x, y)``."""
        return ORIENTATIONS[self.number][self.rotation]

    def cells(self) -> frozenset[tuple[int, int]]:
        """The squares the tile covers."""
        x, y = self.x, self.y
        return frozenset((x + cx, y + cy) for cx, cy in ORIENTATIONS[self.number][self.rotation])

    @property
    def size(self) -> tuple[int, int]:
        """Width and height of the tile's bounding box."""
        return SIZES[self.number][self.rotation]

    def canonical(self) -> Placement:
        """The same squares with the smallest rotation (0 and 8 turned half around: 0 or 1).

        >>> Placement(8, 1, 2, 3).canonical()
        Placement(number=8, x=1, y=2, rotation=1)
        """
        rotation = self.rotation % DISTINCT_ROTATIONS[self.number]
        if rotation == self.rotation:
            return self
        return Placement(self.number, self.x, self.y, rotation)

    def __str__(self) -> str:
        return f"{self.number}@{self.x},{self.y}r{self.rotation}"

    @classmethod
    def parse(cls, text: str) -> Placement:
        """Read the notation of ``str(placement)``: ``"NUMBER@X,Y" + "rROTATION"``."""
        if not isinstance(text, str):
            raise InvalidPlacement(f"placement notation must be text, not {text!r}")
        match = _NOTATION.fullmatch(text)
        if match is None:
            raise InvalidPlacement(f"not a placement (expected e.g. '7@3,-2r1'): {text!r}")
        number, x, y, rotation = (int(group) for group in match.groups())
        return cls(number, x, y, rotation)

    @classmethod
    def _unchecked(cls, number: int, x: int, y: int, rotation: int) -> Placement:
        """Build a placement from values known to be valid, skipping the checks."""
        p = _new(cls)
        _set_number(p, number)
        _set_x(p, x)
        _set_y(p, y)
        _set_rotation(p, rotation)
        return p


_new = object.__new__
_set_number = Placement.number.__set__  # type: ignore[attr-defined]
_set_x = Placement.x.__set__  # type: ignore[attr-defined]
_set_y = Placement.y.__set__  # type: ignore[attr-defined]
_set_rotation = Placement.rotation.__set__  # type: ignore[attr-defined]
