"""The type checker holds a game's web adapter and rules object to their Protocols: mypy,
configured as ``./run check`` runs it, passes on games/ and fails on a copy of a real
adapter or rules class that misses a member, or has one with another signature, named with
its Protocol as ``games.web.registry`` and ``games.registry`` name theirs.

One mypy run checks games/ and the copies together; with the cache ``./run check`` left
in .mypy_cache it takes a few seconds."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ERROR = re.compile(r"^(?P<path>[^:\n]+):\d+: error: ", re.MULTILINE)


def copy_of(path: Path, cls: str, *, drop: str = "", replace: str = "") -> str:
    """The module at ``path`` (relative imports made absolute) with class ``cls`` missing
    its method ``drop``, or with the method that ``replace`` defines in place of its own."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    tree = ast.parse(path.read_text())
    new = ast.parse(replace).body[0] if replace else None
    name = drop or getattr(new, "name", "")
    found = False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            node.module = package + (f".{node.module}" if node.module else "")
            node.level = 0
        if isinstance(node, ast.ClassDef) and node.name == cls:
            methods = [n for n in node.body if getattr(n, "name", None) == name]
            assert methods, f"{cls} has no {name}: the test is out of date"
            found = True
            at = node.body.index(methods[0])
            node.body[at : at + 1] = [new] if new is not None else []
    assert found, f"no class {cls} in {path}"
    return ast.unparse(tree)


def registered(source: str, cls: str, protocol: str, imports: str) -> str:
    """``source`` with an instance of ``cls`` named as ``protocol``, as a registry does."""
    return f"{source}\n\n{imports}\n\nREGISTERED: {protocol} = {cls}()\n"


def test_mypy_holds_adapters_and_rules_to_their_protocols(tmp_path):
    adapter = ROOT / "games/web/nmbrs/adapter.py"
    rules = ROOT / "games/nmbrs/rules.py"
    web_protocol = "from games.web.base import WebAdapter"
    contract = (
        "from games.contract import Rules\n"
        "from games.nmbrs import Move as _Move, Options as _Options, State as _State, "
        "View as _View"
    )
    checked = "Rules[_State, _Move, _View, _Options]"
    cases = {
        # an adapter without the small picture of a match the home page lists
        "adapter_without_glance": (
            registered(
                copy_of(adapter, "NmbrsWeb", drop="glance"), "NmbrsWeb", "WebAdapter", web_protocol
            ),
            ["glance"],
        ),
        # an adapter whose form reader gives the text alone, not the text and the ply
        "adapter_with_another_move": (
            registered(
                copy_of(
                    adapter,
                    "NmbrsWeb",
                    replace="def move(self, post: QueryDict) -> str:\n    return ''",
                ),
                "NmbrsWeb",
                "WebAdapter",
                web_protocol,
            ),
            ["move", "tuple[str, int]"],
        ),
        # rules without a player's score
        "rules_without_score": (
            registered(copy_of(rules, "NmbrsRules", drop="score"), "NmbrsRules", checked, contract),
            ["score"],
        ),
        # rules whose moves are applied as texts, not as the game's moves
        "rules_applying_texts": (
            registered(
                copy_of(
                    rules,
                    "NmbrsRules",
                    replace=(
                        "def apply(self, state: State, player: int, move: str) -> State:\n"
                        "    return state"
                    ),
                ),
                "NmbrsRules",
                checked,
                contract,
            ),
            ["apply", "move: str"],
        ),
    }
    files = []
    for name, (source, _expected) in cases.items():
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        files.append(str(path))
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "games", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    failing = {Path(m["path"]).stem for m in ERROR.finditer(output)}
    # games/ itself passes: every error is one of the copies', and every copy has one
    assert failing == set(cases), output
    for name, (_source, expected) in cases.items():
        said = "\n".join(line for line in output.splitlines() if f"{name}.py:" in line)
        assert "Incompatible types in assignment" in said, said
        for words in expected:
            assert words in said, (name, words, said)
