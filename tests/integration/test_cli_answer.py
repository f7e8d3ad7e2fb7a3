"""What a scientist reads of a task's answer through `lyra`: the hypothesis's claim id and its
passages, the votes beside every score (passages under the vote threshold named apart), and why an
undecided answer does not decide. The graph is real
DuckDB rows (tests/fixtures/graphs.py) answered by the `task_answer` asset materialized by Dagster."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from fixtures.answers import add_hypothesis, run_answer
from fixtures.graphs import write_graph
from lyra_assets.execution import run_control
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph.report import report_markdown
from lyra_tools.cli import app
from lyra_tools.cli import common as cli_common
from lyra_tools.cli import run as cli_run

# the hypothesis's passages: two refute it, each under the default vote threshold (0.5), one is neutral
WEAK_REFUTING = [("whi", 0, "REFUTES", 0.3), ("meta", 1, "REFUTES", 0.45), ("falls", 1, "NEUTRAL", 0.6)]
CONFLICTING = [("meta", 1, "SUPPORTS", 0.9), ("whi", 0, "REFUTES", 0.85)]
HYPOTHESIS_TEXT = "Vitamin D supplementation reduces fracture risk in older adults."
BELOW = "(2 more below the vote threshold)"
INSUFFICIENT = "insufficient evidence: too few or too weak votes to decide"


def answered(tmp_path, edges, relabel=None):
    store = LyraStore.at(tmp_path / "home")
    graph = write_graph(store, relabel=relabel)
    claim_id = add_hypothesis(store, graph, hypothesis_edges=edges)
    run_answer(store, graph.task_id)
    return store, graph, claim_id


def lyra(store: LyraStore, *args: str):
    return CliRunner().invoke(app, [*args, "--home", str(store.layout.root)], catch_exceptions=False)


def test_status_names_the_hypothesis_and_counts_only_votes_beside_the_score(tmp_path):
    store, graph, claim_id = answered(tmp_path, WEAK_REFUTING)
    status = lyra(store, "task", "status", graph.task_id)
    assert status.exit_code == 0, status.output
    lines = status.output.splitlines()
    # the two refuting passages did not enter the score: they are no "against" beside 0.50 ± 0.29
    assert (
        f"Answer: unverified (0.50 ± 0.29) — 0 papers for, 0 against {BELOW}, 3 judged — {INSUFFICIENT}"
        in lines
    )
    assert f"  claim {claim_id}: `lyra evidence {graph.task_id}` lists its passages" in lines


def test_claims_lists_the_hypothesis_first_and_flagged(tmp_path):
    store, graph, claim_id = answered(tmp_path, WEAK_REFUTING)
    listed = lyra(store, "claims", graph.task_id)
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert lines[0] == (
        "the question's hypothesis, the claim the answer judges (its passages: "
        f"lyra evidence {graph.task_id})"
    )
    assert lines[1] == (
        f"  {claim_id}  unverified  0.50 ± 0.29  votes 0 for, 0 against {BELOW}  "
        f"[question's hypothesis] {HYPOTHESIS_TEXT}"
    )
    assert lines[2].startswith("topic t_fracture") and listed.output.count(claim_id) == 1
    one_topic = lyra(
        store, "claims", graph.task_id, "--topic", "t_falls"
    )  # a topic's listing is that topic's
    assert one_topic.exit_code == 0 and claim_id not in one_topic.output


def test_evidence_of_a_task_is_its_hypothesis_passages(tmp_path):
    store, graph, claim_id = answered(tmp_path, WEAK_REFUTING)
    for args in ((graph.task_id,), ("--task", graph.task_id)):
        shown = lyra(store, "evidence", *args)
        assert shown.exit_code == 0, shown.output
        lines = shown.output.splitlines()
        assert (
            lines[0]
            == f"claim {claim_id} (task {graph.task_id}, the question's hypothesis): {HYPOTHESIS_TEXT}"
        )
        assert lines[1] == f"score: unverified 0.50 ± 0.29  votes 0 for, 0 against {BELOW} — {INSUFFICIENT}"
        assert "REFUTES: 2 edge(s)" in lines and "NEUTRAL: 1 edge(s)" in lines
    assert lyra(store, "evidence", claim_id).output == shown.output  # the claim id itself shows the same


def test_evidence_without_a_hypothesis_is_one_line_and_exit_1(tmp_path):
    store = LyraStore.at(tmp_path / "home")
    graph = write_graph(store, query="What determines fracture risk in older adults?")
    for args, message in (
        ((graph.task_id,), f"error: task {graph.task_id} has no hypothesis"),
        ((), "error: give a claim id"),
        ((graph.task_id, "--task", "task_other"), "names another: give one task"),
    ):
        result = lyra(store, "evidence", *args)
        assert result.exit_code == 1, args
        assert len(result.output.strip().splitlines()) == 1 and message in result.output, result.output


def test_conflicting_evidence_is_told_from_insufficient(tmp_path):
    store, graph, claim_id = answered(tmp_path, CONFLICTING)
    status = lyra(store, "task", "status", graph.task_id)
    answer = next(line for line in status.output.splitlines() if line.startswith("Answer: "))
    assert answer.startswith("Answer: contested (")
    assert answer.endswith(
        "— 1 paper for, 1 against, 2 judged — designs: 1 meta-analysis for; 1 RCT against "
        "— conflicting evidence: strong votes on both sides"
    )
    evidence = lyra(store, "evidence", graph.task_id).output.splitlines()
    assert evidence[1].endswith("votes 1 for, 1 against — conflicting evidence: strong votes on both sides")


def test_the_run_summary_prints_each_path_whole_on_its_line(tmp_path, capsys):
    """A home deep in the file system (a test worker's temporary folder, say): the summary's paths
    are not folded at the console's width, so they can be copied from a terminal or read from a pipe."""
    store, graph, _ = answered(
        tmp_path / ("a-folder-with-a-long-name-" * 3) / "[bold]home[/bold]", WEAK_REFUTING
    )
    outcome = run_control.RunOutcome(
        task_id=graph.task_id, run_id="r1", success=True, status="SUCCESS", assets={}
    )
    cli_run.print_summary(outcome, store.layout.root)
    lines = capsys.readouterr().out.splitlines()
    assert f"DuckDB:  {store.layout.database}" in lines, lines[-4:]
    assert f"Parquet: {store.layout.parquet}/<table>/task_id={graph.task_id}/data.parquet" in lines, lines[
        -4:
    ]


def test_the_summary_and_report_show_votes_beside_each_claim_score(tmp_path, capsys, monkeypatch):
    # claim "none": the meta abstract refutes it (a vote), the falls abstract supports it at 0.3 (no vote)
    store, graph, _ = answered(tmp_path, WEAK_REFUTING, relabel={("none", "falls"): ("SUPPORTS", 0.3)})
    votes = "0 for, 1 against (1 more below the vote threshold)"
    monkeypatch.setattr(cli_common.console, "width", 250)
    outcome = run_control.RunOutcome(
        task_id=graph.task_id, run_id="r1", success=True, status="SUCCESS", assets={}
    )
    cli_run.print_summary(outcome, store.layout.root)
    row = next(line for line in capsys.readouterr().out.splitlines() if "Calcium with vitamin D" in line)
    assert re.search(rf"likely false\s*│\s*0\.\d\d\s*│\s*0\.\d\d\s*│\s*{re.escape(votes)}\s*│", row), (
        row
    )  # the verdict in words, not its token
    assert f"votes: {votes}" in report_markdown(store, graph.task_id)
    listed = lyra(store, "claims", graph.task_id).output
    assert f"votes {votes}  Calcium with vitamin D" in listed
