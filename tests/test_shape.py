"""The shape of the code base: modules a reader can hold in mind, and a short README."""

import re
from pathlib import Path

import games

ROOT = Path(games.__file__).parent
#: The engines' core files: a game's rules in one place, longer by nature.
ENGINE_CORE = {"nmbr9/game.py", "nmbr9/board.py", "nmbr9/policy.py", "nmbrs/game.py"}
MOST_LINES = 500


def test_no_module_outside_the_engines_core_is_over_500_lines():
    long = {
        str(path.relative_to(ROOT)): lines
        for path in ROOT.rglob("*.py")
        if "migrations" not in path.parts
        and str(path.relative_to(ROOT)) not in ENGINE_CORE
        and (lines := len(path.read_text().splitlines())) > MOST_LINES
    }
    assert long == {}


def test_the_readme_is_short():
    assert len((ROOT.parent / "README.md").read_text().splitlines()) < 250


def test_no_test_module_takes_helpers_from_another():
    """Helpers live in tests/factories.py (and the browser tests' in tests/browser/pages.py),
    so a test module can be read, moved or deleted alone."""
    tests = ROOT.parent / "tests"
    taken = sorted(
        f"{path.relative_to(tests)}: {line.strip()}"
        for path in tests.rglob("*.py")
        for line in path.read_text().splitlines()
        if re.match(r"\s*from tests\.(?:\w+\.)*(?:test_\w+|conftest) import", line)
    )
    assert taken == []
