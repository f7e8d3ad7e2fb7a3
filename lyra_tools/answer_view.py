"""The answer to a task's question as people see it: ``task_answer`` with the human overlay applied.

The asset holds the model's answer; a reviewer's corrected edge, a rejected claim or a blocked
domain changes what stands, so the hypothesis is rescored here from its effective edges exactly
as :mod:`lyra_tools.explore` rescores any claim, and an open question lists only claims in force.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from lyra_core.answer import AnswerClaim, AnswerPaper, AnswerView, answer_line, paper_votes
from lyra_core.cells import cell_list
from lyra_core.feedback import effective_edges
from lyra_core.hypothesis import HYPOTHESIS, reading_note
from lyra_tools.explore.overlay import Overlay, load_claims, load_overlay
from lyra_tools.explore.paging import clip
from lyra_tools.explore.queries import claim_edges, fetch_rows, in_ids, topic_labels
from lyra_tools.task_papers import task_papers

PAPERS_SHOWN = 5
OPEN_CLAIMS_SHOWN = 8


def source_rows(conn: duckdb.DuckDBPyConnection, task_id: str,
                ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Bibliographic fields of each id: a paper of the task (:func:`task_papers`: title, year,
    venue, DOI, URL, ``authors`` as a list; ``is_paper``), or a page that is no paper (a web page:
    title and URL only). Unknown ids are absent; an untitled paper is shown by the opening words
    of its abstract."""
    out = {}
    for paper_id, row in task_papers(conn, task_id, ids).items():
        title = (row["title"] or "").strip() or (f"Untitled: {row['abstract'][:80]}…" if row["abstract"] else None)
        out[paper_id] = {"id": paper_id, "is_paper": True, "title": title, "year": row["year"], "venue": row["venue"],
                         "doi": row["doi"], "url": row["url"], "authors": [str(a) for a in cell_list(row["authors"])]}
    cond, params, post = in_ids("page_id", [i for i in dict.fromkeys(ids) if i not in out])
    if cond != "FALSE":
        for r in fetch_rows(conn, f"SELECT page_id, title, url FROM pages WHERE task_id = ? AND paper_id IS NULL AND {cond}",
                       [task_id, *params]):
            if post is None or r["page_id"] in post:
                out[r["page_id"]] = {"id": r["page_id"], "is_paper": False, "title": r["title"], "year": None,
                                     "venue": None, "doi": None, "url": r["url"], "authors": []}
    return out


def _papers(conn: duckdb.DuckDBPyConnection, task_id: str, ids: list[str]) -> list[AnswerPaper]:
    """Title, year and DOI of each id: a paper, or a page that is no paper (a web page)."""
    rows = source_rows(conn, task_id, ids)
    return [AnswerPaper(paper_id=p, title=clip(rows.get(p, {}).get("title"), 200)[0] or None,
                        year=rows.get(p, {}).get("year"), doi=rows.get(p, {}).get("doi")) for p in ids]


def source_edges(conn: duckdb.DuckDBPyConnection, task_id: str, claim_ids: Sequence[str],
                 overlay: Overlay) -> list[dict[str, Any]]:
    """The effective edges of ``claim_ids`` (corrections applied, blocked pages left out) with
    their sentence and page, each with the paper behind it (``paper``: the paper id, or the page
    id of a page that is no paper)."""
    edges = effective_edges(claim_edges(conn, task_id, claim_ids, with_sources=True), overlay.reviews,
                            overlay.blocked_pages)
    paper_of = dict(conn.execute("SELECT page_id, paper_id FROM pages WHERE task_id = ? AND paper_id IS NOT NULL",
                                 [task_id]).fetchall())
    for edge in edges:
        edge["paper"] = paper_of.get(edge["page_id"]) or edge["page_id"]
    return edges


def hypothesis_edges(conn: duckdb.DuckDBPyConnection, task_id: str, claim_id: str,
                     overlay: Overlay) -> list[dict[str, Any]]:
    """The hypothesis's effective edges, each with the paper behind it (``paper``)."""
    return source_edges(conn, task_id, [claim_id], overlay)


def read_answer(conn: duckdb.DuckDBPyConnection, task_id: str, overlay: Overlay) -> AnswerView | None:
    """The task's answer with human feedback applied; None before ``task_answer`` ran."""
    stored = fetch_rows(conn, "SELECT * FROM task_answer WHERE task_id = ?", [task_id])
    if not stored:
        return None
    row = stored[0]
    if row["origin"] != HYPOTHESIS:
        claims = [c for c in load_claims(conn, task_id, overlay) if not c["rejected"] and c["origin"] != HYPOTHESIS]
        claims.sort(key=lambda c: (-(c["relevance"] or 0.0), -(c["supporting_count"] + c["refuting_count"]),
                                   c["claim_id"]))
        chosen = claims[:OPEN_CLAIMS_SHOWN]
        topic_of = topic_labels(conn, task_id, [c["claim_id"] for c in chosen])
        return AnswerView(
            line=answer_line(None, None, None, None, len(chosen)), origin=row["origin"],
            question_reading=row.get("question_reading"),
            claims=[AnswerClaim(claim_id=c["claim_id"], text=clip(c["text"], 300)[0], topic=topic_of.get(c["claim_id"]),
                                verdict=c["verdict"] or "unverified", confidence=float(c["confidence"] or 0.5))
                    for c in chosen])
    found = fetch_rows(conn, "SELECT claim_id FROM claims WHERE task_id = ? AND origin = ? LIMIT 1", [task_id, HYPOTHESIS])
    if not found:
        return None
    claim_id = found[0]["claim_id"]
    claim = load_claims(conn, task_id, overlay, [claim_id])[0]
    votes = paper_votes(hypothesis_edges(conn, task_id, claim_id, overlay), overlay.rule.min_vote)
    return AnswerView(
        line=answer_line(claim["verdict"], claim["confidence"], claim["uncertainty"], votes), origin=HYPOTHESIS,
        hypothesis=row["hypothesis"], hypothesis_claim_id=claim_id, verdict=claim["verdict"],
        confidence=claim["confidence"], uncertainty=claim["uncertainty"], controversy=claim["controversy"],
        **votes.model_dump(include={"supporting_papers", "refuting_papers", "papers_judged",
                                    "strongest_support_edge", "strongest_refute_edge"}),
        papers_for=_papers(conn, task_id, votes.supporting_paper_ids[:PAPERS_SHOWN]),
        papers_against=_papers(conn, task_id, votes.refuting_paper_ids[:PAPERS_SHOWN]),
        recomputed=bool(claim.get("recomputed")), question_reading=row.get("question_reading"))


def answer_lines(store, task_id: str) -> list[str]:
    """The answer as text, its line first, then the papers for and against (or the claims)."""
    with store.connect() as conn:
        answer = read_answer(conn, task_id, load_overlay(conn, task_id))
    if answer is None:
        return []
    lines = [answer.line]
    if answer.hypothesis:
        note = reading_note(answer.question_reading)
        lines.append(f"Hypothesis ({note}): {answer.hypothesis}" if note else f"Hypothesis: {answer.hypothesis}")
    for side, papers in (("for", answer.papers_for), ("against", answer.papers_against)):
        lines += [f"  {side}: {p.title or p.paper_id}" + (f" ({p.year})" if p.year else "") for p in papers]
    topics = list(dict.fromkeys(c.topic for c in answer.claims))  # an open question's claims, by topic
    for topic in topics:
        mine = [c for c in answer.claims if c.topic == topic]
        if len(topics) > 1 or topic:
            lines.append(f"  {topic or 'other claims'}:")
        lines += [f"    {c.verdict}: {c.text}" for c in mine]
    return lines
