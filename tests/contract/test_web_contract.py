"""Every game's web adapter against ``games.web.base.WebAdapter``: one adapter for every game
of the rules' registry, with every member the views use; and for every game and option set
(``tests.contract.test_contract.CASES``) the form a match page posts for a legal move from a
real position reads back, through the adapter's one form reader, as the move's own notation,
which the rules parse and accept."""

import copy
import importlib
import random
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django import forms
from django.core import checks
from django.http import QueryDict
from django.test import override_settings

from games import web
from games.registry import GAMES, find_game, puzzle_games
from games.web import registry
from games.web.base import PuzzleWebAdapter, Tutorial, WebAdapter, members
from tests.factories import CASES, PACKAGES, SITE_GAMES, cases, examples

GAMES_DIR = Path(__file__).resolve().parents[2] / "games"
#: How the views reach an adapter's members: ``adapter.x``, ``adapter_for(...).x``, and a
#: tutorial's through ``tutorial.x``.
USES = re.compile(r"\badapter(?:_for\([^()]*\))?\.(\w+)")
TUTORIAL_USES = re.compile(r"\btutorial\.(\w+)")


def test_every_registered_game_has_an_adapter_that_is_a_web_adapter():
    assert set(web.ADAPTERS) == set(GAMES)
    assert registry.missing() == []
    for slug, adapter in web.ADAPTERS.items():
        assert adapter.slug == slug
        assert isinstance(adapter, WebAdapter), slug
        for name, is_method in members(WebAdapter).items():
            value = getattr(adapter, name)  # AttributeError: a member missing
            assert callable(value) or not is_method, (slug, name)
        assert issubclass(adapter.options_form, forms.Form)
        assert all(isinstance(name, str) for name in adapter.prefs)
        tutorial = adapter.tutorial
        assert tutorial is None or tutorial.slug == slug
    assert puzzle_games()
    for slug in puzzle_games():
        assert isinstance(web.adapter_for(slug), PuzzleWebAdapter)
        assert callable(web.adapter_for(slug).puzzle_start)


def test_the_protocol_lists_every_member_the_views_use():
    listed = members(PuzzleWebAdapter)
    assert {"help_context", "puzzle_start", "tagline", "picture", "glance", "tutorial"} <= set(
        listed
    )
    used = set()
    for path in GAMES_DIR.rglob("*.py"):
        if "web" in path.relative_to(GAMES_DIR).parts:
            continue
        used |= set(USES.findall(path.read_text()))
    assert used, "no use of an adapter found: the pattern is out of date"
    assert used <= set(listed), used - set(listed)
    taught = set(TUTORIAL_USES.findall((GAMES_DIR / "learn.py").read_text()))
    assert taught and taught <= set(members(Tutorial)), taught - set(members(Tutorial))
    for adapter in web.ADAPTERS.values():
        assert adapter.tutorial is None or isinstance(adapter.tutorial, Tutorial)


def test_a_game_without_an_adapter_fails_the_system_check():
    assert not [m for m in checks.run_checks() if m.id == "games.E001"]
    with override_settings(GAME_PACKAGES=[*SITE_GAMES, "tests.race21.bare"]):
        errors = [m for m in checks.run_checks() if m.id == "games.E001"]
    assert [e.msg for e in errors] == ["race21: no web adapter"]


def test_a_game_package_must_be_an_installed_app_with_rules_of_its_own():
    with override_settings(GAME_PACKAGES=SITE_GAMES):
        assert not [m for m in checks.run_checks() if m.id == "games.E002"]
    with override_settings(GAME_PACKAGES=[*SITE_GAMES, "tests.race21.bare"]):
        errors = [m.msg for m in checks.run_checks() if m.id == "games.E002"]
    assert errors == ["tests.race21.bare: a game package that is not in INSTALLED_APPS"]
    with override_settings(GAME_PACKAGES=[*SITE_GAMES, "games.web.nmbr9"]):
        errors = [m.msg for m in checks.run_checks() if m.id == "games.E002"]
    assert errors == ["games.web.nmbr9: another package hosts 'nmbr9' already"]
    with override_settings(GAME_PACKAGES=[*SITE_GAMES, "games.web"]):
        errors = [m.msg for m in checks.run_checks() if m.id == "games.E002"]
    assert errors[-1].startswith("games.web: no RULES")


def test_an_adapter_without_a_member_is_no_web_adapter():
    class Partial:
        slug = "nmbr9"

    assert not isinstance(Partial(), WebAdapter)
    assert not isinstance(web.adapter_for("nmbrs"), PuzzleWebAdapter)


# ----------------------------------------------------------------- posted forms


#: The forms a match page posts for a move, per game, from each game package's examples.
FORMS = {
    importlib.import_module(package).RULES.slug: examples(package).posted_forms
    for package in PACKAGES
}
#: Positions tried per option set at least, on at least this many seeds (more while a short
#: game has not given that many positions yet, up to ``MOST_SEEDS``).
POSITIONS = 40
SEEDS = range(2)
MOST_SEEDS = 20


@pytest.mark.parametrize(("slug", "players", "options"), list(cases()))
def test_a_posted_form_reads_back_as_the_moves_notation(slug, players, options):
    rules, adapter = find_game(slug), web.adapter_for(slug)
    assert set(FORMS) == set(CASES) == set(GAMES)
    read = 0
    for seed in range(MOST_SEEDS):
        if seed >= len(SEEDS) and read >= POSITIONS:
            break
        rng = random.Random(f"web:{slug}:{players}:{seed}")
        opts = rules.options({**options, "players": players})
        state = rules.setup(players, seed, opts)
        for ply in range(POSITIONS):
            if rules.outcome(state) is not None:
                break
            player = rng.choice(sorted(rules.to_move(state)))
            move = rules.random_move(state, player, rng)
            for data in FORMS[slug](move, ply):
                text, posted_ply = adapter.move(QueryDict(urlencode(data)))
                assert (text, posted_ply) == (str(move), ply), data
                assert rules.parse_move(text) == move
                # The rules accept it (apply may change the state it is given: a copy).
                rules.apply(copy.deepcopy(state), player, rules.parse_move(text))
                read += 1
            state = rules.apply(state, player, move)
    assert read >= POSITIONS
