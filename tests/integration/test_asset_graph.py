"""The asset graph Lyra's definitions declare, compared with a committed snapshot.

A change to an asset's key, group, dependencies, partitioning or kinds, to an asset check, or to
what a job selects shows up here as a diff to review. To accept one, run
``LYRA_UPDATE_SNAPSHOTS=1 pytest tests/integration/test_asset_graph.py`` and commit the rewritten snapshot.
"""

from __future__ import annotations

import difflib
import json
import os

from dagster import Definitions

from fixtures.paths import REPO, SNAPSHOTS
from lyra_assets.definitions import build_definitions
from lyra_assets.table_io import TASK_ROW

SNAPSHOT = SNAPSHOTS / "asset_graph.json"
UPDATE_ENV = "LYRA_UPDATE_SNAPSHOTS"


def asset_graph(defs: Definitions) -> dict:
    """The definitions' asset graph as plain, sorted data."""
    graph = defs.resolve_asset_graph()
    assets = {}
    for key in sorted(graph.get_all_asset_keys(), key=lambda k: k.to_user_string()):
        node = graph.get(key)
        assets[key.to_user_string()] = {
            "group": node.group_name,
            "deps": sorted(k.to_user_string() for k in node.parent_keys),
            "partitioned": node.partitions_def is not None,
            "kinds": sorted(node.kinds),
            "materializable": node.is_materializable,
            "step": node.assets_def.node_def.name if node.is_materializable else None,
        }
    checks = {
        f"{c.asset_key.to_user_string()}:{c.name}": c.asset_key.to_user_string()
        for c in sorted(graph.asset_check_keys, key=lambda c: (c.asset_key.to_user_string(), c.name))
    }
    jobs = {
        job.name: sorted(k.to_user_string() for k in job.asset_layer.selected_asset_keys)
        for job in sorted(defs.get_repository_def().get_all_jobs(), key=lambda j: j.name)
        if not job.name.startswith("__")
    }  # Dagster's implicit job of every asset
    return {"assets": assets, "asset_checks": checks, "jobs": jobs}


def render(graph: dict) -> str:
    """JSON with one line per asset, check and job, so a diff names what changed."""
    sections = []
    for section in sorted(graph):
        entries = [
            f"    {json.dumps(name)}: {json.dumps(value, sort_keys=True)}"
            for name, value in sorted(graph[section].items())
        ]
        sections.append(f"  {json.dumps(section)}: {{\n" + ",\n".join(entries) + "\n  }")
    return "{\n" + ",\n".join(sections) + "\n}\n"


def test_the_asset_graph_matches_its_snapshot(tmp_path):
    rendered = render(asset_graph(build_definitions(tmp_path / "home")))
    if os.environ.get(UPDATE_ENV) == "1":
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(rendered, encoding="utf-8")
    expected = SNAPSHOT.read_text(encoding="utf-8") if SNAPSHOT.exists() else ""
    if rendered != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                rendered.splitlines(keepends=True),
                fromfile=str(SNAPSHOT),
                tofile="the definitions now",
            )
        )
        raise AssertionError(
            f"the asset graph differs from its snapshot:\n{diff}\n"
            f"If the change is intended, accept it with `{UPDATE_ENV}=1 pytest "
            f"tests/integration/test_asset_graph.py` and commit {SNAPSHOT.relative_to(REPO)}."
        )


def test_every_dependency_is_an_asset_lyra_defines(tmp_path):
    """A dependency on a key no asset defines (a typo, a renamed asset) would make Dagster invent
    an external asset that nothing ever materializes; the one external asset Lyra declares is the
    task itself (written when the task is created)."""
    assets = asset_graph(build_definitions(tmp_path / "home"))["assets"]
    external = sorted(name for name, node in assets.items() if not node["materializable"])
    assert external == [TASK_ROW], f"dependencies on assets nobody defines: {external}"
    for name, node in assets.items():
        assert set(node["deps"]) <= set(assets), name
