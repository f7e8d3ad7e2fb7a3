"""The explore package's structure: small modules, and task status naming the active NLI version
exactly as the version registry does, without writing to the home it reads."""

from __future__ import annotations

from pathlib import Path

from lyra_resources.models import nli_versions
from lyra_resources.models.model_files import configured_nli_path
from lyra_resources.settings.loading import load_settings
from lyra_tools import explore

MAX_LINES = 400


def versions(store) -> list[tuple[str, str]]:
    return [
        tuple(r)
        for r in store.fetch_df("SELECT version, status FROM nli_model_versions ORDER BY version").itertuples(
            index=False
        )
    ]


def add_version(store, version: str, status: str) -> None:
    store.transaction(
        lambda conn: conn.execute(
            "INSERT INTO nli_model_versions (version, base_model, created_at, status, decision, activated_at) "
            "VALUES (?, 'test', now(), ?, 'test', now())",
            [version, status],
        )
    )


def test_status_reads_the_active_version_from_the_registry_without_writing(store, graph):
    assert versions(store) == []
    status = explore.task_status(store, graph.task_id, with_dagster=False)
    assert status.active_nli_version == explore.default_nli_version()
    assert versions(store) == []  # a read: the base row is not inserted

    base = explore.default_nli_version()
    add_version(store, f"{base}+lora-v1", "active")  # an adapter of the configured base judges
    assert (
        explore.task_status(store, graph.task_id, with_dagster=False).active_nli_version == f"{base}+lora-v1"
    )
    assert (
        explore.task_status(store, graph.task_id, with_dagster=False).active_nli_version
        == nli_versions.active_version(store, configured_nli_path(load_settings().models)).version
    )

    store.transaction(lambda conn: conn.execute("UPDATE nli_model_versions SET status = 'retired'"))
    add_version(store, "another-model@0123456789+lora-v2", "active")  # fits other weights: never judges here
    assert explore.task_status(store, graph.task_id, with_dagster=False).active_nli_version == base


def test_explore_modules_stay_small():
    """The read tools (lyra_tools/explore), their answers' models and paging (lyra_tools/mcp) and the
    reviewed graph they read (lyra_resources/store/reviewed_graph)."""
    from lyra_resources.store import reviewed_graph
    from lyra_tools import mcp

    folders = (explore.__file__, mcp.__file__, reviewed_graph.__file__)
    modules = sorted(m for folder in folders for m in Path(folder).parent.glob("*.py"))
    assert {m.stem for m in modules} >= {"models", "paging", "overlay", "queries", "claims", "records"}
    sizes = {m.name: len(m.read_text().splitlines()) for m in modules}
    assert max(sizes.values()) <= MAX_LINES, sizes
