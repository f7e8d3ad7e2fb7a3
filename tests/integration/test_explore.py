"""Exploration queries over a real DuckDB store holding one small, realistic evidence graph
(``fixtures.graphs``: the rows every asset would write, without running the NLI model)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from fixtures.graphs import CLAIMS, EDGES, NLI_VERSION
from lyra_tools import explore


def size(model) -> int:
    return len(model.model_dump_json().encode())


# -- tests -----------------------------------------------------------------------------------------


def test_summary_counts_topics_and_contradictions(store, graph):
    s = explore.evidence_summary(store, graph.task_id)
    assert s.statistics.total_claims == 4 and s.statistics.not_adopted_claims == 1
    assert (s.statistics.supports_edges, s.statistics.refutes_edges, s.statistics.neutral_edges) == (4, 3, 4)
    assert s.statistics.total_pages == 4 and s.primary_source_ratio == 0.75  # 3 abstracts of 4 pages
    assert [t.topic_id for t in s.top_topics] == ["t_fracture", "t_falls"]
    assert s.contradiction_highlights[0].topic_id == "t_fracture"
    assert s.contradiction_highlights[0].claim_count == 3
    assert size(s) < 2048


def test_topics_and_claims_by_topic_page_with_cursor(store, graph):
    topics = explore.list_claim_topics(store, graph.task_id)
    assert [(t.label, t.claim_count, t.has_contradiction) for t in topics.topics] == [
        ("hip fracture dose", 3, True),
        ("falls nursing home", 1, False),
    ]
    first = explore.claims_by_topic(store, graph.task_id, "hip fracture dose", limit=2)
    assert first.total == 3 and len(first.claims) == 2 and first.next_cursor
    rest = explore.claims_by_topic(
        store, graph.task_id, "hip fracture dose", limit=2, cursor=first.next_cursor
    )
    assert rest.next_cursor is None
    ids = [c.claim_id for c in first.claims + rest.claims]
    assert sorted(ids) == sorted(graph.claims[n] for n in ("hip", "none", "user"))
    with pytest.raises(explore.ExploreError, match="cursor does not belong"):
        explore.claims_by_topic(store, graph.task_id, "t_falls", cursor=first.next_cursor)
    with pytest.raises(explore.ExploreError, match="no topic"):
        explore.claims_by_topic(store, graph.task_id, "vitamin k")


def test_claim_evidence_has_sources_and_bayesian_fields(store, graph):
    ev = explore.claim_evidence(store, graph.claims["user"])  # task found from the claim id
    assert ev.task_id == graph.task_id
    assert [len(ev.evidence.supports), len(ev.evidence.refutes), len(ev.evidence.neutral)] == [2, 1, 1]
    top = ev.evidence.supports[0]
    assert top.nli_confidence == 0.95 and top.source.domain == "spam-site.com" and top.source.kind == "web"
    assert top.probabilities == {"p_supports": 0.95, "p_refutes": 0.025, "p_neutral": 0.025}
    assert ev.evidence.refutes[0].source.url == "https://doi.org/10.1056/nejmoa055218"
    assert ev.evidence.refutes[0].source.trust_level == "academic"
    assert ev.score.alpha == pytest.approx(1 + 0.58 + 0.95, abs=0.01) and ev.score.beta == pytest.approx(1.88)
    assert not ev.score.recomputed and ev.score.method == "bayesian"
    one = explore.claim_evidence(store, graph.claims["user"], graph.task_id, limit=1)
    assert len(one.evidence.supports) == 1 and one.next_cursor
    more = explore.claim_evidence(store, graph.claims["user"], graph.task_id, limit=1, cursor=one.next_cursor)
    assert more.evidence.supports[0].nli_confidence == 0.58 and more.next_cursor is None
    unjudged = explore.claim_evidence(
        store, graph.claims["kidney"], graph.task_id
    )  # not adopted: never judged
    assert unjudged.score is None and unjudged.totals == {"supports": 0, "refutes": 0, "neutral": 0}
    with pytest.raises(explore.ExploreError, match="no claim"):
        explore.claim_evidence(store, "c_doesnotexist")
    with pytest.raises(explore.ExploreError, match="no task"):
        explore.claim_evidence(store, graph.claims["hip"], "task_other")


def test_contradictions_show_both_sides_without_labels(store, graph):
    found = explore.find_contradictions(store, graph.task_id)
    assert found.total == 3
    names = {v: k for k, v in graph.claims.items()}
    by_name = {names[c.claim_id]: c for c in found.contradictions}
    user = by_name["user"]
    assert user.refuting_sources[0].domain == "doi.org" and user.refuting_sources[0].trust_level == "academic"
    assert {s.trust_level for s in user.supporting_sources} == {"academic", "unverified"}
    assert user.topic == "hip fracture dose"
    assert "misinformation" not in found.model_dump_json().lower()


def test_materials_summary_by_default_and_full_paged(store, graph):
    summary = explore.materials(store, graph.task_id)
    assert summary.format == "summary" and summary.summary.task_id == graph.task_id and summary.claims is None
    page = explore.materials(store, graph.task_id, "full", limit=3)
    assert page.total == 4 and len(page.claims) == 3 and page.next_cursor
    last = explore.materials(store, graph.task_id, "full", limit=3, cursor=page.next_cursor)
    assert len(last.claims) == 1 and last.next_cursor is None
    edges = sum(len(c.edges) for c in page.claims + last.claims)
    assert edges == len(EDGES)
    with pytest.raises(explore.ExploreError, match="format"):
        explore.materials(store, graph.task_id, "dump")


def test_answers_stay_bounded_when_the_graph_is_large(store, graph):
    """A task with long texts and many claims: every answer still fits 8 KB, pages carry on."""
    long_claims = pd.DataFrame(
        [
            {
                "claim_id": f"c_long{i:04d}",
                "text": "Vitamin D " + "and calcium " * 200,
                "origin": "extracted",
                "extractor": "local-rules",
                "source_fragment_id": None,
                "adoption_status": "adopted",
                "also_in_fragments": [],
                "relevance": 0.5,
                "extraction_score": 1.0,
                "features": [],
            }
            for i in range(300)
        ]
    )
    claims = pd.concat([store.read_partition("claims", graph.task_id).drop(columns="task_id"), long_claims])
    store.replace_partition("claims", graph.task_id, claims)
    topics = store.read_partition("claim_topics", graph.task_id).drop(columns="task_id")
    row = topics.index[topics["topic_id"] == "t_fracture"][0]
    topics.at[row, "claim_ids"] = list(topics.at[row, "claim_ids"]) + list(long_claims["claim_id"])
    store.replace_partition("claim_topics", graph.task_id, topics)
    answers = [
        explore.evidence_summary(store, graph.task_id),
        explore.list_claim_topics(store, graph.task_id),
        explore.claims_by_topic(store, graph.task_id, "t_fracture", limit=50),
        explore.materials(store, graph.task_id, "full", limit=25),
        explore.claim_evidence(store, "c_long0001", graph.task_id),
    ]
    for answer in answers:
        assert size(answer) <= 8192, type(answer).__name__
    page = answers[2]
    assert page.claims[-1].truncated and page.next_cursor and len(page.claims) < 50


def test_task_status_without_dagster_reports_version_and_counts(store, graph):
    status = explore.task_status(store, graph.task_id, with_dagster=False)
    assert status.edges_nli_version == NLI_VERSION
    assert status.active_nli_version == explore.default_nli_version()  # no adapter recorded in this home
    assert status.row_counts["nli_edges"] == len(EDGES) and status.blocked_domains == []
    tasks = explore.list_tasks(store)
    assert tasks.total == 1 and tasks.tasks[0].id == graph.task_id
    assert json.loads(status.model_dump_json())["feedback"]["events"] == 0


def test_the_report_leaves_out_a_rejected_claim(store, graph):
    from lyra_resources.store.reviewed_graph.report import report_markdown
    from lyra_tools.feedback.apply import apply_feedback

    hip = CLAIMS["hip"][0]
    assert hip in report_markdown(store, graph.task_id)
    apply_feedback(
        store, graph.task_id, "claim_reject", {"claim_id": graph.claims["hip"], "reason": "off topic"}
    )
    text = report_markdown(store, graph.task_id)
    assert hip not in text and CLAIMS["none"][0] in text
