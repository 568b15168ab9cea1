"""What every game's web adapter provides (``WebAdapter``), and what they share.

An adapter turns its game's view (``MatchView.view``) into a page and a page's forms into
its game's moves; the generic views (``games.views``, ``games.learn``) do the rest: access,
polling, the match's heading, log, standings and actions. ``games.web.registry`` holds one
adapter for every game of the rules' registry; the contract test checks each against
``WebAdapter`` (and the puzzles' game against ``PuzzleWebAdapter``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from django import forms
from django.http import QueryDict
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from games.names import shown

if TYPE_CHECKING:
    from games.models import Puzzle, Seat
    from games.services import MatchView


def first_error(form: forms.BaseForm) -> str:
    """The first of a form's errors, with the field it is about."""
    for name, errors in form.errors.items():
        label = "" if name == "__all__" else f"{name}: "
        return f"{label}{errors[0]}"
    return ""


def sentence(reason: str) -> str:
    """A rules engine's reason ("you do not hold 42") as a sentence for a page."""
    end = "" if reason.endswith((".", "!", "?")) else "."
    return f"{reason[:1].upper()}{reason[1:]}{end}"


def left_text(seat: Seat) -> str:
    """What the log says of a player who left a match."""
    if seat.state == seat.State.RESIGNED:
        return _("%(player)s resigned.") % {"player": shown(seat.player.username)}
    return _("%(player)s was dropped.") % {"player": shown(seat.player.username)}


def reason_text(refused: Exception, reasons: Mapping[str, Any], **extra: Any) -> str:
    """Why a request was refused, in the page's language: ``reasons`` (code: text with
    ``%(param)s`` places) say it for the codes a game's rules give, filled in from the
    refusal's ``params`` (lists written out) and ``extra``; anything else (the services'
    own refusals, already translated) keeps its words."""
    text = reasons.get(getattr(refused, "code", ""))
    words = getattr(refused, "reason", None) or str(refused)
    if text is None:
        return words
    params = {
        name: ", ".join(str(v) for v in value) if isinstance(value, list | tuple) else value
        for name, value in getattr(refused, "params", {}).items()
    }
    try:
        return str(text) % {**params, **extra}
    except (KeyError, TypeError, ValueError):
        return words


class WrongMove(ValueError):
    """A move a tutorial does not take: ``str()`` says why (the rule it breaks, or what its
    step wants instead), in the page's language; ``shown`` is the progress to show with it:
    what the move tried, nothing played."""

    def __init__(self, message: str, shown: Any) -> None:
        super().__init__(message)
        self.shown = shown


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of a match's log: when (in the game's own terms, "Round 3") and what, with
    the move in the game's notation (shown on hover; "" for none); ``timed_out``: the move
    was made for the player as their time ran out (``services.timed_out``), which the log
    says."""

    when: str
    text: str
    notation: str = ""
    timed_out: bool = False


@runtime_checkable
class Tutorial(Protocol):
    """A game's "Learn to play" (a short guided game, ``games.learn``)."""

    #: Its game's slug; a page with the partials ``lesson`` (what a move changes) and
    #: ``turn`` (what a preview changes); what it teaches, in one line.
    slug: str
    template: str
    summary: Any

    def read(self, query: QueryDict) -> Any:
        """The progress a page's address (or form) holds, checked again by the rules and
        the lessons (ValueError with a message: not a game of the tutorial)."""

    def move(self, progress: Any, post: QueryDict) -> Any:
        """The progress after the move a form posts (``WrongMove`` when the rules refuse it
        or the step wants another)."""

    def context(self, progress: Any) -> dict[str, Any]:
        """The template context of the page at ``progress``."""

    def address(self, progress: Any, preview: bool = False) -> str:
        """The page's address for ``progress`` (with ``preview``, also what it previews)."""


@runtime_checkable
class WebAdapter(Protocol):
    """Every member of a game's web adapter that the views use.

    The type checker holds each adapter to it where ``games.web.registry`` names it: an
    adapter without one of these members, or with one of another type or signature, fails
    ``./run check``. The members the views only read and an adapter may give a narrower
    type (its own form, its own mapping) are read-only properties here; an adapter may make
    them plain class attributes."""

    #: Its game's slug; the play area (a template with a ``turn`` partial that previews
    #: swap); the replay's page (with a ``step`` partial); the help page; the rules' essentials
    #: in a few lines (a fragment, shown on every page of a game of it, the help a link away).
    slug: str
    template: str
    replay_template: str
    help_template: str
    essentials_template: str
    #: The game in one line, for the home page.
    tagline: Any
    #: The words of the link to the help page beside the game's options (new games' pages).
    options_help: Any

    @property
    def stylesheets(self) -> Sequence[str]:
        """The game's own stylesheets (static paths, in its package's static folder), which
        every page links after the site's."""

    @property
    def scripts(self) -> Sequence[str]:
        """The game's own scripts (static paths), which every page loads after the site's
        (``window.site`` in static/js/site.js offers what they share)."""

    @property
    def options_form(self) -> type[forms.Form]:
        """The form of the game's options on the new-match page (its cleaned data are the
        options)."""

    @property
    def prefs(self) -> Mapping[str, Any]:
        """The standing choices a player can make for a match, by name, with their label."""

    @property
    def tutorial(self) -> Tutorial | None:
        """The game's "Learn to play" (None: it has none)."""

    def describe(self, options: dict[str, Any]) -> list[str]:
        """The options of a match in a few words, for its heading and the lobby (a
        tournament's line gives them without ``pace``: a pace is said only when given)."""

    def read_query(self, query: QueryDict) -> dict[str, Any]:
        """What a GET asks for besides the page, as ``context``'s keywords (ValueError: a
        message for the player)."""

    def context(self, mv: MatchView, *args: Any, **query: Any) -> dict[str, Any]:
        """The template context of the play area, with what ``read_query`` read (and
        ``preview``) as keywords: each adapter names its own, which the type checker takes
        for ``*args: Any, **query: Any``."""

    def preview_url(self, mv: MatchView, context: dict[str, Any]) -> str | None:
        """The address of a preview, for the browser's history (None: keep the address)."""

    def log(self, mv: MatchView) -> list[LogEntry]:
        """What happened, as far as the viewer may see it, newest first; the lines of a move
        made as its player's time ran out (``services.timed_out``) say so (``timed_out``)."""

    def standing(self, mv: MatchView) -> str:
        """How far the match has got, in a few words, as far as the viewer may know it
        ("Round 5 of 18"), for lists of matches."""

    def refusal(self, refused: Exception) -> str:
        """A refused move (the rules' ``IllegalMove`` or the services' ``MoveRefused``) as
        a sentence in the page's language."""

    def move(self, post: QueryDict) -> tuple[str, int]:
        """The move text a form posts and the ply its page knew (ValueError: a message);
        the rules parse the text (``Rules.parse_move``)."""

    def replay(self, mv: MatchView, query: QueryDict) -> dict[str, Any]:
        """The template context of a step of a finished match (``query``: which step)."""

    def picture(self) -> SafeString:
        """What the game looks like, for the home page."""

    def glance(self, mv: MatchView) -> SafeString:
        """The viewer's side of a match, small, for a list of their matches."""

    def help_context(self) -> dict[str, Any]:
        """The template context of the game's help page."""


@runtime_checkable
class PuzzleWebAdapter(WebAdapter, Protocol):
    """The web adapter of a game that offers puzzles (``games.registry.puzzle_games``): its
    ``replay`` also takes ``par_line``, the moves that reach the puzzle's par."""

    def replay(
        self, mv: MatchView, query: QueryDict, *, par_line: list[str] | None = None
    ) -> dict[str, Any]:
        """A step of a finished match (``WebAdapter.replay``); on a puzzle, ``par_line``
        (``Puzzle.par_line``, the moves that reach its par) is shown beside it."""

    def puzzle_start(self, puzzle: Puzzle) -> dict[str, str]:
        """What a puzzle shows before play starts: ``svg`` and a sentence, ``text``."""


def members(protocol: type) -> dict[str, bool]:
    """The members ``protocol`` lists (its own and its bases'), each with whether it is a
    method (a callable); a property and a data member are not."""
    found: dict[str, bool] = {}
    for klass in reversed(protocol.__mro__):
        if Protocol not in klass.__bases__:
            continue
        for name in getattr(klass, "__annotations__", {}):
            found[name] = False
        for name, value in vars(klass).items():
            if not name.startswith("_"):
                found[name] = callable(value)
    return found
