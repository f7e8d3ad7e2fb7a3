"""Stages 1 and 6 of seed 002: ``serp_results`` (browser search) and ``web_pages`` (browser fetch).

Phase 1 asks the configured search engines for the task's question through the browser and keeps
every organic result with the DOIs / PMIDs / arXiv ids it names. Phase 6 fetches the result pages
(and papers known without an abstract), extracts their main text and citation metadata, and
collects the identifiers found on them for identifier completion (phase 3), bounded by
``browser.loop_depth``. Both assets always materialize: when the browser is off for a task they
write an empty table whose metadata says why, so the offline pipeline never launches Chromium.
"""


import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pandas as pd
from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset
from pydantic import BaseModel, Field

from lyra_assets.metadata import table_metadata
from lyra_assets.partitions import task_partitions
from lyra_assets.sources import papers_frame
from lyra_core.cells import cell_list
from lyra_core.feedback import blocked_domains
from lyra_core.papers import CanonicalPaper, PaperRecord, canonicalize
from lyra_core.tasks import TaskOptions
from lyra_core.web import (
    Identifiers,
    browser_mode,
    canonical_url,
    extract_page,
    new_identifiers,
    url_domain,
    web_page_id,
)
from lyra_resources.browser import BrowserSession, BrowserUnavailable, FetchedPage, WebBrowser
from lyra_resources.domain_policy import DomainTrust, TrustLevel, user_domain_rules
from lyra_resources.academic import AcademicApiError, AcademicSource
from lyra_resources.academic.gather import complete_identifiers, reachable_sources
from lyra_resources.literature import LiteratureSources, live_mode
from lyra_resources.search_engines import SerpResult, engine, looks_like_challenge
from lyra_resources.settings import BrowserSettings
from lyra_resources.store import LyraStore

SERP_COLUMNS = ["engine", "query", "rank", "url", "title", "snippet", "domain", "dois", "pmids", "arxiv_ids"]
WEB_PAGE_COLUMNS = ["page_id", "url", "final_url", "domain", "title", "text", "status", "error", "http_status",
                    "truncated", "page_doi", "dois", "pmids", "arxiv_ids", "citation", "source", "fetched_at", "depth"]


# -- when the browser runs -------------------------------------------------------------------------

def task_uses_browser(options: TaskOptions, cfg: BrowserSettings, literature: LiteratureSources, *,
                      fetch: bool = False) -> tuple[bool, str]:
    """Whether this task searches (or, with ``fetch``, fetches pages) with the browser, and why."""
    if options.is_verify:
        return False, "a verify task reads only its corpus"
    has_corpus = bool(options.corpus or literature.default_corpus)
    searching, reason = browser_mode(cfg.search, live_mode(literature.sources), has_local_corpus=has_corpus)
    if not fetch or cfg.fetch == "auto":
        return searching, reason
    return browser_mode(cfg.fetch, "on", has_local_corpus=False)[0], f"browser.fetch is {cfg.fetch}"


# -- phase 1: search -------------------------------------------------------------------------------

class EngineRun(BaseModel):
    engine: str
    url: str
    status: str = Field(description="ok | challenge | refused | blocked | timeout | error | http_error")
    results: int = 0
    error: str | None = None


async def search_engines(session: BrowserSession, engine_names: Sequence[str], query: str, limit: int,
                         base_urls: dict[str, str] | None = None) -> tuple[list[SerpResult], list[EngineRun]]:
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
            runs.append(EngineRun(engine=name, url=url, status="challenge",
                                  error="the engine answered with an anti-bot challenge instead of results"))
            continue
        results.extend(found)
        runs.append(EngineRun(engine=name, url=url, status="ok", results=len(found)))
    return results, runs


def serp_frame(results: Sequence[SerpResult], query: str) -> pd.DataFrame:
    rows = [{"engine": r.engine, "query": query, "rank": r.rank, "url": r.url, "title": r.title,
             "snippet": r.snippet, "domain": r.domain, "dois": list(r.identifiers.dois),
             "pmids": list(r.identifiers.pmids), "arxiv_ids": list(r.identifiers.arxiv_ids)} for r in results]
    return pd.DataFrame(rows, columns=SERP_COLUMNS)


def _policy_hooks(trust: DomainTrust, store: LyraStore) -> tuple[Callable[[str], bool], Callable[[str], float]]:
    """Blocked: the domain policy's ``blocked`` level or a user's ``domain_block``; never fetched."""
    policy = trust.policy()
    rules = user_domain_rules(store)
    return (lambda domain: policy.trust_level(domain) == TrustLevel.BLOCKED or bool(blocked_domains([domain], rules)),
            lambda domain: policy.politeness(domain).qps)


def _unavailable(context: AssetExecutionContext, exc: BrowserUnavailable, mode: str) -> str:
    """Fail when the user asked for the browser; degrade (and say so) when ``auto`` chose it."""
    if mode == "on":
        raise exc
    context.log.warning(f"browser stage skipped: {exc}")
    return f"browser unavailable: {exc}"


@asset(partitions_def=task_partitions, group_name="web", kinds={"duckdb", "parquet"})
def serp_results(context: AssetExecutionContext, store: LyraStore, browser: WebBrowser,
                 trust: DomainTrust, literature: LiteratureSources) -> MaterializeResult:
    """Phase 1: organic results of the configured search engines for the task's question, asked
    through the browser: engine, rank, link (click-tracking redirects unwrapped), title, snippet,
    and the DOIs / PMIDs / arXiv ids they name. Empty, with the reason in the metadata, when the
    browser is off for the task (``browser.search``; auto = off for a task with a local corpus)."""
    task = store.require_task(context.partition_key)
    cfg = browser.config()
    enabled, reason = task_uses_browser(TaskOptions.model_validate(task.options), cfg, literature)
    results: list[SerpResult] = []
    runs: list[EngineRun] = []
    if enabled and cfg.engines:
        is_blocked, qps = _policy_hooks(trust, store)

        async def run() -> tuple[list[SerpResult], list[EngineRun]]:
            async with BrowserSession(cfg, is_blocked=is_blocked, qps=qps) as session:
                return await search_engines(session, cfg.engines, task.query, cfg.results_per_engine,
                                            cfg.engine_urls)

        try:
            results, runs = asyncio.run(run())
        except BrowserUnavailable as exc:
            reason = _unavailable(context, exc, cfg.search)
    frame = serp_frame(results, task.query)
    store.replace_partition("serp_results", task.id, frame)
    for r in runs:
        if r.status != "ok":
            context.log.warning(f"search engine {r.engine}: {r.status}: {r.error}")
    with_ids = int(sum(bool(len(d) or len(p) or len(a)) for d, p, a in
                       zip(frame["dois"], frame["pmids"], frame["arxiv_ids"], strict=True)))
    return MaterializeResult(metadata=table_metadata(
        frame, ["engine", "rank", "title", "domain", "dois"],
        browser=MetadataValue.text("on" if enabled else "off"), reason=MetadataValue.text(reason),
        engines=MetadataValue.json([r.model_dump() for r in runs]),
        results_with_identifiers=MetadataValue.int(with_ids),
    ))


# -- phase 6: fetch, and the identifier loop -------------------------------------------------------

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
    ordered = serp.assign(_order=serp["engine"].map({e: i for i, e in enumerate(dict.fromkeys(serp["engine"]))}))
    ordered = ordered.sort_values(["rank", "_order"], kind="stable")
    return [FetchTarget(url=r.url, source=f"serp:{r.engine}:{r.rank}") for r in ordered.itertuples(index=False)]


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
    def col(name):
        return [v for v in papers.get(name, pd.Series(dtype=object)) if isinstance(v, str) and v]
    return Identifiers.of(col("doi"), col("pmid"), col("arxiv_id"))


def page_row(target: FetchTarget, fetched: FetchedPage) -> dict[str, Any]:
    """One ``web_pages`` row: the fetch's outcome, and for a page that loaded, its content."""
    row: dict[str, Any] = {
        "page_id": web_page_id(fetched.final_url or target.url), "url": target.url, "final_url": fetched.final_url,
        "domain": url_domain(fetched.final_url or target.url), "title": None, "text": None,
        "status": fetched.status, "error": fetched.error, "http_status": fetched.http_status,
        "truncated": fetched.truncated, "page_doi": None, "dois": [], "pmids": [], "arxiv_ids": [],
        "citation": None, "source": target.source, "fetched_at": fetched.fetched_at, "depth": target.depth,
    }
    if fetched.status == "ok" and fetched.html:
        content = extract_page(fetched.html, fetched.final_url)
        ids = content.identifiers
        row.update(title=content.title, text=content.text, page_doi=content.metadata.doi, dois=list(ids.dois),
                   pmids=list(ids.pmids), arxiv_ids=list(ids.arxiv_ids),
                   citation=json.dumps(content.metadata.compact(), ensure_ascii=False))
    return row


def row_identifiers(row: dict[str, Any]) -> Identifiers:
    return Identifiers(dois=tuple(cell_list(row["dois"])), pmids=tuple(cell_list(row["pmids"])),
                       arxiv_ids=tuple(cell_list(row["arxiv_ids"])))


CompleteFn = Callable[[Identifiers, int], Awaitable[list[FetchTarget]]]


def identifier_stubs(ids: Identifiers) -> list[CanonicalPaper]:
    """One paper to look up per identifier; the sources answer with the real record."""
    return ([CanonicalPaper(paper_id=f"doi:{d}", doi=d, title="") for d in ids.dois]
            + [CanonicalPaper(paper_id=f"pmid:{p}", pmid=p, title="") for p in ids.pmids]
            + [CanonicalPaper(paper_id=f"arxiv:{a}", arxiv_id=a, title="") for a in ids.arxiv_ids])


class IdentifierCompletion:
    """The phase 6 → 3 loop's ``complete``: looks the identifiers found on pages up in the live
    APIs (identifier completion, phase 3), keeps every record found, and answers with the landing
    pages (through the DOI resolver) of the papers that came back without an abstract."""

    def __init__(self, sources: Sequence[AcademicSource], resolver: str) -> None:
        self.sources = list(sources)
        self.resolver = resolver
        self.records: list[tuple[PaperRecord, int]] = []
        self.errors: list[AcademicApiError] = []
        self.unresolved: list[str] = []

    async def __call__(self, fresh: Identifiers, depth: int) -> list[FetchTarget]:
        stubs = identifier_stubs(fresh)
        sources = reachable_sources(self.sources)
        if not sources:
            self.unresolved += [s.paper_id for s in stubs]
            return []
        found = await complete_identifiers(stubs, sources, need=lambda paper: True)
        self.errors += found.errors
        self.records += [(record, depth) for record in found.records]
        self.unresolved += [s.paper_id for s in stubs if s.paper_id not in found.resolved]
        # this round's papers, each source's record merged: only one still without an abstract
        # needs its landing page
        return [FetchTarget(url=f"{self.resolver}{paper.doi}", source=f"doi:{paper.doi}")
                for paper in canonicalize(found.records) if paper.doi and not paper.abstract]

    def papers(self, known: Identifiers) -> pd.DataFrame:
        """The papers found, merged by identifier, each with the first round that found it;
        papers the task already had (by any identifier) are left to ``papers``."""
        new = [p for p in canonicalize(r for r, _ in self.records)
               if p.doi not in known.dois and p.pmid not in known.pmids and p.arxiv_id not in known.arxiv_ids]
        frame = papers_frame(new).drop(columns="search_rank")
        frame["depth"] = pd.array([min(d for r, d in self.records if f"{r.source}:{r.source_id}" in p.sources)
                                   for p in new], dtype="Int64")
        return frame


class Crawl(BaseModel):
    rows: list[dict[str, Any]]
    pending: Identifiers = Field(description="new identifiers left for identifier completion (phase 3)")
    rounds: int = 0


async def crawl(session: BrowserSession, targets: Sequence[FetchTarget], *, known: Identifiers, max_depth: int,
                per_page: int, fetch_limit: int, complete: CompleteFn | None = None,
                found_before: Sequence[Identifiers] = ()) -> Crawl:
    """Fetch ``targets``; then, while ``max_depth`` allows, send the identifiers the pages name
    that ``known`` lacks to ``complete`` (identifier completion, phase 3), which answers with the
    pages to fetch next (papers still lacking an abstract), one depth further.

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
    frame = pd.DataFrame(list(rows), columns=WEB_PAGE_COLUMNS)
    frame = frame.drop_duplicates("page_id", keep="first").reset_index(drop=True)
    return frame.astype({"http_status": "Int64", "depth": "Int64"})


@asset(partitions_def=task_partitions, group_name="web", deps=["serp_results", "papers"],
       kinds={"duckdb", "parquet"})
def web_pages(context: AssetExecutionContext, store: LyraStore, browser: WebBrowser, trust: DomainTrust,
              literature: LiteratureSources) -> MaterializeResult:
    """Phase 6: the task's search results (and papers known without an abstract) fetched with the
    browser: main text (trafilatura), citation metadata, and the DOIs / PMIDs / arXiv ids found
    (the page's own first). ``status`` says how each fetch went (ok, http_error, refused — an
    unsafe URL or redirect —, blocked — a blocked domain, never fetched —, unsupported, timeout,
    error). With live sources on, the identifiers new to the task (the SERP's too) go through
    identifier completion (phase 3): the papers found are written to ``identified_papers``, and
    those without an abstract have their landing page fetched in the next round, up to
    ``browser.loop_depth`` rounds. Without live sources they are listed in the metadata."""
    task = store.require_task(context.partition_key)
    options = TaskOptions.model_validate(task.options)
    cfg = browser.config()
    enabled, reason = task_uses_browser(options, cfg, literature, fetch=True)
    serp = store.read_partition("serp_results", task.id)
    papers = store.read_partition("papers", task.id)
    targets = serp_targets(serp) + paper_targets(papers, cfg.doi_resolver)
    known = known_identifiers(papers)
    serp_ids = [Identifiers.of(cell_list(d), cell_list(p), cell_list(a))
                for d, p, a in zip(serp["dois"], serp["pmids"], serp["arxiv_ids"], strict=True)]
    outcome = Crawl(rows=[], pending=Identifiers())
    completion: IdentifierCompletion | None = None
    if enabled and targets and cfg.fetch_limit:
        is_blocked, qps = _policy_hooks(trust, store)
        complete_ids = literature.plan(options.corpus).live and literature.sources.complete_identifiers

        async def run() -> tuple[Crawl, IdentifierCompletion | None]:
            async with contextlib.AsyncExitStack() as stack:
                completer = None
                if complete_ids:
                    completer = IdentifierCompletion(await stack.enter_async_context(literature.academic()),
                                                     cfg.doi_resolver)
                session = await stack.enter_async_context(BrowserSession(cfg, is_blocked=is_blocked, qps=qps))
                crawled = await crawl(session, targets, known=known, max_depth=cfg.loop_depth,
                                      per_page=cfg.identifiers_per_page, fetch_limit=cfg.fetch_limit,
                                      complete=completer, found_before=serp_ids)
                return crawled, completer

        try:
            outcome, completion = asyncio.run(run())
        except BrowserUnavailable as exc:
            reason = _unavailable(context, exc, cfg.fetch if cfg.fetch != "auto" else cfg.search)
    elif enabled:
        reason = f"{reason}; nothing to fetch" if not targets else f"{reason}; browser.fetch_limit is 0"
    frame = web_pages_frame(outcome.rows)
    identified = (completion or IdentifierCompletion([], cfg.doi_resolver)).papers(known)
    store.replace_partition("identified_papers", task.id, identified)
    store.replace_partition("web_pages", task.id, frame)
    statuses = frame["status"].value_counts().to_dict() if len(frame) else {}
    pending = outcome.pending
    api_errors = [f"{e.api} {e.endpoint}: {e.reason}" for e in (completion.errors if completion else [])]
    for line in api_errors[:20]:
        context.log.warning(line)
    with_abstract = int(identified["abstract"].notna().sum()) if len(identified) else 0
    return MaterializeResult(metadata=table_metadata(
        frame, ["status", "domain", "title", "page_doi", "error"],
        browser=MetadataValue.text("on" if enabled else "off"), reason=MetadataValue.text(reason),
        statuses=MetadataValue.json({str(k): int(v) for k, v in statuses.items()}),
        identifier_completion=MetadataValue.text(
            "on (live sources)" if completion else "off: live sources are off for this task"),
        identified_papers=MetadataValue.int(len(identified)),
        identified_with_abstract=MetadataValue.int(with_abstract),
        unresolved_identifiers=MetadataValue.json(completion.unresolved[:50] if completion else []),
        loop_rounds=MetadataValue.int(outcome.rounds),
        api_errors=MetadataValue.json(api_errors[:20]),
        identifiers_for_completion=MetadataValue.json(pending.model_dump(mode="json")),
        identifiers_for_completion_count=MetadataValue.int(pending.total),
    ))
