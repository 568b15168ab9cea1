"""The site uses no private name of Django (one starting with an underscore, bar ``_meta``,
the model options Django documents as public): such names change without notice between
releases, and an upgrade breaks what reads them silently."""

import ast
import re
from pathlib import Path

import django

import games

#: Django's documented public API that starts with an underscore.
DOCUMENTED = {"_meta"}

DEFINED = re.compile(
    r"^\s*(?:def|class)\s+(_[a-z]\w*)|self\.(_[a-z]\w*)\s*=|^\s*(_[a-z]\w*)\s*[:=]", re.M
)


def djangos_private_names() -> set[str]:
    found: set[str] = set()
    for path in Path(django.__file__).parent.rglob("*.py"):
        for match in DEFINED.finditer(path.read_text(encoding="utf-8", errors="replace")):
            found.update(name for name in match.groups() if name)
    return found - DOCUMENTED


def private_names_used(root: Path) -> dict[str, list[str]]:
    """Each private name the code under ``root`` reads from an object other than its own
    (``self``/``cls``) or imports from outside games, with where."""
    used: dict[str, list[str]] = {}
    for path in root.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
                if not own and not node.attr.startswith("__"):
                    names.append(node.attr)
            elif isinstance(node, ast.ImportFrom) and not (
                node.level or (node.module or "").startswith("games")
            ):
                names += [alias.name for alias in node.names if alias.name.startswith("_")]
            for name in names:
                used.setdefault(name, []).append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return used


def test_the_site_reads_no_private_name_of_django():
    used = private_names_used(Path(games.__file__).parent)
    private = djangos_private_names()
    assert {name: where for name, where in used.items() if name in private} == {}


def test_the_check_finds_a_private_name(tmp_path):
    code = tmp_path / "games"
    code.mkdir()
    (code / "prepared.py").write_text("def rows(queryset):\n    return queryset._fetch_mode\n")
    used = private_names_used(code)
    assert "_fetch_mode" in used and "_fetch_mode" in djangos_private_names()
