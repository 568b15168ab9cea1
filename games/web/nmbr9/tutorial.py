"""Learning NMBR 9 on the site: a short guided game of five fixed cards.

Each card teaches one thing (``LESSONS``): the first tile goes anywhere; on level 0 a tile
touches another; a tile on top lies wholly on at least two tiles; a tile scores its number
times its level; the last one ends with the score by level. The page is the game page's play
area: the tile to place is a ghost moved by the same links, keys and clicks, its verdict says
why it may not go where it is (the rules' own reason, or what the step wants instead), and
the squares where the step takes it, turned as it is, are shaded.

Nothing is stored: the tiles placed so far are the page's address
(``?placed=9@0,0r0;9@3,0r1``), checked again by the rules and the lessons on every request,
and so is the ghost's spot (``&x=4&y=0&rotation=1``).

>>> progress = TUTORIAL.read(QueryDict("placed=9@0,0r0"))
>>> progress.step, str(progress.lesson.says)[:24]
(1, 'On level 0 a new tile mu')
>>> TUTORIAL.move(progress.at_spot(5, 0, 0), QueryDict()).placed
Traceback (most recent call last):
    ...
games.web.base.WrongMove: Not adjacent: it must share an edge with a tile on the same level.
>>> TUTORIAL.address(TUTORIAL.move(progress.at_spot(3, 0, 0), QueryDict()))
'/learn/nmbr9/?placed=9@0,0r0;9@3,0r0'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.nmbr9 import WINDOW, Board, IllegalPlacement, InvalidPlacement, Placement
from games.web.base import WrongMove, first_error, sentence
from games.web.nmbr9.compose import arrow_targets
from games.web.nmbr9.forms import PlacementForm
from games.web.nmbr9.svg import board_svg, legend, points_by_level
from games.web.nmbr9.words import reason_text

#: Whether a legal placement is what a step wants: ``wants(board, placement, level)``.
Wants = Callable[[Board, Placement, int], bool]


def _leaves_room_for(number: int) -> Wants:
    """Wants a placement after which a ``number`` tile can lie on level 1, on both tiles."""

    def wants(board: Board, placement: Placement, level: int) -> bool:
        after = board.copy()
        after.place(placement)
        return any(on == 1 for _spot, on in after.legal_moves(number))

    return wants


def _on_level(wanted: int) -> Wants:
    def wants(board: Board, placement: Placement, level: int) -> bool:
        return level == wanted

    return wants


@dataclass(frozen=True, slots=True)
class Lesson:
    """One card of the tutorial: its number, the sentence that teaches it (``says``), what
    it wants beyond a legal placement (None: any) and what a legal placement that misses it
    is told (``instead``)."""

    number: int
    says: Any
    wants: Wants | None = None
    instead: Any = None


LESSONS = (
    Lesson(
        9, gettext_lazy("The first tile goes anywhere: move the 9 where you like and place it.")
    ),
    Lesson(
        9,
        gettext_lazy(
            "On level 0 a new tile must touch another along an edge: place the second 9 "
            "beside the first."
        ),
        _leaves_room_for(7),
        gettext_lazy(
            "It touches, but leave room on top: put the second 9 alongside the first, so "
            "that a tile can lie on both."
        ),
    ),
    Lesson(
        7,
        gettext_lazy(
            "A tile may lie on top, on level 1, if it lies wholly on tiles, with no overhang "
            "and no gap, and on at least two of them: put the 7 on both 9s."
        ),
        _on_level(1),
        gettext_lazy("This time put it on top of two tiles: level 1."),
    ),
    Lesson(
        6,
        gettext_lazy(
            "A tile scores its number times its level, so the 7 on level 1 scores 7 and a "
            "tile on level 0 nothing: move the 6 about, see what it would score, and place it."
        ),
    ),
    Lesson(8, gettext_lazy("Your last tile: place the 8, and see your score.")),
)

#: What the tutorial has taught, said once every card is placed.
LEARNED = (
    gettext_lazy("The first tile goes anywhere."),
    gettext_lazy("On every level a new tile must touch a tile of that level along an edge."),
    gettext_lazy(
        "A tile on top lies wholly on tiles, with no overhang and no gap, and on at least two "
        "of them."
    ),
    gettext_lazy("A tile scores its number times its level: level 0 scores nothing."),
    gettext_lazy(
        "A game has 20 cards, two of each number, and everybody places the same ones: 100 "
        "points is an excellent score."
    ),
)


@dataclass(frozen=True, slots=True)
class Progress:
    """How far the tutorial has got: the tiles placed, one per card in order, and the spot
    the page shows the next one on (``at``: x, y, rotation; None: where a step starts it)."""

    placed: tuple[Placement, ...] = ()
    at: tuple[int, int, int] | None = None

    @property
    def step(self) -> int:
        """The card being placed, from 0 (``len(LESSONS)``: every card is placed)."""
        return len(self.placed)

    @property
    def done(self) -> bool:
        return self.step == len(LESSONS)

    @property
    def lesson(self) -> Lesson:
        return LESSONS[self.step]

    def board(self) -> Board:
        return Board(self.placed)

    def at_spot(self, x: int, y: int, rotation: int) -> Progress:
        return replace(self, at=(x, y, rotation))


def judge(board: Board, lesson: Lesson, placement: Placement) -> tuple[int | None, str]:
    """The level ``placement`` would lie on for ``lesson`` (None when it is not taken) and
    what the step says of it: the rule it breaks, what the step wants instead, or its points."""
    try:
        level = board.level_of(placement)
    except IllegalPlacement as refused:
        return None, sentence(reason_text(refused))
    if lesson.wants is not None and not lesson.wants(board, placement, level):
        return None, str(lesson.instead)
    if level == 0:
        return level, _("Fits on level 0: no points.")
    points = (placement.number or 0) * level  # a filler scores nothing
    return level, ngettext(
        "Fits on level %(level)s: %(number)s × %(level)s = %(points)s point.",
        "Fits on level %(level)s: %(number)s × %(level)s = %(points)s points.",
        points,
    ) % {"level": level, "number": placement.number, "points": points}


def accepted(placed: tuple[Placement, ...]) -> tuple[tuple[Placement, int], ...]:
    """Every placement the step after ``placed`` takes (each set of squares once), with its
    level. The first card goes anywhere: none are listed for it."""
    if not placed:
        return ()
    # Worked out for the display moved so that its first tile is at (0, 0): the same few
    # displays come back whatever addresses are asked for. Moved back, a spot may reach
    # beyond the edge of the display.
    dx, dy = placed[0].x, placed[0].y
    spots = _accepted(tuple(p.moved(p.x - dx, p.y - dy) for p in placed))
    moved = ((p.moved(p.x + dx, p.y + dy), level) for p, level in spots)
    return tuple(
        (p, level)
        for p, level in moved
        if all(abs(x) <= WINDOW and abs(y) <= WINDOW for x, y in p.cells())
    )


@lru_cache(maxsize=512)
def _accepted(placed: tuple[Placement, ...]) -> tuple[tuple[Placement, int], ...]:
    lesson = LESSONS[len(placed)]
    board = Board(placed)
    return tuple(
        (placement, level)
        for placement, level in board.legal_moves(lesson.number)
        if lesson.wants is None or lesson.wants(board, placement, level)
    )


def start_spot(board: Board, number: int, placed: tuple[Placement, ...]) -> Placement:
    """Where a step shows its tile first: the middle of an empty display, else on a spot the
    step takes (so that a step never opens with a refusal), upright if the step takes it
    upright somewhere, the spot nearest the display's right-hand side (one square beyond it
    when the step takes it nowhere on the display)."""
    bounds = board.bounds()
    if bounds is None:
        return Placement(number, 0, 0, 0)
    _min_x, min_y, max_x, _max_y = bounds
    spots = [placement for placement, _level in accepted(placed)]
    turns = sorted({placement.rotation for placement in spots})
    rotation = 0 if not turns or 0 in turns else turns[0]
    beside = Placement(number, max_x + 2, min_y, rotation)
    turned = [p for p in spots if p.rotation == rotation]
    if not turned:
        return beside
    return min(turned, key=lambda p: (abs(p.x - beside.x) + abs(p.y - beside.y), p.y, p.x))


class Nmbr9Tutorial:
    """The "Learn to play" of NMBR 9 (see ``games.web.base``)."""

    slug = "nmbr9"
    template = "games/nmbr9/learn.html"
    summary = gettext_lazy(
        "Five tiles: where a tile may go, two tiles beneath one on top, and how levels score."
    )
    cards = tuple(lesson.number for lesson in LESSONS)

    def read(self, query: QueryDict) -> Progress:
        """The progress an address (or a form) holds; ValueError with a message when it is not
        a game of the tutorial."""
        text = query.get("placed", "").strip()
        parts = text.split(";") if text else []
        if len(parts) > len(LESSONS):
            raise ValueError(_("It has more tiles than the tutorial has cards."))
        board, placed = Board(), []
        for index, part in enumerate(parts):
            try:
                placement = Placement.parse(part)
            except InvalidPlacement:
                raise ValueError(
                    _("%(text)s is not the place of a tile.") % {"text": part.strip()[:30]}
                ) from None
            lesson = LESSONS[index]
            if placement.piece != lesson.number or placement.mirrored:
                raise ValueError(
                    _("Card %(card)s of the tutorial is a %(number)s, not %(text)s.")
                    % {"card": index + 1, "number": lesson.number, "text": part.strip()[:30]}
                )
            level, said = judge(board, lesson, placement)
            if level is None:
                raise ValueError(
                    _("Its tile %(card)s cannot go there. %(reason)s")
                    % {"card": index + 1, "reason": said}
                )
            board.place(placement)
            placed.append(placement)
        at = None
        if {"x", "y", "rotation"} & set(query):
            form = PlacementForm(query)
            if not form.is_valid():
                raise ValueError(first_error(form))
            at = (form.cleaned_data["x"], form.cleaned_data["y"], form.cleaned_data["rotation"])
        return Progress(tuple(placed), at)

    def move(self, progress: Progress, post: QueryDict) -> Progress:
        """The progress after placing the tile at the spot posted; WrongMove with the rule it
        breaks or what the step wants instead."""
        if progress.done:
            raise WrongMove(_("Every card of the tutorial is placed."), progress)
        if progress.at is None:
            raise WrongMove(_("Say where the tile goes: x, y and rotation."), progress)
        lesson = progress.lesson
        placement = Placement(lesson.number, *progress.at)
        level, said = judge(progress.board(), lesson, placement)
        if level is None:
            raise WrongMove(said, progress)
        return Progress((*progress.placed, placement))

    def address(self, progress: Progress, preview: bool = False) -> str:
        """The page of ``progress`` (with ``preview``, also the ghost's spot)."""
        query: dict[str, Any] = {}
        if progress.placed:
            query["placed"] = ";".join(str(p) for p in progress.placed)
        if preview and progress.at is not None:
            query.update(zip(("x", "y", "rotation"), progress.at, strict=True))
        url = reverse("learn_game", args=[self.slug])
        return f"{url}?{urlencode(query, safe='@,;')}" if query else url

    def context(self, progress: Progress) -> dict[str, Any]:
        """The page: the cards, the step's sentence, the display with the ghost and the
        squares the step takes it on, the controls; once every card is placed, the score."""
        board = progress.board()
        context: dict[str, Any] = {
            "cards": [
                {"number": number, "placed": index < progress.step, "now": index == progress.step}
                for index, number in enumerate(self.cards)
            ],
            "step": progress.step + 1,
            "steps": len(LESSONS),
            "done": progress.done,
            "score": board.score(),
            "levels": points_by_level(board),
            "legend": legend(),
            "placed": ";".join(str(p) for p in progress.placed),
        }
        title = _("Your display")
        if progress.done:
            context["svg"] = board_svg(board, title=title, coordinates=True)
            context["learned"] = [str(text) for text in LEARNED]
            return context
        lesson = progress.lesson
        if progress.at is None:
            ghost = start_spot(board, lesson.number, progress.placed)
        else:
            ghost = Placement(lesson.number, *progress.at)
        level, verdict = judge(board, lesson, ghost)
        turned = ghost.canonical().rotation
        spots = [p for p, _level in accepted(progress.placed) if p.rotation == turned]
        shown = replace(progress, at=None)
        steps_to = arrow_targets(ghost)
        context.update(
            says=str(lesson.says),
            number=lesson.number,
            ghost=ghost,
            ghost_w=ghost.size[0],
            ghost_h=ghost.size[1],
            legal=level is not None,
            verdict=verdict,
            # Shaded squares, and a word to turn the tile when none are shaded.
            anywhere=not progress.placed,
            turn_it=bool(progress.placed) and not spots,
            moves={
                name: self.address(shown.at_spot(*to), preview=True)
                for name, to in steps_to.items()
            },
            preview_base=self.address(shown),
            action=reverse("learn_game", args=[self.slug]),
            svg=board_svg(
                board,
                ghost=ghost,
                ghost_legal=level is not None,
                interactive=True,
                title=title,
                coordinates=True,
                spots=(cell for spot in spots for cell in spot.cells()),
            ),
        )
        return context


TUTORIAL = Nmbr9Tutorial()
