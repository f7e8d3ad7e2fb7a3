"""`lyra claims` and `lyra evidence` over the real DuckDB graph of tests/fixtures/graphs.py: what MCP
shows, as plain lines when piped, Rich tables on a terminal, the MCP JSON with --json."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from lyra_tools import explore
from lyra_tools.cli import app
from lyra_tools.cli import common as cli_common
from lyra_tools.feedback.apply import apply_feedback

cli = CliRunner()


def invoke(store, *args: str):
    return cli.invoke(app, [*args, "--home", store.home], catch_exceptions=False)


def test_claims_lists_every_topic_hides_rejected_and_prints_the_mcp_json(store, graph):
    listed = invoke(store, "claims", graph.task_id)
    assert listed.exit_code == 0, listed.output
    assert (
        "topic t_fracture “hip fracture dose”: 3 claim(s)" in listed.output
        and "topic t_falls" in listed.output
    )
    user = next(line for line in listed.output.splitlines() if graph.claims["user"] in line)
    assert "contested  0.57 ± 0.21  votes 2 for, 1 against  ★ Vitamin D prevents all fractures" in user
    assert all(graph.claims[n] in listed.output for n in ("hip", "none", "falls", "user"))

    apply_feedback(
        store, graph.task_id, "claim_reject", {"claim_id": graph.claims["hip"], "reason": "off topic"}
    )
    hidden = invoke(store, "claims", graph.task_id, "--topic", "hip fracture dose")
    assert graph.claims["hip"] not in hidden.output and graph.claims["user"] in hidden.output
    shown = invoke(
        store, "claims", graph.task_id, "--topic", "t_fracture", "--include-rejected", "--limit", "1"
    )
    assert "[rejected] High-dose vitamin D" in shown.output and "first 1 shown" in shown.output

    as_json = invoke(store, "claims", graph.task_id, "--json")
    lines = [json.loads(line) for line in as_json.output.splitlines()]
    assert lines == [
        explore.claims_by_topic(store, graph.task_id, t, 20).model_dump(mode="json")
        for t in ("t_fracture", "t_falls")
    ]


def test_evidence_shows_edges_with_sources_and_human_corrections(store, graph):
    edge = graph.edges[("user", "whi")]
    fixed = invoke(store, "feedback", "edge-correct", graph.task_id, edge, "supports", "--reason", "misread")
    assert fixed.exit_code == 0, fixed.output
    shown = invoke(store, "evidence", graph.claims["user"])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0].startswith(
        f"claim {graph.claims['user']} (task {graph.task_id}, user): Vitamin D prevents"
    )
    assert "(recomputed from human feedback)" in lines[1] and "SUPPORTS: 3 edge(s)" in shown.output
    at = next(i for i, line in enumerate(lines) if edge in line)
    assert "HUMAN-CORRECTED (model said REFUTES)" in lines[at]
    assert lines[at + 1].strip().startswith("“In this trial of 36,282 postmenopausal women")
    # what a scientist weighs (the trial's design and size), then the paper's DOI with its link
    assert lines[at + 2].strip() == "study: RCT, n = 36,282"
    assert (
        "Calcium plus vitamin D supplementation and the risk of fractures (2019) — doi:10.1056/nejmoa055218 "
        "<https://doi.org/10.1056/nejmoa055218>"
    ) in lines[at + 3]
    falls = lines[next(i for i, line in enumerate(lines) if graph.edges[("user", "falls")] in line) + 2]
    assert "PMID 31234567 <https://pubmed.ncbi.nlm.nih.gov/31234567/>" in falls  # no DOI: its PubMed link
    assert (
        lines[at + 4].strip()
        == "why: set by a reviewer; the judge had read: the cross-encoder reads refutes (0.88)"
    )
    assert "p_sup 0.95 p_ref 0.03" in shown.output  # the model's probabilities of an unreviewed edge

    one = invoke(store, "evidence", graph.claims["user"], "--limit", "1", "--task", graph.task_id)
    assert "SUPPORTS: 3 edge(s), 1 shown" in one.output
    as_json = json.loads(invoke(store, "evidence", graph.claims["user"], "--json").output)
    assert as_json == explore.claim_evidence(store, graph.claims["user"], limit=20).model_dump(mode="json")
    # the terminal is no agent: nothing is recorded as a 'returned' relevance signal
    assert store.fetch_df("SELECT count(*) AS n FROM relevance_signals")["n"][0] == 0


def test_rich_tables_on_a_terminal(store, graph, monkeypatch):
    monkeypatch.setattr(cli_common.console, "_force_terminal", True)
    monkeypatch.setattr(cli_common.console, "width", 220)
    shown = invoke(store, "evidence", graph.claims["user"])
    assert (
        shown.exit_code == 0 and "┃ edge id" in shown.output and graph.edges[("user", "whi")] in shown.output
    )
    listed = invoke(store, "claims", graph.task_id)
    assert "┃ claim id" in listed.output and graph.claims["falls"] in listed.output


def test_unknown_task_or_claim_is_one_line_and_exit_1(store, graph):
    for args, message in (
        (("claims", "task_nope"), "error: no task 'task_nope'"),
        (("claims", graph.task_id, "--topic", "vitamin k"), "error: no topic 'vitamin k'"),
        (("evidence", "c_nope"), "error: no claim 'c_nope' in any task"),
        (("evidence", graph.claims["hip"], "--task", "task_nope"), "error: no task 'task_nope'"),
    ):
        result = invoke(store, *args)
        assert result.exit_code == 1, args
        assert result.output.strip().startswith(message) and len(result.output.strip().splitlines()) == 1, (
            result.output
        )
