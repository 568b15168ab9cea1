"""The games the platform hosts, found by their slug (python-chess's ``find_variant``).

Each game's rules object is named here with the Protocols it must fit: the contract
(``Rules``) over the game's own state, move, view and options types, and the Protocol of
everything else it offers (the platform finds those with ``isinstance``). The type checker
(``./run check``) fails where a rules class misses a member of one of them or has one of
another type or signature, which the run-time checks, by name alone, would let through."""

from __future__ import annotations

from typing import Any

from games.contract import (
    BotRules,
    CommitRules,
    DraftRules,
    PaceRules,
    PuzzleRules,
    Rules,
    StandingRules,
)
from games.nmbr9 import Game, GameView, Turn
from games.nmbr9.rules import RULES as NMBR9
from games.nmbr9.rules import MatchOptions
from games.nmbrs import RULES as NMBRS
from games.nmbrs import Move, Options, State, View

__all__ = ["DEFAULT_GAME", "GAMES", "PUZZLE_GAME", "find_game", "puzzle_rules"]

_NMBR9: Rules[Game, Turn, GameView, MatchOptions] = NMBR9
_NMBR9_DRAFTS: DraftRules = NMBR9
_NMBR9_COMMITMENTS: CommitRules = NMBR9
_NMBR9_PACE: PaceRules = NMBR9
_NMBR9_BOTS: BotRules = NMBR9
_NMBR9_PUZZLES: PuzzleRules = NMBR9
_NMBRS: Rules[State, Move, View, Options] = NMBRS
_NMBRS_BOTS: BotRules = NMBRS
_NMBRS_STANDING: StandingRules = NMBRS

#: Every hosted game by its slug, in the order the site lists them.
GAMES: dict[str, Rules[Any, Any, Any, Any]] = {_NMBR9.slug: _NMBR9, _NMBRS.slug: _NMBRS}
#: The game a form or list shows when none is named.
DEFAULT_GAME = NMBR9.slug
#: The game whose deals are the site's puzzles (the daily puzzle, challenges).
PUZZLE_GAME = NMBR9.slug


def find_game(slug: str) -> Rules[Any, Any, Any, Any]:
    """The game called ``slug``; ValueError if there is none."""
    try:
        return GAMES[slug]
    except KeyError:
        raise ValueError(f"unsupported game: {slug!r}") from None


def puzzle_rules() -> PuzzleRules:
    """The rules of the game the site's puzzles are deals of."""
    rules = GAMES[PUZZLE_GAME]
    assert isinstance(rules, PuzzleRules), f"{PUZZLE_GAME} offers no puzzles"
    return rules
