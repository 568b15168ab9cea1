"""The nmbrs package as a whole: doctests, public API, and no web framework below it."""

import doctest
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import games.nmbrs

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(f"games.nmbrs.{info.name}" for info in pkgutil.iter_modules(games.nmbrs.__path__))


@pytest.mark.parametrize("name", ["games.nmbrs", *MODULES])
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize("name", ["games.nmbrs", *MODULES])
def test_every_module_says_what_it_is_for(name):
    assert len((importlib.import_module(name).__doc__ or "").strip()) > 40


def test_public_docstrings_have_examples():
    from games.nmbrs import Card, Move, Options, Placed

    for cls in (Card, Move, Options, Placed):
        assert ">>>" in (cls.__doc__ or ""), cls


def test_public_api():
    from games import nmbrs
    from games.contract import IllegalMove, InvalidMove, Rules

    for name in ("RULES", "Move", "Options", "State", "View", "apply", "setup", "position"):
        assert name in nmbrs.__all__
        assert hasattr(nmbrs, name)
    assert nmbrs.IllegalMove is IllegalMove and nmbrs.InvalidMove is InvalidMove
    assert issubclass(InvalidMove, IllegalMove) and issubclass(IllegalMove, ValueError)
    assert isinstance(nmbrs.RULES, Rules)


def test_registered():
    from games.registry import find_game

    assert find_game("nmbrs") is games.nmbrs.RULES


def test_engine_does_not_import_django():
    code = (
        "import sys, games.nmbrs, games.nmbrs.policy, games.nmbrs.plays, games.nmbrs.__main__; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'django'); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "[]"


def test_no_django_in_the_source():
    for path in Path(games.nmbrs.__file__).parent.glob("*.py"):
        assert "django" not in path.read_text().lower(), path


def test_the_engine_needs_nothing_outside_the_project():
    for path in Path(games.nmbrs.__file__).parent.glob("*.py"):
        text = path.read_text()
        assert "shared/rules" not in text and "/work/" not in text, path
