"""The NLI model versions of a Lyra home (table ``nli_model_versions``): the shipped base model and
every LoRA adapter trained from corrections, which one is active, and how to change that.

A version's id is what ``nli_edges.model_version`` records for the edges it judged: the base
model's ``<folder>@<weights hash>``, an adapter's ``<base>+<adapter folder>``. Exactly one version
is active; when none is recorded (a new home), the base model is, and its row is written on first use.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from lyra_resources.models.model_files import base_version
from lyra_resources.store.lyra_store import LyraStore, StoreError

Status = Literal["active", "rejected", "retired"]


class NliVersion(BaseModel):
    """One row of ``nli_model_versions``."""

    version: str
    parent: str | None = None
    base_model: str
    adapter_path: str | None = None
    created_at: datetime
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
    activated_at: datetime | None = None
    details: dict[str, Any] = Field(default_factory=dict)

    @property
    def is_adapter(self) -> bool:
        return bool(self.adapter_path)


class VersionError(StoreError):
    """An unknown version, or one that cannot be activated; the message says which and why."""


def _row(record: dict[str, Any]) -> NliVersion:
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


def list_versions(store: LyraStore, base_path: str | Path) -> list[NliVersion]:
    """Every version, oldest first (the base row written if this home has none yet)."""
    ensure_base(store, base_path)
    frame = store.fetch_df("SELECT * FROM nli_model_versions ORDER BY created_at, version")
    return [_row(r) for r in frame.to_dict("records")]


def get_version(store: LyraStore, version: str) -> NliVersion | None:
    frame = store.fetch_df("SELECT * FROM nli_model_versions WHERE version = ?", [version])
    return _row(frame.iloc[0].to_dict()) if len(frame) else None


def ensure_base(store: LyraStore, base_path: str | Path) -> NliVersion:
    """The base model's row; inserted (active when nothing else is) the first time it is needed."""
    version = base_version(base_path)

    def work(conn) -> None:
        if conn.execute("SELECT 1 FROM nli_model_versions WHERE version = ?", [version]).fetchone():
            return
        has_active = conn.execute("SELECT 1 FROM nli_model_versions WHERE status = 'active'").fetchone()
        conn.execute(
            "INSERT INTO nli_model_versions (version, base_model, created_at, status, decision, activated_at) "
            "VALUES (?, ?, now(), ?, ?, CASE WHEN ? THEN NULL ELSE now() END)",
            [
                version,
                str(base_path),
                "retired" if has_active else "active",
                "the shipped base model",
                bool(has_active),
            ],
        )

    store.transaction(work)
    found = get_version(store, version)
    assert found is not None
    return found


_ACTIVE_SQL = "SELECT * FROM nli_model_versions WHERE status = 'active' ORDER BY activated_at DESC LIMIT 1"


def _runs_on(version: str, base: str) -> bool:
    """Whether ``version`` is the base model ``base`` or an adapter of it (an adapter only fits the
    weights it was trained on)."""
    return version == base or version.startswith(base + "+")


def active_version(store: LyraStore, base_path: str | Path) -> NliVersion:
    """The version that judges new edges: the active row when it belongs to the configured base
    model, else the base model itself."""
    base = ensure_base(store, base_path)
    frame = store.fetch_df(_ACTIVE_SQL)
    if not len(frame):
        return base
    active = _row(frame.iloc[0].to_dict())
    return active if _runs_on(active.version, base.version) else base


def active_version_id(store: LyraStore, base_path: str | Path) -> str:
    """The id :func:`active_version` names, read without writing anything (a new home's base row
    is not inserted): for status readers."""
    base = base_version(base_path)
    with store.connect() as conn:  # one value: no DataFrame (status answers read it on every call)
        row = conn.execute(
            "SELECT version FROM nli_model_versions WHERE status = 'active' "
            "ORDER BY activated_at DESC LIMIT 1"
        ).fetchone()
    active = str(row[0]) if row else None
    return active if active is not None and _runs_on(active, base) else base


def activate(
    store: LyraStore, version: str, base_path: str | Path, *, reason: str
) -> tuple[NliVersion, NliVersion]:
    """Make ``version`` the active one (rolling back or forward); the previously active version is
    retired. Returns (previous, now active). An adapter whose files are gone cannot be activated."""
    base = base_version(base_path)
    if version != base and get_version(store, version) is None:  # refused before the base row is written
        stored = store.fetch_df("SELECT version FROM nli_model_versions ORDER BY created_at, version")[
            "version"
        ]
        known = ", ".join(dict.fromkeys([base, *stored]))
        raise VersionError(f"no NLI model version {version!r}; known: {known}")
    ensure_base(store, base_path)
    target = get_version(store, version)
    assert target is not None
    if target.adapter_path and not (Path(target.adapter_path) / "adapter_config.json").exists():
        raise VersionError(
            f"version {version} cannot be activated: its adapter {target.adapter_path} is missing"
        )
    previous = active_version(store, base_path)

    def work(conn) -> None:
        conn.execute(
            "UPDATE nli_model_versions SET status = 'retired' WHERE status = 'active' AND version <> ?",
            [version],
        )
        conn.execute(
            "UPDATE nli_model_versions SET status = 'active', activated_at = now(), "
            "decision = decision || ? WHERE version = ?",
            [f"; activated: {reason}", version],
        )

    if previous.version != version:
        store.transaction(work)
    now_active = get_version(store, version)
    assert now_active is not None
    return previous, now_active


def next_adapter_name(store: LyraStore) -> str:
    """``lora-v<N>``: N counts every adapter this home has trained, kept or not."""
    count = store.fetch_df("SELECT count(*) AS n FROM nli_model_versions WHERE adapter_path IS NOT NULL")[
        "n"
    ].iat[0]
    return f"lora-v{int(count) + 1}"


def affected_tasks(store: LyraStore, version: str) -> list[str]:
    """Tasks with at least one edge judged by another version than ``version``."""
    frame = store.fetch_df(
        "SELECT DISTINCT task_id FROM nli_edges WHERE model_version IS DISTINCT FROM ? ORDER BY task_id",
        [version],
    )
    return frame["task_id"].tolist()
