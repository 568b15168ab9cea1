import doctest
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import games.nmbr9

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(f"games.nmbr9.{info.name}" for info in pkgutil.iter_modules(games.nmbr9.__path__))


@pytest.mark.parametrize("name", ["games.nmbr9", *MODULES])
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_public_docstrings_have_examples():
    from games.nmbr9 import (
        Board,
        Deal,
        Decision,
        DisplayView,
        Game,
        GameView,
        Options,
        Placement,
        Turn,
    )
    from games.nmbr9.rules import MatchOptions, Nmbr9Rules

    for cls in (Board, Game, Placement, Turn, Options, Deal, Decision, GameView, DisplayView):
        assert ">>>" in (cls.__doc__ or ""), cls
    for cls in (MatchOptions, Nmbr9Rules):
        assert ">>>" in (cls.__doc__ or ""), cls


def test_public_api():
    from games import nmbr9

    for name in ("SHAPES", "Placement", "Board", "IllegalPlacement", "Game", "Options", "Turn"):
        assert name in nmbr9.__all__
        assert hasattr(nmbr9, name)
    assert issubclass(nmbr9.IllegalPlacement, ValueError)
    assert issubclass(nmbr9.InvalidPlacement, ValueError)
    assert issubclass(nmbr9.GameError, ValueError)
    assert issubclass(nmbr9.InvalidTurn, ValueError)
    from games.contract import IllegalMove, InvalidMove

    assert issubclass(nmbr9.IllegalPlacement, IllegalMove)
    assert issubclass(nmbr9.GameError, IllegalMove)
    assert issubclass(nmbr9.InvalidPlacement, InvalidMove)
    assert issubclass(nmbr9.InvalidTurn, InvalidMove)


def test_engine_does_not_import_django():
    code = (
        "import sys, games.nmbr9, games.nmbr9.policy, games.nmbr9.puzzle, games.nmbr9.__main__, "
        "games.nmbr9.rules; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'django'); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "[]"


def test_no_django_in_the_source():
    for path in Path(games.nmbr9.__file__).parent.glob("*.py"):
        assert "django" not in path.read_text().lower(), path
