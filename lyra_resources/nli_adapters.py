"""Learning from corrections: a LoRA adapter for the NLI cross-encoder, trained on the labels people
(and agents) gave with ``edge_correct``, and a gate that decides whether it replaces the active model.

The pieces are plain functions so that the Dagster job (``nli_adapter_training``), the CLI and the
learning benchmark share them:

- :func:`split_corrections`: a fixed, seeded split by claim text — a claim's corrections are all
  trained on or all held out, and a correction never changes side as more arrive;
- :func:`train_adapter`: LoRA (peft) on the query/value projections of the base model's attention,
  with the classification head trainable, on corrections weighted by ``sample_weight`` mixed with
  a replay sample of the base model's own SNLI training pairs, bounded in epochs and minutes;
- :func:`gate`: candidate and active model side by side on the held-out corrections and on the
  SNLI regression set; activation only if better on the first and at most 1 point worse on the second;
- :func:`learn_from_corrections`: all of it against a Lyra home, writing nothing until the end,
  so a failed or interrupted training leaves the active model and every table as they were.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lyra_core.scoring import NEUTRAL, REFUTES, SUPPORTS
from lyra_resources.models import DEFAULT_SNLI_DIR, NliModel, base_version, set_threads
from lyra_resources.nli_training import LABEL2ID, NliPair
from lyra_resources.nli_versions import NliVersion, active_version, get_version, next_adapter_name
from lyra_resources.settings import LearningSettings
from lyra_resources.store import LyraStore, StoreError

GATE_DIR = DEFAULT_SNLI_DIR / "gate"  # SNLI replay and regression pairs, shipped with the SNLI base
RELATION_TO_LABEL = {SUPPORTS: "entailment", REFUTES: "contradiction", NEUTRAL: "neutral"}


class LearningError(RuntimeError):
    """Training cannot start (too few corrections, no held-out set); the message says what is missing."""


class TrainingInterrupted(RuntimeError):
    """The caller asked training to stop; nothing was written."""


class Correction(BaseModel):
    """One ``nli_corrections`` row as a training or held-out sample."""

    id: str
    premise: str
    hypothesis: str
    label: str = Field(description="entailment | contradiction | neutral (from the corrected relation)")
    weight: float = 1.0
    corrected_at: datetime | None = None
    applied_in_version: str | None = None

    def pair(self) -> NliPair:
        return NliPair(premise=self.premise, hypothesis=self.hypothesis, label=self.label)


class WeightedPair(BaseModel):
    premise: str
    hypothesis: str
    label: str
    weight: float = 1.0


def read_pairs(path: Path, limit: int | None = None) -> list[NliPair]:
    """A JSONL file of premise / hypothesis / label (the shipped replay and regression slices)."""
    pairs = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                pairs.append(NliPair.model_validate_json(line))
                if limit is not None and len(pairs) >= limit:
                    break
    return pairs


def corrected_edges(store: LyraStore) -> set[str]:
    """Edges a human relabelled or reviewed: never used as the active model's reference judgements."""
    rows = store.fetch_df("SELECT edge_id FROM nli_corrections UNION SELECT edge_id FROM edge_reviews")
    return set(rows["edge_id"])


def load_corrections(store: LyraStore, cutoff: datetime | None = None) -> list[Correction]:
    """Every correction up to ``cutoff`` (all when None), oldest first."""
    sql = ("SELECT id, premise, hypothesis, correct_label, coalesce(sample_weight, 1.0) AS weight, corrected_at, "
           "applied_in_version FROM nli_corrections")
    params: list[Any] = []
    if cutoff is not None:
        sql += " WHERE corrected_at <= ?"
        params.append(cutoff)
    frame = store.fetch_df(sql + " ORDER BY corrected_at, id", params)
    out = []
    for row in frame.to_dict("records"):
        label = RELATION_TO_LABEL.get(str(row["correct_label"]).upper())
        if label is None:
            continue  # a label the schema no longer knows: never guessed
        applied = row["applied_in_version"]
        out.append(Correction(id=row["id"], premise=row["premise"], hypothesis=row["hypothesis"], label=label,
                              weight=float(row["weight"]), corrected_at=row["corrected_at"],
                              applied_in_version=applied if isinstance(applied, str) else None))
    return out


def claim_key(text: str) -> str:
    """A claim's text as the split sees it: case and spacing do not make another claim."""
    return " ".join(text.lower().split())


def is_held_out(hypothesis: str, fraction: float, seed: int) -> bool:
    """Whether a claim's corrections are held out: a hash of seed and claim text, so the side a
    correction falls on never depends on which other corrections exist."""
    digest = hashlib.sha256(f"{seed}\x1f{claim_key(hypothesis)}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def split_corrections(corrections: Sequence[Correction], fraction: float, seed: int
                      ) -> tuple[list[Correction], list[Correction]]:
    """(train, held out): whole claims on one side, so no claim text is both learned and judged."""
    train, held = [], []
    for c in corrections:
        (held if is_held_out(c.hypothesis, fraction, seed) else train).append(c)
    return train, held


def replay_sample(n: int, seed: int, path: Path | None = None) -> list[NliPair]:
    """``n`` pairs of the shipped replay slice (the base model's own SNLI training pairs)."""
    pairs = read_pairs(path or GATE_DIR / "replay.jsonl")
    return random.Random(seed).sample(pairs, min(n, len(pairs)))


def replay_size(train_corrections: int, cfg: LearningSettings) -> int:
    return max(cfg.replay_min, round(cfg.replay_per_correction * train_corrections))


# -- training --------------------------------------------------------------------------------------

class AdapterReport(BaseModel):
    corrections: int
    replay_pairs: int
    epochs_run: int
    steps: int
    seconds: float
    pairs_per_s: float
    stopped_by_time: bool
    final_loss: float
    trainable_parameters: int
    hyperparameters: dict[str, Any]


def train_adapter(base_dir: str | Path, corrections: Sequence[WeightedPair], replay: Sequence[NliPair],
                  out_dir: str | Path, cfg: LearningSettings, *, seed: int = 13, threads: int = 2,
                  progress: Callable[[str], None] | None = None,
                  should_stop: Callable[[], bool] | None = None) -> AdapterReport:
    """Train a LoRA adapter on ``corrections`` + ``replay`` and save it (adapter weights and config
    only) to ``out_dir``. Loss is cross-entropy weighted by each pair's weight (replay pairs 1)."""
    import torch
    from peft import LoraConfig, TaskType, get_peft_model
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    set_threads(threads)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    tokenizer = AutoTokenizer.from_pretrained(str(base_dir))
    base = AutoModelForSequenceClassification.from_pretrained(str(base_dir), dtype=torch.float32)
    lora = LoraConfig(task_type=TaskType.SEQ_CLS, r=cfg.lora_r, lora_alpha=cfg.lora_alpha,
                      lora_dropout=cfg.lora_dropout, target_modules=["query", "value"])
    model = get_peft_model(base, lora)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    data = [*corrections, *(WeightedPair(**p.model_dump(), weight=1.0) for p in replay)]
    if not data:
        raise LearningError("nothing to train on")
    steps_per_epoch = -(-len(data) // cfg.batch_size)
    total = steps_per_epoch * cfg.epochs
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=cfg.learning_rate,
                                  weight_decay=0.0)
    warmup = max(1, total // 10)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / warmup) * max(0.0, (total - step) / max(total - warmup, 1)))
    loss_fn = torch.nn.CrossEntropyLoss(reduction="none")
    started, step, epochs_run, stopped_by_time, running = time.monotonic(), 0, 0, False, 0.0
    model.train()
    for _epoch in range(cfg.epochs):
        order = list(data)
        rng.shuffle(order)
        for start in range(0, len(order), cfg.batch_size):
            if should_stop and should_stop():
                raise TrainingInterrupted("training stopped on request; nothing was written")
            if time.monotonic() - started > cfg.max_minutes * 60:
                stopped_by_time = True
                break
            batch = order[start:start + cfg.batch_size]
            enc = tokenizer([p.premise for p in batch], [p.hypothesis for p in batch], padding="longest",
                            truncation=True, max_length=256, return_tensors="pt")
            labels = torch.tensor([LABEL2ID[p.label] for p in batch])
            weights = torch.tensor([p.weight for p in batch], dtype=torch.float32)
            loss = (loss_fn(model(**enc).logits, labels) * weights).sum() / weights.sum()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            step += 1
            value = loss.item()
            running = 0.9 * running + 0.1 * value if step > 1 else value
            if progress and (step % 20 == 0 or step == total):
                progress(f"adapter step {step}/{total} loss {running:.3f} "
                         f"{step * cfg.batch_size / max(time.monotonic() - started, 1e-9):.1f} pairs/s")
        if stopped_by_time:
            break
        epochs_run += 1
    seconds = time.monotonic() - started
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    return AdapterReport(
        corrections=len(corrections), replay_pairs=len(replay), epochs_run=epochs_run, steps=step,
        seconds=round(seconds, 2), pairs_per_s=round(step * cfg.batch_size / max(seconds, 1e-9), 2),
        stopped_by_time=stopped_by_time, final_loss=round(running, 4), trainable_parameters=trainable,
        hyperparameters={"lora_r": cfg.lora_r, "lora_alpha": cfg.lora_alpha, "lora_dropout": cfg.lora_dropout,
                         "target_modules": ["query", "value"], "trainable": "LoRA A/B + classification head",
                         "learning_rate": cfg.learning_rate, "batch_size": cfg.batch_size, "epochs": cfg.epochs,
                         "max_minutes": cfg.max_minutes, "seed": seed, "threads": threads},
    )


# -- evaluation and the gate ----------------------------------------------------------------------

class Metrics(BaseModel):
    pairs: int
    accuracy: float
    macro_f1: float


def evaluate(model: NliModel, pairs: Sequence[NliPair]) -> Metrics:
    """Accuracy and macro-F1 (over the classes present in the gold labels) of ``model`` on ``pairs``."""
    if not pairs:
        return metrics([], [])
    predicted = [p.label for p in model.predict([(x.premise, x.hypothesis) for x in pairs])]
    return metrics([x.label for x in pairs], predicted)


def metrics(gold: Sequence[str], predicted: Sequence[str]) -> Metrics:
    correct = sum(g == p for g, p in zip(gold, predicted, strict=True))
    return Metrics(pairs=len(gold), accuracy=round(correct / max(len(gold), 1), 4),
                   macro_f1=round(macro_f1(gold, predicted), 4))


def macro_f1(gold: Sequence[str], predicted: Sequence[str]) -> float:
    scores = []
    for label in sorted(set(gold)):
        tp = sum(g == label and p == label for g, p in zip(gold, predicted, strict=True))
        fp = sum(g != label and p == label for g, p in zip(gold, predicted, strict=True))
        fn = sum(g == label and p != label for g, p in zip(gold, predicted, strict=True))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


class GateResult(BaseModel):
    heldout_before: Metrics
    heldout_after: Metrics
    regression_before: Metrics
    regression_after: Metrics
    activate: bool
    reason: str
    science_agreement: Metrics | None = None  # the candidate against the active model's confident judgements


def gate_decision(heldout_before: Metrics, heldout_after: Metrics, regression_before: Metrics,
                  regression_after: Metrics, tolerance: float, science_agreement: Metrics | None = None,
                  science_min: float = 0.9) -> GateResult:
    """Activate only if the candidate is better on the held-out corrections (accuracy; macro-F1
    breaks a tie), loses at most ``tolerance`` accuracy on the SNLI regression set and, where the
    home has judged scientific text, keeps at least ``science_min`` of the active model's confident
    judgements that nobody corrected (an adapter that forgets the science is rejected)."""
    better = (heldout_after.accuracy, heldout_after.macro_f1) > (heldout_before.accuracy, heldout_before.macro_f1)
    lost = regression_before.accuracy - regression_after.accuracy
    forgets = science_agreement is not None and science_agreement.accuracy < science_min - 1e-9
    if forgets and better and lost <= tolerance + 1e-9:
        return GateResult(heldout_before=heldout_before, heldout_after=heldout_after, regression_before=regression_before,
                          regression_after=regression_after, activate=False, science_agreement=science_agreement,
                          reason=f"keeps only {science_agreement.accuracy:.1%} of the active model's confident "
                                 f"judgements on {science_agreement.pairs} uncorrected scientific pairs "
                                 f"(at least {science_min:.0%} needed)")
    if not better:
        reason = (f"not better on held-out corrections: accuracy {heldout_after.accuracy:.4f} vs "
                  f"{heldout_before.accuracy:.4f} (macro-F1 {heldout_after.macro_f1:.4f} vs {heldout_before.macro_f1:.4f})")
    elif lost > tolerance + 1e-9:
        reason = (f"loses {lost * 100:.1f} points on the SNLI regression set "
                  f"({regression_after.accuracy:.4f} vs {regression_before.accuracy:.4f}; at most {tolerance * 100:.1f} allowed)")
    else:
        reason = (f"better on held-out corrections (accuracy {heldout_after.accuracy:.4f} vs {heldout_before.accuracy:.4f}); "
                  f"SNLI regression {regression_after.accuracy:.4f} vs {regression_before.accuracy:.4f}")
    return GateResult(heldout_before=heldout_before, heldout_after=heldout_after, regression_before=regression_before,
                      regression_after=regression_after, activate=better and lost <= tolerance + 1e-9, reason=reason,
                      science_agreement=science_agreement)


def gate(active: NliModel, candidate: NliModel, heldout: Sequence[NliPair], regression: Sequence[NliPair],
         tolerance: float, science: Sequence[NliPair] = (), science_min: float = 0.9) -> GateResult:
    """``science``: pairs the active model judged confidently on this home's tasks, labelled with
    its own judgement (empty: no such check)."""
    return gate_decision(evaluate(active, heldout), evaluate(candidate, heldout),
                         evaluate(active, regression), evaluate(candidate, regression), tolerance,
                         evaluate(candidate, science) if science else None, science_min)


def science_pairs(store: LyraStore, version: str, excluded_edges: set[str], limit: int = 400,
                  min_confidence: float = 0.8) -> list[NliPair]:
    """Up to ``limit`` (fragment, claim) pairs of this home's tasks that ``version`` judged with at
    least ``min_confidence`` and no human corrected, labelled with that judgement."""
    rows = store.fetch_df(
        "SELECT e.edge_id, f.text AS premise, c.text AS hypothesis, e.relation FROM nli_edges e "
        "JOIN fragments f ON f.task_id = e.task_id AND f.fragment_id = e.fragment_id "
        "JOIN claims c ON c.task_id = e.task_id AND c.claim_id = e.claim_id "
        "WHERE e.model_version = ? AND e.nli_confidence >= ? ORDER BY hash(e.edge_id) LIMIT ?",
        [version, min_confidence, limit + len(excluded_edges)])
    return [NliPair(premise=r.premise, hypothesis=r.hypothesis, label=RELATION_TO_LABEL[r.relation])
            for r in rows.itertuples(index=False) if r.edge_id not in excluded_edges][:limit]


# -- against a Lyra home ---------------------------------------------------------------------------

class LearningOutcome(BaseModel):
    version: NliVersion
    gate: GateResult
    report: AdapterReport
    new_corrections: int
    train_corrections: int
    heldout_corrections: int


def _model_card(version: str, parent: str, base: str, report: AdapterReport, result: GateResult,
                train: int, heldout: int, status: str) -> str:
    rows = "\n".join(
        f"| {name} | {b.pairs} | {b.accuracy:.4f} | {a.accuracy:.4f} | {b.macro_f1:.4f} | {a.macro_f1:.4f} |"
        for name, b, a in (("held-out corrections", result.heldout_before, result.heldout_after),
                           ("SNLI regression set", result.regression_before, result.regression_after)))
    if result.science_agreement is not None:
        rows += (f"\n| agreement with the active model's confident judgements on this home's scientific text "
                 f"| {result.science_agreement.pairs} | 1.0000 | {result.science_agreement.accuracy:.4f} | — | — |")
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


def learn_from_corrections(store: LyraStore, adapters_dir: str | Path, base_path: str | Path, cfg: LearningSettings,
                           *, cutoff: datetime | None = None, threads: int = 2, require_new: bool = True,
                           progress: Callable[[str], None] | None = None,
                           should_stop: Callable[[], bool] | None = None) -> LearningOutcome:
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
        raise LearningError(f"none of the {len(corrections)} corrections falls on the training side of the split")
    if len(heldout) < cfg.min_heldout:
        raise LearningError(f"the gate needs {cfg.min_heldout} held-out corrections and has {len(heldout)} "
                            f"(of {len(corrections)}); correct more edges, on more claims")
    active = active_version(store, base_path)
    name = next_adapter_name(store)
    version = f"{base_version(base_path)}+{name}"
    replay = replay_sample(replay_size(len(train), cfg), cfg.split_seed)
    say(f"training {version}: {len(train)} corrections + {len(replay)} replay pairs, "
        f"{len(heldout)} held out for the gate (active: {active.version})")

    adapters = Path(adapters_dir)
    adapters.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=adapters))
    final = adapters / name
    try:
        report = train_adapter(base_path, [WeightedPair(premise=c.premise, hypothesis=c.hypothesis, label=c.label,
                                                        weight=c.weight) for c in train],
                               replay, staging, cfg, seed=cfg.split_seed, threads=threads, progress=say,
                               should_stop=should_stop)
        say("gate: active model and candidate side by side on held-out corrections and the SNLI regression set")
        current = NliModel(base_path, adapter=active.adapter_path)
        candidate = NliModel(base_path, adapter=staging)
        science = science_pairs(store, active.version, corrected_edges(store))
        result = gate(current, candidate, [c.pair() for c in heldout], read_pairs(GATE_DIR / "regression.jsonl"),
                      cfg.regression_tolerance, science if len(science) >= cfg.min_science_pairs else (),
                      cfg.science_agreement)
        if should_stop and should_stop():
            raise TrainingInterrupted("training stopped on request; nothing was written")
        status = "active" if result.activate else "rejected"
        (staging / "README.md").write_text(_model_card(version, active.version, str(base_path), report, result,
                                                       len(train), len(heldout), status))
        (staging / "training.json").write_text(json.dumps({
            "version": version, "parent": active.version, "report": report.model_dump(),
            "gate": result.model_dump(), "train_correction_ids": [c.id for c in train],
            "heldout_correction_ids": [c.id for c in heldout]}, indent=2, default=str))
        if final.exists():
            shutil.rmtree(final)
        staging.rename(final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise

    new_ids = [c.id for c in new]
    details = {"report": report.model_dump(), "gate": result.model_dump(), "new_corrections": len(new_ids)}

    def record(conn) -> None:
        if result.activate:
            conn.execute("UPDATE nli_model_versions SET status = 'retired' WHERE status = 'active'")
        conn.execute(
            "INSERT INTO nli_model_versions VALUES (?, ?, ?, ?, now(), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "CASE WHEN ? THEN now() ELSE NULL END, ?)",
            [version, active.version, str(base_path), str(final), status, len(train), len(heldout), len(replay),
             report.steps, report.seconds, result.heldout_before.accuracy, result.heldout_after.accuracy,
             result.regression_before.accuracy, result.regression_after.accuracy, result.reason,
             result.activate, json.dumps(details, default=str)])
        if new_ids:
            conn.execute("UPDATE nli_corrections SET applied_in_version = ? WHERE applied_in_version IS NULL "
                         "AND id IN (SELECT unnest(?::VARCHAR[]))", [version, new_ids])

    try:
        store.transaction(record)
    except BaseException:
        shutil.rmtree(final, ignore_errors=True)  # no row points at it: leave no orphan
        raise
    row = get_version(store, version)
    if row is None:  # pragma: no cover - the transaction above wrote it
        raise StoreError(f"version {version} was not recorded")
    say(f"{version}: {status} — {result.reason}")
    return LearningOutcome(version=row, gate=result, report=report, new_corrections=len(new_ids),
                           train_corrections=len(train), heldout_corrections=len(heldout))
