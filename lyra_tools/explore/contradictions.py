"""``find_contradictions``: claims with REFUTES evidence and the strongest sources on both sides.

Each side's source carries what an agent needs to weigh it without another call: the fragment's
text (clipped), the page's title, year, DOI and url, its domain and trust level. The graph is
the effective one of :mod:`lyra_tools.explore` (human corrections, rejections and domain blocks
applied); Lyra records the disagreement and does not judge which side is right.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from lyra_core.clipping import clip, nan_to_none
from lyra_core.feedback import effective_edges
from lyra_core.hypothesis import HYPOTHESIS
from lyra_core.scoring import REFUTES, SUPPORTS
from lyra_core.untrusted import MarksUntrusted, UntrustedText
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph.overlay import load_claims, load_overlay
from lyra_resources.store.reviewed_graph.queries import claim_edges, require_task, topic_labels
from lyra_tools.mcp.paging import check_limit, decode_cursor, encode_cursor, fit_page, query_key

SIDE_SOURCES = 3  # strongest sources shown per side
TEXT_CHARS = 160  # fragment text per source: the answer holds up to 6 of them per claim
TITLE_CHARS = 100


class SideSource(BaseModel):
    edge_id: str
    fragment_id: str
    text: UntrustedText = Field(description="the fragment's text, clipped")
    truncated: bool
    domain: UntrustedText | None
    trust_level: str | None
    nli_confidence: float
    human_corrected: bool
    paper_id: str | None = Field(
        None, description="the paper behind the page (get_paper); null for a web page"
    )
    title: UntrustedText | None = None
    year: int | None = None
    doi: UntrustedText | None = None
    url: UntrustedText | None = None


class Contradiction(BaseModel):
    claim_id: str
    text: UntrustedText
    truncated: bool
    topic: UntrustedText | None
    claim_trust_level: str | None = Field(description="trust level of the page the claim came from")
    supports: int
    refutes: int
    confidence: float
    controversy: float
    verdict: str
    refuting_sources: list[SideSource]
    supporting_sources: list[SideSource]
    rejected: bool = False


class ContradictionList(MarksUntrusted):
    task_id: str
    note: str = (
        "claims with REFUTES evidence, with both sides' sources and trust levels; "
        "Lyra records the disagreement, it does not judge which side is right"
    )
    contradictions: list[Contradiction]
    total: int
    next_cursor: str | None = None


def side_sources(edges: list[dict[str, Any]], relation: str, n: int = SIDE_SOURCES) -> list[SideSource]:
    """The ``n`` strongest of ``edges`` (read with their sources) that have ``relation``."""
    side = sorted(
        (e for e in edges if e["relation"] == relation), key=lambda e: (-e["nli_confidence"], e["edge_id"])
    )
    out = []
    for e in side[:n]:
        text, truncated = clip(e["text"], TEXT_CHARS)
        out.append(
            SideSource(
                edge_id=e["edge_id"],
                fragment_id=e["fragment_id"],
                text=text,
                truncated=truncated,
                domain=e["domain"],
                trust_level=e["source_trust_level"],
                nli_confidence=round(float(e["nli_confidence"]), 4),
                human_corrected=e["human_corrected"],
                paper_id=e.get("paper_id"),
                title=clip(e["title"], TITLE_CHARS)[0] or None,
                year=nan_to_none(e.get("year")),
                doi=e.get("doi"),
                url=e.get("url"),
            )
        )
    return out


def find_contradictions(
    store: LyraStore, task_id: str, limit: int = 10, cursor: str | None = None, include_rejected: bool = False
) -> ContradictionList:
    """Claims with REFUTES evidence, most controversial first, with the strongest sources on
    each side: their fragment text, title, year, DOI, url and trust level."""
    check_limit(limit, 25)
    key = query_key("contradictions", task_id, include_rejected)
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        found = [
            c
            for c in load_claims(conn, task_id, overlay, where="s.refuting_count > 0")
            if c["refuting_count"] > 0
            and (include_rejected or not c["rejected"])
            and c["origin"] != HYPOTHESIS
        ]
        found.sort(key=lambda c: (-c["controversy"], -c["refuting_count"], c["claim_id"]))
        chosen = found[offset : offset + limit]
        ids = [c["claim_id"] for c in chosen]
        edges = effective_edges(
            claim_edges(conn, task_id, ids, with_sources=True), overlay.reviews, overlay.blocked_pages
        )
        topic_of = topic_labels(conn, task_id, ids)
    items = []
    for row in chosen:
        mine = [e for e in edges if e["claim_id"] == row["claim_id"]]
        text, truncated = clip(row["text"], 240)
        items.append(
            Contradiction(
                claim_id=row["claim_id"],
                text=text,
                truncated=truncated,
                topic=topic_of.get(row["claim_id"]),
                claim_trust_level=mine[0]["target_trust_level"] if mine else None,
                supports=row["supporting_count"],
                refutes=row["refuting_count"],
                confidence=float(row["confidence"]),
                controversy=float(row["controversy"]),
                verdict=row["verdict"],
                refuting_sources=side_sources(mine, REFUTES),
                supporting_sources=side_sources(mine, SUPPORTS),
                rejected=row["rejected"],
            )
        )
    page = fit_page(items, limit)
    end = offset + len(page)
    return ContradictionList(
        task_id=task_id,
        contradictions=page,
        total=len(found),
        next_cursor=encode_cursor(key, {"i": end}) if end < len(found) else None,
    )
