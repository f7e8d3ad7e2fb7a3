"""Smoke test of the NLI fine-tuning pipeline: a couple of steps on synthetic pairs, no SNLI files needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lyra_training.nli_card import write_model_card
from lyra_training.nli_data import ID2LABEL, load_snli_pairs
from lyra_training.nli_eval import EvalReport, evaluate_nli_model
from lyra_training.nli_model import TrainingReport, train_nli_model

SUBJECTS = ["A man", "A woman", "Two children", "A dog", "An old lady"]
ACTIONS = ["is running in a park.", "is playing a guitar.", "is eating soup.", "is sleeping on a couch."]


def _write_synthetic_snli(path: Path, n: int = 40) -> None:
    """SNLI-format jsonl with n labelled pairs and one unlabelled ("-") item that must be skipped."""
    rows = []
    for i in range(n):
        subject, action = SUBJECTS[i % len(SUBJECTS)], ACTIONS[i % len(ACTIONS)]
        label = ID2LABEL[i % 3]
        hypothesis = {
            "entailment": f"{subject} is doing something.",
            "contradiction": f"Nobody {action}",
            "neutral": f"{subject} {action.rstrip('.')} with a friend.",
        }[label]
        rows.append({"sentence1": f"{subject} {action}", "sentence2": hypothesis, "gold_label": label})
    rows.append({"sentence1": "A cat sits.", "sentence2": "A cat rests.", "gold_label": "-"})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


def test_load_snli_pairs_skips_items_without_gold_label(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    _write_synthetic_snli(data, n=6)
    pairs = load_snli_pairs(data)
    assert len(pairs) == 6
    assert {p.label for p in pairs} == {"entailment", "neutral", "contradiction"}
    assert len(load_snli_pairs(data, limit=4)) == 4


@pytest.mark.slow
def test_train_save_load_and_predict(tmp_path: Path) -> None:
    from safetensors import safe_open
    from sentence_transformers import CrossEncoder

    data = tmp_path / "pairs.jsonl"
    _write_synthetic_snli(data, n=40)
    out = tmp_path / "model"

    # 40 pairs, 4 held out for monitoring, batches of 18: 2 optimiser steps. One thread, so a busy machine
    # (a training run beside the test suite) cannot stall torch's thread barriers.
    report = train_nli_model(
        data, out, max_pairs=36, batch_size=18, eval_size=4, eval_every=100, num_threads=1, progress=None
    )
    assert isinstance(report, TrainingReport)
    assert (report.pairs, report.steps, report.skipped_no_gold) == (36, 2, 1)
    assert {"model.safetensors", "config.json", "tokenizer.json"} <= {f.name for f in out.iterdir()}
    with safe_open(str(out / "model.safetensors"), framework="pt") as weights:
        assert weights.get_tensor("classifier.weight").dtype.is_floating_point
        assert str(weights.get_tensor("classifier.weight").dtype) == "torch.float16"

    model = CrossEncoder(str(out), device="cpu")
    assert model.config.id2label == ID2LABEL
    scores = model.predict(
        [("A man is playing a guitar.", "A man is playing music."), ("A dog sleeps.", "A cat runs.")]
    )
    assert scores.shape == (2, 3)

    evaluation = evaluate_nli_model(out, data, batch_size=16, num_threads=1)
    assert isinstance(evaluation, EvalReport)
    assert evaluation.pairs == 40 and 0.0 <= evaluation.accuracy <= 1.0
    assert sum(map(sum, evaluation.confusion_matrix)) == 40

    card = write_model_card(out, report, evaluation)
    assert "SUPPORTS" in card.read_text(encoding="utf-8")
    figures = json.loads((out / "training.json").read_text(encoding="utf-8"))
    assert figures["evaluation"]["pairs"] == 40


@pytest.mark.slow
def test_train_nli_cli_runs_the_dagster_job(tmp_path: Path) -> None:
    """`lyra models train-snli` runs the `nli_model_training` job: a two-step smoke run, recorded in the
    home's Dagster instance like every other run."""
    from typer.testing import CliRunner

    from lyra_assets.execution.runs import open_instance
    from lyra_tools.cli import app

    snli = tmp_path / "snli"
    snli.mkdir()
    _write_synthetic_snli(snli / "snli_1.0_train_subset.jsonl", n=40)
    _write_synthetic_snli(snli / "snli_1.0_test.jsonl", n=12)
    out, home = tmp_path / "model", tmp_path / "home"
    result = CliRunner().invoke(
        app,
        [
            "models",
            "train-snli",
            "--snli-dir",
            str(snli),
            "--out",
            str(out),
            "--max-pairs",
            "36",
            "--threads",
            "1",
            "--home",
            str(home),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "nli_model_training succeeded" in result.output
    assert (out / "model.safetensors").exists() and (out / "README.md").exists()
    with open_instance(home) as instance:
        runs = instance.get_run_records()
        assert [r.dagster_run.job_name for r in runs] == ["nli_model_training"]
    missing = CliRunner().invoke(
        app, ["models", "train-snli", "--snli-dir", str(tmp_path / "none"), "--home", str(home)]
    )
    assert missing.exit_code == 1 and "lyra models fetch-snli" in missing.output


@pytest.mark.slow
def test_train_snli_writes_under_the_home_and_never_into_the_package(tmp_path: Path) -> None:
    """Without `--out` the SNLI base goes to `<home>/models/`; the copy shipped in the package is left
    as it was, and the verifier's training then starts from the home's model."""
    from typer.testing import CliRunner

    from lyra_resources.models.model_files import DEFAULT_SNLI_DIR, snli_base_dir, trained_snli_dir
    from lyra_tools.cli import app

    def shipped() -> dict[str, tuple[int, int]]:
        return {
            str(p.relative_to(DEFAULT_SNLI_DIR)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in DEFAULT_SNLI_DIR.rglob("*")
            if p.is_file()
        }

    before = shipped()
    snli = tmp_path / "snli"
    snli.mkdir()
    _write_synthetic_snli(snli / "snli_1.0_train_subset.jsonl", n=40)
    _write_synthetic_snli(snli / "snli_1.0_test.jsonl", n=12)
    home = tmp_path / "home"
    result = CliRunner().invoke(
        app,
        [
            "models",
            "train-snli",
            "--snli-dir",
            str(snli),
            "--max-pairs",
            "36",
            "--threads",
            "1",
            "--home",
            str(home),
        ],
    )
    assert result.exit_code == 0, result.output
    out = home / "models" / DEFAULT_SNLI_DIR.name
    assert out == trained_snli_dir(home)
    assert {"model.safetensors", "config.json", "README.md", "training.json"} <= {
        p.name for p in out.iterdir()
    }
    assert shipped() == before
    assert snli_base_dir(home) == out
