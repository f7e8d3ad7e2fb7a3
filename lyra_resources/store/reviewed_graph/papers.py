"""The papers of one task, wherever the pipeline found them, as plain rows.

A task's papers come from three tables: ``papers`` (search results and corpus hits),
``identified_papers`` (looked up by a DOI / PMID / arXiv id a page named; only those with an
abstract became pages) and ``citation_papers`` (met during citation expansion; only the
selected ones became ``citation`` pages). A paper counts as the task's when it is in ``papers``
or has a page; the first table that holds it gives its metadata. Queries are Lyra's own SQL
with parameters; the reviewed graph's other readers and :mod:`lyra_tools.explore.papers`
share them so every answer names a source with the same title, year and DOI.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from lyra_resources.store.sql import fetch_rows

_MAX_IN = 100  # ids passed as IN (?, …); more are filtered in Python

# $1 is the task id; ``found_by`` says which table the paper came from (its first one wins)
_TASK_PAPERS_SQL = """
WITH paged AS (SELECT DISTINCT paper_id FROM pages WHERE task_id = $1 AND paper_id IS NOT NULL{only}),
found AS (
    SELECT paper_id, doi, pmid, arxiv_id, sources, title, abstract, year, venue, url, authors,
           'search' AS found_by, 0 AS pick, search_rank FROM papers WHERE task_id = $1{only}
    UNION ALL
    SELECT paper_id, doi, pmid, arxiv_id, sources, title, abstract, year, venue, url, authors, 'identifier', 1, NULL
    FROM identified_papers WHERE task_id = $1 AND paper_id IN (SELECT paper_id FROM paged)
    UNION ALL
    SELECT paper_id, doi, pmid, arxiv_id, sources, title, abstract, year, venue, url, NULL::VARCHAR[], 'citation', 2,
           NULL FROM citation_papers WHERE task_id = $1 AND paper_id IN (SELECT paper_id FROM paged))
SELECT paper_id, doi, pmid, arxiv_id, sources, title, abstract, year, venue, url, authors, found_by, search_rank FROM (
    SELECT *, row_number() OVER (PARTITION BY paper_id ORDER BY pick) AS nth FROM found) AS ranked
WHERE nth = 1
"""


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def task_papers(
    conn: duckdb.DuckDBPyConnection, task_id: str, paper_ids: Sequence[str] | None = None
) -> dict[str, dict[str, Any]]:
    """paper_id → its row (doi, pmid, arxiv_id, sources, title, abstract, year, venue, url, authors,
    found_by, search_rank): every paper of the task, or those of ``paper_ids`` that are the task's."""
    wanted = None if paper_ids is None else list(dict.fromkeys(p for p in paper_ids if p))
    if wanted is not None and not wanted:
        return {}
    only, params = "", [task_id]
    if wanted is not None and len(wanted) <= _MAX_IN:
        # inside each table's scan, so a few papers' rows are read rather than the whole task's abstracts
        only = f" AND paper_id IN ({', '.join(f'${i + 2}' for i in range(len(wanted)))})"
        params += wanted
    sql = f"SELECT * FROM ({_TASK_PAPERS_SQL.format(only=only)}) AS task_papers"
    rows = _rows(conn, sql + " ORDER BY search_rank NULLS LAST, paper_id", params)
    keep = set(wanted) if wanted is not None else None
    return {r["paper_id"]: r for r in rows if keep is None or r["paper_id"] in keep}


def paper_keys(conn: duckdb.DuckDBPyConnection, task_id: str) -> list[tuple[str, int, int]]:
    """(paper_id, title length, abstract length) of every paper of the task, by paper id: what
    tells whether an index built over the papers' texts still stands, without reading the texts."""
    return [
        tuple(r)
        for r in conn.execute(
            f"SELECT paper_id, length(coalesce(title, '')), length(coalesce(abstract, '')) FROM "
            f"({_TASK_PAPERS_SQL.format(only='')}) AS task_papers "
            "ORDER BY paper_id",
            [task_id],
        ).fetchall()
    ]


def add_paper_fields(conn: duckdb.DuckDBPyConnection, task_id: str, rows: list[dict[str, Any]]) -> None:
    """Give each row with a ``paper_id`` (an edge with its page's paper) that paper's ``doi``,
    ``pmid`` and ``year``, in place; a page that is no paper (a web page) gets None for each."""
    meta = task_papers(conn, task_id, [r["paper_id"] for r in rows if r.get("paper_id")])
    for row in rows:
        paper = meta.get(row.get("paper_id") or "", {})
        row["doi"], row["pmid"], row["year"] = paper.get("doi"), paper.get("pmid"), paper.get("year")


def paper_pages(conn: duckdb.DuckDBPyConnection, task_id: str, paper_id: str) -> list[str]:
    """The task's pages of one paper."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT page_id FROM pages WHERE task_id = ? AND paper_id = ? ORDER BY page_id",
            [task_id, paper_id],
        ).fetchall()
    ]


def citation_links(
    conn: duckdb.DuckDBPyConnection, task_id: str, pages: Sequence[str]
) -> list[dict[str, Any]]:
    """The papers ``pages`` cite and are cited by within the task: direction ('cites' or 'cited_by'),
    paper id and whether any of the links is influential."""
    if not pages:
        return []
    marks = ", ".join("?" * len(pages))
    return fetch_rows(
        conn,
        "SELECT 'cites' AS direction, q.paper_id, any_value(c.is_influential) AS influential "
        "FROM citation_edges c JOIN pages q ON q.task_id = c.task_id AND q.page_id = c.target_page_id "
        f"WHERE c.task_id = ? AND c.source_page_id IN ({marks}) GROUP BY q.paper_id UNION ALL "
        "SELECT 'cited_by', q.paper_id, any_value(c.is_influential) FROM citation_edges c JOIN pages q "
        "ON q.task_id = c.task_id AND q.page_id = c.source_page_id "
        f"WHERE c.task_id = ? AND c.target_page_id IN ({marks}) GROUP BY q.paper_id",
        [task_id, *pages, task_id, *pages],
    )
