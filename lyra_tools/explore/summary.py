"""Task-wide answers: the evidence summary, the topic list, the materials export and the task list."""

from __future__ import annotations

from lyra_core.cells import cell_list
from lyra_core.clipping import clip, nan_to_none
from lyra_core.feedback import effective_edges
from lyra_core.scoring import NEUTRAL, REFUTES, SUPPORTS
from lyra_resources.store.generations import graph_note
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph import counts
from lyra_resources.store.reviewed_graph.answer import effective_answer
from lyra_resources.store.reviewed_graph.overlay import (
    effective_topics,
    load_claims,
    load_overlay,
    refuted_claims,
)
from lyra_resources.store.reviewed_graph.queries import (
    BY_RELEVANCE,
    adopted_claim_ids,
    claim_edges,
    hypothesis_ids,
    require_task,
    task_topics,
    topic_labels,
)
from lyra_resources.store.reviewed_graph.records import ExploreError
from lyra_tools.mcp.models import (
    ContradictionHighlight,
    EvidenceSummary,
    MaterialClaim,
    MaterialEdge,
    Materials,
    Statistics,
    TaskBrief,
    TaskList,
    TopicBrief,
    TopicList,
)
from lyra_tools.mcp.paging import check_limit, decode_cursor, encode_cursor, fit_page, page_of, query_key


def evidence_summary(store: LyraStore, task_id: str) -> EvidenceSummary:
    """The whole task at a glance (about 1–2 KB): counts, top topics, where the contradictions are."""
    with store.connect() as conn:
        task = require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        per_claim = counts.edge_relations(conn, task_id)
        scored = counts.stored_verdicts(
            conn, task_id
        )  # the adopted claims only: the claims asset scores nothing else
        adopted, not_adopted, pages, primary, fragments = counts.task_counts(conn, task_id)
        hypotheses = hypothesis_ids(conn, task_id)  # the question's own claim: the answer, not a listed claim
        live_touched = sorted(overlay.touched - overlay.rejected - hypotheses)
        touched_edges = claim_edges(conn, task_id, live_touched)
        touched = load_claims(conn, task_id, overlay, live_touched) if live_touched else []
        topic_rows = task_topics(conn, task_id)
        answer = effective_answer(conn, task_id, overlay)
    excluded = overlay.excluded | hypotheses
    relations: dict[str, int] = {}
    for claim_id, relation, count in per_claim:
        if claim_id not in excluded:
            relations[relation] = relations.get(relation, 0) + count
    effective = effective_edges(touched_edges, overlay.reviews, overlay.blocked_pages)
    for edge in effective:
        relations[edge["relation"]] = relations.get(edge["relation"], 0) + 1
    verdicts: dict[str, int] = {}
    refuted = set()
    for claim_id, verdict, refuting in scored:
        if claim_id not in excluded:
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            if refuting:
                refuted.add(claim_id)
    for claim in touched:
        verdicts[claim["verdict"]] = verdicts.get(claim["verdict"], 0) + 1
        if claim["refuting_count"]:
            refuted.add(claim["claim_id"])
    adopted_ids = {c for c, *_ in scored} | {c["claim_id"] for c in touched}
    live_reviews = [e for e, c in overlay.reviewed_claims.items() if c not in overlay.rejected]
    topics = effective_topics(topic_rows, overlay.rejected, refuted)
    highlights = []
    for row in topic_rows:
        count = sum(c in refuted for c in cell_list(row["claim_ids"]))
        if count:
            highlights.append(
                ContradictionHighlight(topic_id=row["topic_id"], label=row["label"], claim_count=count)
            )
    highlights.sort(key=lambda h: (-h.claim_count, h.topic_id))
    return EvidenceSummary(
        answer_line=answer.line if answer else "Answer: none yet — the task has not been answered (run it)",
        answer=answer,
        task_id=task_id,
        query=clip(task["query"], 300)[0],
        status=task["status"],
        graph_note=graph_note(store, task_id) if task["status"] != "completed" else None,
        statistics=Statistics(
            total_claims=int(adopted) - len(overlay.rejected & adopted_ids),
            rejected_claims=len(overlay.rejected),
            not_adopted_claims=int(not_adopted),
            total_pages=int(pages),
            total_fragments=int(fragments),
            supports_edges=relations.get(SUPPORTS, 0),
            refutes_edges=relations.get(REFUTES, 0),
            neutral_edges=relations.get(NEUTRAL, 0),
            human_reviewed_edges=len(live_reviews),
            human_corrected_edges=sum(e["human_corrected"] for e in effective),
            verdicts={str(k): v for k, v in sorted(verdicts.items(), key=lambda kv: -kv[1]) if v},
        ),
        top_topics=[TopicBrief(**t.model_dump(exclude={"terms"})) for t in topics[:8]],
        contradiction_highlights=highlights[:5],
        primary_source_ratio=round(primary / pages, 3) if pages else None,
        blocked_domains=sorted(overlay.blocked)[:20],
    )


def list_claim_topics(
    store: LyraStore, task_id: str, limit: int = 50, cursor: str | None = None
) -> TopicList:
    """The task's topics, largest first, counted over the claims in force."""
    check_limit(limit)
    key = query_key("topics", task_id)
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        topics = effective_topics(
            task_topics(conn, task_id), overlay.rejected, refuted_claims(conn, task_id, overlay)
        )
    page, next_cursor = page_of(topics, offset, limit, key)
    return TopicList(task_id=task_id, topics=page, total=len(topics), next_cursor=next_cursor)


def materials(
    store: LyraStore,
    task_id: str,
    format: str = "summary",
    limit: int = 10,
    cursor: str | None = None,
    include_rejected: bool = False,
) -> Materials:
    """``summary``: the evidence summary. ``full``: every claim with its effective score and
    edges (ids, relation, confidence, domain), a page at a time; fragment texts come from
    get_claim_evidence."""
    if format not in ("summary", "full"):
        raise ExploreError(f"format must be 'summary' or 'full' (got {str(format)[:40]!r})")
    if format == "summary":
        return Materials(task_id=task_id, format="summary", summary=evidence_summary(store, task_id))
    check_limit(limit, 25)
    key = query_key("materials", task_id, include_rejected)
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        ids = [
            claim_id
            for claim_id in adopted_claim_ids(conn, task_id)
            if include_rejected or claim_id not in overlay.rejected
        ]
        chosen = ids[offset : offset + limit]
        claims = load_claims(conn, task_id, overlay, chosen, order=BY_RELEVANCE)
        edges = effective_edges(claim_edges(conn, task_id, chosen), overlay.reviews, overlay.blocked_pages)
        topic_of = topic_labels(conn, task_id, chosen)
    order = {SUPPORTS: 0, REFUTES: 1, NEUTRAL: 2}
    edges.sort(key=lambda e: (order.get(e["relation"], 3), -e["nli_confidence"], e["edge_id"]))
    items = []
    for row in claims:
        text, truncated = clip(row["text"], 300)
        items.append(
            MaterialClaim(
                claim_id=row["claim_id"],
                text=text,
                truncated=truncated,
                origin=row["origin"],
                topic=topic_of.get(row["claim_id"]),
                confidence=float(nan_to_none(row["confidence"]) or 0.5),
                uncertainty=float(nan_to_none(row["uncertainty"]) or 0.0),
                controversy=float(nan_to_none(row["controversy"]) or 0.0),
                verdict=nan_to_none(row["verdict"]) or "unverified",
                rejected=row["rejected"],
                edges=[
                    MaterialEdge(
                        edge_id=e["edge_id"],
                        fragment_id=e["fragment_id"],
                        relation=e["relation"],
                        nli_confidence=round(float(e["nli_confidence"]), 4),
                        domain=e["domain"],
                        human_corrected=e["human_corrected"],
                    )
                    for e in edges
                    if e["claim_id"] == row["claim_id"]
                ],
            )
        )
    page = fit_page(items, limit)
    end = offset + len(page)
    return Materials(
        task_id=task_id,
        format="full",
        claims=page,
        total=len(ids),
        next_cursor=encode_cursor(key, {"i": end}) if end < len(ids) else None,
    )


def list_tasks(store: LyraStore, limit: int = 20, cursor: str | None = None) -> TaskList:
    """Every task, oldest first, with its status."""
    check_limit(limit)
    key = query_key("tasks")
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        total = counts.task_total(conn)
        rows = counts.task_page(conn, limit, offset)
    items = []
    for t in rows:
        query, truncated = clip(t["query"], 200)
        items.append(
            TaskBrief(
                id=t["id"],
                query=query,
                truncated=truncated,
                status=t["status"],
                created_at=t["created_at"],
                updated_at=t["updated_at"],
            )
        )
    page = fit_page(items, limit)
    end = offset + len(page)
    return TaskList(
        tasks=page, total=total, next_cursor=encode_cursor(key, {"i": end}) if end < total else None
    )
