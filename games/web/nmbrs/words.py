"""nmbrs!' words on the site: the rules' refusals and what selected cards still need in the
page's language, plays and the table's history in sentences, the options in a few words."""

from __future__ import annotations

from typing import Any

from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy

from games.contract import LEAVE, InvalidMove
from games.names import shown
from games.nmbrs import JOKERS
from games.nmbrs.game import Logged
from games.nmbrs.moves import Move
from games.services import MatchView, timed_out
from games.web.base import LogEntry, left_text, reason_text, sentence

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
    card = {"card": card_name(params["card"])} if params.get("card") in JOKERS else {}
    return sentence(reason_text(refused, REASONS, **card))


#: The cards' colours in words (``games.nmbrs.cards.COLOURS``).
COLOUR_NAMES = {
    "red": gettext_lazy("red"),
    "green": gettext_lazy("green"),
    "blue": gettext_lazy("blue"),
    "orange": gettext_lazy("orange"),
}


def card_words(card: dict[str, Any]) -> str:
    """A card (``card_data``) as a screen reader says it: its number, colour and value; a
    joker its colour and the number it stands for on the table."""
    colour = COLOUR_NAMES.get(card["colour"], card["colour"])
    if card["joker"]:
        if card["number"]:
            return _("joker standing for %(number)s, %(colour)s") % {
                "number": card["number"],
                "colour": colour,
            }
        return _("joker, %(colour)s") % {"colour": colour}
    return _("%(number)s, %(colour)s, worth %(value)s") % {
        "number": card["number"],
        "colour": colour,
        "value": card["value"],
    }


def playable_words(starts: bool, series: list[int]) -> str:
    """What a card of the hand can do now: start a series, go on some of the table's."""
    said = []
    if starts:
        said.append(_("can start a series"))
    if series:
        listed = get_text_list([str(number) for number in series], _("or"))
        said.append(_("can go on series %(series)s") % {"series": listed})
    return get_text_list(said, _("or"))


def card_name(card: str | None) -> str:
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


def log_text(line: Logged, seats) -> str:
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
    words = {"player": shown(seat.player.username), "card": card_name(line.card)}
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


def log_entries(mv: MatchView) -> list[LogEntry]:
    """Every move as the table saw it (the game's public history), newest first; each
    player's moves made as their time ran out say so (every move is a line of its own)."""
    seats = mv.seats
    fallbacks = timed_out(mv)
    made = [0] * len(seats)
    entries = []
    for line in mv.view.log:
        when = _("Deal %(deal)s") % {"deal": line.deal}
        fallback = False
        if line.move != "end" and line.player is not None:
            made[line.player] += 1
            fallback = made[line.player] in fallbacks.get(line.player, ())
        entries.append(LogEntry(when, log_text(line, seats), timed_out=fallback))
    return entries[::-1]


def news(mv: MatchView, reader: int | None, most: int = 10) -> list[tuple[int, str]]:
    """The latest lines of the public history that another player's move made, and the
    ends of deals (the reader's own moves are theirs to know), each with its place in the
    history, oldest first: what a live page announces when they are new to it."""
    lines = [
        (index, log_text(line, mv.seats))
        for index, line in enumerate(mv.view.log)
        if line.move == "end" or line.player != reader
    ]
    return lines[-most:]


def last_deal(mv: MatchView) -> str:
    """How the last deal that ended ended."""
    for line in reversed(mv.view.log):
        if line.move == "end":
            result = log_text(line, mv.seats)
            return _("Deal %(deal)s: %(result)s") % {"deal": line.deal, "result": result}
    return ""


def describe(options: dict[str, Any]) -> list[str]:
    """The options of a match in a few words, for its heading and the lobby."""
    words = []
    if options.get("advanced"):
        words.append(_("advanced series"))
    if options.get("simplified"):
        words.append(_("simplified version"))
    if options.get("target", 100) != 100:
        words.append(_("to %(points)s points") % {"points": options["target"]})
    return words
