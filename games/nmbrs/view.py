"""What one player may know of a match (boardgame.io's ``playerView``), and states that player
cannot tell apart from the real one.

Everybody sees the table, the discard pile's top card, the deck's size, every hand's size,
the scores and whose decision it is; a player also sees their own hand, a spectator no hand.
Nobody sees another hand or the order of the deck, until the game is over: then the final
hands are shown.

>>> from games.nmbrs.game import setup
>>> state = setup(3, seed=1)
>>> mine = view(state, 0).to_dict()
>>> len(mine["hand"]), mine["hand_sizes"], mine["deck_size"], mine["phase"]
(7, [7, 7, 7], 82, 'draw')
>>> view(state, None).to_dict()["hand"] is None
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.contract import Outcome

from .cards import CARDS, JOKERS
from .game import Logged, Options, Slot, State, outcome

__all__ = ["SeriesView", "View", "card_data", "sample_hidden", "sort_hand", "view"]


def card_data(card: str, number: int | None = None) -> dict[str, Any]:
    """A card as plain data; ``number`` is what a joker on the table stands for.

    >>> card_data("JR", 42)
    {'card': 'JR', 'number': 42, 'colour': 'red', 'value': 0, 'joker': True}
    """
    info = CARDS[card]
    return {
        "card": card,
        "number": info.number if number is None else number,
        "colour": info.colour,
        "value": info.value,
        "joker": info.joker,
    }


def sort_hand(cards: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Cards in the order a player holds them: numbers ascending, then the jokers."""
    return tuple(sorted(cards, key=lambda c: (c in JOKERS, CARDS[c].number or 0, c)))


@dataclass(frozen=True, slots=True)
class SeriesView:
    """One series on the table, numbered as in the move notation."""

    number: int
    cards: tuple[Slot, ...]

    @property
    def step(self) -> int:
        return self.cards[1][1] - self.cards[0][1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "series": self.number,
            "step": self.step,
            "cards": [card_data(card, number) for card, number in self.cards],
        }


@dataclass(frozen=True, slots=True)
class View:
    """All that ``viewer`` (None: a spectator) may know.

    ``turn`` is the player whose turn it is; ``phase`` is ``draw`` (they answer the discard,
    or must draw from the deck when ``must_draw``), ``offer`` (``offer_to`` answers the
    discard they passed), ``play`` (plays, then the discard or ``done``) or ``over``.
    ``to_move`` is the one player who owes a decision. ``owed`` is a joker the player whose
    turn it is took back by a swap and must play again this turn. ``last_deal`` says who went
    out of the previous deal and what each player lost; ``log`` is the match's public history
    (``Logged``: every move as the table saw it, never a card drawn from the deck).
    ``next_series`` is the number the next series laid will get.
    """

    viewer: int | None
    players: int
    options: Options
    deal: int
    starter: int
    turn: int | None
    phase: str
    to_move: int | None
    offer_to: int | None
    must_draw: bool
    discard: str | None
    discard_size: int
    deck_size: int
    table: tuple[SeriesView, ...]
    next_series: int
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    laid: tuple[bool, ...]
    left: tuple[bool, ...]
    turns: tuple[int, ...]
    plays: int
    owed: str | None
    hand: tuple[str, ...] | None
    last_deal: Mapping[str, Any] | None
    final_hands: tuple[tuple[str, ...], ...] | None
    outcome: Outcome | None
    log: tuple[Logged, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data; every card as ``{"card", "number", "colour", "value", "joker"}``."""
        return {
            "viewer": self.viewer,
            "players": self.players,
            "options": self.options.to_data(),
            "deal": self.deal,
            "starter": self.starter,
            "turn": self.turn,
            "phase": self.phase,
            "to_move": self.to_move,
            "offer_to": self.offer_to,
            "must_draw": self.must_draw,
            "discard": None if self.discard is None else card_data(self.discard),
            "discard_size": self.discard_size,
            "deck_size": self.deck_size,
            "table": [series.to_dict() for series in self.table],
            "next_series": self.next_series,
            "hand_sizes": list(self.hand_sizes),
            "scores": list(self.scores),
            "laid": list(self.laid),
            "left": list(self.left),
            "turns": list(self.turns),
            "plays": self.plays,
            "owed": self.owed,
            "hand": None if self.hand is None else [card_data(c) for c in self.hand],
            "last_deal": None if self.last_deal is None else dict(self.last_deal),
            "final_hands": (
                None
                if self.final_hands is None
                else [[card_data(c) for c in hand] for hand in self.final_hands]
            ),
            "outcome": None if self.outcome is None else self.outcome.to_dict(),
            "log": [line.to_data() for line in self.log],
        }


def view(state: State, viewer: int | None) -> View:
    """What ``viewer`` may know of ``state`` (None: a spectator)."""
    if viewer is not None and not (
        isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < state.players
    ):
        raise ValueError(f"there is no player {viewer!r}")
    over = state.over
    return View(
        viewer=viewer,
        players=state.players,
        options=state.options,
        deal=state.deal,
        starter=state.starter,
        turn=None if over else state.current,
        phase=state.phase,
        to_move=state.to_move,
        offer_to=state.offer_to,
        must_draw=state.phase == "draw" and state.passed,
        discard=state.top,
        discard_size=len(state.pile),
        deck_size=len(state.deck),
        table=tuple(SeriesView(n, cards) for n, cards in state.table.items()),
        next_series=state.next_series,
        hand_sizes=tuple(len(hand) for hand in state.hands),
        scores=tuple(state.scores),
        laid=tuple(state.laid),
        left=tuple(state.left),
        turns=tuple(state.turns),
        plays=0 if over else state.plays,
        owed=None if over else state.owed,
        hand=None if viewer is None else sort_hand(state.hands[viewer]),
        last_deal=state.last_deal,
        final_hands=tuple(sort_hand(hand) for hand in state.hands) if over else None,
        outcome=outcome(state),
        log=state.log,
    )


def sample_hidden(state: State, viewer: int | None, rng: random.Random) -> State:
    """A copy of ``state`` with what ``viewer`` cannot see drawn afresh: the other hands
    (keeping their sizes, and a joker owed after a swap where it is) and the deck, dealt
    from the cards the viewer cannot see. ``view(copy, viewer) == view(state, viewer)``."""
    other = state.copy()
    if state.over:
        rng.shuffle(other.deck)
        return other
    hidden = [p for p in range(state.players) if p != viewer]
    pool = list(other.deck)
    kept: dict[int, list[str]] = {}
    for player in hidden:
        keep = [state.owed] if player == state.current and state.owed in state.hands[player] else []
        kept[player] = keep
        pool.extend(card for card in other.hands[player] if card not in keep)
    rng.shuffle(pool)
    for player in hidden:
        size = len(other.hands[player]) - len(kept[player])
        other.hands[player] = kept[player] + pool[:size]
        del pool[:size]
    other.deck = pool
    return other
