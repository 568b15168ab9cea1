"""A whole NMBR 9 game for 1-6 players, dealt from a seed and replayable from its moves."""

from __future__ import annotations

import enum
import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .board import Board
from .placement import InvalidPlacement, Placement

__all__ = [
    "CARDS",
    "MAX_PLAYERS",
    "MAX_REMOVED",
    "PACES",
    "Game",
    "GameError",
    "OpponentView",
    "Outcome",
    "PlayerView",
    "Termination",
    "deal",
]

#: The deck: two cards of each number.
CARDS: tuple[int, ...] = tuple(n for n in range(10) for _ in range(2))
MAX_PLAYERS = 6
MAX_REMOVED = 4
PACES = ("rounds", "free")

GAME_OVER = "the game is over"
RESIGNED = "this player has resigned"
ALL_PLACED = "this player has placed all their tiles"
WAITING = "waiting for the other players to finish the round"


class GameError(ValueError):
    """A move or argument the game cannot accept (not this player's turn, game over, ...)."""


def _check_seed(seed: object) -> int | str:
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise GameError(f"seed must be a whole number or text, not {seed!r}")
    return seed


def _check_removed(removed: object) -> int | str:
    if removed == "random" and isinstance(removed, str):
        return removed
    if isinstance(removed, bool) or not isinstance(removed, int):
        raise GameError(f'removed must be 0-{MAX_REMOVED} or "random", not {removed!r}')
    if not 0 <= removed <= MAX_REMOVED:
        raise GameError(f'removed must be 0-{MAX_REMOVED} or "random", not {removed}')
    return removed


def deal(seed: int | str, removed: int | str = 0) -> tuple[tuple[int, ...], int]:
    """The cards revealed in order, and how many were removed unseen.

    The 20 cards are shuffled with ``random.Random(seed)``; ``removed`` cards ("random":
    0-4 drawn from the same generator after the shuffle) are taken off the end of the deck.

    >>> cards, removed = deal(7)
    >>> len(cards), removed, sorted(cards) == sorted(CARDS)
    (20, 0, True)
    >>> len(deal(7, removed=3)[0])
    17
    """
    seed = _check_seed(seed)
    removed = _check_removed(removed)
    rng = random.Random(seed)
    cards = list(CARDS)
    rng.shuffle(cards)
    count = rng.randrange(MAX_REMOVED + 1) if removed == "random" else int(removed)
    return tuple(cards[: len(cards) - count]), count


class Termination(enum.Enum):
    """How a game ended."""

    COMPLETED = "completed"
    """Every player still in the game placed all their tiles."""
    ABANDONED = "abandoned"
    """Every player resigned."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game (compare python-chess's ``Board.outcome()``).

    ``ranks[i]`` is player i's place: 1 is best, ties share a rank ("1, 1, 3"), resigned
    players come after all others and share the last place.
    """

    termination: Termination
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    resigned: frozenset[int] = frozenset()

    @property
    def winners(self) -> tuple[int, ...]:
        """The players ranked first (nobody if everyone resigned)."""
        return tuple(i for i, rank in enumerate(self.ranks) if rank == 1 and i not in self.resigned)

    @property
    def winner(self) -> int | None:
        """The only winner, or None after a shared win or when everyone resigned."""
        winners = self.winners
        return winners[0] if len(winners) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "termination": self.termination.value,
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "resigned": sorted(self.resigned),
            "winners": list(self.winners),
        }


def rank(scores: Iterable[int], resigned: Iterable[int] = ()) -> tuple[int, ...]:
    """Competition ranks (1 = best, ties shared), resigned players sharing the last place.

    >>> rank([50, 70, 50, 90], resigned=[3])
    (2, 1, 2, 4)
    """
    scores = tuple(scores)
    out = frozenset(resigned)
    playing = [s for i, s in enumerate(scores) if i not in out]
    last = len(playing) + 1
    return tuple(
        last if i in out else 1 + sum(1 for other in playing if other > s)
        for i, s in enumerate(scores)
    )


@dataclass(frozen=True, slots=True)
class OpponentView:
    """What a player may see of another player's display."""

    player: int
    placements: tuple[Placement, ...]
    score: int
    resigned: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "placements": [str(p) for p in self.placements],
            "score": self.score,
            "resigned": self.resigned,
        }


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Everything one player may know about the game, and nothing more.

    Never holds the seed, the order of the cards still to come or the removed cards.
    """

    player: int
    players: int
    pace: str
    rounds: int
    round: int
    current_number: int | None
    placements: tuple[Placement, ...]
    score: int
    supply: Mapping[int, int]
    finished: bool
    resigned: tuple[int, ...]
    waiting_for: tuple[int, ...]
    over: bool
    opponents: tuple[OpponentView, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (supply keys as text)."""
        return {
            "player": self.player,
            "players": self.players,
            "pace": self.pace,
            "rounds": self.rounds,
            "round": self.round,
            "current_number": self.current_number,
            "placements": [str(p) for p in self.placements],
            "score": self.score,
            "supply": {str(n): count for n, count in sorted(self.supply.items())},
            "finished": self.finished,
            "resigned": list(self.resigned),
            "waiting_for": list(self.waiting_for),
            "over": self.over,
            "opponents": [o.to_dict() for o in self.opponents],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)


class Game:
    """One game: the same sequence of cards for every player, each building a display.

    Players are numbered ``0 .. players - 1``. Pace "rounds": a round ends when every
    player still in the game has placed its tile, then the next card is revealed to all.
    Pace "free": everybody goes through the same sequence at their own speed.

    >>> game = Game(players=2, seed=7)
    >>> game.rounds, game.current_number(0), game.current_number(1)
    (20, 8, 8)
    >>> game.place(0, Placement(8, 0, 0, 0))
    0
    >>> game.current_number(0) is None, game.round_of(0)
    (True, 2)
    >>> game.place(1, Placement(8, 0, 0, 1))
    0
    >>> game.current_number(0), game.supply(0)[8], game.supply(0)[7], game.supply(0)[5]
    (7, 1, 1, 2)
    >>> replayed = Game.replay(players=2, seed=7, moves=game.moves)
    >>> replayed.to_dict() == game.to_dict()
    True
    """

    def __init__(
        self,
        players: int = 1,
        *,
        seed: int | str,
        pace: str = "rounds",
        removed: int | str = 0,
    ) -> None:
        if isinstance(players, bool) or not isinstance(players, int):
            raise GameError(f"players must be a whole number 1-{MAX_PLAYERS}, not {players!r}")
        if not 1 <= players <= MAX_PLAYERS:
            raise GameError(f"players must be 1-{MAX_PLAYERS}, not {players}")
        if pace not in PACES:
            raise GameError(f'pace must be "rounds" or "free", not {pace!r}')
        self.players = players
        self.seed = _check_seed(seed)
        self.pace = pace
        self._cards, self.removed = deal(self.seed, removed)
        self.rounds = len(self._cards)
        self._boards = [Board() for _ in range(players)]
        self._moves: list[tuple[int, Placement]] = []
        self._resignations: list[tuple[int, int]] = []
        self._resigned: dict[int, int] = {}

    # ----------------------------------------------------------------- state

    def _check_player(self, player: object) -> int:
        if isinstance(player, bool) or not isinstance(player, int):
            raise GameError(f"player must be a whole number, not {player!r}")
        if not 0 <= player < self.players:
            raise GameError(f"player must be 0-{self.players - 1}, not {player}")
        return player

    @property
    def moves(self) -> tuple[tuple[int, Placement], ...]:
        """Every placement so far as ``(player, placement)``, in order."""
        return tuple(self._moves)

    @property
    def resignations(self) -> tuple[tuple[int, int], ...]:
        """``(player, number of moves made before the resignation)``, in order."""
        return tuple(self._resignations)

    @property
    def resigned(self) -> frozenset[int]:
        return frozenset(self._resigned)

    @property
    def boards(self) -> tuple[Board, ...]:
        """A copy of every player's display."""
        return tuple(board.copy() for board in self._boards)

    def board(self, player: int) -> Board:
        """A copy of ``player``'s display."""
        return self._boards[self._check_player(player)].copy()

    def placed(self, player: int) -> int:
        """How many tiles ``player`` has placed."""
        return len(self._boards[self._check_player(player)])

    def active_players(self) -> tuple[int, ...]:
        """The players who have not resigned."""
        return tuple(p for p in range(self.players) if p not in self._resigned)

    def completed_rounds(self) -> int:
        """How many rounds every player still in the game has finished."""
        active = self.active_players()
        if not active:
            return max(len(board) for board in self._boards)
        return min(len(self._boards[p]) for p in active)

    def finished(self, player: int) -> bool:
        """Whether ``player`` has placed all their tiles."""
        return self.placed(player) >= self.rounds

    def is_over(self) -> bool:
        return all(len(self._boards[p]) >= self.rounds for p in self.active_players())

    def current_number(self, player: int) -> int | None:
        """The number ``player`` must place now, or None (waiting, finished or resigned)."""
        player = self._check_player(player)
        if player in self._resigned:
            return None
        placed = len(self._boards[player])
        if placed >= self.rounds:
            return None
        if self.pace == "rounds" and placed > self.completed_rounds():
            return None
        return self._cards[placed]

    def round_of(self, player: int) -> int:
        """The 1-based round whose tile ``player`` places next (the last round once done)."""
        return min(self.placed(player) + 1, self.rounds)

    def waiting_for(self) -> tuple[int, ...]:
        """Rounds pace: the players who still have to place this round's tile."""
        if self.pace != "rounds" or self.is_over():
            return ()
        done = self.completed_rounds()
        return tuple(p for p in self.active_players() if len(self._boards[p]) == done)

    def _revealed(self, player: int) -> int:
        """How many cards ``player`` has seen."""
        if player in self._resigned:
            return self._resigned[player]
        placed = len(self._boards[player])
        return placed + (self.current_number(player) is not None)

    def supply(self, player: int) -> dict[int, int]:
        """How many tiles of each number may still come for ``player`` (removed cards are
        unknown, so they still count)."""
        player = self._check_player(player)
        counts = dict.fromkeys(range(10), 0)
        for card in CARDS:
            counts[card] += 1
        for card in self._cards[: self._revealed(player)]:
            counts[card] -= 1
        return counts

    def score(self, player: int) -> int:
        return self._boards[self._check_player(player)].score()

    # ----------------------------------------------------------------- moves

    def place(self, player: int, placement: Placement) -> int:
        """Place ``player``'s current tile; returns its level.

        Raises GameError (not this player's turn, wrong number, resigned, game over) or
        IllegalPlacement, and then nothing changes.
        """
        player = self._check_player(player)
        number = self._expect_move(player)
        if not isinstance(placement, Placement):
            raise InvalidPlacement(f"expected a Placement, not {placement!r}")
        if placement.number != number:
            raise GameError(f"the tile to place is a {number}, not a {placement.number}")
        level = self._boards[player].place(placement)
        self._moves.append((player, placement))
        return level

    def _expect_move(self, player: int) -> int:
        if self.is_over():
            raise GameError(GAME_OVER)
        if player in self._resigned:
            raise GameError(RESIGNED)
        if len(self._boards[player]) >= self.rounds:
            raise GameError(ALL_PLACED)
        number = self.current_number(player)
        if number is None:
            raise GameError(WAITING)
        return number

    def fallback(self, player: int) -> Placement:
        """The fallback policy's placement of ``player``'s current tile (not placed)."""
        from .policy import choose

        player = self._check_player(player)
        number = self._expect_move(player)
        return choose(self._boards[player], number, supply=self.supply(player))

    def auto_place(self, player: int) -> Placement:
        """Place ``player``'s current tile with the fallback policy (a deadline passed)."""
        placement = self.fallback(player)
        self.place(player, placement)
        return placement

    def resign(self, player: int) -> None:
        """``player`` makes no more moves and is ranked last; nobody waits for them."""
        player = self._check_player(player)
        if self.is_over():
            raise GameError(GAME_OVER)
        if player in self._resigned:
            raise GameError(RESIGNED)
        if len(self._boards[player]) >= self.rounds:
            raise GameError(ALL_PLACED)
        self._resigned[player] = self._revealed(player)
        self._resignations.append((player, len(self._moves)))

    # ----------------------------------------------------------------- results and views

    def outcome(self) -> Outcome | None:
        """None while the game is running, else the scores and ranks."""
        if not self.is_over():
            return None
        scores = tuple(board.score() for board in self._boards)
        termination = Termination.COMPLETED if self.active_players() else Termination.ABANDONED
        return Outcome(termination, scores, rank(scores, self._resigned), self.resigned)

    def visible_placements(self, viewer: int, player: int) -> tuple[Placement, ...]:
        """The placements of ``player`` that ``viewer`` may see.

        One's own display is always visible; once the game is over, every display is.
        Rounds pace: another player's placements up to the last completed round. Free
        pace: their display as it was at the viewer's own round.
        """
        viewer = self._check_player(viewer)
        player = self._check_player(player)
        placements = self._boards[player].placements
        if viewer == player or self.is_over():
            return placements
        if self.pace == "rounds":
            return placements[: self.completed_rounds()]
        return placements[: len(self._boards[viewer])]

    def player_view(self, player: int) -> PlayerView:
        """What ``player`` may know, as plain data."""
        player = self._check_player(player)
        board = self._boards[player]
        opponents = []
        for other in range(self.players):
            if other == player:
                continue
            shown = self.visible_placements(player, other)
            tiles = self._boards[other].tiles[: len(shown)]
            opponents.append(
                OpponentView(
                    player=other,
                    placements=shown,
                    score=sum(p.number * level for p, level in tiles),
                    resigned=other in self._resigned,
                )
            )
        return PlayerView(
            player=player,
            players=self.players,
            pace=self.pace,
            rounds=self.rounds,
            round=self.round_of(player),
            current_number=self.current_number(player),
            placements=board.placements,
            score=board.score(),
            supply=self.supply(player),
            finished=len(board) >= self.rounds,
            resigned=tuple(sorted(self._resigned)),
            waiting_for=self.waiting_for(),
            over=self.is_over(),
            opponents=tuple(opponents),
        )

    # ----------------------------------------------------------------- replay

    @classmethod
    def replay(
        cls,
        players: int = 1,
        *,
        seed: int | str,
        pace: str = "rounds",
        removed: int | str = 0,
        moves: Iterable[tuple[int, Placement | str]] = (),
        resignations: Iterable[tuple[int, int]] = (),
    ) -> Game:
        """Rebuild a game from its seed and moves (and resignations, each with the number of
        moves made before it). Raises like ``place`` if a move does not fit."""
        game = cls(players, seed=seed, pace=pace, removed=removed)
        pending = sorted(
            ((int(index), n, int(p)) for n, (p, index) in enumerate(resignations)),
        )
        position = 0
        for count, (player, placement) in enumerate(moves):
            while position < len(pending) and pending[position][0] <= count:
                game.resign(pending[position][2])
                position += 1
            if isinstance(placement, str):
                placement = Placement.parse(placement)
            game.place(player, placement)
        for _, _, player in pending[position:]:
            game.resign(player)
        return game

    def to_dict(self) -> dict[str, Any]:
        """Seed, settings and moves: everything needed to rebuild the game (server side only;
        it holds the seed)."""
        return {
            "players": self.players,
            "seed": self.seed,
            "pace": self.pace,
            "removed": self.removed,
            "moves": [[player, str(placement)] for player, placement in self._moves],
            "resignations": [list(r) for r in self._resignations],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        return cls.replay(
            data["players"],
            seed=data["seed"],
            pace=data.get("pace", "rounds"),
            removed=data.get("removed", 0),
            moves=[(player, text) for player, text in data.get("moves", ())],
            resignations=[(player, index) for player, index in data.get("resignations", ())],
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Game:
        return cls.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return (
            f"<Game players={self.players} pace={self.pace!r} rounds={self.rounds} "
            f"moves={len(self._moves)}{' over' if self.is_over() else ''}>"
        )
