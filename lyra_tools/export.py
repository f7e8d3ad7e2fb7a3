"""``lyra export``: a task's papers as BibTeX / RIS / CSL-JSON, its claims as CSV / JSONL, its report as HTML.

Formats are written by libraries (bibtexparser, rispy, json, pandas) from the effective graph:
claims a person rejected are left out, and verdicts carry human corrections and domain blocks.
A CSV text cell that a spreadsheet would read as a formula is written with a leading ``'``; a reference's
URL is written only when it is an http(s) link (a reference manager makes it clickable).
"""

from __future__ import annotations

import csv
import json
import re
from typing import Literal

import bibtexparser
import pandas as pd
import rispy
from bibtexparser.model import Entry, Field

from lyra_core.feedback import effective_edges
from lyra_resources.store import LyraStore
from lyra_tools import explore
from lyra_tools.report_refs import linkable

Format = Literal["bibtex", "ris", "csl-json", "csv", "jsonl", "html"]
FORMATS: tuple[str, ...] = ("bibtex", "ris", "csl-json", "csv", "jsonl", "html")
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


def task_papers(store: LyraStore, task_id: str) -> pd.DataFrame:
    """The task's papers, best search rank first."""
    return store.fetch_df("SELECT paper_id, doi, title, year, venue, url, authors FROM papers WHERE task_id = ? "
                          "ORDER BY search_rank NULLS LAST, paper_id", [task_id])


def _authors(value) -> list[str]:
    return [str(a) for a in value] if value is not None and not isinstance(value, float) else []


def _key(row, used: set[str]) -> str:
    """A citation key such as ``smith2019vitamin``, unique within the export."""
    family = re.sub(r"[^a-z]", "", (_authors(row.authors) or ["anon"])[0].split(",")[0].lower()) or "anon"
    word = next((w for w in re.findall(r"[a-z]{4,}", (row.title or "").lower())), "paper")
    key, n = f"{family}{row.year or ''}{word}", 1
    while key in used:
        n += 1
        key = f"{family}{row.year or ''}{word}{n}"
    used.add(key)
    return key


def to_bibtex(papers: pd.DataFrame) -> str:
    library, used = bibtexparser.Library(), set()
    for row in papers.itertuples(index=False):
        fields = {"title": row.title, "author": " and ".join(_authors(row.authors)) or None,
                  "year": str(int(row.year)) if pd.notna(row.year) else None, "journal": row.venue,
                  "doi": row.doi, "url": linkable(row.url)}
        library.add(Entry("article", _key(row, used), [Field(k, v) for k, v in fields.items() if v]))
    return bibtexparser.write_string(library)


def to_ris(papers: pd.DataFrame) -> str:
    entries = []
    for row in papers.itertuples(index=False):
        entry = {"type_of_reference": "JOUR", "title": row.title, "authors": _authors(row.authors),
                 "year": str(int(row.year)) if pd.notna(row.year) else None, "journal_name": row.venue,
                 "doi": row.doi, "urls": [linkable(row.url)] if linkable(row.url) else None}
        entries.append({k: v for k, v in entry.items() if v})
    return rispy.dumps(entries)


def to_csl_json(papers: pd.DataFrame) -> str:
    """CSL-JSON items (https://citeproc-js.readthedocs.io/en/latest/csl-json/markup.html)."""
    items = []
    for row in papers.itertuples(index=False):
        item = {"id": row.paper_id, "type": "article-journal", "title": row.title,
                "author": [dict(zip(("family", "given"), [p.strip() for p in a.split(",", 1)], strict=False))
                           for a in _authors(row.authors)],
                "issued": {"date-parts": [[int(row.year)]]} if pd.notna(row.year) else None,
                "container-title": row.venue, "DOI": row.doi, "URL": linkable(row.url)}
        items.append({k: v for k, v in item.items() if v})
    return json.dumps(items, ensure_ascii=False, indent=2)


def claim_rows(store: LyraStore, task_id: str) -> list[dict]:
    """Every claim in force with its effective verdict and evidence edges (ids, relation, source)."""
    with store.connect() as conn:
        explore.require_task(conn, task_id)
        overlay = explore.load_overlay(conn, task_id)
        claims = [c for c in explore.load_claims(conn, task_id, overlay, order="c.relevance DESC, c.claim_id")
                  if not c["rejected"]]
        edges = effective_edges(explore.claim_edges(conn, task_id, [c["claim_id"] for c in claims],
                                                            with_sources=True), overlay.reviews, overlay.blocked_pages)
    rows = []
    for c in claims:
        mine = sorted((e for e in edges if e["claim_id"] == c["claim_id"] and e["relation"] != "NEUTRAL"),
                      key=lambda e: (-e["nli_confidence"], e["edge_id"]))
        rows.append({"claim_id": c["claim_id"], "text": c["text"], "origin": c["origin"], "verdict": c["verdict"],
                     "confidence": c["confidence"], "uncertainty": c["uncertainty"],
                     "controversy": c["controversy"], "supporting": c["supporting_count"],
                     "refuting": c["refuting_count"],
                     "evidence": [{"edge_id": e["edge_id"], "relation": e["relation"],
                                   "nli_confidence": round(float(e["nli_confidence"]), 4), "text": e["text"],
                                   "source": e["title"], "url": e["url"]} for e in mine]})
    return rows


def export(store: LyraStore, task_id: str, fmt: str) -> str:
    """The task in ``fmt``; ExploreError for an unknown task, ValueError for an unknown format."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    with store.connect() as conn:
        explore.require_task(conn, task_id)
    if fmt in ("bibtex", "ris", "csl-json"):
        papers = task_papers(store, task_id)
        return {"bibtex": to_bibtex, "ris": to_ris, "csl-json": to_csl_json}[fmt](papers)
    if fmt == "html":
        from lyra_tools.report import report_html

        return report_html(store, task_id)
    rows = claim_rows(store, task_id)
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in rows)
    flat = [{**{k: v for k, v in r.items() if k != "evidence"},
             "evidence_edges": ";".join(f"{e['relation']}:{e['edge_id']}" for e in r["evidence"])} for r in rows]
    table = pd.DataFrame(flat)
    for column in table.select_dtypes(include="object").columns:  # the text columns; numbers stay numbers
        table[column] = table[column].map(csv_cell)
    # every text cell quoted, so a line break inside one never starts a new row; numbers unquoted
    return table.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC)
