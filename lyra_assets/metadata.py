"""Materialization metadata shared by the assets: row counts and a markdown preview."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from dagster import MetadataValue


def _cell(value: Any, width: int) -> str:
    if isinstance(value, (list, tuple)):
        value = ", ".join(map(str, value))
    text = "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def markdown_preview(frame: pd.DataFrame, columns: Sequence[str], rows: int = 10, width: int = 80) -> str:
    """A small markdown table of the first rows, for the Dagster UI."""
    head = frame.loc[:, list(columns)].head(rows)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for record in head.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v, width) for v in record) + " |")
    if len(frame) > rows:
        lines.append(f"\n_{len(frame) - rows} more rows_")
    return "\n".join(lines)


def table_metadata(frame: pd.DataFrame, preview_columns: Sequence[str], **extra: Any) -> dict[str, Any]:
    return {
        "dagster/row_count": MetadataValue.int(len(frame)),
        "preview": MetadataValue.md(markdown_preview(frame, preview_columns)),
        **extra,
    }
