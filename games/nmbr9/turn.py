"""Turns: a player's decision for one card, written as in docs/rules.md §6.7.

A turn is a list of steps separated by ``; ``, carried out in order, all or nothing::

    place 7@3,-2r1                  build the card's tile
    place 7@3,-2r1 with one,loose   ... using special tiles (black one bridge loose)
    place 7m@3,-2r1 with black      the mirrored tile
    place 4@0,5r0 from 2            level to level: the card under marker 2
    fill F2@5,0r1                   a gap filler
    move 4@0,0r0 to 4@6,1r1         special tile "move"
    reserve                         special tile "reserve" (``reserve from 2``: level to level)
    build 9@2,2r0                   build the reserved tile
    reject                          2 of 3: reject this card

Whether a turn is legal is for the game to say (``Game.play``); this module only reads and
writes the notation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from games.contract import InvalidMove

from .placement import Placement
from .tiles import FILLERS

__all__ = [
    "SPECIALS",
    "TILE_SPECIALS",
    "Build",
    "Fill",
    "InvalidTurn",
    "Move",
    "Place",
    "Reject",
    "Reserve",
    "Step",
    "Turn",
]

#: The six special tiles of the module "breaking rules", in the order the rules list them.
SPECIALS = ("move", "black", "one", "bridge", "loose", "reserve")
#: The special tiles that apply to the turn's number tile (``place ... with ...``).
TILE_SPECIALS = ("black", "one", "bridge", "loose")
#: The highest level marker of the variant "level to level".
MAX_MARKER = 4


class InvalidTurn(InvalidMove):
    """A turn text or value that does not describe a turn; ``code`` is "invalid turn" and
    ``params["detail"]`` holds the English detail."""

    def __init__(self, reason: str, **params: Any) -> None:
        super().__init__(reason, code="invalid turn", detail=reason, **params)


def _check_placement(value: object, what: str) -> Placement:
    if not isinstance(value, Placement):
        raise InvalidTurn(f"{what} must be a Placement, not {value!r}")
    return value


def _check_marker(marker: object) -> int | None:
    if marker is None:
        return None
    if isinstance(marker, bool) or not isinstance(marker, int) or not 0 <= marker <= MAX_MARKER:
        raise InvalidTurn(f"a level marker is 0-{MAX_MARKER}, not {marker!r}")
    return marker


def _from(marker: int | None) -> str:
    return "" if marker is None else f" from {marker}"


@dataclass(frozen=True, slots=True)
class Place:
    """Build the card's number tile at ``placement`` using the special tiles ``specials``
    (sorted in the rules' order); ``marker``: the level marker the card lies under (level to
    level only).

    >>> step = Place(Placement.parse("7m@3,-2r1"), ("loose", "black"))
    >>> str(step), step.specials
    ('place 7m@3,-2r1 with black,loose', ('black', 'loose'))
    """

    placement: Placement
    specials: tuple[str, ...] = ()
    marker: int | None = None

    def __post_init__(self) -> None:
        placement = _check_placement(self.placement, "place")
        if placement.number is None:
            raise InvalidTurn(f"place builds a number tile, not {placement.piece}")
        specials = self.specials
        if isinstance(specials, str) or not all(isinstance(s, str) for s in specials):
            raise InvalidTurn(f"specials must be names of special tiles, not {specials!r}")
        for name in specials:
            if name not in TILE_SPECIALS:
                raise InvalidTurn(
                    f"{name!r} is not a special tile for the turn's tile "
                    f"(one of {', '.join(TILE_SPECIALS)})"
                )
        if len(set(specials)) != len(specials):
            raise InvalidTurn("each special tile can be named once")
        object.__setattr__(self, "specials", tuple(s for s in TILE_SPECIALS if s in specials))
        _check_marker(self.marker)

    def __str__(self) -> str:
        used = f" with {','.join(self.specials)}" if self.specials else ""
        return f"place {self.placement}{used}{_from(self.marker)}"


@dataclass(frozen=True, slots=True)
class Fill:
    """Build a gap filler.

    >>> str(Fill(Placement.parse("F2@5,0r1")))
    'fill F2@5,0r1'
    """

    placement: Placement

    def __post_init__(self) -> None:
        if _check_placement(self.placement, "fill").piece not in FILLERS:
            raise InvalidTurn(f"fill builds a gap filler (F1 or F2), not {self.placement.piece}")

    def __str__(self) -> str:
        return f"fill {self.placement}"


@dataclass(frozen=True, slots=True)
class Move:
    """Special tile "move": the tile at ``source`` goes to ``target`` (the same tile).

    >>> str(Move(Placement.parse("4@0,0r0"), Placement.parse("4@6,1r1")))
    'move 4@0,0r0 to 4@6,1r1'
    """

    source: Placement
    target: Placement

    def __post_init__(self) -> None:
        source = _check_placement(self.source, "move")
        target = _check_placement(self.target, "move ... to")
        if source.number is None:
            raise InvalidTurn(f"move moves a number tile, not {source.piece}")
        if (source.piece, source.mirrored) != (target.piece, target.mirrored):
            raise InvalidTurn(f"a moved tile stays the same tile: {source} cannot become {target}")

    def __str__(self) -> str:
        return f"move {self.source} to {self.target}"


@dataclass(frozen=True, slots=True)
class Reserve:
    """Special tile "reserve": set the card's tile aside (``marker``: level to level).

    >>> str(Reserve()), str(Reserve(marker=2))
    ('reserve', 'reserve from 2')
    """

    marker: int | None = None

    def __post_init__(self) -> None:
        _check_marker(self.marker)

    def __str__(self) -> str:
        return f"reserve{_from(self.marker)}"


@dataclass(frozen=True, slots=True)
class Build:
    """Build the tile set aside earlier with "reserve".

    >>> str(Build(Placement(9, 2, 2, 0)))
    'build 9@2,2r0'
    """

    placement: Placement

    def __post_init__(self) -> None:
        placement = _check_placement(self.placement, "build")
        if placement.number is None or placement.mirrored:
            raise InvalidTurn(f"build builds the reserved number tile, not {placement}")

    def __str__(self) -> str:
        return f"build {self.placement}"


@dataclass(frozen=True, slots=True)
class Reject:
    """2 of 3: reject the card.

    >>> str(Reject())
    'reject'
    """

    def __str__(self) -> str:
        return "reject"


Step = Place | Fill | Move | Reserve | Build | Reject

_PLACEMENT = r"(\S+?)"
_STEPS = [
    (
        re.compile(
            rf"place\s+{_PLACEMENT}(?:\s+with\s+([a-z,\s]+?))?(?:\s+from\s+(\d+))?",
            re.IGNORECASE,
        ),
        "place",
    ),
    (
        re.compile(
            rf"place\s+{_PLACEMENT}\s+from\s+(\d+)\s+with\s+([a-z,\s]+?)",
            re.IGNORECASE,
        ),
        "place from with",
    ),
    (re.compile(rf"fill\s+{_PLACEMENT}", re.IGNORECASE), "fill"),
    (re.compile(rf"move\s+{_PLACEMENT}\s+to\s+{_PLACEMENT}", re.IGNORECASE), "move"),
    (re.compile(r"reserve(?:\s+from\s+(\d+))?", re.IGNORECASE), "reserve"),
    (re.compile(rf"build\s+{_PLACEMENT}", re.IGNORECASE), "build"),
    (re.compile(r"reject", re.IGNORECASE), "reject"),
]


def _names(text: str) -> tuple[str, ...]:
    names = tuple(name.strip().lower() for name in text.split(","))
    if not all(names):
        raise InvalidTurn(f"not a list of special tiles: {text!r}")
    return names


def _parse_step(text: str) -> Step:
    text = text.strip()
    for pattern, kind in _STEPS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        groups = match.groups()
        if kind == "place":
            placement, names, marker = groups
            return Place(
                Placement.parse(placement),
                _names(names) if names else (),
                None if marker is None else int(marker),
            )
        if kind == "place from with":
            placement, marker, names = groups
            return Place(Placement.parse(placement), _names(names), int(marker))
        if kind == "fill":
            return Fill(Placement.parse(groups[0]))
        if kind == "move":
            return Move(Placement.parse(groups[0]), Placement.parse(groups[1]))
        if kind == "reserve":
            return Reserve(None if groups[0] is None else int(groups[0]))
        if kind == "build":
            return Build(Placement.parse(groups[0]))
        return Reject()
    raise InvalidTurn(
        f"not a step (place, fill, move, reserve, build or reject): {text!r}", text=text
    )


@dataclass(frozen=True, slots=True)
class Turn:
    """A player's decision for one card: steps carried out in order, all or nothing.

    >>> turn = Turn.parse("fill F1@2,3r0; place 7@3,-2r1 with one; build 9@2,2r0")
    >>> str(turn)
    'fill F1@2,3r0; place 7@3,-2r1 with one; build 9@2,2r0'
    >>> turn.steps[1]
    Place(placement=Placement(number=7, x=3, y=-2, rotation=1), specials=('one',), marker=None)
    >>> Turn.place(Placement(7, 3, -2, 1)) == Turn.parse("place 7@3,-2r1")
    True
    >>> Turn.parse("place 7@3,-2r1; jump")
    Traceback (most recent call last):
        ...
    games.nmbr9.turn.InvalidTurn: not a step (place, fill, move, reserve, build or reject): 'jump'
    """

    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        steps = self.steps
        if isinstance(steps, list):
            steps = tuple(steps)
            object.__setattr__(self, "steps", steps)
        if not isinstance(steps, tuple) or not steps:
            raise InvalidTurn("a turn has at least one step")
        for step in steps:
            if not isinstance(step, Place | Fill | Move | Reserve | Build | Reject):
                raise InvalidTurn(f"not a step: {step!r}")

    @classmethod
    def place(
        cls, placement: Placement, specials: tuple[str, ...] = (), marker: int | None = None
    ) -> Turn:
        """The turn that only builds the card's tile at ``placement``."""
        return cls((Place(placement, specials, marker),))

    @classmethod
    def parse(cls, text: str) -> Turn:
        """Read ``str(turn)``; InvalidTurn or InvalidPlacement (both ``InvalidMove``) if
        ``text`` is not a turn."""
        if not isinstance(text, str):
            raise InvalidTurn(f"turn notation must be text, not {text!r}")
        parts = text.split(";")
        if not text.strip() or any(not part.strip() for part in parts):
            raise InvalidTurn(f"not a turn: {text!r}", text=text)
        return cls(tuple(_parse_step(part) for part in parts))

    @property
    def main(self) -> Place | Reserve | Reject | None:
        """The step that deals with the card (place, reserve or reject), if there is one."""
        for step in self.steps:
            if isinstance(step, Place | Reserve | Reject):
                return step
        return None

    def __str__(self) -> str:
        return "; ".join(str(step) for step in self.steps)
