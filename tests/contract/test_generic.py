"""The platform above the games knows no game: only a game's package and its web adapter
speak of what the game is made of."""

import re
from pathlib import Path

import pytest

from games.registry import GAMES

ROOT = Path(__file__).resolve().parents[2] / "games"
#: Words that belong to one game or another.
GAME_WORDS = re.compile(r"\b(placements?|tiles?|cards?)\b", re.IGNORECASE)


def generic_modules() -> list[Path]:
    own = {ROOT / slug for slug in GAMES} | {ROOT / "web" / slug for slug in GAMES}
    return sorted(
        path
        for path in ROOT.rglob("*.py")
        if "migrations" not in path.parts and not any(path.is_relative_to(p) for p in own)
    )


def test_the_generic_modules_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in generic_modules()}
    assert {"views/matches.py", "services/match/play.py", "web/base.py", "registry.py"} <= names
    assert not any(n.startswith(("nmbr9/", "nmbrs/", "web/nmbr9/")) for n in names)


@pytest.mark.parametrize("path", generic_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_generic_module_speaks_of_a_game(path):
    found = [
        f"{number}: {line.strip()}"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if GAME_WORDS.search(line)
    ]
    assert not found, "\n".join(found)
