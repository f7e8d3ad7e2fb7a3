"""LoRA adapters for the NLI cross-encoder, trained on the labels people (and agents) gave with
``edge_correct``: the corrections as samples, the SNLI replay mixed in so the model does not
forget, and :func:`train_adapter` (LoRA on the attention's query/value projections, the
classification head trainable) through the shared training loop, bounded in epochs and minutes.

The gate that decides whether an adapter replaces the active model is in
:mod:`lyra_training.adapter_gate`; the whole round against a Lyra home in
:mod:`lyra_training.corrections`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lyra_core.scoring import NEUTRAL, REFUTES, SUPPORTS
from lyra_resources.models.inference import set_threads
from lyra_resources.models.model_files import DEFAULT_SNLI_DIR
from lyra_resources.settings.services import LearningSettings
from lyra_resources.store.lyra_store import LyraStore
from lyra_training.loop import LoopState, OptimiserSettings, TrainingStopped, shuffled_epochs, train_loop
from lyra_training.nli_data import LABEL2ID, NliPair, read_pairs

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


def corrected_edges(store: LyraStore) -> set[str]:
    """Edges a human relabelled or reviewed: never used as the active model's reference judgements."""
    rows = store.fetch_df("SELECT edge_id FROM nli_corrections UNION SELECT edge_id FROM edge_reviews")
    return set(rows["edge_id"])


# A correction that names the wrong part of the direction judge's reading trains that part (the
# direction reader for passage_direction; the rules for the others), not the NLI adapter.
NLI_TRAINABLE = "wrong_part IS NULL"


def load_corrections(store: LyraStore, cutoff: datetime | None = None) -> list[Correction]:
    """Every correction up to ``cutoff`` (all when None) that trains the NLI adapter, oldest first."""
    sql = (
        "SELECT id, premise, hypothesis, correct_label, coalesce(sample_weight, 1.0) AS weight, corrected_at, "
        f"applied_in_version FROM nli_corrections WHERE {NLI_TRAINABLE}"
    )
    params: list[Any] = []
    if cutoff is not None:
        sql += " AND corrected_at <= ?"
        params.append(cutoff)
    frame = store.fetch_df(sql + " ORDER BY corrected_at, id", params)
    out = []
    for row in frame.to_dict("records"):
        label = RELATION_TO_LABEL.get(str(row["correct_label"]).upper())
        if label is None:
            continue  # a label the schema no longer knows: never guessed
        applied = row["applied_in_version"]
        out.append(
            Correction(
                id=row["id"],
                premise=row["premise"],
                hypothesis=row["hypothesis"],
                label=label,
                weight=float(row["weight"]),
                corrected_at=row["corrected_at"],
                applied_in_version=applied if isinstance(applied, str) else None,
            )
        )
    return out


def replay_sample(n: int, seed: int, path: Path | None = None) -> list[NliPair]:
    """``n`` pairs of the shipped replay slice (the base model's own SNLI training pairs)."""
    pairs = read_pairs(path or GATE_DIR / "replay.jsonl")
    return random.Random(seed).sample(pairs, min(n, len(pairs)))


def replay_size(train_corrections: int, cfg: LearningSettings) -> int:
    return max(cfg.replay_min, round(cfg.replay_per_correction * train_corrections))


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


def train_adapter(
    base_dir: str | Path,
    corrections: Sequence[WeightedPair],
    replay: Sequence[NliPair],
    out_dir: str | Path,
    cfg: LearningSettings,
    *,
    seed: int = 13,
    threads: int = 2,
    progress: Callable[[str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> AdapterReport:
    """Train a LoRA adapter on ``corrections`` + ``replay`` and save it (adapter weights and config
    only) to ``out_dir``. Loss is cross-entropy weighted by each pair's weight (replay pairs 1)."""
    import torch
    from peft import LoraConfig, TaskType, get_peft_model
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    set_threads(threads)
    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(str(base_dir))
    base = AutoModelForSequenceClassification.from_pretrained(str(base_dir), dtype=torch.float32)
    lora = LoraConfig(
        task_type=TaskType.SEQ_CLS,
        r=cfg.lora_r,
        lora_alpha=cfg.lora_alpha,
        lora_dropout=cfg.lora_dropout,
        target_modules=["query", "value"],
    )
    model = get_peft_model(base, lora)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    data = [*corrections, *(WeightedPair(**p.model_dump(), weight=1.0) for p in replay)]
    if not data:
        raise LearningError("nothing to train on")
    total = -(-len(data) // cfg.batch_size) * cfg.epochs
    loss_fn = torch.nn.CrossEntropyLoss(reduction="none")

    def batch_loss(batch: Sequence[WeightedPair]) -> torch.Tensor:
        enc = tokenizer(
            [p.premise for p in batch],
            [p.hypothesis for p in batch],
            padding="longest",
            truncation=True,
            max_length=256,
            return_tensors="pt",
        )
        labels = torch.tensor([LABEL2ID[p.label] for p in batch])
        weights = torch.tensor([p.weight for p in batch], dtype=torch.float32)
        return (loss_fn(model(**enc).logits, labels) * weights).sum() / weights.sum()

    def report(state: LoopState) -> None:
        if progress and (state.step % 20 == 0 or state.step == total):
            progress(
                f"adapter step {state.step}/{total} loss {state.running_loss:.3f} "
                f"{state.step * cfg.batch_size / max(state.elapsed(), 1e-9):.1f} pairs/s"
            )

    settings = OptimiserSettings(
        lr=cfg.learning_rate, weight_decay=0.0, warmup_steps=max(1, total // 10), schedule="ramped"
    )
    try:
        fitted = train_loop(
            model,
            shuffled_epochs(data, cfg.batch_size, cfg.epochs, seed),
            batch_loss,
            settings,
            total_steps=total,
            smoothing=0.9,
            max_seconds=cfg.max_minutes * 60,
            should_stop=should_stop,
            on_step=report,
        )
    except TrainingStopped as exc:
        raise TrainingInterrupted("training stopped on request; nothing was written") from exc
    seconds, step, running = fitted.seconds, fitted.steps, fitted.running_loss
    epochs_run, stopped_by_time = fitted.epochs_run, fitted.stopped_by_time
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    return AdapterReport(
        corrections=len(corrections),
        replay_pairs=len(replay),
        epochs_run=epochs_run,
        steps=step,
        seconds=round(seconds, 2),
        pairs_per_s=round(step * cfg.batch_size / max(seconds, 1e-9), 2),
        stopped_by_time=stopped_by_time,
        final_loss=round(running, 4),
        trainable_parameters=trainable,
        hyperparameters={
            "lora_r": cfg.lora_r,
            "lora_alpha": cfg.lora_alpha,
            "lora_dropout": cfg.lora_dropout,
            "target_modules": ["query", "value"],
            "trainable": "LoRA A/B + classification head",
            "learning_rate": cfg.learning_rate,
            "batch_size": cfg.batch_size,
            "epochs": cfg.epochs,
            "max_minutes": cfg.max_minutes,
            "seed": seed,
            "threads": threads,
        },
    )
