"""Training Lyra's evidence selector: a cross-encoder that scores whether a sentence of an abstract
reports the finding a claim (or "effect of I versus C on O") is about (docs/selector.md).

It is trained as Lyra's rerankers are (``fit_reranker``: one relevance logit, binary cross-entropy,
the one training loop), from the SNLI model and never from the verifier, whose SciFact training
would leak into the SciFact figures the selector is scored on. Its data (``selector_data``): the
evidence sentences of Evidence Inference (v1+v2, abstract level) and Check-COVID against the other
sentences of the same abstract and sentences of other abstracts; every training abstract that
shares a passage with a validation or test abstract of any set Lyra is measured on is dropped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from lyra_training.reranker import fit_reranker
from lyra_training.selector_data import (
    EvidenceQuery,
    read_check_covid,
    read_ei_v2,
    read_linearized,
    read_scifact,
    selector_pairs,
    without_leaks,
)


class SelectorRecipe(BaseModel):
    negatives: int = 3  # other sentences of the same abstract per query: the hard, useful case
    far_negatives: int = 0  # sentences of other abstracts: cosine already tells those apart
    epochs: int = 1
    batch_size: int = 16
    lr: float = 5e-5
    max_length: int = 96  # a query and one sentence
    frozen_layers: int = 3  # embeddings and the lower three layers kept (fit_reranker says why)
    seed: int = 13


class SelectorData(BaseModel):
    """The training side and every held-out side it was checked against."""

    train: list[EvidenceQuery]
    validation: list[EvidenceQuery]  # Evidence Inference dev abstracts, Check-COVID dev
    dropped_articles: int


def held_out_sides(data: Path) -> dict[str, list[EvidenceQuery]]:
    """Every set a selector or judge figure is read on: no training abstract may share a passage
    with one of these."""
    nli = data / "nli_training"
    linearized = nli / "evidence_inference_linearized"
    return {
        "ei_dev": read_linearized(linearized / "dev_wlabels.csv"),
        "ei_test": read_linearized(linearized / "test_wlabels.csv"),
        "ei_v2_validation": read_ei_v2(nli / "evidence_inference", "validation"),
        "ei_v2_test": read_ei_v2(nli / "evidence_inference", "test"),
        "check_covid_dev": read_check_covid(nli / "check_covid", "dev"),
        "check_covid_test": read_check_covid(nli / "check_covid", "test"),
        "scifact_train": read_scifact(
            data / "scifact" / "claims_train.jsonl", data / "scifact" / "corpus.jsonl", unannotated=True
        ),
    }


def selector_data(data: Path) -> SelectorData:
    nli = data / "nli_training"
    train = read_linearized(nli / "evidence_inference_linearized" / "train_wlabels.csv")
    train += read_check_covid(nli / "check_covid", "train")
    sides = held_out_sides(data)
    kept = without_leaks(train, *sides.values())
    return SelectorData(
        train=kept,
        validation=sides["ei_dev"] + sides["check_covid_dev"],
        dropped_articles=len({q.article for q in train}) - len({q.article for q in kept}),
    )


def train_selector(
    data: Path,
    out_dir: Path,
    base_model_dir: Path,
    recipe: SelectorRecipe | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Train the selector on every usable side and save it with ``training.json`` beside it."""
    recipe = recipe or SelectorRecipe()
    started = time.perf_counter()
    prepared = selector_data(data)
    pairs = selector_pairs(prepared.train, recipe.negatives, recipe.far_negatives, recipe.seed)
    fitted = fit_reranker(
        pairs,
        out_dir,
        base_model_dir,
        epochs=recipe.epochs,
        batch_size=recipe.batch_size,
        lr=recipe.lr,
        max_length=recipe.max_length,
        seed=recipe.seed,
        frozen_layers=recipe.frozen_layers,
        progress=progress,
    )
    record = {
        "recipe": recipe.model_dump(),
        "base_model": Path(base_model_dir).name,
        "queries": len(prepared.train),
        "articles": len({q.article for q in prepared.train}),
        "by_source": {
            s: sum(q.source == s for q in prepared.train) for s in sorted({q.source for q in prepared.train})
        },
        "dropped_articles_sharing_text_with_held_out_sets": prepared.dropped_articles,
        "pairs": len(pairs),
        "fit": fitted.model_dump(exclude={"out_dir", "base_model"}),
        "seconds": round(time.perf_counter() - started, 1),
    }
    (Path(out_dir) / "training.json").write_text(json.dumps(record, indent=2) + "\n")
    return record
