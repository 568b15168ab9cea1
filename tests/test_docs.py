"""docs/architecture.md describes the code as it is: every file it names exists, and it names
every module of the packages whose layout it draws."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"
#: The packages whose every module the layout names.
DRAWN = (
    "games",
    "games/services",
    "games/services/match",
    "games/services/features",
    "games/infra",
    "games/views",
    "games/web",
    "games/models",
    "games/tournaments",
    "nmbr9site",
)
#: Directories that hold no code of the project's own.
ELSEWHERE = {".git", ".venv", ".state", "node_modules", "__pycache__", ".mypy_cache"}
FILE = re.compile(r"[\w./-]*\w\.(?:py|html|js|css|c|json|md|svg|toml)\b")


def files_of_the_project() -> list[Path]:
    return [
        path
        for path in ROOT.rglob("*")
        if path.is_file() and not ELSEWHERE.intersection(path.relative_to(ROOT).parts)
    ]


def named(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w./]){re.escape(name)}\b", text) is not None or (
        re.search(rf"/{re.escape(name)}\b", text) is not None
    )


def test_every_file_the_architecture_names_exists():
    text = ARCHITECTURE.read_text()
    names = {path.name for path in files_of_the_project()}
    gone = sorted(
        mentioned
        for mentioned in set(FILE.findall(text))
        if not (ROOT / mentioned).exists() and Path(mentioned).name not in names
    )
    assert gone == []


def test_the_architecture_names_every_module_of_the_packages_it_draws():
    text = ARCHITECTURE.read_text()
    unnamed = sorted(
        f"{package}/{module.name}"
        for package in DRAWN
        for module in (ROOT / package).glob("*.py")
        if module.name != "__init__.py" and not named(text, module.name)
    )
    assert unnamed == []
