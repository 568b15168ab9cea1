"""Learning nmbrs! on the site: one scripted turn at a fixed table.

The turn (``LESSONS``) takes the discard, lays a series with it, adds a card to a series on
the table and discards. The page is the game page's turn: cards are selected by clicking
them, the plays they make are listed with their points, the same buttons make the moves;
what to click next is marked. A move the rules refuse is answered with the rule it breaks,
a legal one that is not the step's with what the step wants.

Nothing is stored: the moves made so far are the page's address (``?moves=take;lay
12,14,16``), played again from the fixed position (``start``) on every request, and so are
the cards selected (``&pick=35``) and a play written out (``&attempt=``).

>>> progress = TUTORIAL.read(QueryDict("moves=take"))
>>> progress.step, progress.lesson.kinds
(1, ('lay',))
>>> TUTORIAL.move(progress, QueryDict("move=extend 1: 35"))
Traceback (most recent call last):
    ...
games.web.base.WrongMove: You must lay a series of 3 or more cards before adding cards to the table.
>>> TUTORIAL.address(TUTORIAL.move(progress, QueryDict("move=lay 12,14,16")))
'/learn/nmbrs/?moves=take;lay+12,14,16'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.contract import IllegalMove
from games.nmbrs import Move, State, apply, position
from games.nmbrs.view import card_data, view
from games.web.base import WrongMove
from games.web.nmbrs.compose import selection
from games.web.nmbrs.forms import read_query
from games.web.nmbrs.words import refusal_text

#: The other player at the table (the tutorial's own: no account of the site).
OPPONENT = "Sam"
#: What a move of the tutorial can be at most.
LONGEST = 200


def start() -> State:
    """The table the tutorial's turn starts at: the learner (player 0) is to draw; the 16 on
    the discard pile makes a series with their 12 and 14; the other player has laid 20, 25,
    30, to which their 35 can be added once they have laid a series of their own."""
    return position(
        hands=["12,14,35,61,88", "3,27,44,52,69,73,90"],
        table=["20,25,30"],
        pile="16",
        laid=[False, True],
        scores=[50, 56],
        phase="draw",
    )


@dataclass(frozen=True, slots=True)
class Lesson:
    """One step of the turn: the kinds of move it teaches, the cards to select for it (None:
    any one card), the sentence that says it and what a legal move of another kind is told."""

    kinds: tuple[str, ...]
    cards: tuple[str, ...] | None
    says: Any
    instead: Any


LESSONS = (
    Lesson(
        ("take",),
        (),
        gettext_lazy(
            "A turn starts with the discard pile: take its 16, which makes a series with your "
            "12 and 14."
        ),
        gettext_lazy("This time take the 16: it makes a series with your 12 and 14."),
    ),
    Lesson(
        ("lay",),
        ("12", "14", "16"),
        gettext_lazy(
            "A series is 3 or more cards that go up by the same step: select 12, 14 and 16, "
            "then lay them."
        ),
        gettext_lazy("First lay your series: select 12, 14 and 16."),
    ),
    Lesson(
        ("extend", "insert"),
        ("35",),
        gettext_lazy(
            "Once you have laid a series you may add cards to any series on the table: select "
            "35 and add it to series 1."
        ),
        gettext_lazy("Now add your 35 to series 1: 20, 25, 30."),
    ),
    Lesson(
        ("discard",),
        None,
        gettext_lazy("A turn ends with a discard: select one card of your hand and discard it."),
        gettext_lazy("Now end your turn: select one card and discard it."),
    ),
)

#: What the tutorial has taught, said once the turn is over.
LEARNED = (
    gettext_lazy(
        "A turn starts with the draw: take the discard, or pass it round the table (when "
        "nobody takes it, you draw from the deck)."
    ),
    gettext_lazy("A series is 3 or more cards going up by the same step; laying one scores."),
    gettext_lazy(
        "Once you have laid a series in a deal, you may add cards to any series on the table."
    ),
    gettext_lazy("A turn ends with a discard; whoever has no card left ends the deal."),
    gettext_lazy(
        "A card scores its value (in its corner), doubled when its series is all of one colour "
        "or all of different colours; once a deal ends with somebody at 100 points, the highest "
        "score wins."
    ),
)


@dataclass(frozen=True, slots=True)
class Progress:
    """How far the turn has got: the moves made (as the notation writes them) and the state
    they lead to, the cards selected and a play written out."""

    moves: tuple[str, ...] = ()
    state: State = field(default_factory=start, compare=False)
    picked: tuple[str, ...] = ()
    attempt: str = ""

    @property
    def step(self) -> int:
        return len(self.moves)

    @property
    def done(self) -> bool:
        return self.step == len(LESSONS)

    @property
    def lesson(self) -> Lesson:
        return LESSONS[self.step]


class NmbrsTutorial:
    """The "Learn to play" of nmbrs! (see ``games.web.base``)."""

    slug = "nmbrs"
    template = "games/nmbrs/learn.html"
    summary = gettext_lazy(
        "One turn: take the discard, lay a series, add a card to the table and discard."
    )

    def read(self, query: QueryDict) -> Progress:
        """The progress an address (or a form) holds; ValueError with a message when it is not
        a game of the tutorial."""
        text = query.get("moves", "")
        if len(text) > LONGEST * len(LESSONS):
            raise ValueError(_("It has more moves than the tutorial's turn."))
        parts = [part.strip() for part in text.split(";")] if text.strip() else []
        if len(parts) > len(LESSONS):
            raise ValueError(_("It has more moves than the tutorial's turn."))
        state, made = start(), []
        for index, part in enumerate(parts):
            try:
                move = Move.parse(part)
                taught = move.kind in LESSONS[index].kinds
                if taught:
                    state = apply(state, 0, move)
            except IllegalMove as refused:
                raise ValueError(
                    _("Its move %(number)s breaks a rule. %(reason)s")
                    % {"number": index + 1, "reason": refusal_text(refused)}
                ) from None
            if not taught:
                raise ValueError(
                    _("Its move %(number)s, %(move)s, is not the one the tutorial teaches.")
                    % {"number": index + 1, "move": part[:40]}
                )
            made.append(str(move))
        read = read_query(query)
        return Progress(tuple(made), state, read.get("pick", ()), read.get("attempt", ""))

    def move(self, progress: Progress, post: QueryDict) -> Progress:
        """The progress after the move posted; WrongMove with the rule it breaks or what the
        step wants instead."""
        text = post.get("move", "").strip()
        if progress.done:
            raise WrongMove(_("The tutorial's turn is over."), progress)
        if not text or len(text) > LONGEST:
            raise WrongMove(_("Choose a move."), progress)
        try:
            move = Move.parse(text)
            state = apply(progress.state.copy(), 0, move)
        except IllegalMove as refused:
            raise WrongMove(refusal_text(refused), progress) from None
        if move.kind not in progress.lesson.kinds:
            raise WrongMove(str(progress.lesson.instead), progress)
        return Progress((*progress.moves, str(move)), state)

    def address(self, progress: Progress, preview: bool = False) -> str:
        """The page of ``progress`` (with ``preview``, also the cards selected and a play
        written out)."""
        query: list[tuple[str, str]] = []
        if progress.moves:
            query.append(("moves", ";".join(progress.moves)))
        if preview:
            query += [("pick", card) for card in progress.picked]
            if progress.attempt:
                query.append(("attempt", progress.attempt))
        url = reverse("learn_game", args=[self.slug])
        return f"{url}?{urlencode(query, safe='@,;:')}" if query else url

    def _pick_url(self, progress: Progress, picked: list[str]) -> str:
        shown = Progress(progress.moves, progress.state, tuple(picked))
        address = self.address(shown, preview=True)
        # An empty selection is still a selection (the turn's part of the page alone).
        return address if picked else f"{address}{'&' if '?' in address else '?'}pick="

    def context(self, progress: Progress) -> dict[str, Any]:
        """The table, the players round it, the learner's hand and choices, what to click
        next; once the turn is over, what it scored."""
        seen = view(progress.state, 0)
        context: dict[str, Any] = {
            "step": progress.step + 1,
            "steps": len(LESSONS),
            "done": progress.done,
            "discard": None if seen.discard is None else card_data(seen.discard),
            "deck_size": seen.deck_size,
            "table": [
                {"number": s.number, "cards": [card_data(c, n) for c, n in s.cards], "step": s.step}
                for s in seen.table
            ],
            "around": [
                {
                    "name": _("You") if player == 0 else OPPONENT,
                    "score": seen.scores[player],
                    "hand_size": seen.hand_sizes[player],
                    "laid": seen.laid[player],
                    "turn": seen.turn == player,
                }
                for player in range(seen.players)
            ],
            "score": seen.scores[0],
            "state_fields": [("moves", ";".join(progress.moves))],
            "move_action": reverse("learn_game", args=[self.slug]),
            "page_url": reverse("learn_game", args=[self.slug]),
        }
        if progress.done:
            made = [line for line in seen.log if line.player == 0 and line.points]
            context["scored"] = [(line.move, line.points) for line in made]
            context["points"] = sum(line.points for line in made)
            context["learned"] = [str(text) for text in LEARNED]
            return context
        lesson = progress.lesson
        hand = list(seen.hand or ())
        picked = [card for card in progress.picked if card in hand]
        wanted = hand if lesson.cards is None else list(lesson.cards)
        chosen = set(picked) == set(wanted) if lesson.cards is not None else len(picked) == 1
        context.update(
            says=str(lesson.says),
            choice=seen.phase,
            must_draw=seen.must_draw,
            picked=picked,
            clear_url=self._pick_url(progress, []),
            hand=[
                {
                    **card_data(card),
                    "picked": card in picked,
                    "target": not chosen and card in wanted and card not in picked,
                    "toggle": self._pick_url(
                        progress,
                        [c for c in picked if c != card] if card in picked else [*picked, card],
                    ),
                }
                for card in hand
            ],
            take_target="take" in lesson.kinds,
            discard_target=chosen and "discard" in lesson.kinds,
        )
        if seen.phase == "play":
            context.update(selection(seen, picked, progress.attempt))
            for play in context["plays"]:
                play["target"] = chosen and play["text"].split(" ", 1)[0] in lesson.kinds
        return context


TUTORIAL = NmbrsTutorial()
