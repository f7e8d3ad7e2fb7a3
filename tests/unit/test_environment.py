"""Lyra reads its environment variables in one module, ``lyra_resources.environment``: no other module
of the packages touches ``os.environ``, docs/settings.md lists exactly its variables, and a variable
set after import counts."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

from fixtures.paths import REPO
from lyra_resources.environment import (
    LyraEnvironment,
    child_environment,
    python_path,
    read_environment,
)

PACKAGES = ("lyra_core", "lyra_resources", "lyra_training", "lyra_assets", "lyra_tools")
ENVIRONMENT_MODULE = REPO / "lyra_resources" / "environment.py"
# what reads or writes the process's environment: os.environ, os.getenv …
ENVIRONMENT_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def _environment_uses(source: str) -> list[int]:
    """Lines of ``source`` that reach the process's environment through ``os``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT_NAMES:
            lines.append(node.lineno)
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(alias.name in ENVIRONMENT_NAMES for alias in node.names)
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_scan_sees_every_way_of_reading_the_environment():
    source = (
        "import os\nfrom os import environ\na = os.environ.get('X')\nb = os.getenv('Y')\n"
        "c = {**os.environ}\n# os.environ in a comment\n'os.environ in a string'\n"
    )
    assert _environment_uses(source) == [2, 3, 4, 5]


def test_no_module_but_environment_reads_the_environment():
    readers = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            if path != ENVIRONMENT_MODULE and (lines := _environment_uses(path.read_text(encoding="utf-8"))):
                readers[str(path.relative_to(REPO))] = lines
    assert readers == {}, f"read the environment through lyra_resources.environment, not here: {readers}"


def _documented_variables() -> set[str]:
    text = (REPO / "docs" / "settings.md").read_text(encoding="utf-8")
    section = text.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1])}


def test_the_documented_variables_are_the_fields():
    assert _documented_variables() == set(LyraEnvironment.variables())
    assert all(meaning for meaning in LyraEnvironment.variables().values())


def test_a_variable_set_after_import_counts(monkeypatch):
    monkeypatch.delenv("LYRA_SOURCES_LIVE", raising=False)
    assert read_environment().sources_live is None
    monkeypatch.setenv("LYRA_SOURCES_LIVE", "off")
    assert read_environment().sources_live == "off"
    monkeypatch.setenv("LYRA_SOURCES_LIVE", "")
    assert read_environment().sources_live == ""  # empty stays empty: each reader decides what it means


def test_a_given_mapping_is_read_instead_of_the_process_environment(monkeypatch):
    monkeypatch.setenv("LYRA_PROFILE", "cluster")
    variables = read_environment({"LYRA_REDIS_URL": "redis://broker:6379/0", "UNRELATED": "x"})
    assert variables.profile is None
    assert variables.redis_url == "redis://broker:6379/0"


def test_a_child_process_gets_this_environment_with_the_overrides(monkeypatch, tmp_path):
    monkeypatch.setenv("LYRA_MAILTO", "me@example.org")
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    env = child_environment(LYRA_HOME=str(tmp_path), PYTHONPATH=python_path(str(REPO)))
    code = (
        "from lyra_resources.environment import read_environment; import os; "
        "e = read_environment(); print(e.home, e.mailto, os.environ['PYTHONPATH'], sep='|')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == f"{tmp_path}|me@example.org|{REPO}{os.pathsep}/elsewhere"
