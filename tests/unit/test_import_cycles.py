"""No module of Lyra's packages imports, directly or through others, a module that imports it back.

The graph is read from each module's source (its syntax tree), every import counted wherever it
stands: one deferred into a function or kept for type checking hides a cycle, it does not remove
it. A package's ``__init__`` that imports its own modules is not a cycle by itself: only imports
written in the source are edges, not the parent packages Python loads along the way.
"""

from __future__ import annotations

import ast
from pathlib import Path

from fixtures.paths import REPO

PACKAGES = ("lyra_core", "lyra_resources", "lyra_training", "lyra_assets", "lyra_tools")


def module_files() -> dict[str, tuple[Path, bool]]:
    """Each module's dotted name → (its file, whether it is a package's ``__init__``)."""
    out = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def imported_modules(name: str, path: Path, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``name``'s source imports: ``from a import b`` names the
    module ``a.b`` where there is one, else ``a``; relative imports are resolved."""
    here = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    found.add(f"{base}.{alias.name}")
                elif base in known:
                    found.add(base)
    return found - {name}


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    known = set(files)
    return {
        name: imported_modules(name, path, is_package, known) for name, (path, is_package) in files.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_graph_reads_every_kind_of_import():
    graph = import_graph()
    assert "lyra_core.answer" in graph["lyra_assets.evidence.answer"]  # from a.b import name
    assert "lyra_core.hypothesis.parsed" in graph["lyra_core.hypothesis"]  # the package's own module
    assert {"lyra_tools.explore.claims", "lyra_tools.explore.summary"} <= graph["lyra_tools.explore"]


def test_cycles_are_found_however_long():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back():
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" ↔ ".join(group) for group in found)
