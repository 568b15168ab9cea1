"""No import circle among the modules of games/: each module's imports of other games
modules, at module level and inside functions alike (a deferred import that breaks a
circle at run time still leaves the circle in the design), read from the source."""

from __future__ import annotations

import ast
from pathlib import Path

import games

ROOT = Path(games.__file__).parent


def module_names() -> dict[str, Path | None]:
    """Every module under games/ by name: its source, or None for a compiled one (the
    NMBR 9 kernel), which imports nothing of games."""
    found: dict[str, Path | None] = {}
    for path in ROOT.rglob("*.so"):
        parts = path.relative_to(ROOT.parent).parts
        found[".".join((*parts[:-1], path.name.split(".")[0]))] = None
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _type_checking_only(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:``: imports for annotations, never run."""
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _nodes(tree: ast.AST):
    """Every node of the module, inside functions too, but not under TYPE_CHECKING."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path | None, modules: dict[str, Path | None]) -> set[str]:
    """The games modules that module ``name`` imports."""
    if path is None:
        return set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                if submodule in modules:
                    found.add(submodule)  # ``from games.services.match import play``: the module
                elif origin in modules:
                    found.add(origin)
    found.discard(name)
    return found


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def import_graph() -> dict[str, set[str]]:
    modules = module_names()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_no_module_in_games_is_part_of_an_import_circle():
    found = circles(import_graph())
    assert [sorted(group) for group in found] == [], "import circles in games/"


def test_the_walk_finds_imports_inside_functions_and_relative_ones(tmp_path, monkeypatch):
    """The reading itself: a deferred import closes a circle, as the one bots -> play ->
    deadlines -> bots did, and so does a relative import."""
    package = tmp_path / "games"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from games import b\n")
    (package / "b.py").write_text("def later():\n    from games.c import thing\n")
    (package / "c.py").write_text("from .a import x\n")
    (package / "d.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from games import a\n"
    )
    monkeypatch.setattr("tests.test_import_circles.ROOT", package)
    graph = import_graph()
    assert graph["games.b"] == {"games.c"} and graph["games.c"] == {"games.a"}
    assert graph["games.d"] == set()
    assert circles(graph) == [frozenset({"games.a", "games.b", "games.c"})]
