"""Everything a task's run reads, reduced to one digest: a re-run whose digest equals the one the
published graph was built from would rebuild the same rows, so it can be skipped.

The digest covers the task's question and options, the local corpus files it searches (path, size
and modification time of each), the settings, Lyra's own code and shipped model weights, the models
under the home (the active verifier version and the configured model folders), the domain policy
file and the feedback that runs read (feedback events, relevance signals). A task that asks live
sources (Semantic Scholar, OpenAlex, the web search) has no digest: their answers can change between
runs, so its re-runs always run. docs/architecture.md says where this sits in a run.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from lyra_core.tasks import TaskOptions
from lyra_resources.home import HomeLayout
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.sources.literature import LiteratureSources
from lyra_resources.store.generations import published_generation
from lyra_resources.store.lyra_store import LyraStore, TaskRecord
from lyra_resources.web.domain_policy import DOMAINS_FILE

_CODE_PACKAGES = ("lyra_core", "lyra_resources", "lyra_training", "lyra_assets")  # what a run executes
REPORT_SUFFIXES = (".md", ".html", ".svg")  # the files a run's task_report asset writes


class RunInputs(BaseModel):
    """The digest of a run's inputs, or why there is none; ``parts`` holds the digest of each kind
    of input, so an asset can be compared on the ones it reads (``lyra_assets.reuse``)."""

    digest: str | None
    reason: str  # what the digest covers, or why the task has none
    parts: dict[str, str] = {}  # task, settings, code, corpus, models, domains, feedback → its digest


def _hexdigest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _stat_tree(root: Path, digest: Any) -> None:
    """Every file under ``root`` (or ``root`` itself) into ``digest``: its path, size and modification
    time (corpora, weights: reading their bytes would cost more than the run it might save)."""
    files = (
        [root]
        if root.is_file()
        else sorted(p for p in root.rglob("*") if p.is_file())
        if root.exists()
        else []
    )
    # surrogateescape: a file name that is not UTF-8 digests as its bytes rather than failing the run
    digest.update(f"{root}|{len(files)}\n".encode("utf-8", "surrogateescape"))
    for path in files:
        if "__pycache__" not in path.parts:
            stat = path.stat()
            digest.update(f"{path}|{stat.st_size}|{stat.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))


def code_root() -> Path:
    """The folder that holds Lyra's packages (the repository, or site-packages)."""
    return Path(__file__).resolve().parents[2]


@functools.cache
def code_digest() -> str:
    """Lyra's run code (its source files' bytes): any edit to the logic changes it. The shipped model
    weights count among the models (``run_inputs``' ``models`` part)."""
    digest = hashlib.sha256()
    root = code_root()
    for package in _CODE_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "__pycache__" not in path.parts:
                digest.update(f"{path.relative_to(root)}\n".encode() + path.read_bytes())
    return digest.hexdigest()


def _model_paths(settings: LyraSettings, home: Path) -> list[Path]:
    """The model folders the settings name, and the home's own (trained verifiers, rerankers, adapters)."""
    named = [
        Path(os.path.expanduser(v)) for v in settings.models.model_dump().values() if isinstance(v, str) and v
    ]
    return [p for p in named if p.exists()] + [home / "models"]


def run_inputs(store: LyraStore, task: TaskRecord, settings: LyraSettings, home: Path) -> RunInputs:
    """The digest of what a run of ``task`` would read now (see the module's docstring)."""
    options = TaskOptions.model_validate(task.options or {})
    plan = LiteratureSources.configured(HomeLayout(root=home).cache, settings).plan(list(options.corpus))
    if plan.live:
        return RunInputs(
            digest=None, reason=f"the task asks live sources ({plan.reason}), whose answers can change"
        )

    def stats(paths: list[Path]) -> str:
        digest = hashlib.sha256()
        for path in paths:
            _stat_tree(path.resolve(), digest)
        return digest.hexdigest()[:32]

    with store.connect() as conn:
        state = conn.execute(
            "SELECT (SELECT count(*) FROM feedback_events), (SELECT count(*) FROM relevance_signals), "
            # an adapter the learning loop activated; the base model is the settings' and the weights' (a
            # first run records the base row, which must not make its own re-run look changed)
            "(SELECT max(version) FROM nli_model_versions WHERE status = 'active' AND version LIKE '%+lora%')"
        ).fetchone()
    parts = {
        "task": _hexdigest({"query": task.query, "options": task.options}),
        "settings": _hexdigest(settings.model_dump(mode="json")),
        "code": code_digest(),
        "corpus": stats([Path(os.path.expanduser(path)) for path in plan.corpus]),
        "models": stats([code_root() / "lyra_resources" / "model_weights", *_model_paths(settings, home)]),
        "domains": stats([Path(DOMAINS_FILE)]),  # the domain policy: trust weights in ranking and judging
        "feedback": _hexdigest([str(v) for v in state]),
    }
    return RunInputs(
        digest=_hexdigest(parts),
        parts=parts,
        reason="question, options, corpus files, settings, code, models, domain policy and feedback",
    )


def report_written(report: Path, published_at: datetime | None) -> bool:
    """Whether the report files (``report`` and its ``.html`` and ``.svg``) were written after the
    graph was published (``published_at``, naive UTC): a run killed after it published and before
    ``task_report`` wrote them leaves them missing, or as the previous graph's."""
    try:
        written = min(report.with_suffix(suffix).stat().st_mtime for suffix in REPORT_SUFFIXES)
    except OSError:
        return False
    # a few seconds of slack: on a shared home the file server's clock writes the files' times
    return (
        published_at is None or datetime.fromtimestamp(written + 2, UTC).replace(tzinfo=None) >= published_at
    )


class Unchanged(BaseModel):
    """A re-run that would rebuild the graph the task has: nothing it reads changed since ``run_id``."""

    run_id: str
    covers: str  # what the comparison covered


def unchanged_since(store: LyraStore, task_id: str, settings: LyraSettings, home: Path) -> Unchanged | None:
    """The run whose published graph was built from exactly what a run of the task would read now,
    or None: the task must run (something changed, it asks live sources, it is not completed, its
    graph predates the digest, or its report is missing or older than its graph: a run killed after
    it published its graph and before ``task_report`` wrote the files, which the next run writes)."""
    task = store.require_task(task_id)
    published = published_generation(store, task_id)
    if task.status != "completed" or published is None or published.inputs_digest is None:
        return None
    if not report_written(HomeLayout(root=home).report(task_id), published.published_at):
        return None
    now = run_inputs(store, task, settings, home)
    return (
        Unchanged(run_id=published.run_id, covers=now.reason)
        if now.digest == published.inputs_digest
        else None
    )
