"""`lyra task run` on a task whose inputs have not changed since its graph was built: nothing runs.
What a run reads is digested (``lyra_resources.store.run_inputs``) and kept with the graph it publishes;
a change to the corpus, the settings or the feedback makes the next re-run a real one, and so does a
report missing or older than the graph (a run killed before ``task_report`` wrote it)."""

from __future__ import annotations

import os
import re
import time

import pytest
from typer.testing import CliRunner

from fixtures.corpus import SMALL_CORPUS, write_jsonl
from lyra_resources.store.generations import recent_generations
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app
from lyra_tools.feedback.apply import apply_feedback


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def runs(store: LyraStore, task_id: str) -> int:
    return len(recent_generations(store, task_id, limit=50))


@pytest.mark.slow
def test_an_unchanged_task_is_not_run_again_and_any_change_to_what_it_reads_runs_it(tmp_path, monkeypatch):
    home = str(tmp_path / "h")
    corpus = write_jsonl(tmp_path / "corpus.jsonl", SMALL_CORPUS)
    settings = tmp_path / "settings.yaml"
    settings.write_text("evidence:\n  vote_weight: 4.0\n")
    monkeypatch.setenv("LYRA_SETTINGS", str(settings))
    first = invoke(
        "run", "Does vitamin D supplementation reduce fracture risk?", "--corpus", str(corpus), "--home", home
    )
    assert first.exit_code == 0, first.output
    task_id = re.search(r"task_[0-9a-f]{8}", first.output).group(0)
    store = LyraStore.at(home)
    graph = {t: store.read_partition(t, task_id) for t in ("papers", "claims", "nli_edges", "claim_scores")}

    same = invoke("task", "run", task_id, "--home", home)
    assert same.exit_code == 0 and "unchanged since run" in same.output and "--force" in same.output
    assert "Answer:" in same.output  # the answer still stands where the user looks for it
    assert runs(store, task_id) == 1
    assert all(store.read_partition(t, task_id).equals(rows) for t, rows in graph.items())

    forced = invoke("task", "run", task_id, "--force", "--home", home)
    assert forced.exit_code == 0 and "unchanged since run" not in forced.output and runs(store, task_id) == 2

    write_jsonl(
        corpus,
        [
            *SMALL_CORPUS,
            {
                "doc_id": 9,
                "title": "Vitamin D and falls",
                "abstract": ["Vitamin D did not reduce falls in 2,000 older adults."],
            },
        ],
    )
    assert (
        "unchanged since run" not in invoke("task", "run", task_id, "--home", home).output
        and runs(store, task_id) == 3
    )
    assert "unchanged since run" in invoke("task", "run", task_id, "--home", home).output

    settings.write_text("evidence:\n  vote_weight: 3.0\n")
    assert (
        "unchanged since run" not in invoke("task", "run", task_id, "--home", home).output
        and runs(store, task_id) == 4
    )

    claim = store.read_partition("claims", task_id)["claim_id"].iloc[0]
    apply_feedback(store, task_id, "claim_reject", {"claim_id": claim, "reason": "off topic"})
    assert (
        "unchanged since run" not in invoke("task", "run", task_id, "--home", home).output
        and runs(store, task_id) == 5
    )

    # a run killed (kill -9) after it published its graph and before `task_report` wrote the files leaves
    # the task completed with its report missing, or as the previous graph's: the next re-run writes it
    report = store.layout.report(task_id)
    files = [report.with_suffix(suffix) for suffix in (".md", ".html", ".svg")]
    assert "unchanged since run" in invoke("task", "run", task_id, "--home", home).output
    report.unlink()
    restored = invoke("task", "run", task_id, "--home", home)
    assert restored.exit_code == 0 and "unchanged since run" not in restored.output, restored.output
    assert runs(store, task_id) == 6 and all(path.is_file() for path in files)
    an_hour_ago = time.time() - 3600
    for path in files:
        os.utime(path, (an_hour_ago, an_hour_ago))
    rewritten = invoke("task", "run", task_id, "--home", home)
    assert rewritten.exit_code == 0 and "unchanged since run" not in rewritten.output, rewritten.output
    assert runs(store, task_id) == 7 and all(path.stat().st_mtime > an_hour_ago + 60 for path in files)
    assert "unchanged since run" in invoke("task", "run", task_id, "--home", home).output
