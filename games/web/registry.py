"""Each game's web adapter (``games.web.base.WebAdapter``) by its slug: the ``ADAPTER`` of
the ``adapter`` module of every game package (``games.registry``), which ``missing()`` and
the system check ``games.E001`` verify, so a list of the games needs no filter.

Each package's adapter module names its ``ADAPTER`` with the Protocol it must fit (a game
with puzzles with ``PuzzleWebAdapter``): the type checker (``./run check``) fails where an
adapter misses a member or has one of another type or signature, which the run-time checks,
by name alone, would let through."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module

from django.conf import settings
from django.core import checks

from games.contract import PuzzleRules
from games.registry import Packages
from games.web.base import PuzzleWebAdapter, WebAdapter

#: Every game's web adapter by its slug.
ADAPTERS: Mapping[str, WebAdapter] = Packages(lambda name: import_module(f"{name}.adapter").ADAPTER)


def adapter_for(slug: str) -> WebAdapter:
    """The web adapter of the game called ``slug``; ValueError if there is none."""
    try:
        return ADAPTERS[slug]
    except KeyError:
        raise ValueError(f"unsupported game: {slug!r}") from None


def puzzle_adapter(slug: str) -> PuzzleWebAdapter:
    """The web adapter of the game ``slug``, whose deals are puzzles."""
    adapter = adapter_for(slug)
    assert isinstance(adapter, PuzzleWebAdapter), f"{slug}'s adapter draws no puzzle"
    return adapter


def missing() -> list[str]:
    """What is wrong with the adapters: a game without one, an adapter that is no
    ``WebAdapter`` or of another game, a game with puzzles whose adapter draws none."""
    problems = []
    for name in settings.GAME_PACKAGES:
        rules = getattr(import_module(name), "RULES", None)
        slug = getattr(rules, "slug", None)
        if slug is None:
            continue  # no game at all: the check of the packages (games.E002) says so
        try:
            adapter = import_module(f"{name}.adapter").ADAPTER
        except (ImportError, AttributeError):
            problems.append(f"{slug}: no web adapter")
            continue
        if not isinstance(adapter, WebAdapter):
            problems.append(f"{slug}: its adapter is no WebAdapter")
        elif adapter.slug != slug:
            problems.append(f"{slug}: its adapter is {adapter.slug!r}'s")
        elif isinstance(rules, PuzzleRules) and not isinstance(adapter, PuzzleWebAdapter):
            problems.append(f"{slug}: its adapter draws no puzzle (PuzzleWebAdapter)")
    return problems


@checks.register()
def check_adapters(app_configs: object = None, **kwargs: object) -> list[checks.CheckMessage]:
    """Django's system check: every hosted game has a web adapter that fits the views."""
    return [checks.Error(problem, id="games.E001") for problem in missing()]
