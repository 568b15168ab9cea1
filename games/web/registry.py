"""Each game's web adapter (``games.web.base.WebAdapter``) by its slug: one for every game
of the rules' registry (``games.registry.GAMES``), which ``missing()`` and the system check
``games.E001`` verify, so a list of the games needs no filter.

Each adapter is named here with the Protocol it must fit (the puzzles' game's with
``PuzzleWebAdapter``): the type checker (``./run check``) fails where an adapter misses a
member or has one of another type or signature, which the run-time checks, by name alone,
would let through."""

from __future__ import annotations

from django.core import checks

from games.registry import GAMES, PUZZLE_GAME
from games.web.base import PuzzleWebAdapter, WebAdapter
from games.web.nmbr9 import ADAPTER as NMBR9
from games.web.nmbrs import ADAPTER as NMBRS

_NMBR9: PuzzleWebAdapter = NMBR9
_NMBRS: WebAdapter = NMBRS

#: Every game's web adapter by its slug.
ADAPTERS: dict[str, WebAdapter] = {adapter.slug: adapter for adapter in (_NMBR9, _NMBRS)}


def adapter_for(slug: str) -> WebAdapter:
    """The web adapter of the game called ``slug``; ValueError if there is none."""
    try:
        return ADAPTERS[slug]
    except KeyError:
        raise ValueError(f"unsupported game: {slug!r}") from None


def puzzle_adapter() -> PuzzleWebAdapter:
    """The web adapter of the game the site's puzzles are deals of."""
    adapter = ADAPTERS[PUZZLE_GAME]
    assert isinstance(adapter, PuzzleWebAdapter), f"{PUZZLE_GAME}'s adapter draws no puzzle"
    return adapter


def missing() -> list[str]:
    """What is wrong with the adapters: a game of the rules' registry without one, an
    adapter that is no ``WebAdapter``, a puzzles' game whose adapter draws no puzzle."""
    problems = [f"{slug}: no web adapter" for slug in GAMES if slug not in ADAPTERS]
    problems += [
        f"{slug}: its adapter is no WebAdapter"
        for slug, adapter in ADAPTERS.items()
        if not isinstance(adapter, WebAdapter)
    ]
    if PUZZLE_GAME in ADAPTERS and not isinstance(ADAPTERS[PUZZLE_GAME], PuzzleWebAdapter):
        problems.append(f"{PUZZLE_GAME}: its adapter draws no puzzle (PuzzleWebAdapter)")
    return problems


@checks.register()
def check_adapters(app_configs: object = None, **kwargs: object) -> list[checks.CheckMessage]:
    """Django's system check: every hosted game has a web adapter that fits the views."""
    return [checks.Error(problem, id="games.E001") for problem in missing()]
