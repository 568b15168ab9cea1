"""The turn a player of NMBR 9 composes on the page, step by step (NMBR 9 ++: gap fillers,
special tiles, the reserved tile, a tile moved), with the piece placed now as a *ghost*.

Every step is one of the engine's own (``Place``, ``Fill``, ``Move``, ``Build``) and the turn
so far a ``Turn``: the page's addresses and forms carry their notation, and the rules draft
the turn to say whether the piece fits where it is shown and what it would score.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from django.utils.translation import gettext as _

from games.contract import IllegalMove, InvalidMove
from games.names import shown
from games.nmbr9 import Board, IllegalPlacement, Place, Placement, Turn
from games.nmbr9.tiles import FILLERS
from games.nmbr9.turn import TILE_SPECIALS, Build, Fill, Move, Step
from games.nmbr9.views import Logged
from games.services import MatchView, draft
from games.web.base import sentence
from games.web.nmbr9.spoken import spot_choices
from games.web.nmbr9.words import Said, StepWords, reason_text, special_label


@dataclass(frozen=True, slots=True)
class Compose:
    """A turn being composed: the steps added so far (a ``Turn``, or None), the piece placed
    now ("" for the usual one, "none", "card", "F1"/"F2", "build", "move"), the special tiles
    used on the card's tile, the level marker of the card taken and the tile being moved.
    ``query()`` writes it back into a page address."""

    steps: Turn | None = None
    piece: str = ""
    specials: tuple[str, ...] = ()
    marker: int | None = None
    source: Placement | None = None

    def query(self) -> dict[str, str]:
        pairs = {
            "steps": "" if self.steps is None else str(self.steps),
            "piece": self.piece,
            "with": ",".join(self.specials),
            "from": "" if self.marker is None else str(self.marker),
            "src": "" if self.source is None else str(self.source),
        }
        return {key: value for key, value in pairs.items() if value}

    def turn(self, step: Step | None = None) -> Turn | None:
        """The turn of the steps so far and ``step``; None if there is no step at all."""
        steps = (*(self.steps.steps if self.steps else ()), *([step] if step else []))
        return Turn(steps) if steps else None

    def then(self, step: Step) -> Compose:
        """The composition with ``step`` added to the steps, choosing the next piece anew."""
        return Compose(self.turn(step), marker=self.marker)


def step_for(compose: Compose, number: int | None, at: tuple[int, int, int]) -> Step:
    """The step that puts the piece being placed at ``at``: ValueError with a message if
    the composition names none, ``InvalidMove`` (a ValueError too) if the rules' notation
    has no such step."""
    x, y, rotation = at
    piece = compose.piece or "card"
    if piece in FILLERS:
        return Fill(Placement(piece, x, y, rotation))
    if piece == "move":
        if compose.source is None:
            raise ValueError(_("Choose the tile to move."))
        return Move(compose.source, compose.source.moved(x, y, rotation))
    if number is None:
        raise ValueError(_("number: this field is required."))
    if piece == "build":
        return Build(Placement(number, x, y, rotation))
    placement = Placement(number, x, y, rotation, mirrored="black" in compose.specials)
    return Place(placement, compose.specials, compose.marker)


def default_ghost(
    board: Board,
    piece: int | str,
    relax: tuple[str, ...] = (),
    mirrored: bool = False,
    max_level: int | None = None,
) -> Placement:
    """A legal spot near the middle of the display, so Confirm works at once (the middle
    itself when the piece fits nowhere)."""
    spots = board.legal_spots(piece, relax, mirrored, max_level)
    cells = [c for p, _ in board.tiles for c in p.cells()]
    cx = sum(x for x, _ in cells) / len(cells) if cells else 0
    cy = sum(y for _, y in cells) / len(cells) if cells else 0
    if not spots:
        return Placement(piece, round(cx), round(cy), 0, mirrored=mirrored)
    # The nearest to the middle; among equally near ones the first in notation order
    # (placements made only for those: there are hundreds of legal spots).
    distances = [(x - cx) ** 2 + (y - cy) ** 2 for x, y, _ in spots]
    nearest = min(distances)
    return min(
        (
            Placement(piece, *spot, mirrored=mirrored)
            for spot, d in zip(spots, distances, strict=True)
            if d == nearest
        ),
        key=str,
    )


def drafted_words(mv: MatchView, so_far: Turn, own) -> list[Said]:
    """The steps of the turn composed so far in words, as the log will tell them (``own``:
    the player's display after them, which says the level of each piece)."""
    pieces = [
        step.target if isinstance(step, Move) else step.placement
        for step in so_far.steps
        if isinstance(step, Place | Fill | Build | Move)
    ]
    levels = tuple(max(lv for p, lv in own.tiles if p == piece) for piece in pieces)
    name = shown(mv.seats[own.player].player.username)
    return StepWords()(name, Logged(0, so_far, levels))


def pieces(view, main_done: bool) -> list[str]:
    """What a turn may place next from ``view`` (the turn composed so far): the card's tile
    until it is placed, the gap fillers still held, the reserved tile, a tile to move where
    one is free to move."""
    decision = view.decision
    keys = [] if main_done else ["card"]
    keys += [f for f in ("F1", "F2") if f in decision.fillers]
    if view.reserved is not None:
        keys.append("build")
    if "move" in decision.specials and movable(view.displays[decision.player].board()):
        keys.append("move")
    return keys


def movable(board: Board) -> list[tuple[Placement, int]]:
    """The number tiles the special tile "move" may take: nothing lies on them."""
    found = []
    for placement, level in board.tiles:
        if placement.number is None:
            continue
        try:
            board.copy().remove(placement)
        except IllegalPlacement:
            continue
        found.append((placement, level))
    return sorted(found, key=lambda t: (t[1], t[0].y, t[0].x))


def _but_last(turn: Turn) -> Turn | None:
    """The turn without its last step (None: no step is left)."""
    return Turn(turn.steps[:-1]) if len(turn.steps) > 1 else None


def _linker(mv: MatchView):
    """Addresses of the match page composing another turn (and showing its piece at ``at``)."""
    url = mv.match.get_absolute_url()

    def link(changed: Compose, at=None) -> str:
        query = changed.query()
        if at is not None:
            query.update(x=at[0], y=at[1], rotation=at[2])
        return f"{url}?{urlencode(query)}" if query else url

    return link


def compose_turn(mv: MatchView, context: dict[str, Any], compose: Compose, at) -> Placement | None:
    """Fill ``context`` with the turn being composed; the piece being placed, if any."""
    # "2 of 3": build or reject is chosen before the tile is tried (docs/rules.md §6.5), so
    # until the player has chosen to build, nothing composed is shown, only the choice.
    choose_first = "build" in mv.may_commit
    if choose_first:
        compose, at = Compose(), None
    drafted, refused = draft(mv, str(compose.steps)) if compose.steps else (mv.view, None)
    if refused is not None:
        context["error"] = sentence(reason_text(refused))
        compose, drafted = Compose(marker=compose.marker), mv.view
    decision = drafted.decision
    own = drafted.displays[decision.player]
    board = own.board()
    so_far = compose.steps
    main_done = so_far is not None and so_far.main is not None
    cards = dict(decision.cards)
    marker = compose.marker if compose.marker in cards else decision.cards[0][0]
    specials = tuple(s for s in compose.specials if s in decision.specials)
    specials = specials[: decision.markers]
    piece = "" if compose.piece == "none" else compose.piece
    if piece == "" and not main_done and not choose_first:
        piece = "card"
    if (
        (piece == "card" and main_done)
        or (piece in FILLERS and piece not in decision.fillers)
        or (piece == "build" and drafted.reserved is None)
        or (piece == "move" and "move" not in decision.specials)
    ):
        piece = ""
    source = compose.source if piece == "move" else None
    usual = "card" if not main_done and not choose_first else ""
    compose = Compose(
        so_far,
        "" if piece == usual else piece,
        specials if piece == "card" else (),
        marker,
        source,
    )
    number = {"card": cards.get(marker), "build": drafted.reserved}.get(piece)
    link = _linker(mv)
    context.update(
        number=cards.get(marker) if not main_done else None,
        compose=compose,
        piece=piece,
        compose_fields=compose.query(),
        steps=drafted_words(mv, so_far, own) if so_far else [],
        main_done=main_done,
        choose_first=choose_first,
        board=board,
        markers=decision.markers,
        fillers=decision.fillers,
        reserved=drafted.reserved,
        reserved_cap=decision.reserved_cap,
        reserved_limit=decision.reserved_limit,
        may_reject=choose_first,
        may_reserve="reserve" in decision.specials and not so_far and not choose_first,
        reserve_turn="reserve" if marker is None else f"reserve from {marker}",
        undo_url=link(Compose(_but_last(so_far), marker=marker)) if so_far else None,
    )
    _choices(context, drafted, compose, specials, main_done, choose_first, at, link)
    if piece == "move" and source is None:
        context["movable"] = [
            {"tile": p, "level": level, "url": link(replace(compose, source=p))}
            for p, level in movable(board)
        ]
        return None
    if not piece:
        return None
    return _ghost(mv, context, drafted, compose, specials, number, at, main_done, link)


def _choices(context, drafted, compose, specials, main_done, choose_first, at, link) -> None:
    """The choices of what to place now: the cards shown, the pieces, the special tiles."""
    decision, marker, piece = drafted.decision, compose.marker, context["piece"]
    cards = dict(decision.cards)
    if len(decision.cards) > 1 or marker is not None:
        context["cards"] = [
            {
                "marker": m,
                "number": n,
                "cap": decision.cap(m),
                "chosen": m == marker and not main_done,
                "url": link(Compose(compose.steps, "card", (), m)),
            }
            for m, n in decision.cards
        ]
    labels = {
        "card": _("Your %(number)s") % {"number": cards.get(marker)},
        "F1": _("Gap filler %(filler)s") % {"filler": "F1"},
        "F2": _("Gap filler %(filler)s") % {"filler": "F2"},
        "build": _("Reserved %(number)s") % {"number": drafted.reserved},
        "move": _("Move a tile"),
    }
    context["pieces"] = [
        {
            "label": labels[key],
            "url": link(Compose(compose.steps, key, (), marker)),
            "on": key == piece,
        }
        for key in ([] if choose_first else pieces(drafted, main_done))
    ]
    if piece == "card":
        context["toggles"] = [
            {
                "name": name,
                "label": special_label(name),
                "on": name in specials,
                "url": link(
                    replace(
                        compose,
                        specials=tuple(s for s in TILE_SPECIALS if (s in specials) != (s == name)),
                    ),
                    at,
                ),
                "enabled": name in specials
                or (name in decision.specials and len(specials) < decision.markers),
            }
            for name in TILE_SPECIALS
            if name in drafted.specials
        ]


def _ghost(mv, context, drafted, compose, specials, number, at, main_done, link) -> Placement:
    """The piece being placed, shown at ``at`` (else at a legal spot near the middle), with
    the rules' verdict on it, what it scores and the controls that move it (``specials``:
    the special tiles chosen, which shape the ghost whatever the piece)."""
    decision, piece, board = drafted.decision, context["piece"], context["board"]
    own = drafted.displays[decision.player]
    source, marker = compose.source, compose.marker
    if piece == "move":
        moved = board.copy()
        cap = moved.remove(source)
        ghost_piece, mirrored, relax = source.piece, source.mirrored, ()
        start = moved
    else:
        ghost_piece = piece if piece in FILLERS else number
        mirrored = "black" in specials
        relax = tuple(s for s in specials if s != "black")
        cap = (
            decision.reserved_cap
            if piece == "build"
            else decision.cap(marker if piece == "card" else None)
        )
        start = board
    if at is None:
        ghost = default_ghost(start, ghost_piece, relax, mirrored, cap)
    else:
        x, y, rotation = at
        ghost = Placement(ghost_piece, x, y, rotation, mirrored=mirrored)
    after: Any  # the view after the step (None when the notation has no such step)
    refused: IllegalMove | None
    try:
        step = step_for(compose, number, (ghost.x, ghost.y, ghost.rotation))
    except InvalidMove as exc:  # a tile the notation cannot move: the rules' own refusal
        step, after, refused = None, None, exc
    else:
        after, refused = draft(mv, str(compose.turn(step)))
    context["legal"] = refused is None
    if refused is None:
        # The highest: a tile on an identical one ("one") lies on top of it.
        level = max(lv for p, lv in after.displays[decision.player].tiles if p == ghost)
        context["level"] = level
        # What this piece adds to the turn's score so far ("-9": a tile moved down).
        gain = after.displays[decision.player].score - own.score
        context["gain"] = f"{gain:+d}" if gain else ""
        # "Add, then more…" only where the turn can go on after this step.
        if pieces(after, main_done or piece == "card"):
            context["add_url"] = link(compose.then(step))
    else:
        context["reason"] = reason_text(refused)
    context["spots"] = spot_choices(
        start,
        ghost,
        relax,
        cap,
        lambda to: link(compose, to),
        exclude=source if piece == "move" else None,
    )
    context["moves"] = {name: link(compose, to) for name, to in arrow_targets(ghost).items()}
    context["preview_base"] = link(compose)
    context["ghost"] = ghost
    context["ghost_w"], context["ghost_h"] = ghost.size
    context["move"] = "" if step is None else str(step)
    if piece == "move":
        context["board"] = start
    return ghost


def arrow_targets(ghost: Placement) -> dict[str, tuple[int, int, int]]:
    """Where each arrow of the turn's controls takes the ghost: (x, y, rotation)."""
    x, y, r = ghost.x, ghost.y, ghost.rotation
    return {
        "left": (x - 1, y, r),
        "right": (x + 1, y, r),
        "up": (x, y - 1, r),
        "down": (x, y + 1, r),
        "rotate": (x, y, (r + 1) % 4),
        "rotate_back": (x, y, (r - 1) % 4),
    }
