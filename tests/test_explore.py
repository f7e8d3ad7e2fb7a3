"""Exploration queries over a real DuckDB store holding one small, realistic evidence graph.

``write_graph`` builds the rows every asset would write (papers, pages, fragments, claims,
nli_edges, claim_scores, claim_topics) with the pipeline's own id functions, so the tests of
feedback and of the MCP server use it too (without running the NLI model).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd
import pytest

from lyra_assets.documents import domain_of, page_id_for, paper_url
from lyra_core.claims import claim_id_for
from lyra_core.evidence import edge_id_for, edge_probabilities, unread_parts
from lyra_core.evidence_facts import design_columns
from lyra_core.fragments import make_fragments
from lyra_core.papers import paper_id_for
from lyra_core.scoring import Evidence, score_claim
from lyra_resources.store import LyraStore
from lyra_tools import explore

from conftest import copy_store, template_store

QUESTION = "Does vitamin D supplementation reduce fracture risk in older adults?"
NLI_VERSION = "lyra-nli-minilm-l6@test"

PAPERS = {
    "meta": {"doi": "10.1001/jama.2019.0001", "kind": "abstract",
             "title": "Vitamin D supplementation and fracture risk: a meta-analysis of randomized trials",
             "text": "We pooled 11 randomized trials of vitamin D supplementation in adults over 65. "
                     "High-dose vitamin D reduced hip fracture risk by 30% (RR 0.70, 95% CI 0.58-0.86). "
                     "Low doses showed no significant effect."},
    "whi": {"doi": "10.1056/nejmoa055218", "kind": "abstract",
            "title": "Calcium plus vitamin D supplementation and the risk of fractures",
            "text": "In this trial of 36,282 postmenopausal women, calcium with vitamin D did not reduce hip "
                    "fractures. Kidney stones were more frequent in the treatment group."},
    "falls": {"pmid": "31234567", "kind": "abstract", "title": "Vitamin D and falls in nursing homes",
              "text": "Vitamin D reduced falls among nursing home residents. Fracture rates were unchanged "
                      "after two years."},
    "blog": {"url": "https://www.spam-site.com/vitamin-d-miracle", "kind": "web", "title": "Vitamin D miracle",
             "text": "Vitamin D prevents all fractures, doctors say. Buy our supplements today and never "
                     "break a bone again."},
}
CLAIMS = {  # name: (text, origin, source paper, adoption)
    "hip": ("High-dose vitamin D reduces hip fracture risk in older adults.", "extracted", "meta", "adopted"),
    "none": ("Calcium with vitamin D does not reduce hip fractures in postmenopausal women.", "extracted", "whi", "adopted"),
    "falls": ("Vitamin D reduces falls in nursing home residents.", "extracted", "falls", "adopted"),
    "user": ("Vitamin D prevents all fractures in older adults.", "user", None, "adopted"),
    "kidney": ("Kidney stones were more frequent with calcium and vitamin D.", "extracted", "whi", "not_adopted"),
}
EDGES = [  # (claim, paper, fragment index, relation, confidence)
    ("hip", "whi", 0, "REFUTES", 0.81), ("hip", "falls", 0, "NEUTRAL", 0.55), ("hip", "blog", 0, "SUPPORTS", 0.9),
    ("none", "meta", 1, "REFUTES", 0.7), ("none", "falls", 0, "SUPPORTS", 0.62),
    ("falls", "meta", 0, "NEUTRAL", 0.66), ("falls", "whi", 0, "NEUTRAL", 0.52),
    ("user", "meta", 1, "SUPPORTS", 0.58), ("user", "whi", 0, "REFUTES", 0.88), ("user", "blog", 0, "SUPPORTS", 0.95),
    ("user", "falls", 0, "NEUTRAL", 0.6),
]
TOPICS = {"t_fracture": ("hip fracture dose", ["hip", "none", "user"]), "t_falls": ("falls nursing home", ["falls"])}


@dataclass
class Graph:
    task_id: str
    claims: dict[str, str] = field(default_factory=dict)  # name → claim id
    edges: dict[tuple[str, str], str] = field(default_factory=dict)  # (claim, paper) → edge id
    fragments: dict[tuple[str, int], str] = field(default_factory=dict)  # (paper, index) → fragment id
    pages: dict[str, str] = field(default_factory=dict)  # paper → page id
    topics: dict[str, str] = field(default_factory=dict)  # topic key → topic id


def model_rows(task_id: str, relabel: dict[tuple[str, str], tuple[str, float]] | None = None) -> dict[str, pd.DataFrame]:
    """Every per-task table's rows for the graph above, as the assets would write them;
    ``relabel`` changes some edges' model output (a re-run with another NLI model)."""
    papers, pages, fragments = [], [], []
    page_of, frag_of = {}, {}
    for rank, (key, p) in enumerate(PAPERS.items()):
        paper_id = paper_id_for(p.get("doi"), p.get("pmid"), None, key)
        url = p.get("url") or paper_url(p.get("doi"), p.get("pmid"), None, None)
        papers.append({"paper_id": paper_id, "doi": p.get("doi"), "pmid": p.get("pmid"), "arxiv_id": None,
                       "title": p["title"], "abstract": p["text"], "year": 2019, "venue": "Test Journal", "url": url,
                       "sources": ["local:test"], "search_rank": rank, "authors": []})
        page_id = page_id_for(paper_id, p["kind"])
        page_of[key] = page_id
        pages.append({"page_id": page_id, "paper_id": paper_id, "url": url, "domain": domain_of(url),
                      "kind": p["kind"], "title": p["title"]})
        for i, frag in enumerate(make_fragments(page_id, p["text"], window=1, stride=1)):
            frag_of[(key, i)] = frag.fragment_id
            fragments.append(frag.model_dump())
    claim_ids = {name: claim_id_for(task_id, c[0]) for name, c in CLAIMS.items()}
    claims = [{"claim_id": claim_ids[name], "text": text, "origin": origin,
               "extractor": "user" if origin == "user" else "local-rules",
               "source_fragment_id": frag_of[(paper, 0)] if paper else None, "adoption_status": status,
               "also_in_fragments": [], "relevance": 0.9 - 0.1 * i, "extraction_score": 3.0, "features": []}
              for i, (name, (text, origin, paper, status)) in enumerate(CLAIMS.items())]
    edges = []
    text_of = {f["fragment_id"]: f["text"] for f in fragments}
    for claim, paper, idx, relation, conf in EDGES:
        relation, conf = (relabel or {}).get((claim, paper), (relation, conf))
        fid = frag_of[(paper, idx)]
        design = design_columns(PAPERS[paper]["title"], PAPERS[paper]["text"], text_of[fid])
        edges.append({"edge_id": edge_id_for(task_id, fid, claim_ids[claim]), "fragment_id": fid,
                      "claim_id": claim_ids[claim], "relation": relation, "nli_label": relation.lower(),
                      "nli_confidence": conf, "source_trust_level": "unverified" if paper == "blog" else "academic",
                      "target_trust_level": "academic", "model_version": NLI_VERSION, "similarity": 0.7,
                      "page_id": page_of[paper], **edge_probabilities(relation, conf),
                      **unread_parts("cross-encoder", f"the cross-encoder reads {relation.lower()} ({conf:.2f})"),
                      **design})  # as the nli_edges asset writes them: the paper's design, the passage's figures
    scores = []
    for name, cid in claim_ids.items():
        if CLAIMS[name][3] != "adopted":
            continue
        evidence = [Evidence(relation=e["relation"], nli_confidence=e["nli_confidence"], page_id=e["page_id"])
                    for e in edges if e["claim_id"] == cid]
        scores.append({"claim_id": cid, **score_claim(evidence).model_dump(), "method": "bayesian"})
    refuted = {s["claim_id"] for s in scores if s["refuting_count"] > 0}
    topics = [{"topic_id": tid, "label": label, "label_method": "distinctive-terms", "claim_count": len(names),
               "has_contradiction": any(claim_ids[n] in refuted for n in names),
               "claim_ids": [claim_ids[n] for n in names], "terms": label.split()}
              for tid, (label, names) in TOPICS.items()]
    return {"papers": pd.DataFrame(papers), "pages": pd.DataFrame(pages), "fragments": pd.DataFrame(fragments),
            "claims": pd.DataFrame(claims), "nli_edges": pd.DataFrame(edges), "claim_scores": pd.DataFrame(scores),
            "claim_topics": pd.DataFrame(topics)}


def write_graph(store: LyraStore, task_id: str | None = None, query: str = QUESTION,
                relabel: dict | None = None) -> Graph:
    """Create the task (unless it exists) and materialize the graph's rows with replace_partition."""
    if task_id is None or store.get_task(task_id) is None:
        task_id = store.create_task(query, task_id=task_id).id
        store.update_task(task_id, status="completed")
    for table, frame in model_rows(task_id, relabel).items():
        store.replace_partition(table, task_id, frame)
    graph = Graph(task_id=task_id)
    graph.claims = {name: claim_id_for(task_id, c[0]) for name, c in CLAIMS.items()}
    rows = model_rows(task_id)
    page_by_paper = dict(zip(PAPERS, rows["pages"]["page_id"], strict=True))
    graph.pages = page_by_paper
    for key, page_id in page_by_paper.items():
        ids = rows["fragments"].loc[rows["fragments"]["page_id"] == page_id].sort_values("position")["fragment_id"]
        graph.fragments.update({(key, i): fid for i, fid in enumerate(ids)})
    for claim, paper, idx, *_ in EDGES:
        graph.edges[(claim, paper)] = edge_id_for(task_id, graph.fragments[(paper, idx)], graph.claims[claim])
    graph.topics = {k: k for k in TOPICS}
    return graph


@pytest.fixture(scope="module")
def template(tmp_path_factory, request) -> tuple[LyraStore, Graph]:
    """One home with the graph materialized, built once per module; each test gets a copy."""
    store = template_store(request, tmp_path_factory.mktemp("template") / "home")
    return store, write_graph(store)


@pytest.fixture
def store(template, tmp_path) -> LyraStore:
    return copy_store(template[0], tmp_path / "home")


@pytest.fixture
def graph(template) -> Graph:
    return template[1]


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
        ("hip fracture dose", 3, True), ("falls nursing home", 1, False)]
    first = explore.claims_by_topic(store, graph.task_id, "hip fracture dose", limit=2)
    assert first.total == 3 and len(first.claims) == 2 and first.next_cursor
    rest = explore.claims_by_topic(store, graph.task_id, "hip fracture dose", limit=2, cursor=first.next_cursor)
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
    unjudged = explore.claim_evidence(store, graph.claims["kidney"], graph.task_id)  # not adopted: never judged
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
    long_claims = pd.DataFrame([{
        "claim_id": f"c_long{i:04d}", "text": "Vitamin D " + "and calcium " * 200, "origin": "extracted",
        "extractor": "local-rules", "source_fragment_id": None, "adoption_status": "adopted",
        "also_in_fragments": [], "relevance": 0.5, "extraction_score": 1.0, "features": []} for i in range(300)])
    claims = pd.concat([store.read_partition("claims", graph.task_id).drop(columns="task_id"), long_claims])
    store.replace_partition("claims", graph.task_id, claims)
    topics = store.read_partition("claim_topics", graph.task_id).drop(columns="task_id")
    row = topics.index[topics["topic_id"] == "t_fracture"][0]
    topics.at[row, "claim_ids"] = list(topics.at[row, "claim_ids"]) + list(long_claims["claim_id"])
    store.replace_partition("claim_topics", graph.task_id, topics)
    answers = [
        explore.evidence_summary(store, graph.task_id), explore.list_claim_topics(store, graph.task_id),
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
    from lyra_tools.feedback import apply_feedback
    from lyra_resources.effective.report import report_markdown

    hip = CLAIMS["hip"][0]
    assert hip in report_markdown(store, graph.task_id)
    apply_feedback(store, graph.task_id, "claim_reject", {"claim_id": graph.claims["hip"], "reason": "off topic"})
    text = report_markdown(store, graph.task_id)
    assert hip not in text and CLAIMS["none"][0] in text
