"""``lyra_assets`` shows its layers as folders: the asset modules at its top, the run machinery (what
starts, queues, watches and executes runs) in ``lyra_assets/execution``; nothing names a module by
its old place; Dagster's private modules are imported only where Dagster has no public name."""

from __future__ import annotations

import ast
import re
import subprocess

import pytest

from fixtures.paths import REPO

ASSETS = REPO / "lyra_assets"
EXECUTION = ASSETS / "execution"
RUN_MACHINERY = {
    "runs",
    "run_control",
    "run_progress",
    "run_queue",
    "step_workers",
    "celery_steps",
    "schedules",
    "task_status",
    "interrupts",
}
# Each module's imports of private names (Dagster's `dagster._…` modules, `_`-names of dagster-celery),
# each kept because Dagster offers no public one (its comment in the module says why).
PRIVATE_IMPORTS = {
    "lyra_assets/graph/publish.py": {"dagster._core.events.EngineEventData"},
    "lyra_assets/execution/celery_steps.py": {"dagster_celery.executor._submit_task"},
    "bench/scale.py": {
        "dagster._core.workspace.context.WorkspaceProcessContext",
        "dagster._core.workspace.load_target.WorkspaceFileTarget",
        "dagster._daemon.run_coordinator.queued_run_coordinator_daemon.QueuedRunCoordinatorDaemon",
        "dagster._daemon.sensor.execute_sensor_iteration",
    },
}


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
    return [
        name
        for name in listed.splitlines()
        if name.endswith((".py", ".md", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".txt", ".sh", ".j2"))
        or name.startswith(".ci/")
    ]


@pytest.mark.parametrize("module", sorted(RUN_MACHINERY))
def test_nothing_names_a_run_module_by_its_old_place(module):
    old = re.compile(rf"lyra_assets[./]{module}\b")
    stale = [
        name
        for name in _tracked_text_files()
        if (REPO / name).is_file() and old.search((REPO / name).read_text(encoding="utf-8", errors="replace"))
    ]
    assert stale == []


def _private_imports(path) -> set[str]:
    """The names a module imports from the Dagster packages through a private module or by a private name."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dagster"):
            private_module = any(part.startswith("_") for part in node.module.split("."))
            found |= {
                f"{node.module}.{alias.name}"
                for alias in node.names
                if private_module or alias.name.startswith("_")
            }
        elif isinstance(node, ast.Import):
            found |= {
                alias.name for alias in node.names if alias.name.startswith("dagster") and "._" in alias.name
            }
    return found


def test_dagster_private_modules_are_imported_only_where_no_public_name_exists():
    modules = [*sorted(ASSETS.rglob("*.py")), REPO / "bench" / "scale.py"]
    found = {str(path.relative_to(REPO)): names for path in modules if (names := _private_imports(path))}
    assert found == PRIVATE_IMPORTS
