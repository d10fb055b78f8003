"""The shape of the code: no import cycles among gaa's modules, and no function a reader cannot
take in at once.

Both are read from the source with :mod:`ast`, nothing is imported. Every import counts: at
module level, inside a function (a deferred import hides a cycle, it does not remove it) and
under ``if TYPE_CHECKING:`` (a cycle the type checker needs is still a cycle in the design).
Python runs a package's ``__init__`` before any of its submodules; that implicit step is not an
edge here (a package importing its own submodules would otherwise always be a cycle), but an
explicit ``from gaa.pkg import name`` is an edge to ``gaa/pkg/__init__.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "gaa"
MAX_FUNCTION_LINES = 80
LONG_FUNCTIONS_ALLOWED_UNDER: tuple[Path, ...] = ()
"""Folders whose long functions are tolerated for now: none."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _known(name: str, known: dict[str, Path]) -> str | None:
    """The module ``name`` names, or the closest enclosing one (``gaa.x.attr`` is ``gaa.x``)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The gaa modules that module ``name`` imports, wherever in it the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # ``from pkg import mod`` imports the submodule; ``from mod import attr`` the module
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            if target == "gaa" or target.startswith("gaa."):
                module = _known(target, known)
                if module is not None and module != name:
                    found.add(module)
    return found


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as a cycle
    through them for the message."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_cycle_through(component, graph) for component in components]


def _cycle_through(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One import cycle inside a strongly connected component, from its first module back."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        node = frontier.pop(0)
        for nxt in sorted(graph[node] & members):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                frontier.append(nxt)
    return component


def test_the_cycle_finder_finds_cycles_of_every_length() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d", "a"}, "e": {"f"}, "f": {"e"}}
    assert cycles(graph) == [["a", "b", "c", "a"], ["e", "f", "e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_are_read_wherever_they_stand(tmp_path: Path) -> None:
    known = {"gaa.x": tmp_path / "x.py", "gaa.pkg": tmp_path / "pkg" / "__init__.py",
             "gaa.pkg.mod": tmp_path / "pkg" / "mod.py", "gaa.y": tmp_path / "y.py"}  # fmt: skip
    source = tmp_path / "y.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from gaa.x import Thing\n"
        "def f():\n    from gaa.pkg import mod\n"
        "class C:\n    def g(self):\n        import gaa.pkg.mod.attr\n"
        "from gaa.pkg import name\nimport os\n",
        encoding="utf-8",
    )
    assert imported("gaa.y", source, known) == {"gaa.x", "gaa.pkg.mod", "gaa.pkg"}


def test_no_import_cycles_among_gaa_modules() -> None:
    graph = import_graph()
    assert "gaa.dialogue.solver" in graph and graph["gaa.dialogue.judge"]  # the walk found them
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in found)


def long_functions() -> list[str]:
    found = []
    for name, path in modules().items():
        if any(path.is_relative_to(folder) for folder in LONG_FUNCTIONS_ALLOWED_UNDER):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append(f"{name}.{node.name} (line {node.lineno}): {lines} lines")
    return found


def test_no_function_is_longer_than_a_reader_can_follow() -> None:
    found = long_functions()
    assert not found, (
        f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps):\n"
        + "\n".join(found)
    )
