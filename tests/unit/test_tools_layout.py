"""``lyra_tools`` shows its interfaces as folders: the command line (``cli``), the MCP server
(``mcp``), the read tools both answer with (``explore``) and the files ``lyra export`` writes
(``exports``), and the feedback both interfaces take (``feedback``), each a package that says what it
holds; and nothing names a module by its place before the move."""

from __future__ import annotations

import ast
import re
import subprocess

import pytest

from fixtures.paths import REPO

TOOLS = REPO / "lyra_tools"
INTERFACES = {"cli", "mcp", "explore", "exports", "feedback"}
TOP_MODULES = {"__init__"}
# Where modules stood before lyra_tools was split by interface and the store took their SQL.
OLD_PLACES = [
    "lyra_resources.effective",
    "lyra_tools.runner",
    "lyra_tools.mcp_server",
    "lyra_tools.mcp_requests",
    "lyra_tools.mcp_tasks",
    "lyra_tools.mcp_transport",
    "lyra_tools.server_store",
    "lyra_tools.relevance_returns",
    "lyra_tools.contradictions",
    "lyra_tools.papers_view",
    "lyra_tools.export_refs",
    "lyra_tools.export",
    "lyra_tools.browse_cli",
    "lyra_tools.search_cli",
    "lyra_tools.progress_view",
    "lyra_tools.verify",
    "lyra_tools.cli_",
]


def test_the_interfaces_and_feedback_are_folders_that_say_what_they_hold():
    assert {p.stem for p in TOOLS.glob("*.py")} == TOP_MODULES
    assert {p.name for p in TOOLS.iterdir() if p.is_dir() and p.name != "__pycache__"} == INTERFACES
    for name in INTERFACES:
        docstring = ast.get_docstring(ast.parse((TOOLS / name / "__init__.py").read_text(encoding="utf-8")))
        assert docstring and len(docstring.split()) >= 10, name


def _tracked_text_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [
        name
        for name in listed.splitlines()
        if name.endswith((".py", ".md", ".toml", ".yaml", ".cfg", ".sh")) or name.startswith(".ci/")
    ]


@pytest.mark.parametrize("old", OLD_PLACES)
def test_nothing_names_a_module_by_its_old_place(old):
    tail = "" if old.endswith("_") else r"\b"  # lyra_tools.cli_ is the prefix of every old command module
    pattern = re.compile(re.escape(old) + tail + "|" + re.escape(old.replace(".", "/")) + tail)
    stale = [
        name
        for name in _tracked_text_files()
        if (REPO / name).is_file()
        and name != "tests/unit/test_tools_layout.py"
        and pattern.search((REPO / name).read_text(encoding="utf-8", errors="replace"))
    ]
    assert not stale, f"{old} is named in {stale}"
