"""A task's status has one writer: ``lyra_assets/execution/task_status.py`` (the run record mapped
onto the row, a run handed over, a run stopped). Every other module asks it."""

from __future__ import annotations

import ast

from fixtures.paths import REPO

PACKAGES = ("lyra_core", "lyra_resources", "lyra_training", "lyra_assets", "lyra_tools")
WRITER = "lyra_assets/execution/task_status.py"


def status_writes(tree: ast.AST) -> list[int]:
    """Lines that call ``….update_task(…)`` with a ``status=`` keyword (or ``**`` fields that may hold one)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "update_task"
        and any(k.arg in ("status", None) for k in node.keywords)
    ]


def test_only_the_task_status_module_writes_a_tasks_status():
    writers = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            lines = status_writes(ast.parse(path.read_text(), filename=str(path)))
            if lines:
                writers[str(path.relative_to(REPO))] = lines
    assert set(writers) == {WRITER}, f"a task's status is written outside {WRITER}: {writers}"


def test_the_scan_sees_a_status_write():
    assert status_writes(ast.parse("store.update_task(t, status='queued')")) == [1]
    assert status_writes(ast.parse("store.update_task(t, options={})")) == []
