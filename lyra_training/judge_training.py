"""Train the evidence selector (shipped) and the label model (measured, not shipped yet) from the
public datasets (docs/selector.md):

    .venv/bin/python -m lyra_training.judge_training --data ../shared/data --out DIR

writes ``DIR/lyra-selector-minilm-l6`` and ``DIR/lyra-label-minilm-l6`` (weights fp16, with their
``training.json``); copy them over ``lyra_resources/model_weights/`` to ship them. Both start from the
SNLI model shipped beside them. On 2 CPU cores each takes about an hour.
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from pathlib import Path

from lyra_resources.models.model_files import DEFAULT_SNLI_DIR
from lyra_training.label_model import LabelRecipe, train_label_model
from lyra_training.nli_model import save_fp16
from lyra_training.selector import SelectorRecipe, train_selector


def train_learned_judge(
    data: Path,
    out: Path,
    base: Path = DEFAULT_SNLI_DIR,
    label_only: bool = False,
    figures: bool = False,
    seed: int = 13,
) -> dict:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    label_recipe = LabelRecipe(figures=figures, seed=seed)
    if label_only:
        return {"label": train_label_model(data, out / "lyra-label-minilm-l6", base, label_recipe)}
    with tempfile.TemporaryDirectory() as work:
        selector = train_selector(
            data, Path(work), base, SelectorRecipe(), progress=logging.getLogger(__name__).info
        )
        model = AutoModelForSequenceClassification.from_pretrained(work)
        save_fp16(model, AutoTokenizer.from_pretrained(work), out / "lyra-selector-minilm-l6")
    (out / "lyra-selector-minilm-l6" / "training.json").write_text(json.dumps(selector, indent=2) + "\n")
    label = train_label_model(data, out / "lyra-label-minilm-l6", base, label_recipe)
    return {"selector": selector, "label": label}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="folder holding scifact/ and nli_training/")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--label-only", action="store_true", help="train the label model alone")
    parser.add_argument("--figures", action="store_true", help="the figure reader's note beside passages")
    parser.add_argument("--base", type=Path, default=DEFAULT_SNLI_DIR, help="the encoder to start from")
    parser.add_argument("--seed", type=int, default=13, help="the label model's data draw and training order")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    record = train_learned_judge(
        args.data, args.out, args.base, label_only=args.label_only, figures=args.figures, seed=args.seed
    )
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
