"""What a player's plays would do, worked out from what the player may know: their view.

A page that lets a player choose a play shows, before anything is played, which plays the
selected cards allow, the series each would make and the points it scores, or why the play
is refused. Plays depend only on what the player sees (their hand, the table, who has laid
a series, a joker they owe, the options), so ``own_position`` builds a state from the view
alone, with the cards the player cannot see dealt in a fixed order, and the usual rules
(``plan``, ``legal_plays``) answer on it exactly as on the real state.

>>> from games.nmbrs.game import position
>>> from games.nmbrs.view import view
>>> state = position(hands=["12,14,16,JR,26", "1,2,3"], table=["20,22,24"])
>>> [(str(p.move), p.points) for p in plays(view(state, 0), ["26"])]
[('extend 1: 26', 2)]
>>> [str(p.move) for p in plays(view(state, 0), ["12", "14", "16"])]
['lay 12,14,16']
>>> preview(view(state, 0), "lay 12,14").reason
'a series needs at least 3 cards: 12, 14 has 2'
>>> why_no_play(view(state, 0), ["12", "14", "26"]).reason
'12, 14, 26 is not a series: the steps between the numbers differ'

Cards that make no play yet may still become one with more cards of the hand: ``needs`` says
how many more, for which play, and which cards.

>>> [str(need) for need in needs(view(state, 0), ["12", "14"])]
['1 more card for a series: 16 or JR']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from games.contract import IllegalMove

from .cards import JOKERS, deck
from .game import Plan, State, plan
from .moves import Move, Placed
from .plays import candidates
from .view import View, sort_hand

__all__ = ["Need", "needs", "own_position", "plays", "preview", "why_no_play"]

#: The plays a selection can grow into, in the order ``needs`` lists them, with what they
#: are for in the engine's own English.
_PURPOSES = {
    "lay": "for a series",
    "extend": "to extend series {series}",
    "insert": "to insert into series {series}",
    "cross": "to cross series {series}",
    "join": "to join series {series} and {other}",
}


def own_position(view: View) -> State:
    """A state the viewer cannot tell from the real one, built from their view: their hand,
    the table, the discard's top card; every other hand, the deck and the pile under the top
    card hold the unseen cards in a fixed order, with their true sizes."""
    if view.viewer is None or view.hand is None:
        raise ValueError("a spectator has no plays")
    seen = set(view.hand)
    seen.update(series_card for series in view.table for series_card, _ in series.cards)
    if view.discard is not None:
        seen.add(view.discard)
    unseen = [card for card in deck(view.options.simplified) if card not in seen]
    hands = []
    for player, size in enumerate(view.hand_sizes):
        if player == view.viewer:
            hands.append(list(view.hand))
        else:
            hands.append([unseen.pop() for _ in range(size)])
    under = [unseen.pop() for _ in range(max(view.discard_size - 1, 0))]
    pile = [*under, view.discard] if view.discard is not None else under
    playing = view.turn if view.turn is not None else 0
    return State(
        players=view.players,
        seed=0,
        options=view.options,
        scores=list(view.scores),
        left=list(view.left),
        deal=view.deal,
        starter=view.starter,
        hands=hands,
        deck=unseen[: view.deck_size],
        pile=pile,
        table={series.number: series.cards for series in view.table},
        next_series=view.next_series,
        laid=list(view.laid),
        current=playing,
        phase=view.phase,
        passed=view.must_draw,
        offer_to=view.offer_to,
        owed=view.owed,
        plays=view.plays,
        turns=list(view.turns),
    )


def plays(view: View, cards: Iterable[str]) -> list[Plan]:
    """The plays of the usual shapes (``candidates``) that put exactly ``cards``, jokers
    included, on the table (a swap: the number card swapped in), best scoring first."""
    wanted = sorted(set(cards))
    player = view.viewer
    if player is None or view.to_move != player or view.phase != "play" or not wanted:
        return []
    if not set(wanted) <= set(view.hand or ()):
        return []
    state = own_position(view)
    only = state.copy()
    only.hands[player] = wanted
    found: dict[Move, Plan] = {}
    for move in candidates(only, player):
        if move in found:
            continue
        try:
            done = plan(state, player, move)
        except IllegalMove:
            continue
        if sorted(done.out) == wanted:
            found[move] = done
    return sorted(found.values(), key=lambda p: (-p.points, str(p.move)))


def preview(view: View, move: Move | str) -> Plan | IllegalMove:
    """What the viewer's play ``move`` would do, or the reason it is refused."""
    try:
        if isinstance(move, str):
            move = Move.parse(move)
        if not move.is_play:
            raise IllegalMove(f"{move.kind} is not a play", code="not-a-play", kind=move.kind)
        if view.viewer is None:
            raise IllegalMove("spectators do not play", code="spectator")
        return plan(own_position(view), view.viewer, move)
    except IllegalMove as refused:
        return refused


@dataclass(frozen=True, slots=True)
class Need:
    """What selected cards still need to become a play: ``more`` cards of the hand for a play
    of ``kind`` (on series ``series``; a join also ``other``), such as ``cards``: when one card
    is missing, every card of the hand that completes the play, else the cards of one way to
    complete it. ``code`` and ``params`` name it as a refusal does, for a page's own words.

    >>> need = Need("extend", 2, ("16", "JR"), series=1)
    >>> str(need)
    '2 more cards to extend series 1, such as 16 and JR'
    >>> need.code, need.params
    ('extend', {'more': 2, 'cards': ('16', 'JR'), 'series': 1})
    """

    kind: str
    more: int
    cards: tuple[str, ...]
    series: int | None = None
    other: int | None = None

    @property
    def code(self) -> str:
        return self.kind

    @property
    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"more": self.more, "cards": self.cards}
        if self.series is not None:
            params["series"] = self.series
        if self.other is not None:
            params["other"] = self.other
        return params

    def __str__(self) -> str:
        purpose = _PURPOSES[self.kind].format(series=self.series, other=self.other)
        if self.more == 1:
            return f"1 more card {purpose}: {' or '.join(self.cards)}"
        return f"{self.more} more cards {purpose}, such as {' and '.join(self.cards)}"


def needs(view: View, cards: Iterable[str]) -> list[Need]:
    """What ``cards``, which make no play (``plays`` found none), need to become one with more
    cards of the viewer's hand: for the plays that take the fewest more cards, a ``Need`` per
    kind of play and series. Empty when no cards of the hand make them a play (among the plays
    of the usual shapes, ``candidates``)."""
    picked = set(cards)
    player = view.viewer
    if player is None or view.to_move != player or view.phase != "play" or not picked:
        return []
    hand = list(view.hand or ())
    if not picked <= set(hand):
        return []
    state = own_position(view)
    # The generator fills gaps with the hand's first jokers: the selected ones come first.
    ordered = state.copy()
    ordered.hands[player] = sorted(hand, key=lambda card: card not in picked)
    fewest: dict[tuple[str, int | None, int | None], tuple[int, list[Plan]]] = {}
    tried: set[Move] = set()
    for move in candidates(ordered, player):
        placed = {c.card for c in move.cards}
        if move in tried or not picked < placed:
            continue
        tried.add(move)
        more = len(placed) - len(picked)
        key = (move.kind, move.series, move.other)
        if key in fewest and fewest[key][0] < more:
            continue
        try:
            done = plan(state, player, move)
        except IllegalMove:
            continue
        if key in fewest and fewest[key][0] == more:
            fewest[key][1].append(done)
        else:
            fewest[key] = (more, [done])
    if not fewest:
        return []
    least = min(more for more, _ in fewest.values())
    found = []
    for (kind, series, other), (more, plans) in fewest.items():
        if more != least:
            continue
        if more == 1:
            extra = {card for p in plans for card in p.out} - picked
        else:
            extra = set(min(plans, key=lambda p: (-p.points, str(p.move))).out) - picked
        found.append(Need(kind, more, sort_hand(list(extra)), series, other))
    # A cross through the end of a series the same cards extend (or fill in) says nothing new.
    other_ways = {(n.series, n.cards) for n in found if n.kind != "cross"}
    found = [n for n in found if n.kind != "cross" or (n.series, n.cards) not in other_ways]
    kinds = list(_PURPOSES)
    return sorted(found, key=lambda n: (kinds.index(n.kind), n.series or 0, n.other or 0))


def why_no_play(view: View, cards: Iterable[str]) -> IllegalMove:
    """Why ``cards`` make no play (``plays`` found none): the rules' reason for laying them
    as a series when they could be one, else what the player can do instead."""
    cards = list(cards)
    if len(cards) >= 3 and not any(card in JOKERS for card in cards):
        refused = preview(view, Move("lay", cards=tuple(Placed.parse(c) for c in cards)))
        if isinstance(refused, IllegalMove):
            return refused
    if view.viewer is not None and not view.laid[view.viewer]:
        if len(cards) < 3:  # more cards from the hand would make no series either
            return IllegalMove(
                "these cards make no series with the cards in your hand", code="no-series"
            )
        return IllegalMove(
            "you must lay a series of 3 or more cards before adding cards to the table",
            code="lay-first",
        )
    return IllegalMove(
        "these cards make no play on the table as it is: write the play out",
        code="no-play",
    )
