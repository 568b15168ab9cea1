"""The games the platform hosts, found by their slug (python-chess's ``find_variant``)."""

from __future__ import annotations

from games.contract import PuzzleRules, Rules
from games.nmbr9.rules import RULES as NMBR9
from games.nmbrs import RULES as NMBRS

__all__ = ["DEFAULT_GAME", "GAMES", "PUZZLE_GAME", "find_game", "puzzle_rules"]

#: Every hosted game by its slug, in the order the site lists them.
GAMES: dict[str, Rules] = {NMBR9.slug: NMBR9, NMBRS.slug: NMBRS}
#: The game a form or list shows when none is named.
DEFAULT_GAME = NMBR9.slug
#: The game whose deals are the site's puzzles (the daily puzzle, challenges).
PUZZLE_GAME = NMBR9.slug


def find_game(slug: str) -> Rules:
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
