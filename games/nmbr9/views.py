"""What players may know: the decision a player faces and the views of a game.

``GameView`` is the view of any game, NMBR 9 ++ included, as the game contract hands it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.contract import Outcome

from .board import Board
from .placement import Placement
from .setup import Options
from .turn import Turn

__all__ = ["Decision", "DisplayView", "GameView", "Logged"]


@dataclass(frozen=True, slots=True)
class Decision:
    """What a player must decide now, and only what they may know for it.

    ``cards``: the cards offered as ``(marker, number)`` pairs (marker None outside "level
    to level"); ``may_reject``: "2 of 3" lets this card be rejected; ``reserved``: the
    player's reserved tile, from marker ``reserved_marker`` (building anything above level
    ``reserved_limit`` ends the reserve with the turn); ``specials``: the special tiles they
    may still use, with ``markers`` markers left; ``fillers``: the gap fillers they still
    hold; ``max_level``: the highest level anything may lie on ("level to level": 4).

    >>> from games.nmbr9 import Game, Options
    >>> decision = Game(2, seed=7, options=Options(variant="level_to_level")).decision(0)
    >>> decision.round, decision.cards, decision.cap(0), decision.max_level
    (1, ((0, 1),), 0, 4)
    """

    player: int
    round: int
    step: int
    cards: tuple[tuple[int | None, int], ...]
    may_reject: bool = False
    reserved: int | None = None
    reserved_marker: int | None = None
    reserved_limit: int | None = None
    specials: tuple[str, ...] = ()
    markers: int = 0
    fillers: tuple[str, ...] = ()
    max_level: int | None = None

    def cap(self, marker: int | None) -> int | None:
        """The highest level the tile of the card under ``marker`` may lie on."""
        if marker is None:
            return self.max_level
        return marker if self.max_level is None else min(marker, self.max_level)

    @property
    def reserved_cap(self) -> int | None:
        """The highest level the reserved tile may lie on."""
        return self.cap(self.reserved_marker) if self.reserved is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "round": self.round,
            "step": self.step,
            "cards": [list(card) for card in self.cards],
            "may_reject": self.may_reject,
            "reserved": self.reserved,
            "reserved_marker": self.reserved_marker,
            "reserved_limit": self.reserved_limit,
            "specials": list(self.specials),
            "markers": self.markers,
            "fillers": list(self.fillers),
            "max_level": self.max_level,
        }


@dataclass(frozen=True, slots=True)
class Logged:
    """One of a player's steps as a viewer may know it (``DisplayView.log``).

    ``turn``: the turn played in ``round`` (a ``Reject`` also for a card the rules rejected
    by themselves, ``forced``; None for a round of "level to level" the player had to skip);
    ``levels``: the level each piece it built went to, in the order of its steps; ``card``:
    the number of the card it rejected or set aside with "reserve" (None for another player's
    reserved tile, a secret until it is built, whose marker the turn then does not name
    either).

    >>> from games.nmbr9 import Game, Options
    >>> game = Game(2, seed=7, options=Options(specials=("reserve", "one")))
    >>> game.play(0, "reserve")
    >>> game.play(1, "place 8@0,0r0")
    >>> [str(entry.turn) for entry in game.view(1).displays[0].log]
    ['reserve']
    >>> game.view(0).displays[0].log[0].card, game.view(1).displays[0].log[0].card
    (8, None)
    """

    round: int
    turn: Turn | None
    levels: tuple[int, ...] = ()
    card: int | None = None
    forced: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "turn": None if self.turn is None else str(self.turn),
            "levels": list(self.levels),
            "card": self.card,
            "forced": self.forced,
        }


@dataclass(frozen=True, slots=True)
class DisplayView:
    """A player's display as a viewer may see it: as it was after ``progress`` steps, with
    the special tiles and gap fillers used by then, the round in which each of its ``tiles``
    was placed where it lies (``placed_in``; 0: before the first round), and each of those
    steps as the viewer may know it (``log``).

    >>> from games.nmbr9 import Game
    >>> game = Game(2, seed=7)
    >>> game.play(0, "place 8@0,0r0")
    >>> [(d.player, d.progress, len(d.tiles)) for d in game.view(0).displays]
    [(0, 1, 1), (1, 0, 0)]
    >>> game.view(0).displays[0].board().score()
    0
    """

    player: int
    tiles: tuple[tuple[Placement, int], ...]
    score: int
    progress: int
    left: bool
    specials_used: tuple[str, ...] = ()
    fillers_used: tuple[str, ...] = ()
    placed_in: tuple[int, ...] = ()
    log: tuple[Logged, ...] = ()

    def board(self) -> Board:
        """The display as a Board (for drawing)."""
        return Board.from_tiles(self.tiles)

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "tiles": [[str(p), level] for p, level in self.tiles],
            "score": self.score,
            "progress": self.progress,
            "left": self.left,
            "specials_used": list(self.specials_used),
            "fillers_used": list(self.fillers_used),
            "placed_in": list(self.placed_in),
            "log": [entry.to_dict() for entry in self.log],
        }


@dataclass(frozen=True, slots=True)
class GameView:
    """Everything one player (or a spectator, ``viewer`` None) may know, and nothing more.

    Never holds the seed, a card not yet revealed to the viewer or another player's reserved
    tile. ``displays`` holds every player's display: the viewer's own in full, the others as
    the pace allows (rounds: up to the last completed step; free: as they were at the
    viewer's own step, a spectator's at the least advanced player's). ``cards``: the cards
    showing for the viewer now; ``round_cards`` ("2 of 3"): the cards of the viewer's round
    so far with what the viewer did with each ("built", "rejected", None: to decide).
    ``options`` hold the number of cards removed (public: it sets the number of rounds), also
    when it was drawn at random. The viewer's own ``reserved`` tile, ``lost`` tiles,
    ``markers`` and ``fillers`` left, and ("level to level") ``tiles_left``; the
    ``level_markers`` with the card each shows and the ``pile`` left are public.

    >>> from games.nmbr9 import Game
    >>> game = Game(2, seed=7)
    >>> game.play(0, "place 8@0,0r0")
    >>> view = game.view(1)
    >>> view.cards, view.waiting_for, [d.tiles for d in view.displays]
    (((None, 8),), (1,), [(), ()])
    >>> view.decision.cards, view.supply[8]
    (((None, 8),), 1)
    """

    viewer: int | None
    players: int
    pace: str
    options: Options
    specials: tuple[str, ...]
    over: bool
    round: int
    rounds: int | None
    cards: tuple[tuple[int | None, int], ...]
    supply: Mapping[int, int]
    displays: tuple[DisplayView, ...]
    waiting_for: tuple[int, ...]
    left: tuple[int, ...]
    decision: Decision | None = None
    round_cards: tuple[tuple[int, str | None], ...] = ()
    reserved: int | None = None
    lost: tuple[int, ...] = ()
    markers: int = 0
    fillers: tuple[str, ...] = ()
    tiles_left: Mapping[int, int] | None = None
    level_markers: tuple[tuple[int, int], ...] = ()
    pile: int | None = None
    outcome: Outcome | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (number keys as text)."""
        return {
            "viewer": self.viewer,
            "players": self.players,
            "pace": self.pace,
            "options": self.options.to_dict(),
            "specials": list(self.specials),
            "over": self.over,
            "round": self.round,
            "rounds": self.rounds,
            "cards": [list(card) for card in self.cards],
            "supply": {str(n): count for n, count in sorted(self.supply.items())},
            "displays": [d.to_dict() for d in self.displays],
            "waiting_for": list(self.waiting_for),
            "left": list(self.left),
            "decision": None if self.decision is None else self.decision.to_dict(),
            "round_cards": [list(card) for card in self.round_cards],
            "reserved": self.reserved,
            "lost": list(self.lost),
            "markers": self.markers,
            "fillers": list(self.fillers),
            "tiles_left": None
            if self.tiles_left is None
            else {str(n): count for n, count in sorted(self.tiles_left.items())},
            "level_markers": [list(m) for m in self.level_markers],
            "pile": self.pile,
            "outcome": None if self.outcome is None else self.outcome.to_dict(),
        }
