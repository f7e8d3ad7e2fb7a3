"""Claim-level answers: one topic's claims, and one claim's evidence with its sources."""

from __future__ import annotations

from typing import Any

from lyra_core.cells import cell_list
from lyra_core.clipping import clip, nan_to_none
from lyra_core.evidence_facts import facts_line
from lyra_core.feedback import effective_edges
from lyra_core.scoring import NEUTRAL, REFUTES, SUPPORTS
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph.answer import claim_brief
from lyra_resources.store.reviewed_graph.overlay import load_claims, load_overlay, rescore
from lyra_resources.store.reviewed_graph.queries import (
    BY_RELEVANCE,
    SCORE_COLUMNS,
    claim_edges,
    claim_row,
    find_topic,
    require_task,
    task_of_claim,
)
from lyra_resources.store.reviewed_graph.records import ExploreError
from lyra_tools.mcp.models import (
    ClaimEvidence,
    ClaimScoreView,
    EvidenceItem,
    EvidenceLists,
    Source,
    TopicClaims,
)
from lyra_tools.mcp.paging import (
    ANSWER_BUDGET,
    check_limit,
    decode_cursor,
    encode_cursor,
    fit_page,
    query_key,
)


def claims_by_topic(
    store: LyraStore,
    task_id: str,
    topic: str,
    limit: int = 20,
    cursor: str | None = None,
    include_rejected: bool = False,
) -> TopicClaims:
    """One topic's claims, most relevant to the question first, with their effective scores."""
    check_limit(limit)
    if not isinstance(topic, str) or not topic.strip() or len(topic) > 300:
        raise ExploreError(
            "topic must be a topic_id or label from list_claim_topics (at most 300 characters)"
        )
    key = query_key("claims_by_topic", task_id, topic, include_rejected)
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        require_task(conn, task_id)
        row = find_topic(conn, task_id, topic)
        overlay = load_overlay(conn, task_id)
        claims = load_claims(conn, task_id, overlay, cell_list(row["claim_ids"]), order=BY_RELEVANCE)
    if not include_rejected:
        claims = [c for c in claims if not c["rejected"]]
    page = fit_page([claim_brief(c) for c in claims[offset : offset + limit]], limit)
    end = offset + len(page)
    return TopicClaims(
        task_id=task_id,
        topic_id=row["topic_id"],
        topic=row["label"],
        claims=page,
        total=len(claims),
        next_cursor=encode_cursor(key, {"i": end}) if end < len(claims) else None,
    )


def _score_view(row: dict[str, Any]) -> ClaimScoreView | None:
    if nan_to_none(row.get("verdict")) is None:
        return None
    return ClaimScoreView(
        **{c: row[c] for c in SCORE_COLUMNS},
        method=nan_to_none(row.get("method")) or "bayesian",
        recomputed=row["recomputed"],
    )


_SIDES = {"supports": SUPPORTS, "refutes": REFUTES, "neutral": NEUTRAL}


def _probabilities(row: dict[str, Any]) -> dict[str, float] | None:
    values = {k: nan_to_none(row.get(k)) for k in ("p_supports", "p_refutes", "p_neutral")}
    return (
        None
        if any(v is None for v in values.values())
        else {k: round(float(v), 3) for k, v in values.items()}
    )


def _reason(row: dict[str, Any]) -> str | None:
    """The judge's reason; for an edge a reviewer corrected, that the reviewer set it first."""
    judged = row.get("reason") or None
    if row.get("human_corrected"):
        return "set by a reviewer" + (f"; the judge had read: {judged}" if judged else "")
    return judged


def _evidence_item(row: dict[str, Any]) -> EvidenceItem:
    text, truncated = clip(row["text"], 280)
    return EvidenceItem(
        edge_id=row["edge_id"],
        fragment_id=row["fragment_id"],
        text=text,
        truncated=truncated,
        nli_confidence=round(float(row["nli_confidence"]), 4),
        probabilities=_probabilities(row),
        model_relation=row["model_relation"] if row["human_corrected"] else None,
        reason=_reason(row),
        **_design(row),
        human_reviewed=row["human_reviewed"],
        human_corrected=row["human_corrected"],
        source=source_of(row),
    )


def _design(row: dict[str, Any]) -> dict[str, Any]:
    """The edge's study design, size and figures as stored, and the one line that shows them."""
    design, cue, size, figures = (
        nan_to_none(row.get(k)) for k in ("study_design", "design_cue", "sample_size", "effect_figures")
    )
    return {
        "study_design": design,
        "design_cue": cue,
        "sample_size": int(size) if size is not None else None,
        "effect_figures": figures or None,
        "facts": facts_line(design, size, figures) or None,
    }


def source_of(row: dict[str, Any], title_chars: int = 160) -> Source:
    """The source of an edge read by ``claim_edges(..., with_sources=True)``."""
    return Source(
        page_id=row["page_id"],
        paper_id=row.get("paper_id"),
        url=row["url"],
        domain=row["domain"],
        title=clip(row["title"], title_chars)[0] or None,
        year=nan_to_none(row.get("year")),
        doi=row.get("doi"),
        pmid=row.get("pmid"),
        kind=row["kind"],
        trust_level=row["source_trust_level"],
    )


def claim_evidence(
    store: LyraStore, claim_id: str, task_id: str | None = None, limit: int = 5, cursor: str | None = None
) -> ClaimEvidence:
    """A claim's supporting, refuting and neutral fragments (``limit`` per side, strongest first)
    with their sources, and the claim's effective Bayesian score."""
    check_limit(limit, 20)
    if not isinstance(claim_id, str) or not claim_id or len(claim_id) > 100:
        raise ExploreError("claim_id must be a claim id string such as 'c_0123456789abcdef'")
    with store.connect() as conn:
        if task_id is None:
            task_id = task_of_claim(conn, claim_id)
            if task_id is None:
                raise ExploreError(f"no claim {claim_id!r} in any task")
        # the claim and its stored score in one query; the task is looked up only to explain a miss
        found = claim_row(conn, task_id, claim_id)
        scored = [found] if found is not None else []
        if not scored:
            require_task(conn, task_id)
            raise ExploreError(f"no claim {claim_id!r} in task {task_id!r}")
        task_id = scored[0]["task_id"]
        claim = (scored[0]["text"], scored[0]["origin"])
        overlay = load_overlay(conn, task_id)
        edges = claim_edges(conn, task_id, [claim_id], with_sources=True)
    if scored[0]["adoption_status"] != "adopted":
        scored = []  # extracted but never judged: no score
    key = query_key("claim_evidence", task_id, claim_id, limit)
    offsets = decode_cursor(cursor, key, list(_SIDES))
    for row in scored:
        row["rejected"], row["recomputed"] = claim_id in overlay.rejected, False
    rescore(scored, edges, overlay)
    eff = sorted(
        effective_edges(edges, overlay.reviews, overlay.blocked_pages),
        key=lambda e: (-e["nli_confidence"], e["edge_id"]),
    )
    lists: dict[str, list[EvidenceItem]] = {}
    remaining = ANSWER_BUDGET - 1200  # the claim, its score and the envelope
    next_offsets, more = {}, False
    for name, relation in _SIDES.items():
        side = [e for e in eff if e["relation"] == relation]
        start = offsets[name]
        page = fit_page([_evidence_item(r) for r in side[start : start + limit]], limit, max(remaining, 1))
        remaining -= sum(len(i.model_dump_json()) + 1 for i in page)
        lists[name] = page
        next_offsets[name] = start + len(page)
        more |= next_offsets[name] < len(side)
    text, truncated = clip(claim[0], 500)
    return ClaimEvidence(
        task_id=task_id,
        claim_id=claim_id,
        claim_text=text,
        truncated=truncated,
        origin=claim[1],
        rejected=claim_id in overlay.rejected,
        score=_score_view(scored[0]) if scored else None,
        evidence=EvidenceLists(**lists),
        totals={n: sum(e["relation"] == r for e in eff) for n, r in _SIDES.items()},
        hidden_blocked=len(edges) - len(eff),
        next_cursor=encode_cursor(key, next_offsets) if more else None,
    )
