"""The rows of ``nli_model_versions`` (every NLI model version of a home) as the store reads and
writes them. Each write is one function run inside the caller's transaction, so a training's
outcome or an activation lands in one transaction with whatever goes with it; which version may be
active, and the base model's row, are ``lyra_resources.models.nli_versions``'s."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.sql import Connection

Status = Literal["active", "rejected", "retired"]


class TrainedVersion(BaseModel):
    """A version an adapter training records: its figures and the gate's decision. The store stamps
    ``created_at`` (and ``activated_at`` when it is recorded active) as it writes the row."""

    version: str
    parent: str | None = None
    base_model: str
    adapter_path: str | None = None
    status: Status
    corrections_used: int = 0
    heldout_corrections: int = 0
    replay_pairs: int = 0
    steps: int = 0
    train_seconds: float = 0.0
    heldout_before: float | None = None
    heldout_after: float | None = None
    regression_before: float | None = None
    regression_after: float | None = None
    decision: str = ""
    details: dict[str, Any] = Field(default_factory=dict)


class NliVersion(TrainedVersion):
    """One row of ``nli_model_versions``."""

    created_at: datetime
    activated_at: datetime | None = None

    @property
    def is_adapter(self) -> bool:
        return bool(self.adapter_path)


def _version(record: dict[str, Any]) -> NliVersion:
    details = record.get("details")
    clean = {k: (None if _missing(v) else v) for k, v in record.items()}
    clean["details"] = json.loads(details) if isinstance(details, str) and details else {}
    for key in ("corrections_used", "heldout_corrections", "replay_pairs", "steps", "train_seconds"):
        if clean.get(key) is None:
            clean.pop(key, None)
    return NliVersion.model_validate(clean)


def _missing(value: Any) -> bool:
    try:
        return value is None or value != value  # NaN / NaT
    except (TypeError, ValueError):
        return False


# -- reads ------------------------------------------------------------------------------------------


def all_versions(store: LyraStore) -> list[NliVersion]:
    """Every recorded version, oldest first."""
    frame = store.fetch_df("SELECT * FROM nli_model_versions ORDER BY created_at, version")
    return [_version(r) for r in frame.to_dict("records")]


def version_ids(store: LyraStore) -> list[str]:
    """The id of every recorded version, oldest first."""
    frame = store.fetch_df("SELECT version FROM nli_model_versions ORDER BY created_at, version")
    return [str(v) for v in frame["version"]]


def find_version(store: LyraStore, version: str) -> NliVersion | None:
    frame = store.fetch_df("SELECT * FROM nli_model_versions WHERE version = ?", [version])
    return _version(frame.iloc[0].to_dict()) if len(frame) else None


_ACTIVE_SQL = (
    "SELECT {columns} FROM nli_model_versions WHERE status = 'active' ORDER BY activated_at DESC LIMIT 1"
)


def newest_active(store: LyraStore) -> NliVersion | None:
    """The active row activated last (exactly one is active; the order only settles a damaged home)."""
    frame = store.fetch_df(_ACTIVE_SQL.format(columns="*"))
    return _version(frame.iloc[0].to_dict()) if len(frame) else None


def newest_active_id(store: LyraStore) -> str | None:
    """The id :func:`newest_active` names, read as one value (status answers read it on every call)."""
    with store.connect() as conn:
        row = conn.execute(_ACTIVE_SQL.format(columns="version")).fetchone()
    return str(row[0]) if row else None


def adapter_count(store: LyraStore) -> int:
    """How many adapters this home has recorded, kept or not."""
    frame = store.fetch_df("SELECT count(*) AS n FROM nli_model_versions WHERE adapter_path IS NOT NULL")
    return int(frame["n"].iat[0])


def tasks_judged_by_others(store: LyraStore, version: str) -> list[str]:
    """Tasks with at least one edge judged by another version than ``version``."""
    frame = store.fetch_df(
        "SELECT DISTINCT task_id FROM nli_edges WHERE model_version IS DISTINCT FROM ? ORDER BY task_id",
        [version],
    )
    return frame["task_id"].tolist()


# -- writes, each within the caller's transaction ----------------------------------------------------


def has_version(conn: Connection, version: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM nli_model_versions WHERE version = ?", [version]).fetchone() is not None
    )


def has_active(conn: Connection) -> bool:
    return conn.execute("SELECT 1 FROM nli_model_versions WHERE status = 'active'").fetchone() is not None


def insert_base(conn: Connection, version: str, base_model: str, *, active: bool) -> None:
    """Record the shipped base model ``version``: active (and activated now) or retired."""
    conn.execute(
        "INSERT INTO nli_model_versions (version, base_model, created_at, status, decision, activated_at) "
        "VALUES (?, ?, now(), ?, ?, CASE WHEN ? THEN now() ELSE NULL END)",
        [version, base_model, "active" if active else "retired", "the shipped base model", active],
    )


def retire_active(conn: Connection, *, keep: str | None = None) -> None:
    """Retire every active version (but ``keep``, when named)."""
    conn.execute(
        "UPDATE nli_model_versions SET status = 'retired' WHERE status = 'active' AND version IS DISTINCT FROM ?",
        [keep],
    )


def mark_active(conn: Connection, version: str, reason: str) -> None:
    """Make ``version`` active as of now, ``; activated: <reason>`` added to its decision."""
    conn.execute(
        "UPDATE nli_model_versions SET status = 'active', activated_at = now(), "
        "decision = decision || ? WHERE version = ?",
        [f"; activated: {reason}", version],
    )


def insert_trained(conn: Connection, row: TrainedVersion) -> None:
    """Record a trained version, created now (and activated now when its status is active)."""
    values = row.model_dump()
    values["details"] = json.dumps(values["details"], default=str)
    names = list(values)
    conn.execute(
        f"INSERT INTO nli_model_versions ({', '.join(names)}, created_at, activated_at) "
        f"VALUES ({', '.join('?' * len(names))}, now(), CASE WHEN ? THEN now() ELSE NULL END)",
        [*values.values(), row.status == "active"],
    )


def mark_corrections_learned(conn: Connection, version: str, correction_ids: Sequence[str]) -> None:
    """Set ``applied_in_version`` to ``version`` on those of ``correction_ids`` that have none yet."""
    if not correction_ids:
        return
    conn.execute(
        "UPDATE nli_corrections SET applied_in_version = ? WHERE applied_in_version IS NULL "
        "AND id IN (SELECT unnest(?::VARCHAR[]))",
        [version, list(correction_ids)],
    )
