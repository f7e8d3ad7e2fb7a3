"""Searching and fetching the web with the browser: the search engines' result rows, and a crawl
of result pages (and papers' landing pages) that hands the identifiers found on them to
identifier completion and fetches the landing pages it answers with, a bounded number of rounds."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from lyra_core.browsing import new_identifiers
from lyra_core.cells import cell_list
from lyra_core.identifiers import Identifiers
from lyra_core.page_extraction import extract_page
from lyra_core.urls import canonical_url, url_domain, web_page_id
from lyra_resources.schema import TABLES
from lyra_resources.web.browser import BrowserSession, FetchedPage
from lyra_resources.web.search_engines import SerpResult, engine, looks_like_challenge

# -- search ------------------------------------------------------------------------------------------


class EngineRun(BaseModel):
    engine: str
    url: str
    status: str = Field(description="ok | challenge | refused | blocked | timeout | error | http_error")
    results: int = 0
    error: str | None = None


async def search_engines(
    session: BrowserSession,
    engine_names: Sequence[str],
    query: str,
    limit: int,
    base_urls: dict[str, str] | None = None,
) -> tuple[list[SerpResult], list[EngineRun]]:
    """Every engine's first ``limit`` organic results for ``query``; an engine that fails or
    answers with a challenge page is reported, never fatal."""
    results: list[SerpResult] = []
    runs: list[EngineRun] = []
    for name in engine_names:  # one after another: engines are the most rate-sensitive hosts
        eng = engine(name, base_urls)
        url = eng.query_url(query)
        page = await session.fetch(url)
        if page.status != "ok":
            runs.append(EngineRun(engine=name, url=url, status=page.status, error=page.error))
            continue
        found = eng.parse(page.html, page.final_url)[:limit]
        if not found and looks_like_challenge(page.html):
            runs.append(
                EngineRun(
                    engine=name,
                    url=url,
                    status="challenge",
                    error="the engine answered with an anti-bot challenge instead of results",
                )
            )
            continue
        results.extend(found)
        runs.append(EngineRun(engine=name, url=url, status="ok", results=len(found)))
    return results, runs


def serp_frame(results: Sequence[SerpResult], query: str) -> pd.DataFrame:
    """``serp_results`` rows: one per organic result, with the identifiers it names."""
    rows = [
        {
            "engine": r.engine,
            "query": query,
            "rank": r.rank,
            "url": r.url,
            "title": r.title,
            "snippet": r.snippet,
            "domain": r.domain,
            "dois": list(r.identifiers.dois),
            "pmids": list(r.identifiers.pmids),
            "arxiv_ids": list(r.identifiers.arxiv_ids),
        }
        for r in results
    ]
    return pd.DataFrame(rows, columns=TABLES["serp_results"].data_columns)


# -- fetch, and the identifier loop ------------------------------------------------------------------


class FetchTarget(BaseModel):
    """A page to fetch, where it came from (``serp:<engine>:<rank>``, ``paper:<id>``, ``doi:<doi>``)
    and at which round of the identifier loop."""

    url: str
    source: str
    depth: int = 0


def serp_targets(serp: pd.DataFrame) -> list[FetchTarget]:
    """Result links best rank first, engines interleaved at equal rank, each URL once."""
    if serp.empty:
        return []
    ordered = serp.assign(
        _order=serp["engine"].map({e: i for i, e in enumerate(dict.fromkeys(serp["engine"]))})
    )
    ordered = ordered.sort_values(["rank", "_order"], kind="stable")
    return [
        FetchTarget(url=r.url, source=f"serp:{r.engine}:{r.rank}") for r in ordered.itertuples(index=False)
    ]


def paper_targets(papers: pd.DataFrame, resolver: str = "https://doi.org/") -> list[FetchTarget]:
    """Papers known without an abstract: their landing page (DOI resolver first) may hold one."""
    targets = []
    for paper in papers.itertuples(index=False):
        if isinstance(paper.abstract, str) and paper.abstract.strip():
            continue
        doi = paper.doi if isinstance(paper.doi, str) and paper.doi else None
        url = f"{resolver}{doi}" if doi else (paper.url if isinstance(paper.url, str) and paper.url else None)
        if url:
            targets.append(FetchTarget(url=url, source=f"paper:{paper.paper_id}"))
    return targets


def known_identifiers(papers: pd.DataFrame) -> Identifiers:
    """The identifiers the task's papers already carry: completion has nothing to add for them."""
    if papers.empty:
        return Identifiers()

    def col(name: str) -> list[str]:
        return [v for v in papers.get(name, pd.Series(dtype=object)) if isinstance(v, str) and v]

    return Identifiers.of(col("doi"), col("pmid"), col("arxiv_id"))


def page_row(target: FetchTarget, fetched: FetchedPage) -> dict[str, Any]:
    """One ``web_pages`` row: the fetch's outcome, and for a page that loaded, its content."""
    row: dict[str, Any] = {
        "page_id": web_page_id(fetched.final_url or target.url),
        "url": target.url,
        "final_url": fetched.final_url,
        "domain": url_domain(fetched.final_url or target.url),
        "title": None,
        "text": None,
        "status": fetched.status,
        "error": fetched.error,
        "http_status": fetched.http_status,
        "truncated": fetched.truncated,
        "page_doi": None,
        "dois": [],
        "pmids": [],
        "arxiv_ids": [],
        "citation": None,
        "source": target.source,
        "fetched_at": fetched.fetched_at,
        "depth": target.depth,
    }
    if fetched.status == "ok" and fetched.html:
        content = extract_page(fetched.html, fetched.final_url)
        ids = content.identifiers
        row.update(
            title=content.title,
            text=content.text,
            page_doi=content.metadata.doi,
            dois=list(ids.dois),
            pmids=list(ids.pmids),
            arxiv_ids=list(ids.arxiv_ids),
            citation=json.dumps(content.metadata.compact(), ensure_ascii=False),
        )
    return row


def row_identifiers(row: dict[str, Any]) -> Identifiers:
    return Identifiers(
        dois=tuple(cell_list(row["dois"])),
        pmids=tuple(cell_list(row["pmids"])),
        arxiv_ids=tuple(cell_list(row["arxiv_ids"])),
    )


CompleteFn = Callable[[Identifiers, int], Awaitable[list[FetchTarget]]]


class Crawl(BaseModel):
    rows: list[dict[str, Any]]
    pending: Identifiers = Field(description="new identifiers left for identifier completion")
    rounds: int = 0


async def crawl(
    session: BrowserSession,
    targets: Sequence[FetchTarget],
    *,
    known: Identifiers,
    max_depth: int,
    per_page: int,
    fetch_limit: int,
    complete: CompleteFn | None = None,
    found_before: Sequence[Identifiers] = (),
) -> Crawl:
    """Fetch ``targets``; then, while ``max_depth`` allows, send the identifiers the pages name
    that ``known`` lacks to ``complete`` (identifier completion), which answers with the pages to
    fetch next (papers still lacking an abstract), one depth further.

    Without ``complete`` the loop stops after the first round and the new identifiers come back
    as ``pending``. ``found_before`` (e.g. the SERP's identifiers) joins the first round's.
    At most ``fetch_limit`` pages are fetched in all, and no URL twice.
    """
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    frontier, depth, rounds = list(targets), 0, 0
    extra = list(found_before)
    pending = Identifiers()
    while True:
        batch = []
        for target in frontier:
            key = canonical_url(target.url) if target.url.startswith(("http://", "https://")) else target.url
            if key in seen or len(seen) >= fetch_limit:
                continue
            seen.add(key)
            batch.append(target.model_copy(update={"depth": depth}))
        fetched = await asyncio.gather(*(session.fetch(t.url) for t in batch))
        new_rows = [page_row(t, f) for t, f in zip(batch, fetched, strict=True)]
        rows.extend(new_rows)
        rounds += 1
        found = [*extra, *(row_identifiers(r) for r in new_rows)]
        extra = []
        fresh = new_identifiers(found, known, depth=depth, max_depth=max_depth, per_page=per_page)
        if fresh.is_empty():
            break
        if complete is None:
            pending = fresh
            break
        known = known.merged(fresh)
        frontier = await complete(fresh, depth + 1)
        depth += 1
        if not frontier:
            break
    return Crawl(rows=rows, pending=pending, rounds=rounds)


def web_pages_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Rows in fetch order, one per page (two links ending on one final URL are one page)."""
    frame = pd.DataFrame(list(rows), columns=TABLES["web_pages"].data_columns)
    frame = frame.drop_duplicates("page_id", keep="first").reset_index(drop=True)
    return frame.astype({"http_status": "Int64", "depth": "Int64"})
