"""Every game's web adapter against ``games.web.base.WebAdapter``: one adapter for every game
of the rules' registry, with every member the views use; and for every game and option set
(``tests.contract.test_contract.CASES``) the form a match page posts for a legal move from a
real position reads back, through the adapter's one form reader, as the move's own notation,
which the rules parse and accept."""

import copy
import random
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django import forms
from django.core import checks
from django.http import QueryDict

from games import web
from games.nmbr9.turn import Build, Fill, Move, Place, Reject, Reserve
from games.registry import GAMES, PUZZLE_GAME, find_game
from games.web import registry
from games.web.base import PuzzleWebAdapter, Tutorial, WebAdapter, members
from games.web.nmbr9.compose import Compose
from tests.contract.test_contract import CASES, cases

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
    assert isinstance(web.adapter_for(PUZZLE_GAME), PuzzleWebAdapter)
    assert callable(web.adapter_for(PUZZLE_GAME).puzzle_start)


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


def test_a_game_without_an_adapter_fails_the_system_check(monkeypatch):
    assert not [m for m in checks.run_checks() if m.id == "games.E001"]
    monkeypatch.delitem(web.ADAPTERS, "nmbrs")
    errors = [m for m in checks.run_checks() if m.id == "games.E001"]
    assert [e.msg for e in errors] == ["nmbrs: no web adapter"]


def test_an_adapter_without_a_member_is_no_web_adapter():
    class Partial:
        slug = "nmbr9"

    assert not isinstance(Partial(), WebAdapter)
    assert not isinstance(web.adapter_for("nmbrs"), PuzzleWebAdapter)


# ----------------------------------------------------------------- posted forms


def nmbr9_forms(turn, ply: int) -> list[dict[str, str]]:
    """The forms a match page of NMBR 9 posts for ``turn``, each way the page offers: the
    whole turn ("reject", "reserve"); the steps composed so far with the last one's piece
    where the ghost is (``compose_fields`` and ``piece_fields.html``); the steps confirmed
    without a piece ("Confirm the turn")."""
    base = {"csrfmiddlewaretoken": "token", "ply": str(ply)}
    steps = turn.steps
    posted = []
    if len(steps) == 1 and isinstance(steps[0], Reject | Reserve):
        posted.append({**base, "turn": str(turn)})
    *before, last = steps
    so_far = type(turn)(tuple(before)) if before else None
    main_done = any(isinstance(step, Place | Reserve | Reject) for step in before)
    spot = None
    if isinstance(last, Place):
        compose = Compose(so_far, "", last.specials, last.marker)
        spot, number = last.placement, last.placement.number
    elif isinstance(last, Fill):
        compose = Compose(so_far, last.placement.piece, marker=None)
        spot, number = last.placement, None
    elif isinstance(last, Build):
        compose = Compose(so_far, "build")
        spot, number = last.placement, last.placement.number
    elif isinstance(last, Move):
        compose = Compose(so_far, "move", source=last.source)
        spot, number = last.target, None
    if spot is not None:
        number = number if number is not None or main_done else ""
        posted.append(
            {
                **base,
                **compose.query(),
                "number": "" if number is None else str(number),
                "x": str(spot.x),
                "y": str(spot.y),
                "rotation": str(spot.rotation),
            }
        )
    if any(isinstance(step, Place | Reserve | Reject) for step in steps):
        posted.append({**base, "steps": str(turn), "piece": "none"})
    return posted


def nmbrs_forms(move, ply: int) -> list[dict[str, str]]:
    """The form a match page of nmbrs! posts for ``move`` (``move_button.html``)."""
    return [{"csrfmiddlewaretoken": "token", "move": str(move), "ply": str(ply)}]


FORMS = {"nmbr9": nmbr9_forms, "nmbrs": nmbrs_forms}
#: Positions tried per option set, and seeds.
POSITIONS = 40
SEEDS = range(2)


@pytest.mark.parametrize(("slug", "players", "options"), list(cases()))
def test_a_posted_form_reads_back_as_the_moves_notation(slug, players, options):
    rules, adapter = find_game(slug), web.adapter_for(slug)
    assert set(FORMS) == set(CASES) == set(GAMES)
    read = 0
    for seed in SEEDS:
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
