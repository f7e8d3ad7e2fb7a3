"""``lyra export``: a task's papers as BibTeX / RIS / CSL-JSON, its claims as CSV / JSONL, its report as HTML.

Formats are written by libraries (bibtexparser, rispy, json, pandas) from the effective graph:
claims a person rejected are left out, and verdicts carry human corrections and domain blocks.
A CSV text cell that a spreadsheet would read as a formula is written with a leading ``'``. The
references (:mod:`lyra_tools.exports.references`) are all the task's papers, or only those that vote for
or against a claim; each carries Lyra's paper id and PMID, and its URL only when it is an http(s) link.
"""

from __future__ import annotations

import csv
import json
from typing import Literal

import pandas as pd
from pydantic import BaseModel

from lyra_core.feedback import effective_edges
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph.report import report_html
from lyra_tools import explore
from lyra_tools.exports.references import REFERENCE_WRITERS, reference_papers

Format = Literal["bibtex", "ris", "csl-json", "csv", "jsonl", "html"]
FORMATS: tuple[str, ...] = ("bibtex", "ris", "csl-json", "csv", "jsonl", "html")
REFERENCE_FORMATS: tuple[str, ...] = tuple(REFERENCE_WRITERS)
SUFFIX = {"bibtex": "bib", "ris": "ris", "csl-json": "json", "csv": "csv", "jsonl": "jsonl", "html": "html"}
# What makes Excel, LibreOffice or Google Sheets read a cell as a formula (or as a command, by DDE).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_cell(value):
    """A text cell a spreadsheet shows as text: one starting with ``= + - @``, a tab or a line break
    gets a leading ``'`` (OWASP's advice for CSV injection). Anything that is not text is kept, so
    the numeric columns stay numbers, a negative one included."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def claim_rows(store: LyraStore, task_id: str) -> list[dict]:
    """Every claim in force with its effective verdict and evidence edges (ids, relation, source)."""
    with store.connect() as conn:
        explore.require_task(conn, task_id)
        overlay = explore.load_overlay(conn, task_id)
        claims = [
            c
            for c in explore.load_claims(conn, task_id, overlay, order="c.relevance DESC, c.claim_id")
            if not c["rejected"]
        ]
        edges = effective_edges(
            explore.claim_edges(conn, task_id, [c["claim_id"] for c in claims], with_sources=True),
            overlay.reviews,
            overlay.blocked_pages,
        )
    rows = []
    for c in claims:
        mine = sorted(
            (e for e in edges if e["claim_id"] == c["claim_id"] and e["relation"] != "NEUTRAL"),
            key=lambda e: (-e["nli_confidence"], e["edge_id"]),
        )
        rows.append(
            {
                "claim_id": c["claim_id"],
                "text": c["text"],
                "origin": c["origin"],
                "verdict": c["verdict"],
                "confidence": c["confidence"],
                "uncertainty": c["uncertainty"],
                "controversy": c["controversy"],
                "supporting": c["supporting_count"],
                "refuting": c["refuting_count"],
                "evidence": [
                    {
                        "edge_id": e["edge_id"],
                        "relation": e["relation"],
                        "nli_confidence": round(float(e["nli_confidence"]), 4),
                        "text": e["text"],
                        "source": e["title"],
                        "url": e["url"],
                    }
                    for e in mine
                ],
            }
        )
    return rows


# the CSV's columns, written as its header row even when the task has no claim in force
CSV_COLUMNS = (
    "claim_id",
    "text",
    "origin",
    "verdict",
    "confidence",
    "uncertainty",
    "controversy",
    "supporting",
    "refuting",
    "evidence_edges",
)


class Exported(BaseModel):
    """An export's text and how many items (papers, claims) it holds: 0 is worth a note."""

    text: str
    items: int | None  # None for the report (html), which is never empty


def export(store: LyraStore, task_id: str, fmt: str, only_evidence: bool = False) -> str:
    """The task in ``fmt``; ``only_evidence`` keeps the references to the papers that vote for or
    against a claim (reference formats only). ExploreError for an unknown task, ValueError for an
    unknown format or ``only_evidence`` with a format that is no reference list."""
    return export_counted(store, task_id, fmt, only_evidence).text


def export_counted(store: LyraStore, task_id: str, fmt: str, only_evidence: bool = False) -> Exported:
    """:func:`export`, with the count of the papers or claims it holds."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    if only_evidence and fmt not in REFERENCE_FORMATS:
        raise ValueError(
            f"only the papers that hold evidence: a reference format ({', '.join(REFERENCE_FORMATS)}), "
            f"not {fmt}"
        )
    with store.connect() as conn:
        explore.require_task(conn, task_id)
        if fmt in REFERENCE_FORMATS:
            papers = reference_papers(conn, task_id, only_evidence)
            return Exported(text=REFERENCE_WRITERS[fmt](papers), items=len(papers))
    if fmt == "html":
        return Exported(text=report_html(store, task_id), items=None)
    rows = claim_rows(store, task_id)
    if fmt == "jsonl":
        return Exported(
            text="".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in rows), items=len(rows)
        )
    flat = [
        {
            **{k: v for k, v in r.items() if k != "evidence"},
            "evidence_edges": ";".join(f"{e['relation']}:{e['edge_id']}" for e in r["evidence"]),
        }
        for r in rows
    ]
    table = pd.DataFrame(flat, columns=list(CSV_COLUMNS))
    for column in table.select_dtypes(include="object").columns:  # the text columns; numbers stay numbers
        table[column] = table[column].map(csv_cell)
    # every text cell quoted, so a line break inside one never starts a new row; numbers unquoted
    return Exported(text=table.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC), items=len(rows))


def empty_note(store: LyraStore, task_id: str, fmt: str, only_evidence: bool = False) -> str:
    """Why the ``fmt`` export of the task holds no paper or claim, in one line: the task has not
    run to completion, its run found none, feedback rejected every claim, or no paper votes."""
    status = store.require_task(task_id).status
    counts = store.row_counts(task_id)
    claims, papers = counts.get("claims", 0), counts.get("papers", 0)
    what = "paper" if fmt in REFERENCE_FORMATS else "claim"
    if status != "completed" and not (claims if what == "claim" else papers):
        why = f"it is {status} and has no {what}s yet (`lyra task run {task_id}` runs it)"
    elif what == "paper":
        why = (
            "no paper votes for or against a claim" if only_evidence and papers else "its run found no papers"
        )
    elif claims:
        why = "feedback rejected every claim it has"
    else:
        why = "its run adopted no claim"
    return f"the {fmt} export of task {task_id} is empty: {why}"
