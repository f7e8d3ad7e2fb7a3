"""``lyra_assets`` shows its layers as folders: the asset modules at its top, the run machinery (what
starts, queues, watches and executes runs) in ``lyra_assets/execution``; nothing names a module by
its old place."""

from __future__ import annotations

import ast
import re
import subprocess

import pytest

from fixtures.paths import REPO

ASSETS = REPO / "lyra_assets"
EXECUTION = ASSETS / "execution"
RUN_MACHINERY = {"runs", "run_queue", "step_workers", "celery_steps", "schedules", "task_status"}


def test_the_run_machinery_lives_in_the_execution_package():
    assert {p.stem for p in EXECUTION.glob("*.py")} == RUN_MACHINERY | {"__init__"}
    assert not RUN_MACHINERY & {p.stem for p in ASSETS.glob("*.py")}  # moved, not copied


def test_the_execution_package_says_what_it_holds_and_re_exports_nothing():
    tree = ast.parse((EXECUTION / "__init__.py").read_text(encoding="utf-8"))
    docstring = ast.get_docstring(tree)
    assert docstring and all(f"``{name}``" in docstring for name in RUN_MACHINERY)
    assert not [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]


def _tracked_text_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [name for name in listed.splitlines()
            if name.endswith((".py", ".md", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".txt", ".sh", ".j2"))
            or name.startswith(".ci/")]


@pytest.mark.parametrize("module", sorted(RUN_MACHINERY))
def test_nothing_names_a_run_module_by_its_old_place(module):
    old = re.compile(rf"lyra_assets[./]{module}\b")
    stale = [name for name in _tracked_text_files() if (REPO / name).is_file()
             and old.search((REPO / name).read_text(encoding="utf-8", errors="replace"))]
    assert stale == []
