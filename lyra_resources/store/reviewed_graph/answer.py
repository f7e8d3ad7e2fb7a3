"""The answer to a task's question as people see it: ``task_answer`` with the human overlay applied.

The asset holds the model's answer; a reviewer's corrected edge, a rejected claim or a blocked
domain changes what stands, so the hypothesis is rescored here from its effective edges exactly
as :mod:`.overlay` rescores any claim, and an open question lists only claims in force. The answer
itself is composed by :func:`lyra_core.answer.compose_answer`, as the asset composes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from lyra_core.answer import (
    AnswerPaper,
    AnswerView,
    CandidateClaim,
    HypothesisScore,
    answer_text,
    compose_answer,
    shown_title,
)
from lyra_core.cells import cell_list
from lyra_core.clipping import clip, nan_to_none
from lyra_core.feedback import effective_edges, effective_votes
from lyra_core.hypothesis import HYPOTHESIS
from lyra_core.scoring import VoteCounts
from lyra_resources.store.reviewed_graph.overlay import Overlay, load_claims, load_overlay
from lyra_resources.store.reviewed_graph.papers import task_papers
from lyra_resources.store.reviewed_graph.queries import (
    claim_edges,
    fetch_rows,
    hypothesis_ids,
    in_ids,
    require_task,
    topic_labels,
)
from lyra_resources.store.reviewed_graph.records import ClaimBrief, ExploreError


def claim_brief(row: dict[str, Any]) -> ClaimBrief:
    """A claim row (with its effective score) as the short form every list shows."""
    text, truncated = clip(row["text"], 300)
    return ClaimBrief(
        claim_id=row["claim_id"],
        text=text,
        truncated=truncated,
        origin=row["origin"],
        evidence_count=row["evidence_count"],
        supports=row["supporting_count"],
        refutes=row["refuting_count"],
        confidence=float(nan_to_none(row["confidence"]) or 0.5),
        uncertainty=round(float(nan_to_none(row["uncertainty"]) or 0.0), 4),
        verdict=nan_to_none(row["verdict"]) or "unverified",
        rejected=row["rejected"],
    )


def source_rows(
    conn: duckdb.DuckDBPyConnection, task_id: str, ids: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """Bibliographic fields of each id: a paper of the task (:func:`task_papers`: title, year,
    venue, DOI, PMID, URL, ``authors`` as a list; ``is_paper``), or a page that is no paper (a web page:
    title and URL only). Unknown ids are absent; an untitled paper is shown by the opening words
    of its abstract."""
    out = {}
    for paper_id, row in task_papers(conn, task_id, ids).items():
        title = shown_title(row["title"], row["abstract"])
        out[paper_id] = {
            "id": paper_id,
            "is_paper": True,
            "title": title,
            "year": row["year"],
            "venue": row["venue"],
            "doi": row["doi"],
            "pmid": row["pmid"],
            "url": row["url"],
            "authors": [str(a) for a in cell_list(row["authors"])],
        }
    cond, params, post = in_ids("page_id", [i for i in dict.fromkeys(ids) if i not in out])
    if cond != "FALSE":
        for r in fetch_rows(
            conn,
            f"SELECT page_id, title, url FROM pages WHERE task_id = ? AND paper_id IS NULL AND {cond}",
            [task_id, *params],
        ):
            if post is None or r["page_id"] in post:
                out[r["page_id"]] = {
                    "id": r["page_id"],
                    "is_paper": False,
                    "title": r["title"],
                    "year": None,
                    "venue": None,
                    "doi": None,
                    "pmid": None,
                    "url": r["url"],
                    "authors": [],
                }
    return out


def answer_papers(
    conn: duckdb.DuckDBPyConnection, task_id: str, ids: Sequence[str]
) -> dict[str, AnswerPaper]:
    """Title, year and DOI of each id, as the answer names it: a paper, or a page that is no paper."""
    rows = source_rows(conn, task_id, ids)
    return {
        p: AnswerPaper(
            paper_id=p, title=clip(row.get("title"), 200)[0] or None, year=row.get("year"), doi=row.get("doi")
        )
        for p, row in rows.items()
    }


def source_edges(
    conn: duckdb.DuckDBPyConnection, task_id: str, claim_ids: Sequence[str], overlay: Overlay
) -> list[dict[str, Any]]:
    """The effective edges of ``claim_ids`` (corrections applied, blocked pages left out) with
    their sentence and page, each with the paper behind it (``paper``: the paper id, or the page
    id of a page that is no paper)."""
    edges = effective_edges(
        claim_edges(conn, task_id, claim_ids, with_sources=True), overlay.reviews, overlay.blocked_pages
    )
    paper_of = dict(
        conn.execute(
            "SELECT page_id, paper_id FROM pages WHERE task_id = ? AND paper_id IS NOT NULL", [task_id]
        ).fetchall()
    )
    for edge in edges:
        edge["paper"] = paper_of.get(edge["page_id"]) or edge["page_id"]
    return edges


def hypothesis_claim_id(conn: duckdb.DuckDBPyConnection, task_id: str) -> str | None:
    """The claim id of the task's hypothesis (the question read as a claim); None for an open question."""
    return min(hypothesis_ids(conn, task_id), default=None)


def claim_votes(
    conn: duckdb.DuckDBPyConnection, task_id: str, claims: Sequence[dict[str, Any]], overlay: Overlay
) -> dict[str, VoteCounts]:
    """The votes that entered each claim's effective score (``claims``: rows of ``load_claims``),
    for the counts shown beside it: the overlay's rule over the claim's effective edges, by the
    claim's own method (a legacy score counts every edge)."""
    edges = effective_edges(
        claim_edges(conn, task_id, [c["claim_id"] for c in claims]), overlay.reviews, overlay.blocked_pages
    )
    out: dict[str, VoteCounts] = {}
    for legacy in (False, True):
        ids = [c["claim_id"] for c in claims if (c.get("method") == "legacy") == legacy]
        out |= effective_votes(edges, ids, use_bayesian=not legacy, rule=overlay.rule)
    return out


def listed_votes(
    store, task_id: str, claim_ids: Sequence[str], with_hypothesis: bool = False
) -> tuple[ClaimBrief | None, dict[str, VoteCounts]]:
    """The votes that entered the scores of ``claim_ids`` (adopted ones), and with
    ``with_hypothesis`` the question's hypothesis as a listed claim (None for an open question),
    its votes among them."""
    with store.connect() as conn:
        overlay = load_overlay(conn, task_id)
        hypothesis = hypothesis_claim_id(conn, task_id) if with_hypothesis else None
        claims = load_claims(conn, task_id, overlay, [*claim_ids, *([hypothesis] if hypothesis else [])])
        votes = claim_votes(conn, task_id, claims, overlay)
    return next((claim_brief(c) for c in claims if c["claim_id"] == hypothesis), None), votes


def evidence_claim(store, target: str | None, task_id: str | None) -> tuple[str, str | None]:
    """The claim ``lyra evidence`` shows, and its task when known: ``target`` is a claim id, or a
    task id (or, with no ``target``, ``task_id``) for that task's hypothesis. ExploreError (one
    line) for a task whose question is open or not answered yet."""
    with store.connect() as conn:
        is_task = target is not None and conn.execute("SELECT 1 FROM tasks WHERE id = ?", [target]).fetchone()
        if target is not None and not is_task:
            return target, task_id
        if target is None and task_id is None:
            raise ExploreError(
                "give a claim id (lyra claims TASK lists them) or a task id for its question's hypothesis"
            )
        if target is not None and task_id is not None and task_id != target:
            raise ExploreError(f"{target} is a task; --task {task_id} names another: give one task")
        task = target or task_id
        require_task(conn, task)
        claim_id = hypothesis_claim_id(conn, task)
    if claim_id is None:
        raise ExploreError(
            f"task {task} has no hypothesis (an open question, a verify task, or not run yet): "
            f"`lyra claims {task}` lists its claims"
        )
    return claim_id, task


def effective_answer(conn: duckdb.DuckDBPyConnection, task_id: str, overlay: Overlay) -> AnswerView | None:
    """The task's answer with human feedback applied; None before ``task_answer`` ran."""
    stored = fetch_rows(conn, "SELECT * FROM task_answer WHERE task_id = ?", [task_id])
    if not stored:
        return None
    row = stored[0]
    if row["origin"] != HYPOTHESIS:
        claims = [
            c for c in load_claims(conn, task_id, overlay) if not c["rejected"] and c["origin"] != HYPOTHESIS
        ]
        topic_of = topic_labels(conn, task_id, [c["claim_id"] for c in claims])
        candidates = [
            CandidateClaim(
                claim_id=c["claim_id"],
                text=clip(c["text"], 300)[0],
                relevance=c["relevance"],
                votes=c["supporting_count"] + c["refuting_count"],
                verdict=c["verdict"],
                confidence=c["confidence"],
                topic=topic_of.get(c["claim_id"]),
            )
            for c in claims
        ]
        return compose_answer(
            None,
            [],
            overlay.rule.min_vote,
            {},
            candidates,
            question_reading=row.get("question_reading"),
            not_addressed=row.get("not_addressed"),
        )
    claim_id = hypothesis_claim_id(conn, task_id)
    if claim_id is None:
        return None
    claim = load_claims(conn, task_id, overlay, [claim_id])[0]
    score = HypothesisScore(
        claim_id=claim_id,
        text=row["hypothesis"],
        recomputed=bool(claim.get("recomputed")),
        **{
            k: claim.get(k)
            for k in (
                "verdict",
                "confidence",
                "uncertainty",
                "controversy",
                "alpha",
                "beta",
                "certainty",
                "certainty_reasons",
            )
        },
    )
    edges = source_edges(conn, task_id, [claim_id], overlay)
    return compose_answer(
        score,
        edges,
        overlay.rule.min_vote,
        answer_papers(conn, task_id, [e["paper"] for e in edges]),
        question_reading=row.get("question_reading"),
        not_addressed=row.get("not_addressed"),
    )


def answer_lines(store, task_id: str) -> list[str]:
    """The answer as text (:func:`lyra_core.answer.answer_text`), its line first."""
    with store.connect() as conn:
        answer = effective_answer(conn, task_id, load_overlay(conn, task_id))
    return [] if answer is None else answer_text(answer, task_id)
