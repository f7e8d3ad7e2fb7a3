"""Training Lyra's label model: a 3-way cross-encoder that reads a claim with the evidence sentences
the selector chose from one abstract and says SUPPORTS, REFUTES or NEUTRAL (docs/selector.md).

From the SNLI model (never from the verifier, so that no SciFact claim reaches it), one stage over
``label_data``'s pairs (Evidence Inference findings as claims in every direction, Check-COVID, and
generated findings in the forms abstracts use), on the training side the selector uses, with every
abstract that shares a passage with a held-out set dropped; then a temperature fitted on the
validation side (Evidence Inference dev findings and Check-COVID dev claims) so its probabilities
are calibrated. Trained through ``verifier.train_stage``, Lyra's one recipe for pair classifiers.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from pydantic import BaseModel

from lyra_training.label_data import check_covid_pairs, finding_pairs, form_pairs
from lyra_training.nli_data import LABEL2ID, NliPair
from lyra_training.selector import held_out_sides, selector_data
from lyra_training.selector_data import read_check_covid, without_leaks
from lyra_training.verifier import (
    VerifierRecipe,
    fit_temperature,
    pair_logits,
    train_stage,
    write_calibration,
)


class LabelRecipe(BaseModel):
    epochs: int = 1
    lr: float = 4e-5
    batch_size: int = 16
    max_length: int = 160  # a claim and two sentences
    forms_per_topic: int = 1
    figures: bool = False  # the figure reader's note beside each passage (lyra_core.figure_notes)
    seed: int = 13


def training_pairs(data: Path, recipe: LabelRecipe) -> tuple[list[NliPair], dict[str, int]]:
    prepared = selector_data(data)
    findings = [q for q in prepared.train if q.source == "evidence_inference"]
    covid = without_leaks(
        read_check_covid(data / "nli_training" / "check_covid", "train", with_nei=True),
        *held_out_sides(data).values(),
    )
    parts = {
        "findings": finding_pairs(findings, recipe.seed, figures=recipe.figures),
        "check_covid": check_covid_pairs(covid, recipe.figures),
        "generated_forms": form_pairs(findings, recipe.forms_per_topic, recipe.seed, recipe.figures),
    }
    pairs = [p for part in parts.values() for p in part]
    random.Random(recipe.seed).shuffle(pairs)
    return pairs, {name: len(part) for name, part in parts.items()}


def validation_pairs(data: Path, recipe: LabelRecipe) -> list[NliPair]:
    sides = held_out_sides(data)
    covid = read_check_covid(data / "nli_training" / "check_covid", "dev", with_nei=True)
    return finding_pairs(sides["ei_dev"], recipe.seed + 1, figures=recipe.figures) + check_covid_pairs(
        covid, recipe.figures
    )


def train_label_model(
    data: Path, out_dir: Path, base_model_dir: Path, recipe: LabelRecipe | None = None
) -> dict:
    """Train, calibrate on the validation side and save with ``training.json`` beside the weights."""
    recipe = recipe or LabelRecipe()
    started = time.perf_counter()
    pairs, sizes = training_pairs(data, recipe)
    stage = VerifierRecipe(batch_size=recipe.batch_size, max_length=recipe.max_length, seed=recipe.seed)
    fitted = train_stage(
        Path(base_model_dir),
        pairs,
        out_dir,
        epochs=recipe.epochs,
        lr=recipe.lr,
        recipe=stage,
        seed=recipe.seed,
    )
    held = validation_pairs(data, recipe)
    logits = pair_logits(out_dir, held, recipe.max_length)
    labels = [LABEL2ID[p.label] for p in held]
    temperature = fit_temperature(logits, labels)
    accuracy = float((logits.argmax(axis=1) == labels).mean())
    write_calibration(
        out_dir, temperature, {"fitted_on": f"{len(held)} validation pairs", "accuracy": accuracy}
    )
    record = {
        "recipe": recipe.model_dump(),
        "base_model": Path(base_model_dir).name,
        "pairs": sizes,
        "fit": fitted,
        "validation": {"pairs": len(held), "accuracy": round(accuracy, 4), "temperature": temperature},
        "seconds": round(time.perf_counter() - started, 1),
    }
    (out_dir / "training.json").write_text(json.dumps(record, indent=2) + "\n")
    return record
