"""The NLI model versions of a Lyra home (table ``nli_model_versions``): the shipped base model and
every LoRA adapter trained from corrections, which one is active, and how to change that.

A version's id is what ``nli_edges.model_version`` records for the edges it judged: the base
model's ``<folder>@<weights hash>``, an adapter's ``<base>+<adapter folder>``. Exactly one version
is active; when none is recorded (a new home), the base model is, and its row is written on first use.
The rows are read and written by ``lyra_resources.store.nli_version_rows``.
"""

from __future__ import annotations

from pathlib import Path

from lyra_resources.models.model_files import base_version
from lyra_resources.store import nli_version_rows as rows
from lyra_resources.store.lyra_store import LyraStore, StoreError
from lyra_resources.store.nli_version_rows import NliVersion
from lyra_resources.store.sql import Connection

__all__ = ["NliVersion", "VersionError"]  # NliVersion: the row, as callers have always imported it


class VersionError(StoreError):
    """An unknown version, or one that cannot be activated; the message says which and why."""


def list_versions(store: LyraStore, base_path: str | Path) -> list[NliVersion]:
    """Every version, oldest first (the base row written if this home has none yet)."""
    ensure_base(store, base_path)
    return rows.all_versions(store)


def get_version(store: LyraStore, version: str) -> NliVersion | None:
    return rows.find_version(store, version)


def ensure_base(store: LyraStore, base_path: str | Path) -> NliVersion:
    """The base model's row; inserted (active when nothing else is) the first time it is needed."""
    version = base_version(base_path)

    def work(conn: Connection) -> None:
        if not rows.has_version(conn, version):
            rows.insert_base(conn, version, str(base_path), active=not rows.has_active(conn))

    store.transaction(work)
    found = get_version(store, version)
    assert found is not None
    return found


def _runs_on(version: str, base: str) -> bool:
    """Whether ``version`` is the base model ``base`` or an adapter of it (an adapter only fits the
    weights it was trained on)."""
    return version == base or version.startswith(base + "+")


def active_version(store: LyraStore, base_path: str | Path) -> NliVersion:
    """The version that judges new edges: the active row when it belongs to the configured base
    model, else the base model itself."""
    base = ensure_base(store, base_path)
    active = rows.newest_active(store)
    return active if active is not None and _runs_on(active.version, base.version) else base


def active_version_id(store: LyraStore, base_path: str | Path) -> str:
    """The id :func:`active_version` names, read without writing anything (a new home's base row
    is not inserted): for status readers."""
    base = base_version(base_path)
    active = rows.newest_active_id(store)
    return active if active is not None and _runs_on(active, base) else base


def activate(
    store: LyraStore, version: str, base_path: str | Path, *, reason: str
) -> tuple[NliVersion, NliVersion]:
    """Make ``version`` the active one (rolling back or forward); the previously active version is
    retired. Returns (previous, now active). An adapter whose files are gone cannot be activated."""
    base = base_version(base_path)
    if version != base and get_version(store, version) is None:  # refused before the base row is written
        known = ", ".join(dict.fromkeys([base, *rows.version_ids(store)]))
        raise VersionError(f"no NLI model version {version!r}; known: {known}")
    ensure_base(store, base_path)
    target = get_version(store, version)
    assert target is not None
    if target.adapter_path and not (Path(target.adapter_path) / "adapter_config.json").exists():
        raise VersionError(
            f"version {version} cannot be activated: its adapter {target.adapter_path} is missing"
        )
    previous = active_version(store, base_path)

    def work(conn: Connection) -> None:
        rows.retire_active(conn, keep=version)
        rows.mark_active(conn, version, reason)

    if previous.version != version:
        store.transaction(work)
    now_active = get_version(store, version)
    assert now_active is not None
    return previous, now_active


def next_adapter_name(store: LyraStore) -> str:
    """``lora-v<N>``: N counts every adapter this home has trained, kept or not."""
    return f"lora-v{rows.adapter_count(store) + 1}"


def affected_tasks(store: LyraStore, version: str) -> list[str]:
    """Tasks with at least one edge judged by another version than ``version``."""
    return rows.tasks_judged_by_others(store, version)
