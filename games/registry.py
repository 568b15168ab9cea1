"""The games the platform hosts, found by their slug (python-chess's ``find_variant``).

A game is a package named in the setting ``GAME_PACKAGES`` (in the order the site lists
them): a Django app whose module holds ``RULES``, the game's rules object, and whose
``adapter`` module holds ``ADAPTER``, its web adapter (``games.web.registry``). Its own
templates, static files and translations lie in the app's folders, where Django finds them.
``GAMES`` reads the setting when first asked and again after a test changes it.

Each package names its ``RULES`` with the Protocols it must fit: the contract (``Rules``)
over the game's own state, move, view and options types, and the Protocol of everything
else it offers (the platform finds those with ``isinstance``). The type checker (``./run
check``) fails where a rules class misses a member of one of them or has one of another type
or signature, which the run-time checks, by name alone, would let through."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import Any

from django.conf import settings
from django.core import checks
from django.core.signals import setting_changed
from django.dispatch import receiver

from games.contract import PuzzleRules, Rules

__all__ = [
    "GAMES",
    "default_game",
    "find_game",
    "puzzle_game",
    "puzzle_games",
    "puzzle_rules",
]


class Packages(Mapping[str, Any]):
    """Something each game package holds, by the game's slug, in the packages' order:
    ``read(package)`` finds it. Read from ``GAME_PACKAGES`` when first asked; forgotten
    when the setting changes."""

    #: Every one made, each to forget what it read when the setting changes.
    made: list[Packages] = []

    def __init__(self, read: Callable[[str], Any]) -> None:
        self.read = read
        self.found: dict[str, Any] | None = None
        Packages.made.append(self)

    def loaded(self) -> dict[str, Any]:
        if self.found is None:
            found = {}
            for name in settings.GAME_PACKAGES:
                slug = import_module(name).RULES.slug
                found[slug] = self.read(name)
            self.found = found
        return self.found

    def forget(self) -> None:
        self.found = None

    def __getitem__(self, slug: str) -> Any:
        return self.loaded()[slug]

    def __iter__(self) -> Iterator[str]:
        return iter(self.loaded())

    def __len__(self) -> int:
        return len(self.loaded())


#: Every hosted game's rules by its slug, in the order the site lists them.
GAMES: Mapping[str, Rules[Any, Any, Any, Any]] = Packages(lambda name: import_module(name).RULES)


@receiver(setting_changed)
def packages_changed(*, setting: str, **kwargs: object) -> None:
    if setting == "GAME_PACKAGES":
        for packages in Packages.made:
            packages.forget()


def default_game() -> str:
    """The game a form or list shows when none is named: the first of ``GAME_PACKAGES``."""
    return next(iter(GAMES))


def find_game(slug: str) -> Rules[Any, Any, Any, Any]:
    """The game called ``slug``; ValueError if there is none."""
    try:
        return GAMES[slug]
    except KeyError:
        raise ValueError(f"unsupported game: {slug!r}") from None


def puzzle_games() -> list[str]:
    """The games that offer puzzles (``PuzzleRules``), in the site's order; the first one's
    puzzle is the daily puzzle."""
    return [slug for slug, rules in GAMES.items() if isinstance(rules, PuzzleRules)]


def puzzle_game() -> str:
    """The game of the site's puzzles (the stock, the daily puzzle, challenges): the first
    game that offers puzzles. A puzzle keeps its game (``Puzzle.game``)."""
    offering = puzzle_games()
    if not offering:
        raise ValueError("no game of GAME_PACKAGES offers puzzles")
    return offering[0]


def puzzle_rules(slug: str) -> PuzzleRules:
    """The rules of the game ``slug``, whose deals are puzzles (ValueError: it offers none)."""
    rules = find_game(slug)
    if not isinstance(rules, PuzzleRules):
        raise ValueError(f"{slug} offers no puzzles")
    return rules


@checks.register()
def check_packages(app_configs: object = None, **kwargs: object) -> list[checks.CheckMessage]:
    """Django's system check: every game package is an installed app (its templates, static
    files and translations are found as an app's) and holds rules of a game of its own."""
    from django.apps import apps

    problems = []
    slugs: set[str] = set()
    for name in settings.GAME_PACKAGES:
        if not apps.is_installed(name):
            problems.append(f"{name}: a game package that is not in INSTALLED_APPS")
        try:
            rules = import_module(name).RULES
        except (ImportError, AttributeError) as error:
            problems.append(f"{name}: no RULES ({error})")
            continue
        if not isinstance(rules, Rules):
            problems.append(f"{name}: its RULES are no games.contract.Rules")
        elif rules.slug in slugs:
            problems.append(f"{name}: another package hosts {rules.slug!r} already")
        slugs.add(getattr(rules, "slug", name))
    if not settings.GAME_PACKAGES:
        problems.append("GAME_PACKAGES names no game")
    return [checks.Error(problem, id="games.E002") for problem in problems]
