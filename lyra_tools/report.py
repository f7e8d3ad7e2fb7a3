"""A task's evidence report: the scored claims with their strongest evidence, as Markdown."""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from lyra_resources.generations import graph_note
from lyra_resources.store import LyraStore


def top_claims(store: LyraStore, task_id: str, limit: int = 10) -> pd.DataFrame:
    """Adopted claims a person has not rejected: the user's first, then by relevance to the
    question, then by evidence weight and confidence."""
    return store.fetch_df(
        "SELECT c.claim_id, c.text, c.origin, s.verdict, s.confidence, s.uncertainty, s.controversy, "
        "s.supporting_count, s.refuting_count, s.neutral_count, s.independent_sources "
        "FROM claim_scores s JOIN claims c ON c.task_id = s.task_id AND c.claim_id = s.claim_id "
        "WHERE s.task_id = ? AND c.origin <> 'hypothesis' AND c.claim_id NOT IN "
        "(SELECT claim_id FROM claim_rejections WHERE task_id = s.task_id AND is_active) "
        "ORDER BY (c.origin = 'user') DESC, round(coalesce(c.relevance, 0), 2) DESC, "
        "(s.supporting_count + s.refuting_count) DESC, s.confidence DESC, c.claim_id LIMIT ?",
        [task_id, limit])


def claim_evidence(store: LyraStore, task_id: str, claim_id: str, per_side: int = 2) -> pd.DataFrame:
    return store.fetch_df(
        "SELECT e.relation, e.nli_confidence, f.text, pg.url, pg.title FROM nli_edges e "
        "JOIN fragments f ON f.task_id = e.task_id AND f.fragment_id = e.fragment_id "
        "JOIN pages pg ON pg.task_id = f.task_id AND pg.page_id = f.page_id "
        "WHERE e.task_id = ? AND e.claim_id = ? AND e.relation != 'NEUTRAL' "
        "QUALIFY row_number() OVER (PARTITION BY e.relation ORDER BY e.nli_confidence DESC) <= ? "
        "ORDER BY e.relation DESC, e.nli_confidence DESC", [task_id, claim_id, per_side])


def report_markdown(store: LyraStore, task_id: str, limit: int = 15) -> str:
    """The report as Markdown: the answer to the question first, then the claims."""
    from lyra_tools.answer_view import answer_lines

    task = store.require_task(task_id)
    counts = store.row_counts(task_id)
    answer = answer_lines(store, task_id)
    lines = [f"# {task.query}", ""]
    if answer:
        lines += [f"**{answer[0]}**", "", *[f"- {a.strip()}" for a in answer[1:]], ""]
    lines += [f"Task `{task.id}` · status {task.status} · " + ", ".join(f"{n} {t}" for t, n in counts.items()), ""]
    note = graph_note(store, task_id)
    if note:
        lines += [f"> {note}", ""]
    claims = top_claims(store, task_id, limit)
    if claims.empty:
        lines.append("No scored claims yet.")
    for claim in claims.itertuples(index=False):
        origin = " (your claim)" if claim.origin == "user" else ""
        lines += [f"## {claim.text}{origin}", "",
                  f"**{claim.verdict}** · confidence {claim.confidence:.2f} ± {claim.uncertainty:.2f} · "
                  f"controversy {claim.controversy:.2f} · {claim.supporting_count} supporting, "
                  f"{claim.refuting_count} refuting, {claim.neutral_count} neutral fragments · "
                  f"{claim.independent_sources} independent supporting sources", ""]
        for edge in claim_evidence(store, task_id, claim.claim_id).itertuples(index=False):
            source = f"[{edge.title}]({edge.url})" if edge.url else edge.title
            lines.append(f"- {edge.relation} ({edge.nli_confidence:.2f}): “{edge.text}” — {source}")
        lines.append("")
    return "\n".join(lines)


def report_html(store: LyraStore, task_id: str) -> str:
    """The Markdown report rendered as one standalone HTML page (raw HTML in the text is escaped)."""
    from markdown_it import MarkdownIt  # rich's own dependency

    body = MarkdownIt("commonmark", {"html": False}).render(report_markdown(store, task_id))
    title = html.escape(store.require_task(task_id).query)
    return f"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head><body>\n{body}</body></html>\n"


def write_report(store: LyraStore, task_id: str, path: Path, limit: int = 15) -> Path:
    """``path`` (Markdown) and the same report as HTML beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report_markdown(store, task_id, limit))
    path.with_suffix(".html").write_text(report_html(store, task_id))
    return path
