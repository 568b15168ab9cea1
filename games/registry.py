"""The games the platform hosts, found by their slug (python-chess's ``find_variant``)."""

from __future__ import annotations

from games.contract import Rules
from games.nmbr9.rules import RULES as NMBR9
from games.nmbrs import RULES as NMBRS

__all__ = ["GAMES", "find_game"]

#: Every hosted game by its slug, in the order the site lists them.
GAMES: dict[str, Rules] = {NMBR9.slug: NMBR9, NMBRS.slug: NMBRS}


def find_game(slug: str) -> Rules:
    """The game called ``slug``; ValueError if there is none."""
    try:
        return GAMES[slug]
    except KeyError:
        raise ValueError(f"unsupported game: {slug!r}") from None
