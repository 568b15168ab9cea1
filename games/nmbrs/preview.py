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
"""

from __future__ import annotations

from collections.abc import Iterable

from games.contract import IllegalMove

from .cards import JOKERS, deck
from .game import Plan, State, plan
from .moves import Move, Placed
from .plays import candidates
from .view import View

__all__ = ["own_position", "plays", "preview", "why_no_play"]


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


def why_no_play(view: View, cards: Iterable[str]) -> IllegalMove:
    """Why ``cards`` make no play (``plays`` found none): the rules' reason for laying them
    as a series when they could be one, else what the player can do instead."""
    cards = list(cards)
    if len(cards) >= 3 and not any(card in JOKERS for card in cards):
        refused = preview(view, Move("lay", cards=tuple(Placed.parse(c) for c in cards)))
        if isinstance(refused, IllegalMove):
            return refused
    if view.viewer is not None and not view.laid[view.viewer]:
        return IllegalMove(
            "you must lay a series of 3 or more cards before adding cards to the table",
            code="lay-first",
        )
    return IllegalMove(
        "these cards make no play on the table as it is: write the play out",
        code="no-play",
    )
