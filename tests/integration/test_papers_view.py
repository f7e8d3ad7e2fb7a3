"""Papers for agents (search_papers, get_paper) and the sources every answer names, over the real
DuckDB graph of tests/fixtures/graphs.py, directly and through the MCP client."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from fixtures.graphs import PAPERS, write_graph
from fixtures.mcp import call, text
from lyra_tools import explore
from lyra_tools.explore import contradictions
from lyra_tools.explore import papers as papers_view
from lyra_tools.feedback.apply import apply_feedback
from lyra_tools.mcp.server import build_server


def paper_ids(store, graph) -> dict[str, str]:
    """paper key of PAPERS → paper id."""
    pages = store.read_partition("pages", graph.task_id)
    by_page = dict(zip(pages["page_id"], pages["paper_id"], strict=True))
    return {key: by_page[page] for key, page in graph.pages.items()}


def test_search_papers_ranks_title_and_abstract_and_pages(store, graph):
    ids = paper_ids(store, graph)
    found = papers_view.search_papers(store, graph.task_id, "calcium postmenopausal women")
    assert [p.paper_id for p in found.papers] == [ids["whi"]] and found.total == 1
    assert found.papers[0].doi == "10.1056/nejmoa055218" and found.papers[0].year == 2019
    first = papers_view.search_papers(store, graph.task_id, "vitamin D fracture", limit=2)
    assert first.total == 4 and len(first.papers) == 2 and first.next_cursor
    rest = papers_view.search_papers(
        store, graph.task_id, "vitamin D fracture", limit=2, cursor=first.next_cursor
    )
    assert rest.next_cursor is None
    assert {p.paper_id for p in first.papers + rest.papers} == set(ids.values())
    assert first.papers[0].score >= first.papers[1].score >= rest.papers[0].score
    with pytest.raises(explore.ExploreError, match="no searchable words"):
        papers_view.search_papers(store, graph.task_id, "the of a")
    with pytest.raises(explore.ExploreError, match="no task 'task_nope'"):
        papers_view.search_papers(store, "task_nope", "vitamin")
    with pytest.raises(explore.ExploreError, match="cursor does not belong"):
        papers_view.search_papers(store, graph.task_id, "calcium", cursor=first.next_cursor)


def test_tasks_over_the_same_papers_share_one_search_index_until_a_paper_changes(store, graph):
    papers_view._INDEXES.clear()
    other = write_graph(store, query="Does vitamin D prevent falls in older adults?")  # the same papers
    first = papers_view.search_papers(store, graph.task_id, "vitamin D fracture")
    second = papers_view.search_papers(store, other.task_id, "vitamin D fracture")
    assert len(papers_view._INDEXES) == 1  # the second task's papers were not tokenized again
    assert [(p.paper_id, p.score) for p in second.papers] == [(p.paper_id, p.score) for p in first.papers]
    papers = store.read_partition("papers", other.task_id)
    papers.loc[0, "abstract"] = f"{papers.loc[0, 'abstract']} Zinc lozenges shorten colds."
    store.replace_partition("papers", other.task_id, papers)  # a re-run of the other task found a longer text
    assert [p.paper_id for p in papers_view.search_papers(store, other.task_id, "zinc lozenges").papers] == [
        papers.loc[0, "paper_id"]
    ]
    assert papers_view.search_papers(store, graph.task_id, "zinc lozenges").total == 0
    assert len(papers_view._INDEXES) == 2


def test_get_paper_shows_its_claims_in_the_effective_graph_and_its_citations(store, graph):
    ids = paper_ids(store, graph)
    store.replace_partition(
        "citation_edges",
        graph.task_id,
        pd.DataFrame(
            [
                {
                    "source_page_id": graph.pages["meta"],
                    "target_page_id": graph.pages["whi"],
                    "relation": "CITES",
                    "is_influential": True,
                }
            ]
        ),
    )
    papers = store.read_partition("papers", graph.task_id).drop(columns="task_id")
    papers["authors"] = [["Jackson RD", "LaCroix AZ"] if p == ids["whi"] else [] for p in papers["paper_id"]]
    store.replace_partition("papers", graph.task_id, papers)

    whi = papers_view.get_paper(store, graph.task_id, ids["whi"])
    assert (whi.title, whi.year, whi.doi, whi.venue) == (
        PAPERS["whi"]["title"],
        2019,
        "10.1056/nejmoa055218",
        "Test Journal",
    )
    assert whi.authors == ["Jackson RD", "LaCroix AZ"] and whi.abstract.startswith("In this trial")
    assert [c.claim_id for c in whi.refutes] == [graph.claims["user"], graph.claims["hip"]]  # strongest first
    assert whi.refutes[0].edge_id == graph.edges[("user", "whi")] and whi.supports == []
    assert whi.totals == {"supports": 0, "refutes": 2, "neutral_only": 1}  # "falls" is judged neutral only
    assert (
        [c.paper_id for c in whi.cited_by] == [ids["meta"]]
        and whi.cites == []
        and whi.cited_by[0].influential
    )
    meta = papers_view.get_paper(store, graph.task_id, ids["meta"], limit=1)
    assert [c.paper_id for c in meta.cites] == [ids["whi"]] and meta.next_cursor is None
    assert [c.claim_id for c in meta.supports] == [graph.claims["user"]]
    assert [c.claim_id for c in meta.refutes] == [graph.claims["none"]]

    # a human correction moves the claim to the other side; a rejected claim leaves the paper's lists
    apply_feedback(
        store,
        graph.task_id,
        "edge_correct",
        {"edge_id": graph.edges[("user", "whi")], "correct_relation": "supports"},
    )
    apply_feedback(
        store, graph.task_id, "claim_reject", {"claim_id": graph.claims["hip"], "reason": "off topic"}
    )
    after = papers_view.get_paper(store, graph.task_id, ids["whi"])
    assert [c.claim_id for c in after.supports] == [graph.claims["user"]] and after.supports[
        0
    ].human_corrected
    assert after.refutes == [] and after.totals["refutes"] == 0
    apply_feedback(store, graph.task_id, "domain_block", {"domain_pattern": "doi.org", "reason": "test"})
    blocked = papers_view.get_paper(store, graph.task_id, ids["whi"])
    assert blocked.supports == [] and blocked.hidden_blocked == 3

    with pytest.raises(explore.ExploreError, match="no paper 'p_nope' in task"):
        papers_view.get_paper(store, graph.task_id, "p_nope")


def test_sources_carry_year_doi_and_fragment_text(store, graph):
    ids = paper_ids(store, graph)
    ev = explore.claim_evidence(store, graph.claims["user"])
    refute = ev.evidence.refutes[0].source
    assert (refute.paper_id, refute.doi, refute.year) == (ids["whi"], "10.1056/nejmoa055218", 2019)
    found = contradictions.find_contradictions(store, graph.task_id)
    user = next(c for c in found.contradictions if c.claim_id == graph.claims["user"])
    side = user.refuting_sources[0]
    assert side.text.startswith("In this trial of 36,282") and side.doi == "10.1056/nejmoa055218"
    assert side.year == 2019 and side.title == PAPERS["whi"]["title"] and side.paper_id == ids["whi"]
    assert side.url == "https://doi.org/10.1056/nejmoa055218"
    assert explore.find_contradictions(store, graph.task_id) == found  # the old entry point answers the same


def test_answers_about_a_large_paper_stay_bounded(store, graph):
    """A paper with a long abstract, many authors, 60 claims on each side and 40 citations."""
    ids = paper_ids(store, graph)
    papers = store.read_partition("papers", graph.task_id).drop(columns="task_id")
    row = papers.index[papers["paper_id"] == ids["whi"]][0]
    papers.at[row, "abstract"] = "Calcium and vitamin D " * 400
    papers.at[row, "title"] = "Calcium " * 80
    papers["authors"] = [[f"Author Number {i} Of Many" for i in range(50)]] * len(papers)
    store.replace_partition("papers", graph.task_id, papers)
    extra_pages = pd.DataFrame(
        [
            {
                "page_id": f"pg_cite{i:03d}",
                "paper_id": f"p_cite{i:03d}",
                "url": None,
                "domain": "local",
                "kind": "citation",
                "title": "Cited " * 40,
            }
            for i in range(40)
        ]
    )
    store.replace_partition(
        "pages",
        graph.task_id,
        pd.concat([store.read_partition("pages", graph.task_id).drop(columns="task_id"), extra_pages]),
    )
    store.replace_partition(
        "citation_papers",
        graph.task_id,
        pd.DataFrame(
            [
                {
                    "paper_id": f"p_cite{i:03d}",
                    "doi": f"10.1000/cite.{i}",
                    "pmid": None,
                    "arxiv_id": None,
                    "title": "Cited " * 40,
                    "abstract": "Vitamin D",
                    "year": 2000 + i % 20,
                    "venue": None,
                    "url": None,
                    "sources": ["s2"],
                }
                for i in range(40)
            ]
        ),
    )
    store.replace_partition(
        "citation_edges",
        graph.task_id,
        pd.DataFrame(
            [
                {
                    "source_page_id": graph.pages["whi"] if i % 2 else f"pg_cite{i:03d}",
                    "target_page_id": f"pg_cite{i:03d}" if i % 2 else graph.pages["whi"],
                    "relation": "CITES",
                    "is_influential": False,
                }
                for i in range(40)
            ]
        ),
    )
    claims = store.read_partition("claims", graph.task_id).drop(columns="task_id")
    # an adopted claim as the model (read_partition's row order is not fixed; one claim is not adopted)
    adopted = claims[claims["adoption_status"] == "adopted"].sort_values("claim_id").iloc[0]
    big = pd.DataFrame(
        [
            {**adopted.to_dict(), "claim_id": f"c_big{i:03d}", "text": "Vitamin D " + "and calcium " * 100}
            for i in range(120)
        ]
    )
    store.replace_partition("claims", graph.task_id, pd.concat([claims, big]))
    edges = store.read_partition("nli_edges", graph.task_id).drop(columns="task_id")
    more = pd.DataFrame(
        [
            {
                **edges.sort_values("edge_id").iloc[0].to_dict(),
                "edge_id": f"e_big{i:03d}",
                "claim_id": f"c_big{i:03d}",
                "fragment_id": graph.fragments[("whi", 0)],
                "page_id": graph.pages["whi"],
                "relation": "SUPPORTS" if i % 2 else "REFUTES",
                "nli_confidence": 0.6 + i / 1000,
            }
            for i in range(120)
        ]
    )
    store.replace_partition("nli_edges", graph.task_id, pd.concat([edges, more]))

    detail = papers_view.get_paper(store, graph.task_id, ids["whi"], limit=25)
    assert len(detail.model_dump_json().encode()) <= 8192
    assert detail.abstract_truncated and detail.authors_total == 50 and len(detail.authors) == 10
    assert detail.citation_totals == {"cites": 20, "cited_by": 20} and detail.next_cursor
    assert (
        detail.totals == {"supports": 60, "refutes": 62, "neutral_only": 1}
        and detail.supports
        and detail.refutes
    )
    more = papers_view.get_paper(store, graph.task_id, ids["whi"], limit=25, cursor=detail.next_cursor)
    assert not {c.claim_id for c in more.supports} & {c.claim_id for c in detail.supports}
    search = papers_view.search_papers(store, graph.task_id, "calcium vitamin cited", limit=25)
    assert len(search.model_dump_json().encode()) <= 8192 and search.total == 44 and search.next_cursor


def test_mcp_paper_tools_and_annotations(store, graph):
    ids = paper_ids(store, graph)
    server = build_server(store.home)
    found, paper, missing, contra, empty = call(
        server,
        [
            ("search_papers", {"task_id": graph.task_id, "query": "nursing home falls"}),
            ("get_paper", {"task_id": graph.task_id, "paper_id": ids["meta"]}),
            ("get_paper", {"task_id": graph.task_id, "paper_id": "p_nope"}),
            ("find_contradictions", {"task_id": graph.task_id}),
            ("search_papers", {"task_id": graph.task_id, "query": "the"}),
        ],
    )
    for result in (found, paper, contra):
        assert not result.is_error, text(result)
        assert json.loads(text(result)) == result.structured_content and len(text(result).encode()) <= 8192
    assert found.structured_content["papers"][0]["paper_id"] == ids["falls"]
    assert [c["claim_id"] for c in paper.structured_content["supports"]] == [graph.claims["user"]]
    assert paper.structured_content["doi"] == "10.1001/jama.2019.0001"
    assert missing.is_error and "no paper 'p_nope'" in text(missing)
    assert empty.is_error and "no searchable words" in text(empty)
    sides = [
        s
        for c in contra.structured_content["contradictions"]
        for s in c["refuting_sources"] + c["supporting_sources"]
    ]
    assert sides and all(s["text"] and "year" in s and "doi" in s for s in sides)
