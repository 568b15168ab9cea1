"""NMBR 9's words on the site: the special tiles' names, the steps of a turn in sentences
(the match log, the replay, the turn being composed), the options of a match in a few words,
and the rules' refusals in the page's language."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from games.models import Seat
from games.names import shown
from games.nmbr9 import Place
from games.nmbr9.board import WINDOW
from games.nmbr9.turn import Build, Fill, Move, Reject, Reserve
from games.nmbr9.views import Logged
from games.services import MatchView, timed_out
from games.web.base import LogEntry, left_text
from games.web.base import reason_text as base_reason_text

#: The special tiles' names on the page (the move notation keeps the English names).
SPECIAL_LABELS = {
    "move": pgettext_lazy("special tile", "move"),
    "black": pgettext_lazy("special tile", "black side"),
    "one": pgettext_lazy("special tile", "one"),
    "bridge": pgettext_lazy("special tile", "bridge"),
    "loose": pgettext_lazy("special tile", "loose"),
    "reserve": pgettext_lazy("special tile", "reserve"),
}

#: What each special tile does, for the options form and the help page.
SPECIAL_NAMES = {
    "move": gettext_lazy("move: move a tile already built"),
    "black": gettext_lazy("black side: build the tile mirrored (scores 0)"),
    "one": gettext_lazy("one: the tile may rest on a single tile"),
    "bridge": gettext_lazy("bridge: the tile may span a closed gap"),
    "loose": gettext_lazy("loose: the tile need not touch its level"),
    "reserve": gettext_lazy("reserve: set the card's tile aside for later"),
}


def special_label(name: str) -> str:
    """A special tile's name in the page's language."""
    label = SPECIAL_LABELS.get(name)
    return name if label is None else str(label)


#: What a step of a turn says in the match log and the replay, by its kind.
STEP_SENTENCES = {
    "place": gettext_lazy("%(player)s placed the %(number)s on level %(level)s."),
    "place with": gettext_lazy(
        "%(player)s placed the %(number)s on level %(level)s using %(specials)s."
    ),
    "place mirrored": gettext_lazy(
        "%(player)s placed the mirrored %(number)s on level %(level)s using %(specials)s."
    ),
    "fill": gettext_lazy("%(player)s laid gap filler %(filler)s on level %(level)s."),
    "move": gettext_lazy("%(player)s moved the %(number)s to level %(level)s."),
    "build": gettext_lazy("%(player)s built the reserved %(number)s on level %(level)s."),
    "reserve": gettext_lazy("%(player)s reserved the %(number)s."),
    "reserve unknown": gettext_lazy("%(player)s reserved a tile."),
    "reject": gettext_lazy("%(player)s rejected the %(number)s."),
    "forced reject": gettext_lazy(
        "%(player)s had to reject the %(number)s (one card of three is rejected)."
    ),
    "skip": gettext_lazy("%(player)s could build none of the cards shown and skipped the round."),
    "quoted": pgettext_lazy("a special tile's name in a sentence", '"%(name)s"'),
}


@dataclass(frozen=True, slots=True)
class Said:
    """A step of a turn in words, with its move notation (not translated; "" for a step
    the rules took by themselves)."""

    text: str
    notation: str


class _Sentences(dict):
    """``STEP_SENTENCES`` in the page's language, each looked up when first asked for."""

    def __missing__(self, kind: str) -> str:
        text = self[kind] = str(STEP_SENTENCES[kind])
        return text


class StepWords:
    """Writes the steps of a player's turns in words, for the match log and the replay: one
    sentence per step (``Logged``), in the page's language, each looked up once."""

    def __init__(self) -> None:
        self.sentences = _Sentences()

    def __call__(self, player: str, logged: Logged) -> list[Said]:
        """The steps of ``logged``, a turn of ``player``'s, in words."""
        sentences = self.sentences
        turn = logged.turn
        if turn is None:
            return [Said(sentences["skip"] % {"player": player}, "")]
        if logged.forced:
            forced = sentences["forced reject"] % {"player": player, "number": logged.card}
            return [Said(forced, "")]
        steps = turn.steps
        first = steps[0]
        if len(steps) == 1 and type(first) is Place and not first.specials:  # the base game's
            plain = {"player": player, "number": first.placement.number, "level": logged.levels[0]}
            return [Said(sentences["place"] % plain, str(first))]
        levels = iter(logged.levels)
        said = []
        for step in steps:
            words: dict[str, Any] = {"player": player}
            if isinstance(step, Place):
                kind = "place"
                if step.specials:
                    kind = "place mirrored" if step.placement.mirrored else "place with"
                    words["specials"] = ", ".join(
                        sentences["quoted"] % {"name": special_label(name)}
                        for name in step.specials
                    )
                words.update(number=step.placement.number, level=next(levels))
            elif isinstance(step, Fill):
                kind = "fill"
                words.update(filler=step.placement.piece, level=next(levels))
            elif isinstance(step, Move):
                kind = "move"
                words.update(number=step.source.number, level=next(levels))
            elif isinstance(step, Build):
                kind = "build"
                words.update(number=step.placement.number, level=next(levels))
            elif isinstance(step, Reserve):
                kind = "reserve" if logged.card is not None else "reserve unknown"
                words["number"] = logged.card
            else:
                assert isinstance(step, Reject)
                kind = "reject"
                words["number"] = logged.card
            said.append(Said(sentences[kind] % words, str(step)))
        return said


def marked(log: Iterable[Logged], theirs: Collection[int]) -> Iterator[tuple[Logged, bool]]:
    """Each turn of a player's log with whether it was made for them as their time ran out
    (``theirs``: the numbers of those moves among the player's own, ``services.timed_out``).
    A turn is one of the player's moves; a forced reject or a skipped round is not."""
    made = 0
    for logged in log:
        fallback = False
        if logged.turn is not None and not logged.forced:
            made += 1
            fallback = made in theirs
        yield logged, fallback


def log_entries(mv: MatchView) -> list[LogEntry]:
    """What happened in the match as far as the viewer can see it, newest first."""
    view, seats = mv.view, mv.seats
    entries = []
    # In free pace a viewer (a spectator too) sees the others only up to their own round:
    # a player who left later left, as far as the log tells, in that round.
    horizon = view.round if view.pace == "free" and not view.over else None
    # Each sentence is looked up once, not once per entry: a late round has dozens.
    words, in_round = StepWords(), _("Round %(round)s")
    rounds: dict[int, str] = {}
    fallbacks = timed_out(mv)
    for display in view.displays:
        name = shown(seats[display.player].player.username)
        order = 0
        for logged, fallback in marked(display.log, fallbacks.get(display.player, frozenset())):
            when = rounds.get(logged.round)
            if when is None:
                when = rounds[logged.round] = in_round % {"round": logged.round}
            for said in words(name, logged):
                entry = LogEntry(when, said.text, said.notation, fallback)
                entries.append((logged.round, display.player, order, entry))
                order += 1
    for seat in seats:
        if seat.has_left:
            round = seat.progress + (seat.state == Seat.State.RESIGNED)
            if horizon is not None:
                round = min(round, horizon)
            when = in_round % {"round": round}
            entries.append((round, 99, 0, LogEntry(when, left_text(seat))))
    # Newest first: by round, then player, then the order of a player's steps.
    entries.sort(key=lambda e: e[:3], reverse=True)
    return [entry for *_, entry in entries]


def describe(options: dict[str, Any]) -> list[str]:
    """The options of a match in a few words, for its heading and the lobby; the pace only
    when the options name one (a tournament's have none)."""
    words: list[str] = []
    if "pace" in options:
        words.append(_("free pace") if options["pace"] == "free" else _("rounds pace"))
    removed = options.get("removed", 0)
    if removed == "random":
        words.append(_("a random number of cards removed"))
    elif removed:
        words.append(
            ngettext("%(count)s card removed", "%(count)s cards removed", removed)
            % {"count": removed}
        )
    if options.get("start_tiles"):
        words.append(_("new start tiles"))
    if options.get("fillers"):
        words.append(_("gap fillers"))
    specials = options.get("specials")
    if specials in ("random2", ["random2"]):
        words.append(_("2 random special tiles"))
    elif specials:
        names = ", ".join(special_label(s) for s in specials)
        words.append(_("special tiles %(names)s") % {"names": names})
    variant = options.get("variant", "base")
    if variant != "base":
        words.append({"two_of_three": _("2 of 3"), "level_to_level": _("level to level")}[variant])
    return words


#: The reasons the rules give for refusing a placement, by their code, for the page (the
#: engine's own English text is for its command line).
PLACEMENT_REASONS = {
    "out of range": gettext_lazy(
        "out of range: the display ends %(window)s squares from its centre"
    ),
    "overhang": gettext_lazy("overhang: part of the tile would hang over nothing"),
    "gap": gettext_lazy("gap: the tile would bridge a hole"),
    "uneven": gettext_lazy("uneven: the squares beneath are not all at the same height"),
    "one support": gettext_lazy("needs two tiles beneath: it would rest on a single tile"),
    "not adjacent": gettext_lazy(
        "not adjacent: it must share an edge with a tile on the same level"
    ),
    "open gap": gettext_lazy("open gap: a bridged gap must be closed all round by tiles"),
    "partly covered gap": gettext_lazy("gap not covered: a bridging tile must cover the whole gap"),
    "too high": gettext_lazy("too high: this tile may only lie on levels 0-%(max_level)s"),
    "covered": gettext_lazy("covered: only a tile with nothing on it can be moved"),
    "not movable": gettext_lazy("not movable: start tiles and gap fillers never move"),
    "not in display": gettext_lazy("not in the display: there is no such tile to move"),
}


#: The reasons the rules give for refusing a turn (NMBR 9 ++ included), by their code.
TURN_REASONS = {
    "game over": gettext_lazy("the game is over"),
    "resigned": gettext_lazy("you have left this match"),
    "finished": gettext_lazy("you have placed all your tiles"),
    "waiting": gettext_lazy("waiting for the other players to finish the round"),
    "no markers": gettext_lazy("cards lie under level markers only in the variant level to level"),
    "wrong tile": gettext_lazy("the tile to place is a %(expected)s, not a %(got)s"),
    "no card": gettext_lazy("there is no such card this round"),
    "card not offered": gettext_lazy(
        "you cannot take the %(number)s under marker %(marker)s: no tile of it is left for "
        "you, or it fits nowhere"
    ),
    "special not in play": gettext_lazy("the special tile %(special)s is not in play"),
    "special used": gettext_lazy("you have already used the special tile %(special)s"),
    "no marker left": gettext_lazy("you have no marker left for the special tile %(special)s"),
    "one card": gettext_lazy("a turn deals with its card once: one place, reserve or reject"),
    "mirrored without black": gettext_lazy("a mirrored tile needs the special tile black side"),
    "black not mirrored": gettext_lazy("with the special tile black side the tile is mirrored"),
    "special on level 0": gettext_lazy(
        "the special tile %(special)s is for levels 1 and up: this tile would lie on level 0"
    ),
    "no rejects": gettext_lazy("only the variant 2 of 3 lets you reject a card"),
    "chose to build": gettext_lazy("you chose to build this card: you cannot reject it now"),
    "must build": gettext_lazy(
        "you must build this card: exactly one card of three is rejected each round"
    ),
    "no fillers": gettext_lazy("gap fillers are not in this game"),
    "filler used": gettext_lazy("you have already built your %(filler)s"),
    "move nowhere": gettext_lazy("a moved tile must go somewhere else"),
    "nothing reserved": gettext_lazy("you have no reserved tile to build"),
    "not the reserved tile": gettext_lazy("the reserved tile is a %(reserved)s, not a %(got)s"),
    "extras without tile": gettext_lazy(
        "gap fillers, moves and the reserved tile go with a built card tile"
    ),
    "invalid placement": gettext_lazy("this is not a placement the page can read"),
    "invalid turn": gettext_lazy("this is not a turn the page can read"),
}
REASONS = PLACEMENT_REASONS | TURN_REASONS


def reason_text(refused) -> str:
    """Why the rules refused a placement or a turn, in the page's language where the reason
    is known by its code (else the engine's words)."""
    params = refused.params if hasattr(refused, "params") else {}
    special = {"special": special_label(params["special"])} if "special" in params else {}
    return base_reason_text(refused, REASONS, window=WINDOW, **special)
