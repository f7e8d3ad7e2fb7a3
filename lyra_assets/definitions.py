"""The Dagster ``Definitions`` of Lyra: loaded by ``dagster dev`` (workspace.yaml) and by the CLI."""

from __future__ import annotations

import os

from dagster import AssetSelection, Definitions, define_asset_job

from lyra_assets import documents, sources
from lyra_resources.literature import LiteratureSources
from lyra_resources.settings import HomeLayout, resolve_home, settings
from lyra_resources.store import LyraStore

TASK_JOB = "task_pipeline"

ASSETS = [sources.papers, documents.pages, documents.fragments]

task_pipeline = define_asset_job(
    TASK_JOB,
    selection=AssetSelection.assets(*ASSETS),
    description="Materialize every per-task asset of one research task.",
)


def build_resources(home: str | os.PathLike[str] | None = None) -> dict[str, object]:
    layout = HomeLayout(root=resolve_home(home, create=False))
    return {
        "store": LyraStore(home=str(layout.root)),
        "literature": LiteratureSources(cache_dir=str(layout.cache), default_corpus=settings().corpus),
    }


def build_definitions(home: str | os.PathLike[str] | None = None) -> Definitions:
    """Lyra's definitions with every resource rooted at one Lyra home."""
    return Definitions(assets=ASSETS, jobs=[task_pipeline], resources=build_resources(home))


defs = build_definitions()
