"""The models shipped in the package, recorded as materializations of their assets.

A trained SNLI base (`nli_model`), claim verifier (`verifier_model`) and direction reader
(`direction_reader`) ship in
`lyra_resources/model_weights`, so a fresh home has both without running their training jobs.
Without a record, the Dagster UI would show them as never materialized; `record_shipped_models`
records each shipped copy once, on an instance that has no materialization of the asset yet; a
training run on the home materializes the asset again, and that one is then the latest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dagster import AssetKey, AssetMaterialization, DagsterInstance, MetadataValue

from lyra_resources.models.model_files import (
    DEFAULT_DIRECTION_DIR,
    DEFAULT_NLI_DIR,
    DEFAULT_SNLI_DIR,
    base_version,
)

# Each model asset and the folder its shipped copy lies in.
SHIPPED_MODELS: dict[str, Path] = {
    "nli_model": DEFAULT_SNLI_DIR,
    "verifier_model": DEFAULT_NLI_DIR,
    "direction_reader": DEFAULT_DIRECTION_DIR,
}
SHIPPED_TAG = "lyra/shipped"


def _training_figures(model_dir: Path) -> dict[str, Any]:
    """The model card's headline figures (its `training.json`), as metadata; none when it is absent."""
    path = model_dir / "training.json"
    if not path.exists():
        return {}
    card = json.loads(path.read_text(encoding="utf-8"))
    if "test" in card.get("evaluation", {}):  # the direction reader: Evidence Inference test articles
        test = card["evaluation"]["test"]
        return {
            "evidence_inference_test_macro_f1": MetadataValue.float(float(test["macro_f1"])),
            "evidence_inference_test_pairs": MetadataValue.int(int(test["pairs"])),
        }
    if "evaluation" in card:  # the SNLI base: accuracy on the SNLI test set
        evaluation = card["evaluation"]
        return {
            "snli_test_accuracy": MetadataValue.float(float(evaluation["accuracy"])),
            "snli_test_macro_f1": MetadataValue.float(float(evaluation["macro_f1"])),
            "snli_test_pairs": MetadataValue.int(int(evaluation["pairs"])),
        }
    return {
        "out_of_fold_accuracy": MetadataValue.float(float(card["oof_accuracy"])),  # the verifier
        "out_of_fold_pairs": MetadataValue.int(int(card["oof_pairs"])),
        "temperature": MetadataValue.float(float(card["temperature"])),
    }


def shipped_materialization(asset: str, model_dir: Path) -> AssetMaterialization:
    """A materialization of `asset` that stands for the copy shipped in `model_dir`."""
    return AssetMaterialization(
        asset_key=asset,
        description=f"The copy shipped with Lyra in {model_dir.name}, not trained on this home.",
        metadata={
            "source": MetadataValue.text("shipped with Lyra (lyra_resources/model_weights)"),
            "path": MetadataValue.path(str(model_dir)),
            "version": MetadataValue.text(base_version(model_dir)),
            "model_card": MetadataValue.path(str(model_dir / "README.md")),
            **_training_figures(model_dir),
        },
        tags={SHIPPED_TAG: "true"},
    )


def record_shipped_models(instance: DagsterInstance) -> list[str]:
    """Record the shipped copy of each model asset the instance has no materialization of; returns
    the assets recorded (none on every later call)."""
    recorded = []
    for asset, model_dir in SHIPPED_MODELS.items():
        if not (model_dir / "model.safetensors").exists():
            continue  # a package without the weights has nothing to show
        if instance.get_latest_materialization_event(AssetKey(asset)) is not None:
            continue
        instance.report_runless_asset_event(shipped_materialization(asset, model_dir))
        recorded.append(asset)
    return recorded
