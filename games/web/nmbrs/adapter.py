"""nmbrs! on the site: the table and the player's hand as a page, a page's forms as moves.

A turn is made of moves, each posted on its own (``take``, ``pass``, ``draw``, plays,
``discard``). Before a play is posted the page shows what it would do: the player selects
cards in their hand (``?pick=`` links, no JavaScript needed) and the page lists the plays
those cards make, with the series and the points, or says why there is none
(``games.web.nmbrs.compose``, worked out from the player's own view). Cards that make no
play yet but can become one with more cards of the hand get a hint of what they still need,
not a refusal. A play can also be written in the move notation and previewed (``?attempt=``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy, ngettext

from games.nmbrs.view import card_data
from games.services import MatchView
from games.web.base import LogEntry, Tutorial, WebAdapter
from games.web.nmbrs import forms, replay, words
from games.web.nmbrs.compose import cards, chances, hand, selection


@dataclass(frozen=True, slots=True)
class Seen:
    """A player round the table: their seat and what everybody sees of them."""

    seat: Any
    hand_size: int
    score: int
    laid: bool
    turn: bool
    to_move: bool


class NmbrsWeb:
    """The web adapter of nmbrs! (``games.web.base.WebAdapter``)."""

    slug = "nmbrs"
    template = "games/nmbrs/play.html"
    replay_template = "games/nmbrs/replay.html"
    help_template = "games/nmbrs/help.html"
    essentials_template = "games/nmbrs/essentials.html"
    options_form = forms.OptionsForm
    #: The standing choices a player can make for a match (``standing_move``).
    prefs = {"always_pass": gettext_lazy("Always pass when the discard is offered to me")}
    tagline = gettext_lazy(
        "Lay series of numbered cards, add to the ones on the table and be the first to empty "
        "your hand."
    )
    options_help = gettext_lazy("How this game is played")
    stylesheets = ("nmbrs/nmbrs.css",)
    scripts = ("nmbrs/nmbrs.js",)

    @property
    def tutorial(self) -> Tutorial:
        """The game's "Learn to play" (``games.web.nmbrs.tutorial``)."""
        from games.web.nmbrs.tutorial import TUTORIAL  # it reads this package's adapter

        return TUTORIAL

    def describe(self, options: dict[str, Any]) -> list[str]:
        """The options of a match in a few words, for its heading and the lobby."""
        return words.describe(options)

    # ----------------------------------------------------------------- the page

    def read_query(self, query: QueryDict) -> dict[str, Any]:
        """The cards selected (``pick``), a play written out (``attempt``) and the order
        of the hand (``sort``); ValueError with a message if they cannot be read."""
        return forms.read_query(query)

    def context(
        self,
        mv: MatchView,
        *,
        preview: bool = False,
        pick: tuple[str, ...] = (),
        attempt: str = "",
        sort: str = "number",
    ) -> dict[str, Any]:
        """The table, the players round it and the viewer's hand and choices."""
        view, seats = mv.view, mv.seats
        me = mv.seat.index if mv.seat is not None else None
        url = mv.match.get_absolute_url()
        context: dict[str, Any] = {
            "deal": view.deal,
            "phase": view.phase,
            "discard": None if view.discard is None else card_data(view.discard),
            "deck_size": view.deck_size,
            "table": [
                {"number": s.number, "cards": cards(s.cards), "step": s.step} for s in view.table
            ],
            "around": [
                Seen(
                    seat=seats[p],
                    hand_size=view.hand_sizes[p],
                    score=view.scores[p],
                    laid=view.laid[p],
                    turn=view.turn == p,
                    to_move=view.to_move == p,
                )
                for p in range(view.players)
            ],
            "simplified": view.options.simplified,
            "owed": view.owed,
            "sort": sort,
            "last_deal": words.last_deal(mv),
            "heard": len(view.log),
            "news": words.news(mv, me),
            "score": view.scores[me] if me is not None else None,
            "final_hands": (
                [
                    (seats[p], [card_data(c) for c in held])
                    for p, held in enumerate(view.final_hands)
                ]
                if view.final_hands is not None
                else None
            ),
        }
        playing = (
            mv.seat is not None
            and not mv.seat.has_left
            and view.to_move == me
            and mv.match.status == "active"
        )
        context["choice"] = view.phase if playing else None
        if mv.seat is not None:
            context["standing"] = [
                (name, label, bool(mv.seat.prefs.get(name))) for name, label in self.prefs.items()
            ]
        if view.phase == "offer" and view.offer_to is not None:
            context["offered"] = seats[view.offer_to]
        if view.turn is not None:
            context["turn_of"] = seats[view.turn]
        found = chances(view) if context["choice"] == "play" else {}
        context.update(hand(view, url, pick, sort, found.get("playable")))
        context["must_draw"] = view.must_draw
        if context["choice"] == "play":
            context.update(found)
            context.update(selection(view, context["picked"], attempt))
        return context

    def preview_url(self, mv: MatchView, context: dict[str, Any]) -> str:
        """The address of the page showing this preview: the cards selected, the play
        written out and the order of the hand."""
        query = [("pick", c) for c in context.get("picked", [])]
        if context.get("attempt"):
            query.append(("attempt", context["attempt"]))
        if context.get("sort", "number") != "number":
            query.append(("sort", context["sort"]))
        return (
            f"{mv.match.get_absolute_url()}?{urlencode(query)}"
            if query
            else mv.match.get_absolute_url()
        )

    def log(self, mv: MatchView) -> list[LogEntry]:
        """Every move as the table saw it (the game's public history), newest first."""
        return words.log_entries(mv)

    def standing(self, mv: MatchView) -> str:
        """The deal being played and the cards left in the deck."""
        view = mv.view
        return ngettext(
            "Deal %(deal)s · %(count)s card in the deck",
            "Deal %(deal)s · %(count)s cards in the deck",
            view.deck_size,
        ) % {"deal": view.deal, "count": view.deck_size}

    # ----------------------------------------------------------------- moves

    def refusal(self, refused: Exception) -> str:
        """A refused move (``IllegalMove`` or ``MoveRefused``) as a sentence for the page."""
        return words.refusal_text(refused)

    def move(self, post: QueryDict) -> tuple[str, int]:
        """The move a form posts, with the ply its page knew; ValueError with a message."""
        return forms.read_move(post)

    # ----------------------------------------------------------------- replays

    def replay(self, mv: MatchView, query: QueryDict) -> dict[str, Any]:
        """A finished match move by move (``games.web.nmbrs.replay``)."""
        return replay.replay(mv, query)

    # ----------------------------------------------------------------- home page

    def picture(self) -> SafeString:
        """A series on the table, to show what the game looks like."""
        cards = [card_data(c, n) for c, n in (("12", 12), ("JR", 14), ("16", 16), ("18", 18))]
        return render_to_string("games/nmbrs/picture.html", {"cards": cards})

    def glance(self, mv: MatchView) -> SafeString:
        """The table as the viewer sees it, small, for a list of their matches: the discard,
        the series laid and the cards in their hand."""
        view = mv.view
        me = mv.seat.index if mv.seat is not None else None
        context = {
            "discard": None if view.discard is None else card_data(view.discard),
            "series": len(view.table),
            "hand": view.hand_sizes[me] if me is not None else None,
        }
        return render_to_string("games/nmbrs/glance.html", context)

    # ----------------------------------------------------------------- help

    def help_context(self) -> dict[str, Any]:
        example = [card_data(c, n) for c, n in (("12", 12), ("JR", 14), ("16", 16))]
        return {"example": example}


#: The game's web adapter (``games.web.registry``), named with the Protocol it must fit.
ADAPTER: WebAdapter = NmbrsWeb()
