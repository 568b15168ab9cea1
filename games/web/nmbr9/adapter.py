"""NMBR 9 on the site: how its view becomes a page, how a page's forms become its moves.

The game page shows the player's own display, drawn on the server as SVG, with the tile to
place as a *ghost* that the player moves (previews are GET requests with ``x``, ``y`` and
``rotation``, answered with the ``turn`` partial only) and confirms (a POST of the move
``place N@X,YrR`` with the ply the page knew). Everything here comes from the player's view
(``GameView``): their own display, the others as far as they may see them, the supply.
The parts: ``forms`` (the options, and the one reader of what a page sends about a turn),
``compose`` (the turn being composed), ``words`` (sentences), ``replay``, ``svg``.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.inputs import parse_int
from games.models import Puzzle
from games.names import shown
from games.nmbr9 import Board, Placement
from games.nmbr9.policy import choose
from games.services import MatchView
from games.web.base import LogEntry, PuzzleWebAdapter, Tutorial, sentence
from games.web.nmbr9 import replay, spoken, words
from games.web.nmbr9.compose import Compose, compose_turn
from games.web.nmbr9.forms import REACH, OptionsForm, read_turn
from games.web.nmbr9.replay import Display, built
from games.web.nmbr9.spoken import read_spot
from games.web.nmbr9.svg import board_svg, legend, points_by_level
from games.web.nmbr9.words import SPECIAL_NAMES, reason_text, special_label


class Nmbr9Web:
    """The web adapter of NMBR 9 (``games.web.base.WebAdapter``, and ``PuzzleWebAdapter``:
    its deals are the site's puzzles)."""

    slug = "nmbr9"
    template = "games/nmbr9/play.html"
    replay_template = "games/nmbr9/replay.html"
    help_template = "games/nmbr9/help.html"
    essentials_template = "games/nmbr9/essentials.html"
    options_form = OptionsForm
    prefs: dict[str, str] = {}
    tagline = gettext_lazy(
        "Stack the numbers 0 to 9 into a tower: the higher a tile lies, the more it scores."
    )
    options_help = gettext_lazy("What the NMBR 9 ++ modules and variants are")
    stylesheets = ("nmbr9/nmbr9.css",)
    scripts = ("nmbr9/nmbr9.js",)

    @property
    def tutorial(self) -> Tutorial:
        """The game's "Learn to play" (``games.web.nmbr9.tutorial``)."""
        from games.web.nmbr9.tutorial import TUTORIAL  # it reads the forms and the words

        return TUTORIAL

    def describe(self, options: dict[str, Any]) -> list[str]:
        """The options of a match in a few words, for its heading and the lobby."""
        return words.describe(options)

    # ----------------------------------------------------------------- the page

    def read_query(self, query: QueryDict) -> dict[str, Any]:
        """What a GET asks for besides the page: a preview (``at``, the turn being composed)
        or an enlarged opponent (``focus``); a ``spot`` chosen from the list of spots
        ("x,y,rotation") is the preview there. ValueError with a message for the player if it
        cannot be read."""
        if "spot" in query:  # a spot chosen from the list: shown there, Confirm at hand
            x, y, rotation = read_spot(query.get("spot", ""), REACH)
            query = query.copy()
            del query["spot"]
            query["x"], query["y"], query["rotation"] = str(x), str(y), str(rotation)
            return {**self.read_query(query), "chosen": True}
        if "focus" in query:
            try:
                return {"focus": parse_int(query["focus"], minimum=0, maximum=99)}
            except ValueError:
                raise ValueError(_("focus: not a player.")) from None
        posted = read_turn(query, preview=True)
        if posted.at is None and posted.compose == Compose():
            return {}
        return {"preview": True, "at": posted.at, "compose": posted.compose}

    def context(
        self,
        mv: MatchView,
        *,
        preview: bool = False,
        at: tuple[int, int, int] | None = None,
        compose: Compose | None = None,
        focus: int | None = None,
        chosen: bool = False,
    ) -> dict[str, Any]:
        """The play area of the page from the viewer's view (and the turn they compose). A
        spectator's (``mv.seat`` None) shows the first player's display large, the others
        beside it, and the cards showing to every player: no turn, no hand of theirs.
        ``chosen``: the spot was chosen from the list of spots (Confirm takes the focus)."""
        view, seats = mv.view, mv.seats
        me = mv.seat.index if mv.seat is not None else 0
        mine = view.displays[me]
        playing = mv.seat is not None and not mv.seat.has_left and mv.match.status == "active"
        decision = view.decision if playing else None
        waiting = [i for i in view.waiting_for if not mv.is_player or i != me]
        context: dict[str, Any] = {
            "round": view.round,
            "rounds": view.rounds,
            "score": mine.score,
            "shown_name": shown(seats[me].player.username),
            "supply": sorted((view.tiles_left or view.supply).items()),
            "waiting_for": [seats[i] for i in waiting],
            "waiting_names": ", ".join(shown(seats[i].player.username) for i in waiting),
            "finished_playing": mv.is_player
            and view.rounds is not None
            and mine.progress >= view.rounds,
            "showing": [number for _marker, number in view.cards] if not mv.is_player else [],
            "focus": focus,
            "plusplus": view.options.plusplus,
            "free_pace": view.pace == "free",
            "specials": [special_label(s) for s in view.specials],
            "level_markers": view.level_markers,
            "pile": view.pile,
            "round_cards": view.round_cards,
            "lost": view.lost,
            "chosen": chosen,
            "news": [] if preview else spoken.news(mv),
        }
        # A preview shows only the turn: the opponents' boards are drawn for pages alone.
        context["displays"] = [] if preview else _others(mv, me, focus)
        ghost = None
        if decision is not None:
            ghost = compose_turn(mv, context, compose or Compose(), at)
        else:
            context["number"] = None
        board = context.pop("board", None) or mine.board()
        context["svg"] = board_svg(
            board,
            ghost=ghost,
            ghost_legal=context.get("legal", False),
            interactive=ghost is not None,
            title=_("Display of %(player)s") % {"player": shown(seats[me].player.username)},
            coordinates=True,
        )
        context["levels"] = points_by_level(board)
        context["in_words"] = spoken.display_words(board)
        context["layers"] = list(range(board.height())) if board.height() > 1 else []
        context["legend"] = legend()
        return context

    def preview_url(self, mv: MatchView, context: dict[str, Any]) -> str | None:
        """The address of the page showing this preview (kept in the browser's history): the
        turn composed so far and where its piece is shown; None when no turn is composed."""
        if "compose_fields" not in context:
            return None
        query = dict(context["compose_fields"])
        ghost = context.get("ghost")
        if ghost is not None:
            query.update(x=ghost.x, y=ghost.y, rotation=ghost.rotation)
        url = mv.match.get_absolute_url()
        return f"{url}?{urlencode(query)}" if query else url

    def log(self, mv: MatchView) -> list[LogEntry]:
        """What happened in the match as far as the viewer can see it, newest first."""
        return words.log_entries(mv)

    def standing(self, mv: MatchView) -> str:
        """The round the viewer's view is in ("Round 5 of 18")."""
        view = mv.view
        if view.rounds is None:
            return _("Round %(round)s") % {"round": view.round}
        return _("Round %(round)s of %(rounds)s") % {"round": view.round, "rounds": view.rounds}

    # ----------------------------------------------------------------- moves

    def refusal(self, refused: Exception) -> str:
        """A refused move (``IllegalMove`` or ``MoveRefused``) as a sentence for the page."""
        return sentence(reason_text(refused))

    def move(self, post: QueryDict) -> tuple[str, int]:
        """The turn a form posts, with the ply its page knew; ValueError with a message."""
        posted = read_turn(post)
        assert posted.ply is not None  # a move's form wants it
        return str(posted.move()), posted.ply

    # ----------------------------------------------------------------- replays

    def replay(
        self, mv: MatchView, query: QueryDict, *, par_line: list[str] | None = None
    ) -> dict[str, Any]:
        """A finished match round by round (``games.web.nmbr9.replay``)."""
        return replay.replay(mv, query, par_line=par_line)

    # ----------------------------------------------------------------- home page

    def picture(self) -> SafeString:
        """A display of a few tiles on two levels, to show what the game looks like."""
        return board_svg(_picture_board(), title=_("A display of NMBR 9"), css_class="board thumb")

    def glance(self, mv: MatchView) -> SafeString:
        """The viewer's own display, small, for a list of their matches."""
        me = mv.seat.index if mv.seat is not None else 0
        title = _("Your display in %(match)s") % {"match": mv.match}
        return board_svg(mv.view.displays[me].board(), title=title, css_class="board thumb")

    # ----------------------------------------------------------------- help

    def help_context(self) -> dict[str, Any]:
        """Pictures for the help page: every piece of NMBR 9 ++ and a few placements."""

        def picture(text: str, title: str) -> SafeString:
            board = Board.from_tiles(
                [(Placement.parse(p), int(lv)) for p, lv in (t.split("/") for t in text.split())]
            )
            return board_svg(board, title=title, css_class="board small")

        return {
            "start_tiles": [
                (name, picture(f"{name}@0,0r0/0", _("Start tile %(name)s") % {"name": name}))
                for name in ("S1", "S2", "S3", "S4", "S5", "S6")
            ],
            "fillers": picture("8@0,0r0/0 F1@3,1r0/0 F2@3,2r0/0", _("Gap fillers next to an 8")),
            "mirrored": picture("7@0,0r0/0 7m@4,0r0/0", _("A 7 and a mirrored 7")),
            "specials": [str(text) for text in SPECIAL_NAMES.values()],
        }

    # ----------------------------------------------------------------- puzzles

    def puzzle_start(self, puzzle: Puzzle) -> dict[str, str]:
        """The display a puzzle starts from: ``svg`` and a sentence, ``text``."""
        start = Placement.parse(puzzle.start)
        board = Board.from_placements([start])
        return {
            "svg": board_svg(
                board, title=_("Start of %(puzzle)s") % {"puzzle": puzzle}, css_class="board small"
            ),
            "text": _("Starts with a %(number)s in the centre.") % {"number": start.number},
        }


def _others(mv: MatchView, me: int, focus: int | None) -> list[Display]:
    """The other players' displays as the viewer may see them (``focus``: shown large)."""
    view, seats = mv.view, mv.seats
    waiting = set(view.waiting_for)
    return [
        Display(
            seat=seats[d.player],
            score=d.score,
            svg=board_svg(
                board,
                title=_("Display of %(player)s")
                % {"player": shown(seats[d.player].player.username)},
                css_class="board" if d.player == focus else "board small",
            ),
            placed=built(d),
            to_move=d.player in waiting,
            specials_used=tuple(special_label(n) for n in d.specials_used),
            fillers_used=d.fillers_used,
            levels=tuple(points_by_level(board)),
            in_words=tuple(spoken.display_words(board)),
        )
        for d in view.displays
        if d.player != me
        for board in (d.board(),)
    ]


@cache
def _picture_board() -> Board:
    """Seven tiles placed by the fallback policy from a fixed deal: two levels."""
    board = Board()
    for number in (8, 5, 9, 0, 6, 1, 7):
        board.place(choose(board, number))
    return board


#: The game's web adapter (``games.web.registry``), named with the Protocol it must fit.
ADAPTER: PuzzleWebAdapter = Nmbr9Web()
