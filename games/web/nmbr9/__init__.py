"""NMBR 9 on the site: how its view becomes a page, how a page's forms become its moves.

The game page shows the player's own display, drawn on the server as SVG, with the tile to
place as a *ghost* that the player moves (previews are GET requests with ``x``, ``y`` and
``rotation``, answered with the ``turn`` partial only) and confirms (a POST of the move
``place N@X,YrR`` with the ply the page knew). Everything here comes from the player's view
(``GameView``): their own display, the others as far as they may see them, the supply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import QueryDict

from games.inputs import StrictIntegerField, parse_int
from games.models import Seat
from games.nmbr9 import Board, IllegalPlacement, Placement
from games.services import MatchView
from games.web.base import LogEntry
from games.web.nmbr9.svg import board_svg

#: Coordinates a ghost may be moved to.
REACH = 99


class OptionsForm(forms.Form):
    """The NMBR 9 options of a new match."""

    pace = forms.ChoiceField(
        choices=[
            ("rounds", "Rounds: everybody places each card, then the next is revealed"),
            ("free", "Free: everybody goes through the cards at their own speed"),
        ],
        initial="rounds",
        widget=forms.RadioSelect,
    )
    removed = forms.ChoiceField(
        label="Cards removed before the game",
        choices=[
            ("0", "None"),
            ("1", "1"),
            ("2", "2"),
            ("3", "3"),
            ("4", "4"),
            ("random", "A random number (0-4)"),
        ],
        initial="0",
    )

    def clean_removed(self) -> int | str:
        value = self.cleaned_data["removed"]
        return value if value == "random" else int(value)


class PlacementForm(forms.Form):
    """Where to put the current tile: the top-left of its bounding box and a rotation."""

    x = StrictIntegerField(min_value=-REACH, max_value=REACH)
    y = StrictIntegerField(min_value=-REACH, max_value=REACH)
    rotation = StrictIntegerField(min_value=0, max_value=3)


class MoveForm(PlacementForm):
    """A placement to confirm: the tile's number, where, and the number of moves the page
    knew of."""

    number = StrictIntegerField(min_value=0, max_value=9)
    ply = StrictIntegerField(min_value=0, max_value=100_000)


def first_error(form: forms.Form) -> str:
    for name, errors in form.errors.items():
        label = "" if name == "__all__" else f"{name}: "
        return f"{label}{errors[0]}"
    return ""


@dataclass(frozen=True, slots=True)
class Display:
    """One player's display as the viewer may see it."""

    seat: Seat
    score: int
    svg: str
    placed: int
    to_move: bool


def _default_ghost(board: Board, number: int) -> Placement:
    """A legal spot near the middle of the display, so Confirm works at once."""
    legal = board.legal_placements(number)
    cells = [c for p, _ in board.tiles for c in p.cells()]
    cx = sum(x for x, _ in cells) / len(cells) if cells else 0
    cy = sum(y for _, y in cells) / len(cells) if cells else 0
    return min(legal, key=lambda p: ((p.x - cx) ** 2 + (p.y - cy) ** 2, str(p)))


class Nmbr9Web:
    """The web adapter of NMBR 9 (see ``games.web``)."""

    slug = "nmbr9"
    template = "games/nmbr9/play.html"
    replay_template = "games/nmbr9/replay.html"
    options_form = OptionsForm

    # ----------------------------------------------------------------- options

    def describe(self, options: dict[str, Any]) -> list[str]:
        """The options of a match in a few words, for its heading and the lobby."""
        words = ["free pace" if options.get("pace") == "free" else "rounds pace"]
        removed = options.get("removed", 0)
        if removed == "random":
            words.append("a random number of cards removed")
        elif removed:
            words.append(f"{removed} card{'s' if removed != 1 else ''} removed")
        return words

    # ----------------------------------------------------------------- the page

    def read_query(self, query: QueryDict) -> dict[str, Any]:
        """What a GET asks for besides the page: a preview (``at``) or an enlarged opponent
        (``focus``). ValueError with a message for the player if it cannot be read."""
        if "focus" in query:
            try:
                return {"focus": parse_int(query["focus"], minimum=0, maximum=99)}
            except ValueError:
                raise ValueError("focus: not a player.") from None
        if not {"x", "y", "rotation"} & set(query):
            return {}
        form = PlacementForm(query)
        if not form.is_valid():
            raise ValueError(first_error(form))
        data = form.cleaned_data
        return {"at": (data["x"], data["y"], data["rotation"])}

    def context(
        self,
        mv: MatchView,
        *,
        at: tuple[int, int, int] | None = None,
        focus: int | None = None,
    ) -> dict[str, Any]:
        """The play area of the page from the viewer's view."""
        view, match, seats = mv.view, mv.match, mv.seats
        me = mv.seat.index if mv.seat is not None else 0
        url = match.get_absolute_url()
        mine = view.displays[me]
        board = mine.board()
        decision = view.decision if mv.is_player and not mv.seat.has_left else None
        number = decision.cards[0][1] if decision is not None and decision.cards else None
        context: dict[str, Any] = {
            "round": view.round,
            "rounds": view.rounds,
            "score": mine.score,
            "number": number,
            "supply": sorted(view.supply.items()),
            "waiting_for": [seats[i] for i in view.waiting_for if i != me] if mv.is_player else [],
            "finished_playing": view.rounds is not None and mine.progress >= view.rounds,
            "focus": focus,
        }
        waiting = set(view.waiting_for)
        context["displays"] = [
            Display(
                seat=seats[d.player],
                score=d.score,
                svg=board_svg(
                    d.board(),
                    title=f"Display of {seats[d.player].player.username}",
                    css_class="board" if d.player == focus else "board small",
                ),
                placed=d.progress,
                to_move=d.player in waiting,
            )
            for d in view.displays
            if d.player != me
        ]
        ghost = None
        if number is not None:
            ghost = _default_ghost(board, number) if at is None else Placement(number, *at)
            try:
                context["level"] = board.level_of(ghost)
                context["gain"] = number * context["level"]
                context["legal"] = True
            except IllegalPlacement as exc:
                context["legal"] = False
                context["reason"] = exc.reason
            x, y, r = ghost.x, ghost.y, ghost.rotation
            steps = {
                "left": (x - 1, y, r),
                "right": (x + 1, y, r),
                "up": (x, y - 1, r),
                "down": (x, y + 1, r),
                "rotate": (x, y, (r + 1) % 4),
                "rotate_back": (x, y, (r - 1) % 4),
            }
            context["moves"] = {
                name: f"{url}?{urlencode({'x': mx, 'y': my, 'rotation': mr})}"
                for name, (mx, my, mr) in steps.items()
            }
            context["ghost"] = ghost
            context["ghost_w"], context["ghost_h"] = ghost.size
            context["move"] = f"place {ghost}"
        context["svg"] = board_svg(
            board,
            ghost=ghost,
            ghost_legal=context.get("legal", False),
            interactive=ghost is not None,
            title=f"Display of {seats[me].player.username}",
        )
        return context

    def preview_url(self, mv: MatchView, context: dict[str, Any]) -> str:
        """The address of the page showing this preview (kept in the browser's history)."""
        ghost = context["ghost"]
        query = urlencode({"x": ghost.x, "y": ghost.y, "rotation": ghost.rotation})
        return f"{mv.match.get_absolute_url()}?{query}"

    def log(self, mv: MatchView) -> list[LogEntry]:
        """What happened in the match as far as the viewer can see it, newest first."""
        view, seats = mv.view, mv.seats
        entries = []
        horizon = view.round if view.pace == "free" and mv.is_player and not view.over else None
        for display in view.displays:
            name = seats[display.player].player.username
            numbers = [(p, level) for p, level in display.tiles if p.number is not None]
            for round, (placement, level) in enumerate(numbers, start=1):
                text = f"{name} placed a {placement.number} on level {level}."
                entries.append((round, display.player, LogEntry(f"Round {round}", text)))
        for seat in seats:
            if seat.has_left:
                verb = "resigned" if seat.state == Seat.State.RESIGNED else "was dropped"
                round = seat.progress + (seat.state == Seat.State.RESIGNED)
                if horizon is not None:
                    round = min(round, horizon)
                text = f"{seat.player.username} {verb}."
                entries.append((round, 99, LogEntry(f"Round {round}", text)))
        entries.sort(key=lambda e: (e[0], e[1]), reverse=True)
        return [entry for _, _, entry in entries]

    # ----------------------------------------------------------------- moves

    def move(self, post: QueryDict) -> tuple[str, int]:
        """The move a form posts, with the ply its page knew; ValueError with a message."""
        form = MoveForm(post)
        if not form.is_valid():
            raise ValueError(first_error(form))
        data = form.cleaned_data
        placement = Placement(data["number"], data["x"], data["y"], data["rotation"])
        return f"place {placement}", data["ply"]

    # ----------------------------------------------------------------- replays

    def replay(self, mv: MatchView, query: QueryDict) -> dict[str, Any]:
        """Every display after a round (``?round=``), for stepping through a finished match."""
        view = mv.view
        rounds = max((d.progress for d in view.displays), default=0)
        try:
            round = parse_int(query.get("round", str(rounds)), minimum=0)
        except ValueError:
            round = rounds
        round = min(round, rounds)
        displays = []
        for display in view.displays:
            seat = mv.seats[display.player]
            shown = _first_rounds(display.tiles, round)
            board = Board.from_tiles(shown)
            svg = board_svg(board, title=f"{seat.player.username} after round {round}")
            placed = sum(1 for p, _ in shown if p.number is not None)
            displays.append(Display(seat, board.score(), svg, placed, to_move=False))
        return {
            "round": round,
            "rounds": rounds,
            "displays": displays,
            "previous": round - 1 if round > 0 else None,
            "next": round + 1 if round < rounds else None,
        }

    # ----------------------------------------------------------------- puzzles

    def puzzle_start(self, puzzle) -> dict[str, str]:
        """The display a puzzle starts from: ``svg`` and a sentence, ``text``."""
        start = Placement.parse(puzzle.start)
        board = Board.from_placements([start])
        return {
            "svg": board_svg(board, title=f"Start of {puzzle}", css_class="board small"),
            "text": f"Starts with a {start.number} in the centre.",
        }


def _first_rounds(tiles, rounds: int):
    """The tiles of a display up to and including its ``rounds``-th number tile."""
    shown, numbers = [], 0
    for placement, level in tiles:
        if placement.number is not None:
            if numbers == rounds:
                break
            numbers += 1
        shown.append((placement, level))
    return tuple(shown)


ADAPTER = Nmbr9Web()

__all__ = ["ADAPTER", "Display", "Nmbr9Web"]
