"""NMBR 9 for a reader who does not see the board: each display in words (every tile with
its number, level and place), the spots where the piece being placed fits, as a list to
choose from, and the others' latest steps with their places, which the page announces.

Places are written as the board's coordinates and the form "Place by coordinates" give
them: ``x`` the column, ``y`` the row of the top-left square of the piece's bounding box,
and its rotation in quarter turns clockwise, told in degrees. Everything here is made from
what the reader's view holds (``GameView``), so it tells no more than the board shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from games.names import shown
from games.nmbr9 import Board, Place, Placement
from games.nmbr9.turn import Build, Fill, Move
from games.services import MatchView
from games.web.nmbr9.words import StepWords


def piece_name(placement: Placement) -> str:
    """The piece of ``placement`` in words: "8", "mirrored 7", "gap filler F1", "start tile
    S2"."""
    if placement.kind == "filler":
        return _("gap filler %(name)s") % {"name": placement.piece}
    if placement.kind == "start":
        return _("start tile %(name)s") % {"name": placement.piece}
    if placement.mirrored:
        return _("mirrored %(number)s") % {"number": placement.number}
    return str(placement.number)


def where(x: int, y: int, rotation: int) -> str:
    """A place on the display: "x 3, y -2, rotated 90°"."""
    return _("x %(x)s, y %(y)s, rotated %(angle)s°") % {"x": x, "y": y, "angle": rotation * 90}


def tile_text(placement: Placement, level: int) -> str:
    """A tile of a display: "8 on level 1 at x 3, y -2, rotated 90° (columns 3 to 5, rows -2
    to 0)"."""
    w, h = placement.size
    return _(
        "%(piece)s on level %(level)s at %(where)s (columns %(x)s to %(right)s, rows %(y)s "
        "to %(bottom)s)"
    ) % {
        "piece": piece_name(placement),
        "level": level,
        "where": where(placement.x, placement.y, placement.rotation),
        "x": placement.x,
        "y": placement.y,
        "right": placement.x + w - 1,
        "bottom": placement.y + h - 1,
    }


def display_words(board: Board) -> list[str]:
    """Every tile of a display in words, from the top level down, then row by row: never in
    the order they were placed, which may be a secret."""
    tiles = sorted(board.tiles, key=lambda t: (-t[1], t[0].y, t[0].x, str(t[0])))
    return [tile_text(placement, level) for placement, level in tiles]


@dataclass(frozen=True, slots=True)
class Spot:
    """A spot where the piece fits: the fields of a preview (``value``: "x,y,rotation"),
    the level it would lie on and the spot in words."""

    value: str
    level: int
    text: str
    chosen: bool


def spot_choices(
    board: Board,
    ghost: Placement,
    relax: tuple[str, ...],
    cap: int | None,
    link,
    exclude: Placement | None = None,
) -> dict[str, Any]:
    """The legal spots of the piece of ``ghost`` on ``board``, turned as ``ghost`` is,
    grouped by level from the highest (``groups``), and each rotation with its number of
    spots and the address of its first spot (``rotations``), so that every spot is a choice
    or two away. A piece that looks the same turned half round (0, 8) has the same spots
    both ways. ``exclude``: a spot that does not count (a tile moved to where it lies)."""
    piece, mirrored = ghost.piece, ghost.mirrored
    shapes = [Placement(piece, 0, 0, r, mirrored=mirrored).cells() for r in range(4)]
    # each rotation as the first rotation of the same shape, which the rules list
    same = [shapes.index(shape) for shape in shapes]
    moves = [
        (p.x, p.y, same[p.rotation], level)
        for p, level in board.legal_moves(piece, relax, mirrored, cap)
        if exclude is None or p.cells() != exclude.cells()
    ]
    name = piece_name(Placement(piece, 0, 0, 0, mirrored=mirrored))
    by_level: dict[int, list[Spot]] = {}
    rotation = ghost.rotation
    for x, y, _r, level in sorted(
        (m for m in moves if m[2] == same[rotation]), key=lambda m: (m[1], m[0])
    ):
        text = _("%(piece)s at %(where)s, level %(level)s") % {
            "piece": name,
            "where": where(x, y, rotation),
            "level": level,
        }
        chosen = (x, y) == (ghost.x, ghost.y)
        by_level.setdefault(level, []).append(Spot(f"{x},{y},{rotation}", level, text, chosen))
    rotations = []
    for turned in range(4):
        first = min(((y, x) for x, y, r, _level in moves if r == same[turned]), default=None)
        rotations.append(
            {
                "angle": turned * 90,
                "count": sum(1 for m in moves if m[2] == same[turned]),
                "current": turned == rotation,
                "url": link((first[1], first[0], turned)) if first else None,
            }
        )
    return {
        "name": name,
        "angle": rotation * 90,
        "count": sum(len(g) for g in by_level.values()),
        "groups": sorted(by_level.items(), reverse=True),
        "rotations": rotations,
    }


def read_spot(text: str, reach: int) -> tuple[int, int, int]:
    """A spot chosen from the list ("x,y,rotation"); ValueError with a message if it is not
    one."""
    parts = text.split(",")
    try:
        x, y, rotation = (int(p) for p in parts)
    except ValueError:
        raise ValueError(_("spot: not a place on the display.")) from None
    if not (-reach <= x <= reach and -reach <= y <= reach and 0 <= rotation <= 3):
        raise ValueError(_("spot: not a place on the display."))
    return x, y, rotation


def _step_place(step) -> Placement | None:
    """Where a step put its piece (None: a step that put nothing on the display)."""
    if isinstance(step, Move):
        return step.target
    if isinstance(step, Place | Fill | Build):
        return step.placement
    return None


def news(mv: MatchView) -> list[dict[str, str]]:
    """The latest turn of every other player (every player, for a spectator) as the reader
    may know it, in words with the places, each with a key that changes with every new
    turn: the page announces the turns whose keys it has not seen."""
    me = mv.seat.index if mv.seat is not None else None
    words = StepWords()
    items = []
    for display in mv.view.displays:
        if display.player == me or not display.log:
            continue
        logged = display.log[-1]
        name = shown(mv.seats[display.player].player.username)
        steps = logged.turn.steps if logged.turn is not None else ()
        places = [_step_place(step) for step in steps]
        texts = []
        for i, said in enumerate(words(name, logged)):
            place = places[i] if said.notation and i < len(places) else None
            if place is not None:
                texts.append(
                    _("%(step)s At %(where)s.")
                    % {"step": said.text, "where": where(place.x, place.y, place.rotation)}
                )
            else:
                texts.append(said.text)
        items.append({"key": f"{display.player}:{len(display.log)}", "text": " ".join(texts)})
    return items
