"""Papers of a task for agents: ``search_papers`` (BM25 over title and abstract) and ``get_paper``
(the paper, the claims it supports or refutes in the effective graph, its citation links).

Answers follow :mod:`lyra_tools.explore`'s rules: at most ~8 KB of JSON, lists paged with
``limit`` and an opaque ``cursor``, long texts clipped with a ``truncated`` flag, human
corrections, rejected claims and blocked domains applied.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np
from pydantic import BaseModel, Field

from lyra_core.bm25 import Bm25Index
from lyra_core.clipping import clip, nan_to_none
from lyra_core.feedback import effective_edges
from lyra_core.scoring import REFUTES, SUPPORTS
from lyra_core.text import index_terms
from lyra_core.untrusted import MarksUntrusted, UntrustedText
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph.overlay import load_claims, load_overlay
from lyra_resources.store.reviewed_graph.papers import citation_links, paper_keys, paper_pages, task_papers
from lyra_resources.store.reviewed_graph.queries import page_edges, require_task
from lyra_resources.store.reviewed_graph.records import ExploreError
from lyra_tools.mcp.paging import (
    ANSWER_BUDGET,
    check_limit,
    decode_cursor,
    encode_cursor,
    fit_page,
    query_key,
)

ABSTRACT_CHARS = 1000
CITATIONS_SHOWN = 10  # per direction, within CITATIONS_BUDGET bytes of JSON
CITATIONS_BUDGET = 1800
MAX_AUTHORS = 10


class PaperHit(BaseModel):
    paper_id: str = Field(description="pass to get_paper")
    title: UntrustedText | None
    year: int | None
    doi: UntrustedText | None
    venue: UntrustedText | None
    first_author: UntrustedText | None
    score: float = Field(description="BM25 score of the query against title and abstract")


class PaperSearch(MarksUntrusted):
    task_id: str
    query: UntrustedText
    papers: list[PaperHit]
    total: int = Field(description="papers matching at least one query word")
    next_cursor: str | None = None


class PaperClaim(BaseModel):
    claim_id: str
    text: UntrustedText
    truncated: bool
    origin: str = Field(description="extracted, user, or hypothesis (the question's own claim)")
    edge_id: str = Field(description="the paper's strongest edge to the claim (its vote)")
    fragment_id: str
    nli_confidence: float
    human_corrected: bool
    verdict: str
    confidence: float


class CitedPaper(BaseModel):
    paper_id: str
    title: UntrustedText | None
    year: int | None
    doi: UntrustedText | None
    influential: bool


class PaperDetail(MarksUntrusted):
    task_id: str
    paper_id: str
    title: UntrustedText | None
    authors: list[UntrustedText] = Field(description=f"the first {MAX_AUTHORS}")
    authors_total: int
    year: int | None
    venue: UntrustedText | None
    doi: UntrustedText | None
    url: UntrustedText | None
    abstract: UntrustedText | None
    abstract_truncated: bool
    found_by: str = Field(
        description="search (a search or corpus hit), citation (citation expansion) or "
        "identifier (a DOI / PMID / arXiv id a page named)"
    )
    supports: list[PaperClaim] = Field(
        description="claims the paper supports: its strongest edge to each is SUPPORTS"
    )
    refutes: list[PaperClaim] = Field(
        description="claims the paper refutes: its strongest edge to each is REFUTES"
    )
    totals: dict[str, int] = Field(
        description="claims per side, and claims the paper's edges judge neutral only"
    )
    hidden_blocked: int = Field(
        0, description="edges left out because the paper's page is on a blocked domain"
    )
    cites: list[CitedPaper] = Field(description="papers of this task the paper cites")
    cited_by: list[CitedPaper] = Field(description="papers of this task that cite the paper")
    citation_totals: dict[str, int]
    next_cursor: str | None = Field(None, description="more supported / refuted claims")


def _check_text(name: str, value: Any, maximum: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > maximum:
        raise ExploreError(f"{name} must be a non-empty string of at most {maximum} characters")
    return value.strip()


_INDEXES: OrderedDict[tuple, Bm25Index | None] = OrderedDict()  # the last few paper sets searched
_INDEXES_KEPT = 32  # each holds only postings, idf and document lengths
_INDEXES_LOCK = threading.Lock()  # the MCP server answers calls in worker threads


def _index(
    conn: duckdb.DuckDBPyConnection, database: str, task_id: str
) -> tuple[list[str], Bm25Index | None]:
    """The task's paper ids and the BM25 index of their titles and abstracts (None when no paper
    has a word). Tokenizing a task's abstracts costs more than searching them, and its papers
    change only when it re-runs: an index is kept while the papers' ids and text lengths stay, and
    is keyed by those alone, not by the task, so tasks over the same papers (questions asked of
    one library) share it. A paper id names one record (its DOI, PMID or source) and equal
    lengths are taken as equal texts, as they are between two runs of one task."""
    keys = paper_keys(conn, task_id)
    ids = [k[0] for k in keys]
    key = (database, tuple(keys))
    with _INDEXES_LOCK:
        if key in _INDEXES:
            _INDEXES.move_to_end(key)
            return ids, _INDEXES[key]
    papers = task_papers(conn, task_id)
    docs = [index_terms(f"{papers[i]['title'] or ''} {papers[i]['abstract'] or ''}") for i in ids]
    index = Bm25Index(docs) if any(docs) else None
    with _INDEXES_LOCK:
        _INDEXES[key] = index
        while len(_INDEXES) > _INDEXES_KEPT:
            _INDEXES.popitem(last=False)
    return ids, index


def search_papers(
    store: LyraStore, task_id: str, query: str, limit: int = 10, cursor: str | None = None
) -> PaperSearch:
    """The task's papers whose title or abstract matches ``query`` (BM25), best first."""
    check_limit(limit, 25)
    query = _check_text("query", query, 300)
    words = index_terms(query)
    if not words:
        raise ExploreError(
            f"query {query[:60]!r} has no searchable words (stop words and single characters "
            "are ignored); use content words, e.g. 'vitamin D fracture'"
        )
    key = query_key("search_papers", task_id, query)
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        require_task(conn, task_id)
        ids, index = _index(conn, str(store.layout.database), task_id)
        scores = index.get_scores(words) if index is not None else np.zeros(len(ids))
        ranked = sorted((i for i in range(len(ids)) if scores[i] > 0), key=lambda i: (-scores[i], ids[i]))
        chosen = ranked[offset : offset + limit]
        papers = task_papers(conn, task_id, [ids[i] for i in chosen])
    hits = []
    for i in chosen:
        p = papers[ids[i]]
        authors = list(p["authors"]) if p["authors"] is not None else []
        hits.append(
            PaperHit(
                paper_id=p["paper_id"],
                title=clip(p["title"], 200)[0] or None,
                year=nan_to_none(p["year"]),
                doi=p["doi"],
                venue=clip(p["venue"], 100)[0] or None,
                first_author=authors[0] if authors else None,
                score=round(float(scores[i]), 3),
            )
        )
    page = fit_page(hits, limit)
    end = offset + len(page)
    return PaperSearch(
        task_id=task_id,
        query=query,
        papers=page,
        total=len(ranked),
        next_cursor=encode_cursor(key, {"i": end}) if end < len(ranked) else None,
    )


def _votes(edges: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """Per claim, the paper's strongest SUPPORTS or REFUTES edge; and the claims judged neutral only."""
    best: dict[str, dict[str, Any]] = {}
    for edge in sorted(edges, key=lambda e: (-float(e["nli_confidence"]), e["edge_id"])):
        if edge["relation"] in (SUPPORTS, REFUTES):
            best.setdefault(edge["claim_id"], edge)
    return best, {e["claim_id"] for e in edges} - set(best)


def _citations(
    conn: duckdb.DuckDBPyConnection, task_id: str, pages: Sequence[str], paper_id: str
) -> dict[str, list[CitedPaper]]:
    rows = [r for r in citation_links(conn, task_id, pages) if r["paper_id"] and r["paper_id"] != paper_id]
    meta = task_papers(conn, task_id, [r["paper_id"] for r in rows])
    out: dict[str, list[CitedPaper]] = {"cites": [], "cited_by": []}
    for r in sorted(
        rows,
        key=lambda r: (not r["influential"], -(meta.get(r["paper_id"], {}).get("year") or 0), r["paper_id"]),
    ):
        m = meta.get(r["paper_id"], {})
        out[r["direction"]].append(
            CitedPaper(
                paper_id=r["paper_id"],
                title=clip(m.get("title"), 120)[0] or None,
                year=nan_to_none(m.get("year")),
                doi=m.get("doi"),
                influential=bool(r["influential"]),
            )
        )
    return out


def get_paper(
    store: LyraStore, task_id: str, paper_id: str, limit: int = 10, cursor: str | None = None
) -> PaperDetail:
    """One paper of the task: its record, the claims it supports or refutes (``limit`` per side,
    strongest first, in the effective graph) and its citation links within the task."""
    check_limit(limit, 25)
    paper_id = _check_text("paper_id", paper_id, 100)
    key = query_key("get_paper", task_id, paper_id, limit)
    offsets = decode_cursor(cursor, key, ["supports", "refutes"])
    with store.connect() as conn:
        require_task(conn, task_id)
        paper = task_papers(conn, task_id, [paper_id]).get(paper_id)
        if paper is None:
            raise ExploreError(
                f"no paper {paper_id!r} in task {task_id!r}: search_papers, get_claim_evidence and "
                "find_contradictions give the task's paper ids"
            )
        pages = paper_pages(conn, task_id, paper_id)
        overlay = load_overlay(conn, task_id)
        model = page_edges(conn, task_id, pages)
        edges = [
            e
            for e in effective_edges(model, overlay.reviews, overlay.blocked_pages)
            if e["claim_id"] not in overlay.rejected
        ]
        best, neutral = _votes(edges)
        claims = {c["claim_id"]: c for c in load_claims(conn, task_id, overlay, sorted(best))}
        links = _citations(conn, task_id, pages, paper_id)
    abstract, abstract_cut = clip(paper["abstract"], ABSTRACT_CHARS)
    authors = [str(a) for a in paper["authors"]] if paper["authors"] is not None else []
    detail = PaperDetail(
        task_id=task_id,
        paper_id=paper_id,
        title=clip(paper["title"], 300)[0] or None,
        authors=[clip(a, 60)[0] for a in authors[:MAX_AUTHORS]],
        authors_total=len(authors),
        year=nan_to_none(paper["year"]),
        venue=clip(paper["venue"], 120)[0] or None,
        doi=paper["doi"],
        url=paper["url"],
        abstract=abstract or None,
        abstract_truncated=abstract_cut,
        found_by=paper["found_by"],
        supports=[],
        refutes=[],
        totals={
            "supports": sum(e["relation"] == SUPPORTS for e in best.values()),
            "refutes": sum(e["relation"] == REFUTES for e in best.values()),
            "neutral_only": len(neutral),
        },
        hidden_blocked=sum(e["page_id"] in overlay.blocked_pages for e in model),
        cites=fit_page(links["cites"], CITATIONS_SHOWN, CITATIONS_BUDGET),
        cited_by=fit_page(links["cited_by"], CITATIONS_SHOWN, CITATIONS_BUDGET),
        citation_totals={k: len(v) for k, v in links.items()},
    )
    remaining = ANSWER_BUDGET - len(detail.model_dump_json())
    more = False
    next_offsets = {}
    for side, relation in (("supports", SUPPORTS), ("refutes", REFUTES)):
        votes = [e for e in best.values() if e["relation"] == relation and e["claim_id"] in claims]
        start = offsets[side]
        items = [_paper_claim(claims[e["claim_id"]], e) for e in votes[start : start + limit]]
        page = fit_page(items, limit, max(remaining, 1))
        remaining -= sum(len(i.model_dump_json()) + 1 for i in page)
        setattr(detail, side, page)
        next_offsets[side] = start + len(page)
        more |= next_offsets[side] < len(votes)
    detail.next_cursor = encode_cursor(key, next_offsets) if more else None
    return detail


def _paper_claim(claim: dict[str, Any], edge: dict[str, Any]) -> PaperClaim:
    text, truncated = clip(claim["text"], 200)
    return PaperClaim(
        claim_id=claim["claim_id"],
        text=text,
        truncated=truncated,
        origin=claim["origin"],
        edge_id=edge["edge_id"],
        fragment_id=edge["fragment_id"],
        nli_confidence=round(float(edge["nli_confidence"]), 4),
        human_corrected=edge["human_corrected"],
        verdict=nan_to_none(claim["verdict"]) or "unverified",
        confidence=float(nan_to_none(claim["confidence"]) or 0.5),
    )
