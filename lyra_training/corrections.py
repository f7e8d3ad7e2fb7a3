"""Learning from corrections against a Lyra home: split the corrections by claim, train an adapter,
gate it against the active version, and record the outcome, writing nothing until the end so
that a failed or interrupted training leaves the active model and every table as they were."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from lyra_core.model_gate import GateResult
from lyra_core.splits import split_corrections
from lyra_resources.models.inference import NliModel
from lyra_resources.models.model_files import base_version
from lyra_resources.models.nli_versions import NliVersion, active_version, get_version, next_adapter_name
from lyra_resources.settings.services import LearningSettings
from lyra_resources.store.lyra_store import LyraStore, StoreError
from lyra_resources.store.nli_version_rows import (
    TrainedVersion,
    insert_trained,
    mark_corrections_learned,
    retire_active,
)
from lyra_resources.store.sql import Connection
from lyra_training.adapter_gate import gate, science_pairs
from lyra_training.adapters import (
    GATE_DIR,
    AdapterReport,
    LearningError,
    TrainingInterrupted,
    WeightedPair,
    corrected_edges,
    load_corrections,
    replay_sample,
    replay_size,
    train_adapter,
)
from lyra_training.nli_data import read_pairs


class LearningOutcome(BaseModel):
    version: NliVersion
    gate: GateResult
    report: AdapterReport
    new_corrections: int
    train_corrections: int
    heldout_corrections: int


def _model_card(
    version: str,
    parent: str,
    base: str,
    report: AdapterReport,
    result: GateResult,
    train: int,
    heldout: int,
    status: str,
) -> str:
    rows = "\n".join(
        f"| {name} | {b.pairs} | {b.accuracy:.4f} | {a.accuracy:.4f} | {b.macro_f1:.4f} | {a.macro_f1:.4f} |"
        for name, b, a in (
            ("held-out corrections", result.heldout_before, result.heldout_after),
            ("SNLI regression set", result.regression_before, result.regression_after),
        )
    )
    if result.science_agreement is not None:
        rows += (
            f"\n| agreement with the active model's confident judgements on this home's scientific text "
            f"| {result.science_agreement.pairs} | 1.0000 | {result.science_agreement.accuracy:.4f} | — | — |"
        )
    return f"""# NLI adapter {version}

A LoRA adapter for Lyra's NLI cross-encoder, trained from human corrections of its edges.

- base model: `{base}`
- compared with (the active model when it was trained): `{parent}`
- status at creation: **{status}** — {result.reason}
- corrections trained on: {train} (claims split {heldout} held out, never trained on)
- SNLI replay pairs mixed in: {report.replay_pairs} (the base model's own training pairs, so it does not forget)
- steps: {report.steps}, epochs completed: {report.epochs_run}, {report.seconds:.1f} s, {report.pairs_per_s:.1f} pairs/s
  {"(stopped by the time box)" if report.stopped_by_time else ""}
- trainable parameters: {report.trainable_parameters:,} (LoRA on attention query/value + classification head)

| set | pairs | accuracy before | accuracy after | macro-F1 before | macro-F1 after |
|---|---|---|---|---|---|
{rows}

SNLI (Bowman et al., 2015) is licensed CC BY-SA 4.0.
"""


def learn_from_corrections(
    store: LyraStore,
    adapters_dir: str | Path,
    base_path: str | Path,
    cfg: LearningSettings,
    *,
    cutoff: datetime | None = None,
    threads: int = 2,
    require_new: bool = True,
    progress: Callable[[str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> LearningOutcome:
    """Train an adapter on every training-side correction up to ``cutoff``, gate it against the
    active version, and record the outcome in one transaction: the version row (active or
    rejected, with its figures), the previous active version retired when it wins, and
    ``applied_in_version`` on the corrections that were new to this training."""
    say = progress or (lambda message: None)
    corrections = load_corrections(store, cutoff)
    new = [c for c in corrections if c.applied_in_version is None]
    if require_new and not new:
        raise LearningError("no correction waits to be learned from (every one has applied_in_version set)")
    train, heldout = split_corrections(corrections, cfg.holdout_fraction, cfg.split_seed)
    if not train:
        raise LearningError(
            f"none of the {len(corrections)} corrections falls on the training side of the split"
        )
    if len(heldout) < cfg.min_heldout:
        raise LearningError(
            f"the gate needs {cfg.min_heldout} held-out corrections and has {len(heldout)} "
            f"(of {len(corrections)}); correct more edges, on more claims"
        )
    active = active_version(store, base_path)
    name = next_adapter_name(store)
    version = f"{base_version(base_path)}+{name}"
    replay = replay_sample(replay_size(len(train), cfg), cfg.split_seed)
    say(
        f"training {version}: {len(train)} corrections + {len(replay)} replay pairs, "
        f"{len(heldout)} held out for the gate (active: {active.version})"
    )

    adapters = Path(adapters_dir)
    adapters.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=adapters))
    final = adapters / name
    try:
        report = train_adapter(
            base_path,
            [
                WeightedPair(premise=c.premise, hypothesis=c.hypothesis, label=c.label, weight=c.weight)
                for c in train
            ],
            replay,
            staging,
            cfg,
            seed=cfg.split_seed,
            threads=threads,
            progress=say,
            should_stop=should_stop,
        )
        say(
            "gate: active model and candidate side by side on held-out corrections and the SNLI regression set"
        )
        current = NliModel(base_path, adapter=active.adapter_path)
        candidate = NliModel(base_path, adapter=staging)
        science = science_pairs(store, active.version, corrected_edges(store))
        result = gate(
            current,
            candidate,
            [c.pair() for c in heldout],
            read_pairs(GATE_DIR / "regression.jsonl"),
            cfg.regression_tolerance,
            science if len(science) >= cfg.min_science_pairs else (),
            cfg.science_agreement,
        )
        if should_stop and should_stop():
            raise TrainingInterrupted("training stopped on request; nothing was written")
        status = "active" if result.activate else "rejected"
        (staging / "README.md").write_text(
            _model_card(
                version, active.version, str(base_path), report, result, len(train), len(heldout), status
            )
        )
        (staging / "training.json").write_text(
            json.dumps(
                {
                    "version": version,
                    "parent": active.version,
                    "report": report.model_dump(),
                    "gate": result.model_dump(),
                    "train_correction_ids": [c.id for c in train],
                    "heldout_correction_ids": [c.id for c in heldout],
                },
                indent=2,
                default=str,
            )
        )
        if final.exists():
            shutil.rmtree(final)
        staging.rename(final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise

    new_ids = [c.id for c in new]
    details = {"report": report.model_dump(), "gate": result.model_dump(), "new_corrections": len(new_ids)}

    row = TrainedVersion(
        version=version,
        parent=active.version,
        base_model=str(base_path),
        adapter_path=str(final),
        status=status,
        corrections_used=len(train),
        heldout_corrections=len(heldout),
        replay_pairs=len(replay),
        steps=report.steps,
        train_seconds=report.seconds,
        heldout_before=result.heldout_before.accuracy,
        heldout_after=result.heldout_after.accuracy,
        regression_before=result.regression_before.accuracy,
        regression_after=result.regression_after.accuracy,
        decision=result.reason,
        details=details,
    )

    def record(conn: Connection) -> None:
        if result.activate:
            retire_active(conn)
        insert_trained(conn, row)
        mark_corrections_learned(conn, version, new_ids)

    try:
        store.transaction(record)
    except BaseException:
        shutil.rmtree(final, ignore_errors=True)  # no row points at it: leave no orphan
        raise
    recorded = get_version(store, version)
    if recorded is None:  # pragma: no cover - the transaction above wrote it
        raise StoreError(f"version {version} was not recorded")
    say(f"{version}: {status} — {result.reason}")
    return LearningOutcome(
        version=recorded,
        gate=result,
        report=report,
        new_corrections=len(new_ids),
        train_corrections=len(train),
        heldout_corrections=len(heldout),
    )
