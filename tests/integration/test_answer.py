"""The answer to a task's question: ``task_answer`` materialized by Dagster in-process over a real
DuckDB graph, and the same answer as people see it once human feedback applies."""

from __future__ import annotations

import anyio
import pytest

from fixtures.answers import add_hypothesis, run_answer
from fixtures.graphs import PAPERS, write_graph
from fixtures.stores import copy_store, template_store
from lyra_core.evidence import edge_id_for
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools import explore
from lyra_tools.feedback.apply import apply_feedback


@pytest.fixture(scope="module")
def answered_template(tmp_path_factory, request):
    """The graph with its hypothesis and ``task_answer`` materialized, built once per module."""
    store = template_store(request, tmp_path_factory.mktemp("answered") / "home")
    graph = write_graph(store)
    claim_id = add_hypothesis(store, graph)
    metadata = run_answer(store, graph.task_id)
    return store, graph, claim_id, metadata


@pytest.fixture
def answered(answered_template, tmp_path):
    """A copy of the answered home for one test to change, with the template's graph, hypothesis and
    the answer's materialization metadata."""
    store, graph, claim_id, metadata = answered_template
    return copy_store(store, tmp_path / "home"), graph, claim_id, metadata


def test_task_answer_judges_the_hypothesis_per_paper(answered):
    store, graph, claim_id, metadata = answered
    row = store.read_partition("task_answer", graph.task_id).iloc[0]
    assert row["hypothesis"] == "Vitamin D supplementation reduces fracture risk in older adults."
    assert (row["origin"], row["question_reading"]) == ("hypothesis", "rule")
    assert metadata["question_reading"].value == "rule"
    score = store.fetch_df("SELECT * FROM claim_scores WHERE claim_id = ?", [claim_id]).iloc[0]
    assert (row["verdict"], row["confidence"]) == (score["verdict"], score["confidence"])
    # meta, falls and the blog vote for, WHI against; the falls paper's neutral fragment adds no paper
    assert (row["supporting_papers"], row["refuting_papers"], row["papers_judged"]) == (3, 1, 4)
    assert row["strongest_support_edge"] == edge_id_for(graph.task_id, graph.fragments[("blog", 0)], claim_id)
    assert row["strongest_refute_edge"] == edge_id_for(graph.task_id, graph.fragments[("whi", 0)], claim_id)
    first = metadata["answer"].value.splitlines()[0]
    # the voting papers weighed by design: the meta-analysis for, the trial against (the falls
    # paper and the blog state none)
    assert first == (
        f"Answer: {row['verdict'].replace('_', ' ')} ({row['confidence']:.2f} ± {row['uncertainty']:.2f}) — "
        "3 papers for, 1 against, 4 judged — designs: 1 meta-analysis for; 1 RCT against"
        " — low certainty (studies disagree; read by word overlap only)"
    )
    assert (
        "- against: Calcium plus vitamin D supplementation and the risk of fractures"
        in metadata["answer"].value
    )
    assert list(store.read_partition("task_answer", graph.task_id).columns) == [
        "task_id",
        "hypothesis",
        "origin",
        "verdict",
        "confidence",
        "uncertainty",
        "controversy",
        "certainty",
        "certainty_reasons",
        "supporting_papers",
        "refuting_papers",
        "papers_judged",
        "strongest_support_edge",
        "strongest_refute_edge",
        "question_reading",
        "not_addressed",
    ]
    # a passage that voted is about vitamin D supplementation and fracture risk: the papers address the question
    assert row["not_addressed"] is None and not metadata["answer"].value.splitlines()[1].startswith(
        "No passage"
    )
    # the asset's text is the text every view prints (lyra_core.answer.answer_text), as Markdown list items
    from lyra_resources.store.reviewed_graph.answer import answer_lines

    printed = answer_lines(store, graph.task_id)
    assert metadata["answer"].value.splitlines() == [
        line.replace("  ", "- ", 1) if line.startswith("  ") else line for line in printed
    ]


def test_summary_starts_with_the_answer_and_lists_the_hypothesis_as_no_claim(answered):
    store, graph, claim_id, _ = answered
    summary = explore.evidence_summary(store, graph.task_id)
    # the answer's line leads what the summary says (after the list of fields that hold outside text)
    assert [k for k in summary.model_dump() if k != "untrusted_content"][0] == "answer_line"
    assert (
        summary.answer_line.startswith("Answer: ")
        and "3 papers for, 1 against, 4 judged" in summary.answer_line
    )
    assert summary.answer.hypothesis_claim_id == claim_id
    assert [p.title for p in summary.answer.papers_against] == [
        "Calcium plus vitamin D supplementation and the risk of fractures"
    ]
    # the hypothesis is the answer, not one more claim: counts, materials and contradictions leave it out
    assert summary.statistics.total_claims == 4
    assert (summary.statistics.supports_edges, summary.statistics.refutes_edges) == (4, 3)
    full = explore.materials(store, graph.task_id, "full", limit=25)
    assert claim_id not in {c.claim_id for c in full.claims} and full.total == 4
    assert claim_id not in {
        c.claim_id for c in explore.find_contradictions(store, graph.task_id).contradictions
    }
    # but its evidence can be shown, edge ids included
    evidence = explore.claim_evidence(store, claim_id)
    assert evidence.origin == "hypothesis" and len(evidence.evidence.supports) == 3


def test_feedback_changes_the_answer_people_see(answered):
    store, graph, claim_id, _ = answered
    whi = edge_id_for(graph.task_id, graph.fragments[("whi", 0)], claim_id)
    apply_feedback(store, graph.task_id, "edge_correct", {"edge_id": whi, "correct_relation": "SUPPORTS"})
    apply_feedback(store, graph.task_id, "domain_block", {"domain_pattern": "spam-site.com", "reason": "ads"})
    answer = explore.evidence_summary(store, graph.task_id).answer
    assert (answer.supporting_papers, answer.refuting_papers, answer.papers_judged) == (3, 0, 3)
    assert answer.recomputed and answer.strongest_refute_edge is None
    assert answer.line.endswith(
        "3 papers for, 0 against, 3 judged — designs: 1 meta-analysis and 1 RCT for — high certainty"
    )


def test_an_open_question_is_answered_by_its_most_relevant_claims(tmp_path):
    store = LyraStore.at(tmp_path / "home")
    graph = write_graph(store, query="What determines fracture risk in older adults?")
    metadata = run_answer(store, graph.task_id)
    row = store.read_partition("task_answer", graph.task_id).iloc[0]
    assert row["origin"] == "open_question" and row["hypothesis"] is None and row["verdict"] is None
    assert row["question_reading"] == "open_question"
    lines = metadata["answer"].value.splitlines()
    assert lines[0] == "Answer: open question (no yes/no hypothesis to judge) — 4 most relevant claims follow"
    assert lines[1].startswith("- High-dose vitamin D reduces hip fracture risk")  # relevance 0.9 first
    apply_feedback(
        store, graph.task_id, "claim_reject", {"claim_id": graph.claims["hip"], "reason": "off topic"}
    )
    answer = explore.evidence_summary(store, graph.task_id).answer
    assert graph.claims["hip"] not in [c.claim_id for c in answer.claims] and len(answer.claims) == 3
    assert answer.claims[0].topic == "hip fracture dose"


def test_an_open_question_whose_claims_are_about_other_things_says_no_claim_addresses_it(tmp_path):
    store = LyraStore.at(tmp_path / "home")
    graph = write_graph(store, query="What are the effects of exercise on depression?")
    claims = store.read_partition("claims", graph.task_id).drop(columns="task_id")
    store.replace_partition("claims", graph.task_id, claims.assign(adoption_status="not_adopted"))
    metadata = run_answer(store, graph.task_id)
    row = store.read_partition("task_answer", graph.task_id).iloc[0]
    assert row["not_addressed"].startswith(
        f"No claim in the {len(PAPERS)} papers addresses exercise and depression together; the closest are “"
    )
    assert metadata["answer"].value.splitlines()[1] == row["not_addressed"]
    from lyra_resources.store.reviewed_graph.answer import answer_lines

    assert (
        answer_lines(store, graph.task_id)[1] == row["not_addressed"]
    )  # the CLI summary, MCP and the report
    # a question that names its parts but has claims about them is answered by them, with no such line
    on_topic = LyraStore.at(tmp_path / "home2")
    other = write_graph(on_topic, query="What are the effects of vitamin D on fracture risk?")
    run_answer(on_topic, other.task_id)
    assert on_topic.read_partition("task_answer", other.task_id).iloc[0]["not_addressed"] is None


def test_the_cli_summary_starts_with_the_answer(answered, capsys):
    from lyra_assets.execution import run_control
    from lyra_tools.cli import run as cli_run

    store, graph, claim_id, _ = answered
    outcome = run_control.RunOutcome(
        task_id=graph.task_id, run_id="r1", success=True, status="SUCCESS", assets={}
    )
    cli_run.print_summary(outcome, store.layout.root)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Answer: ") and lines[0].endswith(
        "3 papers for, 1 against, 4 judged — designs: "
        "1 meta-analysis for; 1 RCT against — low "
        "certainty (studies disagree; read by word overlap "
        "only)"
    )
    assert (
        lines[1]
        == "Hypothesis (read by rule from the question): Vitamin D supplementation reduces fracture risk "
        "in older adults."
    )
    assert lines[2] == f"  claim {claim_id}: `lyra evidence {graph.task_id}` lists its passages"
    assert lines[3].startswith("  for: Vitamin D miracle")  # strongest vote first


def test_an_untitled_paper_is_shown_by_the_opening_of_its_abstract(answered):
    # BEIR-style corpora leave titles empty: the answer names such a paper by its first words, not its id
    store, graph, _, _ = answered
    with store.connect() as conn:
        conn.execute(
            "UPDATE papers SET title = '' WHERE task_id = ? AND title LIKE 'Calcium plus vitamin D%'",
            [graph.task_id],
        )
        abstract = conn.execute(
            "SELECT abstract FROM papers WHERE task_id = ? AND title = ''", [graph.task_id]
        ).fetchone()[0]
        answer = explore.effective_answer(conn, graph.task_id, explore.load_overlay(conn, graph.task_id))
    (against,) = answer.papers_against
    assert against.title == f"Untitled: {abstract[:80]}…"


UNADDRESSED_QUESTION = "Is obesity associated with increased risk of type 2 diabetes?"


def test_a_question_no_paper_addresses_says_so_and_names_the_closest_papers(tmp_path, capsys):
    """The graph's four papers are about vitamin D and fractures; asked about obesity and type 2
    diabetes, their passages still vote (the cross-encoder read them so), yet none is about both."""
    from lyra_assets.execution import run_control
    from lyra_tools.cli import run as cli_run

    store = LyraStore.at(tmp_path / "home")
    graph = write_graph(store, query=UNADDRESSED_QUESTION)
    add_hypothesis(store, graph, UNADDRESSED_QUESTION)
    metadata = run_answer(store, graph.task_id)
    row = store.read_partition("task_answer", graph.task_id).iloc[0]
    line = (
        "No passage in the 4 papers addresses obesity and risk of type 2 diabetes together; the closest are "
        "“Vitamin D supplementation and fracture risk: a meta-analysis of randomized trials”; "
        "“Calcium plus vitamin D supplementation and the risk of fractures”; “Vitamin D and falls in nursing homes”"
    )
    assert row["not_addressed"] == line
    assert row["supporting_papers"] == 3  # the votes stand; the line says what they are not about
    answer_text = metadata["answer"].value.splitlines()
    assert answer_text[0].startswith("Answer: ") and answer_text[1] == line
    assert explore.evidence_summary(store, graph.task_id).answer.not_addressed == line  # MCP's answer too
    outcome = run_control.RunOutcome(
        task_id=graph.task_id, run_id="r1", success=True, status="SUCCESS", assets={}
    )
    cli_run.print_summary(outcome, store.layout.root)  # `lyra run`'s summary
    assert capsys.readouterr().out.splitlines()[1] == line
    from lyra_resources.store.reviewed_graph.report import report_html, report_markdown

    assert f"**{line}**" in report_markdown(store, graph.task_id)  # the report says it under the answer
    assert f'<p class="answer">{line}</p>' in report_html(store, graph.task_id)


FALLBACK_QUESTION = (
    "Does birth weight affect fracture risk in older adults?"  # "weight" or "affect": two readings
)
FALLBACK_NOTE = "the question without its auxiliary: no grammatical reading was sure"


def test_every_view_of_the_answer_says_the_hypothesis_is_the_question_without_its_auxiliary(tmp_path, capsys):
    from mcp import Client
    from typer.testing import CliRunner

    from lyra_assets.execution import run_control
    from lyra_resources.store.reviewed_graph.report import report_html, report_markdown
    from lyra_tools.cli import app
    from lyra_tools.cli import run as cli_run
    from lyra_tools.mcp.server import build_server

    store = LyraStore.at(tmp_path / "home")
    graph = write_graph(store, query=FALLBACK_QUESTION)
    add_hypothesis(store, graph, FALLBACK_QUESTION)
    metadata = run_answer(store, graph.task_id)
    stated = f"Hypothesis ({FALLBACK_NOTE}): Birth weight affect fracture risk in older adults."
    row = store.read_partition("task_answer", graph.task_id).iloc[0]
    assert (row["hypothesis"], row["verdict"] is not None) == (
        "Birth weight affect fracture risk in older adults.",
        True,
    )
    assert row["question_reading"] == "fallback" and metadata["question_reading"].value == "fallback"
    # the question's parts are read now (birth weight → fracture risk): the answer says no passage addresses
    # them together, and says which hypothesis it judged
    assert stated in metadata["answer"].value.splitlines()

    outcome = run_control.RunOutcome(
        task_id=graph.task_id, run_id="r1", success=True, status="SUCCESS", assets={}
    )
    cli_run.print_summary(outcome, store.layout.root)  # `lyra run`'s summary
    assert stated in capsys.readouterr().out.splitlines()
    status = CliRunner().invoke(app, ["task", "status", graph.task_id, "--home", str(store.layout.root)])
    assert status.exit_code == 0 and stated in status.output.splitlines()

    assert f"- Hypothesis judged ({FALLBACK_NOTE}): Birth weight affect" in report_markdown(
        store, graph.task_id
    )
    assert f"Hypothesis judged ({FALLBACK_NOTE}): Birth weight affect" in report_html(store, graph.task_id)

    async def summary():
        async with Client(build_server(store.layout.root)) as client:
            return await client.call_tool("get_evidence_summary", {"task_id": graph.task_id})

    answer = anyio.run(summary).structured_content["answer"]
    assert (answer["question_reading"], answer["hypothesis"]) == ("fallback", row["hypothesis"])
