"""NMBR 9 on the platform: the game contract (``games.contract.Rules``) for the base game and
every NMBR 9 ++ option.

The state is a ``Game``, changed in place; a move is a ``Turn`` (the text of a base game's
placement is ``place 7@3,-2r1``); a view is a ``GameView``. Match options are plain data::

    {"pace": "rounds" | "free", "removed": 0-4 | "random", "start_tiles": bool,
     "fillers": bool, "specials": [names] | "random2", "variant": "base" | "two_of_three"
     | "level_to_level", "puzzle": bool}

With ``"puzzle"`` the seed is a puzzle's (docs/rules.md §5): a base game whose first tile lies in
the centre of every display before play starts (``games.nmbr9.puzzle``).

>>> import random
>>> options = RULES.options({"players": 2, "fillers": True, "specials": ["one", "move"]})
>>> RULES.dump_options(options)["specials"]
['move', 'one']
>>> state = RULES.setup(2, 7, options)
>>> sorted(RULES.to_move(state))
[0, 1]
>>> state = RULES.apply(state, 0, RULES.parse_move("place 8@0,0r0; fill F1@2,0r0"))
>>> sorted(RULES.to_move(state)), RULES.turn(state, 0), RULES.progress(state, 0)
([1], 1, 1)
>>> RULES.view(state, 1).displays[0].tiles  # the round is not over: nothing to see yet
()
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.contract import Due, IllegalMove, InvalidMove, Outcome
from games.infra import pickled

from .bots import STRENGTHS, bot_turn
from .game import MAX_PLAYERS, PACES, Game, GameView, Options
from .policy import fallback_turn
from .puzzle import best_par
from .puzzle import puzzle as puzzle_deal
from .setup import CARDS, GameError
from .turn import InvalidTurn, Reject, Turn

__all__ = ["RULES", "MatchOptions", "Nmbr9Rules"]

_KEYS = ("pace", "removed", "start_tiles", "fillers", "specials", "variant")
_PLATFORM_KEYS = ("players", "puzzle")


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """A match's options: its pace and what is played (``Options``).

    >>> options = RULES.options({"pace": "free", "fillers": True})
    >>> options.pace, options.game.fillers, options.game.variant
    ('free', True, 'base')
    """

    pace: str = "rounds"
    game: Options = field(default_factory=Options)
    puzzle: bool = False


class Nmbr9Rules:
    """NMBR 9 and NMBR 9 ++ as the platform hosts them (see ``games.contract.Rules``).

    >>> state = RULES.setup(1, 7, RULES.options({}))
    >>> move = RULES.auto_move(state, 0)
    >>> str(move), RULES.score(RULES.apply(state, 0, move), 0)
    ('place 8@0,0r0', 0)
    """

    slug = "nmbr9"
    name = "NMBR 9"
    players = range(1, MAX_PLAYERS + 1)

    # ----------------------------------------------------------------- options

    def options(self, data: Mapping[str, Any]) -> MatchOptions:
        """Options from plain data; ValueError with the reason for anything invalid.

        >>> RULES.options({"players": 5, "variant": "two_of_three"})
        Traceback (most recent call last):
            ...
        games.nmbr9.setup.GameError: the variant two_of_three is for 1-4 players, not 5
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"options must be a mapping, not {data!r}")
        for key in data:
            if key not in _PLATFORM_KEYS and key not in _KEYS:
                raise ValueError(f"unknown option {key!r} (known: {', '.join(_KEYS)})")
        pace = data.get("pace", "rounds")
        if pace not in PACES:
            raise ValueError(f'pace must be "rounds" or "free", not {pace!r}')
        game = Options(**{key: data[key] for key in _KEYS[1:] if key in data})
        players = data.get("players")
        if players is not None:
            if isinstance(players, bool) or not isinstance(players, int):
                raise ValueError(f"players must be a whole number, not {players!r}")
            if players not in self.players:
                raise ValueError(f"players must be 1-{MAX_PLAYERS}, not {players}")
        game.check(1 if players is None else players, pace)
        puzzle = data.get("puzzle", False)
        if not isinstance(puzzle, bool):
            raise ValueError(f"puzzle must be true or false, not {puzzle!r}")
        if puzzle and (game.plusplus or game.removed != 0):
            raise ValueError("a puzzle is a base game with every card")
        return MatchOptions(pace, game, puzzle)

    def dump_options(self, options: MatchOptions) -> dict[str, Any]:
        data = {"pace": options.pace, **options.game.to_dict()}
        if options.puzzle:
            data["puzzle"] = True
        return data

    def setup(self, players: int, seed: int, options: MatchOptions) -> Game:
        game = Game(players, seed=seed, pace=options.pace, options=options.game)
        if options.puzzle:
            start = puzzle_deal(seed).start
            for player in range(players):
                game.play(player, Turn.parse(f"place {start}"))
        return game

    # ----------------------------------------------------------------- moves

    def parse_move(self, text: str) -> Turn:
        """The turn written ``text`` (InvalidTurn or InvalidPlacement, both InvalidMove)."""
        return Turn.parse(text)

    def to_move(self, state: Game) -> frozenset[int]:
        """Rounds pace: the players still to decide this step; free pace: everyone not
        finished and not gone."""
        return state.to_move()

    def turn(self, state: Game, player: int) -> int:
        return state.turns_taken(player)

    def due(self, state: Game, player: int) -> Due:
        return Due()

    def apply(self, state: Game, player: int, move: Turn) -> Game:
        if not isinstance(move, Turn):
            raise InvalidTurn(f"expected a Turn, not {move!r}")
        state.play(player, move)
        return state

    def leave(self, state: Game, player: int) -> Game:
        state.resign(player)
        return state

    def auto_move(self, state: Game, player: int) -> Turn:
        return fallback_turn(state, player)

    def random_move(self, state: Game, player: int, rng: random.Random) -> Turn:
        return state.random_turn(player, rng)

    # ----------------------------------------------------------------- commitments

    def commitments(self, state: Game, player: int) -> tuple[str, ...]:
        """ "2 of 3": "build" while the player may still reject the card (docs/rules.md §6.5: the
        player decides before trying the tile, and must then build it).

        >>> state = RULES.setup(1, 3, RULES.options({"variant": "two_of_three"}))
        >>> RULES.commitments(state, 0), RULES.commitments(RULES.setup(1, 3, RULES.options({})), 0)
        (('build',), ())
        """
        decision = state.decision(player)
        return ("build",) if decision is not None and decision.may_reject else ()

    def check_commitment(self, state: Game, player: int, commitment: str, move: Turn) -> None:
        """A player who chose to build the card may not reject it (setting it aside with
        "reserve" counts as building it).

        >>> state = RULES.setup(1, 3, RULES.options({"variant": "two_of_three"}))
        >>> RULES.check_commitment(state, 0, "build", RULES.parse_move("reject"))
        Traceback (most recent call last):
            ...
        games.nmbr9.setup.GameError: you chose to build this card: you cannot reject it now
        """
        if commitment == "build" and isinstance(move.main, Reject):
            raise GameError(
                "you chose to build this card: you cannot reject it now",
                code="chose to build",
            )

    def committed_auto_move(self, state: Game, player: int, commitment: str) -> Turn:
        """The fallback turn, never a reject once the player chose to build."""
        return fallback_turn(state, player, reject=commitment != "build")

    # ----------------------------------------------------------------- bots

    bot_strengths = STRENGTHS

    def bot_move(self, state: Game, player: int, strength: str, rng: random.Random) -> Turn:
        return bot_turn(strength, state, player, rng)

    # ----------------------------------------------------------------- pace

    def own_pace(self, options: MatchOptions) -> bool:
        """Free pace: each player goes through the cards at their own speed.

        >>> RULES.own_pace(RULES.options({"pace": "free"})), RULES.own_pace(RULES.options({}))
        (True, False)
        """
        return options.pace == "free"

    # ----------------------------------------------------------------- what players see

    def view(self, state: Game, player: int | None) -> GameView:
        return state.view(player)

    # ----------------------------------------------------------------- in step

    def steps_taken(self, state: Game, player: int) -> int:
        """How many of the deal's steps (its cards) ``player`` has gone through."""
        return state.steps_taken(player)

    def view_dealt(self, state: Game, player: int | None, dealt: int) -> GameView:
        """``view`` while only the deal's first ``dealt`` steps have been shown."""
        return state.view(player, dealt)

    def draft(self, state: Game, player: int, text: str) -> tuple[GameView, IllegalMove | None]:
        """The view while ``player`` composes a turn (``Game.draft``); ``text`` is the turn's
        steps so far, "" for none."""
        try:
            steps = Turn.parse(text).steps if text.strip() else ()
        except InvalidMove as exc:
            return state.view(player), exc
        return state.draft(player, steps)

    def sample_hidden(self, state: Game, player: int | None, rng: random.Random) -> Game:
        return state.sample_hidden(player, rng)

    def score(self, state: Game, player: int) -> int:
        return state.score(player)

    def progress(self, state: Game, player: int) -> int:
        """Number tiles in the player's display."""
        return sum(1 for p, _ in state.board(player).tiles if p.number is not None)

    def outcome(self, state: Game) -> Outcome | None:
        return state.outcome()

    def dump(self, state: Game) -> dict[str, Any]:
        return {**state.to_dict(), "deal": state.deal.to_dict()}

    # ----------------------------------------------------------------- kept states

    #: The format of the states this code writes: it changes with the package's code.
    state_format = "nmbr9-" + pickled.fingerprint(Path(__file__).parent)

    def save(self, state: Game) -> bytes:
        return pickled.dumps(state)

    def restore(self, data: bytes) -> Game:
        return pickled.loads(data, __package__, Game)

    # ----------------------------------------------------------------- puzzles

    #: A puzzle is a solitaire base game in free pace whose first tile lies in the centre.
    puzzle_options = {"pace": "free", "puzzle": True}
    #: The game on a puzzle is over when all its number tiles are placed.
    puzzle_length = len(CARDS)

    def puzzle_start(self, seed: int) -> str:
        """The start tile's placement, such as ``3@0,0r1``."""
        return str(puzzle_deal(seed).start)

    def puzzle_par(self, seed: int, effort: float = 1.0) -> int:
        return self.puzzle_par_line(seed, effort)[0]

    def puzzle_par_line(self, seed: int, effort: float = 1.0) -> tuple[int, tuple[str, ...]]:
        found = best_par(puzzle_deal(seed), effort)
        return found.score, tuple(f"place {p}" for p in found.placements[1:])


#: The NMBR 9 game for ``games.registry``.
RULES = Nmbr9Rules()
