"""What the Dagster UI shows of Lyra's tables.

Definition metadata, set once when the definitions are built (`with_table_metadata`): every asset
named after a table of the registry (`lyra_resources.schema.TABLES`) gets its column schema, its
DuckDB table and where its Parquet files lie. Materialization metadata, set by each run
(`table_metadata`): the row count, a preview that reads as text, the task's question and the
Parquet file of the task's rows.

Code versions: every asset's `code_version` is a digest of its module's logic
(`lyra_assets.code_versions`, set by `lyra_assets.task_assets`), so the UI marks materializations
made by older code without anyone bumping a number.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from dagster import AssetsDefinition, AssetSpec, MetadataValue, TableColumn, TableSchema

from lyra_resources.home import HomeLayout
from lyra_resources.schema import TABLES, TableSpec
from lyra_resources.store.lyra_store import LyraStore, TaskRecord

TASK_COLUMN_DESCRIPTION = "the research task the row belongs to (the asset's partition key)"


# -- definition metadata --------------------------------------------------------------------------


def column_schema(spec: TableSpec) -> TableSchema:
    """The table's columns as Dagster shows them: names, DuckDB types and what each holds, in the
    registry's order; a per-task table's `task_id` says it is the partition key."""
    return TableSchema(
        columns=[
            TableColumn(
                name=c.name,
                type=c.type,
                description=TASK_COLUMN_DESCRIPTION
                if c.name == "task_id" and spec.per_task
                else c.description or None,
            )
            for c in spec.columns
        ]
    )


def table_definition_metadata(spec: TableSpec, layout: HomeLayout) -> dict[str, Any]:
    """Column schema, DuckDB table (`<database>.main.<table>`) and Parquet location of one table."""
    metadata: dict[str, Any] = {
        "dagster/column_schema": column_schema(spec),
        "dagster/table_name": f"{layout.database.stem}.main.{spec.name}",
        "dagster/storage_kind": "duckdb",
        "table_description": MetadataValue.text(spec.description),
    }
    if spec.per_task:
        metadata["parquet_files"] = MetadataValue.text(
            str(layout.parquet / spec.name / "task_id=<task>" / "data.parquet")
        )
    return metadata


def with_table_metadata(assets: Iterable[AssetsDefinition], layout: HomeLayout) -> list[AssetsDefinition]:
    """The assets, each spec whose key names a registry table carrying that table's definition metadata."""

    def add(spec: AssetSpec) -> AssetSpec:
        table = TABLES.get(spec.key.to_user_string())
        return (
            spec
            if table is None
            else spec.merge_attributes(metadata=table_definition_metadata(table, layout))
        )

    return [a.map_asset_specs(add) for a in assets]


# -- materialization metadata ---------------------------------------------------------------------


def _cell(value: Any, width: int) -> str:
    if isinstance(value, (list, tuple, np.ndarray)):
        value = ", ".join(map(str, value))
    missing = value is None or (pd.api.types.is_scalar(value) and pd.isna(value))  # None, NaN, NA, NaT
    if isinstance(value, float) and not missing:
        value = f"{value:.3f}"
    text = "" if missing else str(value)
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def markdown_preview(frame: pd.DataFrame, columns: Sequence[str], rows: int = 10, width: int = 80) -> str:
    """A small markdown table of the first rows, for the Dagster UI; cells are cut to `width` characters."""
    head = frame.loc[:, list(columns)].head(rows)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for record in head.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v, width) for v in record) + " |")
    if len(frame) > rows:
        lines.append(f"\n_{len(frame) - rows} more rows_")
    return "\n".join(lines)


def task_metadata(store: LyraStore, task: TaskRecord | str, table: str | None = None) -> dict[str, Any]:
    """The task's question and, for a table, the path of the task's Parquet file of it (written
    when the run publishes the task's graph, or at once by a run that writes in place)."""
    record = store.require_task(task) if isinstance(task, str) else task
    metadata: dict[str, Any] = {"question": MetadataValue.text(record.query)}
    if table is not None:
        metadata["parquet"] = MetadataValue.path(str(store.parquet_path(table, record.id)))
    return metadata


def table_metadata(
    frame: pd.DataFrame,
    preview_columns: Sequence[str],
    *,
    store: LyraStore | None = None,
    task: TaskRecord | str | None = None,
    table: str | None = None,
    width: int = 80,
    **extra: Any,
) -> dict[str, Any]:
    """Row count and preview of `frame` (the rows written, possibly with text joined in for the
    preview), plus the task's question and Parquet file when `store`, `task` and `table` are given;
    `extra` entries are added as they are.

        table_metadata(frame, ["title", "year"], store=store, task=task, table="papers")
    """
    metadata: dict[str, Any] = {
        "dagster/row_count": MetadataValue.int(len(frame)),
        "preview": MetadataValue.md(markdown_preview(frame, preview_columns, width=width)),
    }
    if store is not None and task is not None:
        metadata |= task_metadata(store, task, table)
    return metadata | extra
