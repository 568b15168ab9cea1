"""nmbrs! on the site: the table and the player's hand as a page, a page's forms as moves.

A turn is made of moves, each posted on its own (``take``, ``pass``, ``draw``, plays,
``discard``). Before a play is posted the page shows what it would do: the player selects
cards in their hand (``?pick=`` links, no JavaScript needed) and the page lists the plays
those cards make, with the series and the points, or says why there is none
(``games.nmbrs.preview``, worked out from the player's own view). Cards that make no play
yet but can become one with more cards of the hand get a hint of what they still need, not
a refusal. A play can also be written in the move notation and previewed (``?attempt=``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import QueryDict
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy

from games.contract import LEAVE, IllegalMove, InvalidMove
from games.forms import SideLabels
from games.inputs import StrictIntegerField, parse_int
from games.names import shown
from games.nmbrs import JOKERS
from games.nmbrs.cards import CARDS, COLOURS
from games.nmbrs.game import Logged
from games.nmbrs.moves import Move
from games.nmbrs.preview import needs, plays, preview, why_no_play
from games.nmbrs.view import card_data
from games.services import MatchView
from games.services import history as match_history
from games.web.base import LogEntry, first_error, left_text, reason_text, sentence

#: How a card is named in a query: a number 1-100 or a joker.
_CARD = re.compile(r"(?:[1-9][0-9]?|100|J[RGBO])", re.ASCII)
_SORTS = ("number", "colour")


class OptionsForm(SideLabels, forms.Form):
    """The options of a new nmbrs! match."""

    #: The fields that matter only with more than one player: nmbrs! has no solo game.
    multiplayer_fields = ()

    advanced = forms.BooleanField(
        label=gettext_lazy("Advanced series: every series counts back to 0 or 1"),
        required=False,
    )
    simplified = forms.BooleanField(
        label=gettext_lazy("Simplified version: cards 1-50, smaller hands, no discard"),
        required=False,
    )


class MoveForm(forms.Form):
    """A move as a form posts it: its text in the move notation, and the page's ply."""

    move = forms.CharField(max_length=200)
    ply = StrictIntegerField(min_value=0)


def _cards(slots) -> list[dict[str, Any]]:
    """Cards on the table, each with the number it stands for."""
    return [card_data(card, number) for card, number in slots]


def _plan_data(plan) -> dict[str, Any]:
    """A play as a page shows it: its text, points and the series it makes."""
    return {
        "text": str(plan.move),
        "words": play_words(str(plan.move)),
        "points": plan.points,
        "series": [(number, _cards(slots)) for number, slots in plan.changes if slots],
    }


#: The reasons the rules give for refusing a move, by their code (the engine's own English
#: text is for its command line).
REASONS = {
    "no-such-series": gettext_lazy("there is no series %(series)s on the table"),
    "card-twice": gettext_lazy("%(card)s is named twice"),
    "not-in-hand": gettext_lazy("you do not hold %(card)s"),
    "number-too-high": gettext_lazy(
        "%(card)s stands for %(number)s, but the numbers here go up to %(highest)s"
    ),
    "lay-first": gettext_lazy(
        "you must lay a series of 3 or more cards before adding cards to the table"
    ),
    "keep-a-card": gettext_lazy(
        "you must keep a card in your hand to discard: a turn ends with a discard"
    ),
    "joker-stuck": gettext_lazy("the joker %(joker)s could not be played again in this turn"),
    "not-at-an-end": gettext_lazy(
        "%(numbers)s lie inside series %(series)s: extend adds cards at an end"
    ),
    "both-ends": gettext_lazy("extend adds cards at one end of series %(series)s, not at both"),
    "does-not-continue": gettext_lazy(
        "%(numbers)s do not continue series %(series)s (step %(step)s)"
    ),
    "not-inside": gettext_lazy(
        "%(numbers)s are not inside series %(series)s: insert puts cards between its ends"
    ),
    "gaps-left": gettext_lazy(
        "series %(series)s with %(numbers)s is not a series: every new gap must be filled in "
        "the same play"
    ),
    "not-in-series": gettext_lazy("series %(series)s has no card %(number)s"),
    "same-series": gettext_lazy("join needs two different series"),
    "different-steps": gettext_lazy("series %(series)s and %(other)s have different steps"),
    "overlap": gettext_lazy("series %(series)s and %(other)s overlap"),
    "gap-not-filled": gettext_lazy(
        "%(numbers)s do not fill the gap between series %(series)s and %(other)s"
    ),
    "swap-a-number": gettext_lazy("a swap names the number card that replaces a joker"),
    "swap-needs-number": gettext_lazy("a swap names the number card that replaces a joker"),
    "joker-owed": gettext_lazy("play the joker %(joker)s again first: it may not be kept"),
    "no-joker-there": gettext_lazy("series %(series)s has no joker standing for %(number)s"),
    "no-such-player": gettext_lazy("there is no such player"),
    "game-over": gettext_lazy("the game is over"),
    "left": gettext_lazy("you have left this match"),
    "not-your-turn": gettext_lazy("it is not your turn"),
    "answer-the-offer": gettext_lazy("you are offered the discard: take or pass"),
    "no-discard": gettext_lazy("there is no discard: draw from the deck"),
    "draw-now": gettext_lazy("nobody took the discard: draw from the deck"),
    "take-or-pass": gettext_lazy("first take the discard (%(card)s) or pass it on"),
    "already-drawn": gettext_lazy("you have drawn already"),
    "not-a-move": gettext_lazy("this is not a move"),
    "not-text": gettext_lazy("this is not a move"),
    "no-discard-in-simplified": gettext_lazy(
        "in the simplified version a turn ends without a discard"
    ),
    "discard-to-end": gettext_lazy("a turn ends with a discard"),
    "number": gettext_lazy("a card number must be a whole number"),
    "no-such-number": gettext_lazy("there is no card %(number)s: numbers go from 1 to 100"),
    "no-such-card": gettext_lazy("there is no such card"),
    "no-such-joker": gettext_lazy("there is no such joker (jokers: JR JG JB JO)"),
    "joker-without-number": gettext_lazy(
        "say which number the joker %(joker)s stands for, e.g. %(joker)s=14"
    ),
    "not-a-number": gettext_lazy("not a card number: %(text)s"),
    "no-cards": gettext_lazy("expected cards separated by commas"),
    "not-a-series-number": gettext_lazy("not a series number: %(text)s"),
    "unknown-move": gettext_lazy("unknown move %(kind)s"),
    "incomplete": gettext_lazy("the play is incomplete: see the examples"),
    "colon": gettext_lazy("a play needs a series and a colon, e.g. extend 3: 18,20"),
    "at": gettext_lazy("cross names the card it goes through, e.g. cross 3@14: 7,21"),
    "plus": gettext_lazy("join names two series, e.g. join 3+5: 22"),
    "not-a-play": gettext_lazy("this is not a play"),
    "spectator": gettext_lazy("spectators do not play"),
    "no-play": gettext_lazy("these cards make no play on the table as it is: write the play out"),
    "no-series": gettext_lazy("these cards make no series with the cards in your hand"),
    "too-few-cards": gettext_lazy("a series needs at least 3 cards: %(numbers)s"),
    "number-twice": gettext_lazy("%(number)s appears twice in %(numbers)s"),
    "uneven-steps": gettext_lazy(
        "%(numbers)s is not a series: the steps between the numbers differ"
    ),
    "does-not-count-down": gettext_lazy("%(numbers)s does not count back to 0 or 1"),
}


#: What selected cards still need to become a play (``games.nmbrs.preview.needs``), by the
#: kind of play: one card more, with the cards that complete it, or ``more`` cards, with one
#: way to complete it.
NEEDS = {
    "lay": ngettext_lazy(
        "One more card for a series: %(cards)s.",
        "%(more)s more cards for a series, such as %(cards)s.",
        "more",
    ),
    "extend": ngettext_lazy(
        "One more card to extend series %(series)s: %(cards)s.",
        "%(more)s more cards to extend series %(series)s, such as %(cards)s.",
        "more",
    ),
    "insert": ngettext_lazy(
        "One more card to insert into series %(series)s: %(cards)s.",
        "%(more)s more cards to insert into series %(series)s, such as %(cards)s.",
        "more",
    ),
    "cross": ngettext_lazy(
        "One more card to cross series %(series)s: %(cards)s.",
        "%(more)s more cards to cross series %(series)s, such as %(cards)s.",
        "more",
    ),
    "join": ngettext_lazy(
        "One more card to join series %(series)s and %(other)s: %(cards)s.",
        "%(more)s more cards to join series %(series)s and %(other)s, such as %(cards)s.",
        "more",
    ),
}


def need_text(need) -> str:
    """What selected cards still need (a ``Need``) as a sentence in the page's language."""
    names = list(
        dict.fromkeys(_("a joker") if card in JOKERS else card for card in need.params["cards"])
    )
    cards = get_text_list(names, _("or") if need.params["more"] == 1 else _("and"))
    return NEEDS[need.code] % {**need.params, "cards": cards}


def refusal_text(refused) -> str:
    """A refused move as a sentence in the page's language."""
    params = getattr(refused, "params", {})
    card = {"card": _card_name(params["card"])} if params.get("card") in JOKERS else {}
    return sentence(reason_text(refused, REASONS, **card))


def selection(view, picked: list[str], attempt: str = "") -> dict[str, Any]:
    """What the cards a player selected in their turn make, from their ``view``: the plays
    they make, else what they still need or why they make none; a written play's preview;
    the discard of a single card."""
    context: dict[str, Any] = {}
    found = plays(view, picked)
    context["plays"] = [_plan_data(plan) for plan in found]
    if picked and not found:
        wanted = needs(view, picked)
        if wanted:
            context["needs"] = [need_text(need) for need in wanted[:3]]
        elif len(picked) == 1 and picked[0] != view.owed and not view.options.simplified:
            context["only_discard"] = _card_name(picked[0])
        else:
            context["no_play"] = refusal_text(why_no_play(view, picked))
    context["attempt"] = attempt
    if attempt:
        result = preview(view, attempt)
        if isinstance(result, IllegalMove):
            context["attempt_error"] = refusal_text(result)
        else:
            context["attempt_plan"] = _plan_data(result)
    if len(picked) == 1 and not view.options.simplified:
        context["discard_card"] = card_data(picked[0])
    return context


@dataclass(frozen=True, slots=True)
class Seen:
    """A player round the table: their seat and what everybody sees of them."""

    seat: Any
    hand_size: int
    score: int
    laid: bool
    turn: bool
    to_move: bool


def _card_name(card: str | None) -> str:
    """A card in a sentence: its number, or "joker"."""
    if card is None:
        return "?"
    return _("joker") if card in JOKERS else card


#: A play in words, by its kind: what it puts where (the log says who played it, a button
#: offers to play it).
PLAY_WORDS = {
    "lay": gettext_lazy("the series %(cards)s"),
    "extend": gettext_lazy("%(cards)s on series %(series)s"),
    "insert": gettext_lazy("%(cards)s into series %(series)s"),
    "cross": gettext_lazy("%(cards)s across series %(series)s at %(at)s"),
    "join": gettext_lazy("%(cards)s joining series %(series)s and %(other)s"),
    "swap": gettext_lazy("%(card)s for the joker in series %(series)s"),
}


def play_words(text: str) -> str:
    """A play written in the notation (``lay 12,JR=14,16``) in words: "the series 12,
    joker as 14, 16"; any other text as it is."""
    try:
        move = Move.parse(text)
    except InvalidMove:
        return text
    if move.kind not in PLAY_WORDS:
        return text
    cards = ", ".join(
        _("joker as %(number)s") % {"number": c.number} if c.joker else str(c.number)
        for c in move.cards
    )
    words = {"cards": cards, "series": move.series, "at": move.at, "other": move.other}
    return str(PLAY_WORDS[move.kind]) % {**words, "card": move.card}


def _log_text(line: Logged, seats) -> str:
    """One line of the public history as a sentence."""
    if line.move == "end":
        went = (
            _("Nobody went out.")
            if line.player is None
            else _("%(player)s went out.") % {"player": shown(seats[line.player].player.username)}
        )
        lost = [
            _("%(player)s lost %(points)s.")
            % {"player": shown(seats[p].player.username), "points": n}
            for p, n in enumerate(line.lost)
            if n
        ]
        return " ".join([went, *lost])
    seat = seats[line.player]
    if line.move == LEAVE:
        return left_text(seat)
    words = {"player": shown(seat.player.username), "card": _card_name(line.card)}
    kind = line.move.split(" ", 1)[0]
    if kind == "take" and line.offered:
        return _("%(player)s took the %(card)s offered to them and drew a card.") % words
    if kind == "take":
        return _("%(player)s took the %(card)s.") % words
    if kind == "pass":
        return _("%(player)s passed on the %(card)s.") % words
    if kind == "draw":
        return _("%(player)s drew a card.") % words
    if kind == "discard":
        return _("%(player)s discarded the %(card)s.") % words
    if kind == "done":
        return _("%(player)s ended their turn.") % words
    return ngettext(
        "%(player)s played %(move)s for %(points)s point.",
        "%(player)s played %(move)s for %(points)s points.",
        line.points,
    ) % {**words, "move": play_words(line.move), "points": line.points}


class NmbrsWeb:
    """The web adapter of nmbrs! (see ``games.web``)."""

    slug = "nmbrs"
    template = "games/nmbrs/play.html"
    replay_template = "games/nmbrs/replay.html"
    help_template = "games/nmbrs/help.html"
    options_form = OptionsForm
    #: The standing choices a player can make for a match (``standing_move``).
    prefs = {"always_pass": gettext_lazy("Always pass when the discard is offered to me")}

    @property
    def tutorial(self):
        """The game's "Learn to play" (``games.web.nmbrs.tutorial``)."""
        from games.web.nmbrs.tutorial import TUTORIAL  # it reads this module's words

        return TUTORIAL

    def describe(self, options: dict[str, Any]) -> list[str]:
        words = []
        if options.get("advanced"):
            words.append(_("advanced series"))
        if options.get("simplified"):
            words.append(_("simplified version"))
        if options.get("target", 100) != 100:
            words.append(_("to %(points)s points") % {"points": options["target"]})
        return words

    # ----------------------------------------------------------------- the page

    def read_query(self, query: QueryDict) -> dict[str, Any]:
        """The cards selected (``pick``), a play written out (``attempt``) and the order
        of the hand (``sort``); ValueError with a message if they cannot be read."""
        read: dict[str, Any] = {}
        sort = query.get("sort", "number")
        if sort not in _SORTS:
            raise ValueError(_("sort: by number or by colour."))
        if sort != "number":
            read["sort"] = sort
        picked = [card.upper() for card in query.getlist("pick") if card]
        if len(picked) > 30 or not all(_CARD.fullmatch(card) for card in picked):
            raise ValueError(_("pick: not a card."))
        attempt = query.get("attempt", "").strip()
        if len(attempt) > 200:
            raise ValueError(_("The play is too long to be one."))
        if "pick" in query or attempt:
            read.update(preview=True, pick=tuple(dict.fromkeys(picked)), attempt=attempt)
        return read

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
                {"number": s.number, "cards": _cards(s.cards), "step": s.step} for s in view.table
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
            "last_deal": self._last_deal(mv),
            "score": view.scores[me] if me is not None else None,
            "final_hands": (
                [
                    (seats[p], [card_data(c) for c in hand])
                    for p, hand in enumerate(view.final_hands)
                ]
                if view.final_hands is not None
                else None
            ),
        }
        playing = (
            me is not None
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
        hand = list(view.hand or ())
        if sort == "colour":
            hand.sort(key=lambda c: (COLOURS.index(CARDS[c].colour), c in JOKERS, CARDS[c].number))
        picked = [card for card in pick if card in hand]
        context["hand"] = [
            {
                **card_data(card),
                "picked": card in picked,
                "toggle": self._pick_url(
                    url,
                    [c for c in picked if c != card] if card in picked else [*picked, card],
                    sort,
                ),
            }
            for card in hand
        ]
        context["sort_url"] = (
            f"{url}?{urlencode({'sort': 'number' if sort == 'colour' else 'colour'})}"
        )
        context["picked"] = picked
        context["clear_url"] = self._pick_url(url, [], sort)
        context["must_draw"] = view.must_draw
        if context["choice"] == "play":
            context.update(selection(view, picked, attempt))
        return context

    @staticmethod
    def _pick_url(url: str, picked: list[str], sort: str) -> str:
        """The page with ``picked`` selected (an empty ``pick``: none, still a preview)."""
        query = [("pick", c) for c in picked] or [("pick", "")]
        if sort != "number":
            query.append(("sort", sort))
        return f"{url}?{urlencode(query)}"

    def _last_deal(self, mv: MatchView) -> str:
        """How the last deal that ended ended."""
        for line in reversed(mv.view.log):
            if line.move == "end":
                result = _log_text(line, mv.seats)
                return _("Deal %(deal)s: %(result)s") % {"deal": line.deal, "result": result}
        return ""

    def preview_url(self, mv: MatchView, context: dict[str, Any]) -> str:
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
        seats = mv.seats
        entries = []
        for line in reversed(mv.view.log):
            when = _("Deal %(deal)s") % {"deal": line.deal}
            entries.append(LogEntry(when, _log_text(line, seats)))
        return entries

    # ----------------------------------------------------------------- moves

    def refusal(self, refused) -> str:
        """A refused move (``IllegalMove`` or ``MoveRefused``) as a sentence for the page."""
        return refusal_text(refused)

    def move(self, post: QueryDict) -> tuple[str, int]:
        form = MoveForm(post)
        if not form.is_valid():
            raise ValueError(first_error(form))
        return form.cleaned_data["move"].strip(), form.cleaned_data["ply"]

    # ----------------------------------------------------------------- replays

    def replay(self, mv: MatchView, query: QueryDict) -> dict[str, Any]:
        """A finished match move by move (``?ply=``): the table and every hand after the
        move, and the moves of the deal so far."""
        history = match_history(mv, everyone=True)
        moves = [f for f in history if f.text is not None]
        last = len(moves)
        try:
            ply = min(parse_int(query.get("ply", str(last)), minimum=0), last)
        except ValueError:
            ply = last
        seats = mv.seats
        shown = moves[ply - 1] if ply else None
        hands = {f.player: f.view.hand for f in history if f.ply == ply}
        view = shown.view if shown is not None else history[0].view
        deals: dict[int, int] = {}
        for index, frame in enumerate(moves, start=1):
            deals.setdefault(frame.view.deal, index)
        before = moves[ply - 2].view if ply > 1 else history[0].view
        said = " ".join(_log_text(line, seats) for line in view.log[len(before.log) :])
        return {
            "ply": ply,
            "plies": last,
            "move": None
            if shown is None
            else {"seat": seats[shown.player], "code": shown.text, "text": said},
            "deal": view.deal,
            "deals": sorted(deals.items()),
            "table": [{"number": s.number, "cards": _cards(s.cards)} for s in view.table],
            "discard": None if view.discard is None else card_data(view.discard),
            "hands": [
                {
                    "seat": seats[p],
                    "cards": [card_data(c) for c in hands[p] or ()],
                    "score": view.scores[p],
                    "moved": shown is not None and shown.player == p,
                }
                for p in range(len(seats))
            ],
            "previous": ply - 1 if ply > 0 else None,
            "next": ply + 1 if ply < last else None,
        }

    # ----------------------------------------------------------------- home page

    tagline = gettext_lazy(
        "Lay series of numbered cards, add to the ones on the table and be the first to empty "
        "your hand."
    )

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


ADAPTER = NmbrsWeb()

__all__ = ["ADAPTER", "NmbrsWeb", "selection"]
