"""``serp_results`` (browser search) and the ``web_fetch`` multi-asset (``web_pages`` and
``identified_papers``): thin assets over :mod:`lyra_resources.web.crawl` and
:mod:`lyra_resources.sources.identifier_completion`. Both always materialize: when the browser is off for
a task they write empty tables whose metadata says why, so the offline pipeline never launches
Chromium.
"""

import asyncio
import contextlib
from collections.abc import Callable

import pandas as pd
from dagster import (
    AssetExecutionContext,
    MetadataValue,
    Output,
    ResourceParam,
)

from lyra_assets import sources
from lyra_assets.metadata import table_metadata
from lyra_assets.task_assets import TASK, task_table, task_table_spec, task_tables
from lyra_core.browsing import browser_mode
from lyra_core.cells import cell_list
from lyra_core.domain_rules import blocked_domains
from lyra_core.identifiers import Identifiers
from lyra_core.tasks import TaskOptions
from lyra_resources.settings.services import BrowserSettings
from lyra_resources.sources.identifier_completion import IdentifierCompletion
from lyra_resources.sources.literature import LiteratureSources, live_mode
from lyra_resources.store.lyra_store import LyraStore, TaskRecord
from lyra_resources.web.browser import BrowserSession, BrowserUnavailable
from lyra_resources.web.browser_resource import WebBrowser
from lyra_resources.web.crawl import (
    Crawl,
    EngineRun,
    crawl,
    known_identifiers,
    paper_targets,
    search_engines,
    serp_frame,
    serp_targets,
    web_pages_frame,
)
from lyra_resources.web.domain_policy import DomainTrust, TrustLevel, user_domain_rules
from lyra_resources.web.search_engines import SerpResult

# -- when the browser runs -------------------------------------------------------------------------


def task_uses_browser(
    options: TaskOptions, cfg: BrowserSettings, literature: LiteratureSources, *, fetch: bool = False
) -> tuple[bool, str]:
    """Whether this task searches (or, with ``fetch``, fetches pages) with the browser, and why."""
    if options.is_verify:
        return False, "a verify task reads only its corpus"
    has_corpus = bool(options.corpus or literature.default_corpus)
    searching, reason = browser_mode(cfg.search, live_mode(literature.sources), has_local_corpus=has_corpus)
    if not fetch or cfg.fetch == "auto":
        return searching, reason
    return browser_mode(cfg.fetch, "on", has_local_corpus=False)[0], f"browser.fetch is {cfg.fetch}"


def _policy_hooks(
    trust: DomainTrust, store: LyraStore
) -> tuple[Callable[[str], bool], Callable[[str], float]]:
    """Blocked: the domain policy's ``blocked`` level or a user's ``domain_block``; never fetched."""
    policy = trust.policy()
    rules = user_domain_rules(store)
    return (
        lambda domain: (
            policy.trust_level(domain) == TrustLevel.BLOCKED or bool(blocked_domains([domain], rules))
        ),
        lambda domain: policy.politeness(domain).qps,
    )


def _unavailable(context: AssetExecutionContext, exc: BrowserUnavailable, mode: str) -> str:
    """Fail when the user asked for the browser; degrade (and say so) when ``auto`` chose it."""
    if mode == "on":
        raise exc
    context.log.warning(f"browser stage skipped: {exc}")
    return f"browser unavailable: {exc}"


# -- search ----------------------------------------------------------------------------------------


@task_table(ins={"task": TASK})
def serp_results(
    context: AssetExecutionContext,
    task: TaskRecord,
    store: ResourceParam[LyraStore],
    browser: WebBrowser,
    trust: DomainTrust,
    literature: LiteratureSources,
) -> Output[pd.DataFrame]:
    """Search engine results for the task's question, one row per organic result.

    The configured engines are asked through the browser; each result keeps its rank, link, title,
    snippet and the DOIs, PMIDs and arXiv ids it names. Empty, with the reason in the metadata,
    when the browser is off for the task (`browser.search`)."""
    cfg = browser.config()
    enabled, reason = task_uses_browser(TaskOptions.model_validate(task.options), cfg, literature)
    results: list[SerpResult] = []
    runs: list[EngineRun] = []
    if enabled and cfg.engines:
        is_blocked, qps = _policy_hooks(trust, store)

        async def run() -> tuple[list[SerpResult], list[EngineRun]]:
            async with BrowserSession(cfg, is_blocked=is_blocked, qps=qps) as session:
                return await search_engines(
                    session, cfg.engines, task.query, cfg.results_per_engine, cfg.engine_urls
                )

        try:
            results, runs = asyncio.run(run())
        except BrowserUnavailable as exc:
            reason = _unavailable(context, exc, cfg.search)
    frame = serp_frame(results, task.query)
    for r in runs:
        if r.status != "ok":
            context.log.warning(f"search engine {r.engine}: {r.status}: {r.error}")
    with_ids = int(
        sum(
            bool(len(d) or len(p) or len(a))
            for d, p, a in zip(frame["dois"], frame["pmids"], frame["arxiv_ids"], strict=True)
        )
    )
    return Output(
        frame,
        metadata=table_metadata(
            frame,
            ["engine", "rank", "title", "domain", "dois"],
            browser=MetadataValue.text("on" if enabled else "off"),
            reason=MetadataValue.text(reason),
            engines=MetadataValue.json([r.model_dump() for r in runs]),
            results_with_identifiers=MetadataValue.int(with_ids),
        ),
    )


# -- fetch, and the identifier loop ----------------------------------------------------------------

web_pages_spec = task_table_spec(
    "web_pages",
    module=__name__,
    description="""Web pages the browser fetched for the task, one row per page.

The task's search results and the landing pages of papers without an abstract are fetched, and
each page's main text, citation metadata and identifiers are kept; `status` says how the fetch
went. Landing pages of papers the identifier loop finds are fetched in later rounds, up to
`browser.loop_depth`.""",
)

identified_papers_spec = task_table_spec(
    "identified_papers",
    module=__name__,
    description="""Papers found through the identifiers named on the task's web pages and search results.

With live sources on, each DOI, PMID and arXiv id the task did not know is looked up in the
academic APIs; every paper found that the task lacked is one row, with the round (`depth`) that
found it. Empty without live sources.""",
)


@task_tables(
    [web_pages_spec, identified_papers_spec],
    ins={"task": TASK, "serp": serp_results, "papers": sources.papers_spec},
)
def web_fetch(
    context: AssetExecutionContext,
    task: TaskRecord,
    serp: pd.DataFrame,
    papers: pd.DataFrame,
    store: ResourceParam[LyraStore],
    browser: WebBrowser,
    trust: DomainTrust,
    literature: LiteratureSources,
) -> tuple[Output, Output]:
    """Fetch the task's web pages with the browser and look up the identifiers found on them;
    both tables are written in one transaction."""
    options = TaskOptions.model_validate(task.options)
    cfg = browser.config()
    enabled, reason = task_uses_browser(options, cfg, literature, fetch=True)
    targets = serp_targets(serp) + paper_targets(papers, cfg.doi_resolver)
    known = known_identifiers(papers)
    serp_ids = [
        Identifiers.of(cell_list(d), cell_list(p), cell_list(a))
        for d, p, a in zip(serp["dois"], serp["pmids"], serp["arxiv_ids"], strict=True)
    ]
    outcome = Crawl(rows=[], pending=Identifiers())
    completion: IdentifierCompletion | None = None
    if enabled and targets and cfg.fetch_limit:
        is_blocked, qps = _policy_hooks(trust, store)
        complete_ids = literature.plan(options.corpus).live and literature.sources.complete_identifiers

        async def run() -> tuple[Crawl, IdentifierCompletion | None]:
            async with contextlib.AsyncExitStack() as stack:
                completer = None
                if complete_ids:
                    completer = IdentifierCompletion(
                        await stack.enter_async_context(literature.academic()), cfg.doi_resolver
                    )
                session = await stack.enter_async_context(BrowserSession(cfg, is_blocked=is_blocked, qps=qps))
                crawled = await crawl(
                    session,
                    targets,
                    known=known,
                    max_depth=cfg.loop_depth,
                    per_page=cfg.identifiers_per_page,
                    fetch_limit=cfg.fetch_limit,
                    complete=completer,
                    found_before=serp_ids,
                )
                return crawled, completer

        try:
            outcome, completion = asyncio.run(run())
        except BrowserUnavailable as exc:
            reason = _unavailable(context, exc, cfg.fetch if cfg.fetch != "auto" else cfg.search)
    elif enabled:
        reason = f"{reason}; nothing to fetch" if not targets else f"{reason}; browser.fetch_limit is 0"
    frame = web_pages_frame(outcome.rows)
    identified = (completion or IdentifierCompletion([], cfg.doi_resolver)).papers(known)
    statuses = frame["status"].value_counts().to_dict() if len(frame) else {}
    pending = outcome.pending
    api_errors = [f"{e.api} {e.endpoint}: {e.reason}" for e in (completion.errors if completion else [])]
    for line in api_errors[:20]:
        context.log.warning(line)
    with_abstract = int(identified["abstract"].notna().sum()) if len(identified) else 0
    completion_state = MetadataValue.text(
        "on (live sources)" if completion else "off: live sources are off for this task"
    )
    pages_result = Output(
        frame,
        metadata=table_metadata(
            frame,
            ["status", "domain", "title", "page_doi", "error"],
            browser=MetadataValue.text("on" if enabled else "off"),
            reason=MetadataValue.text(reason),
            statuses=MetadataValue.json({str(k): int(v) for k, v in statuses.items()}),
            identifier_completion=completion_state,
            identified_papers=MetadataValue.int(len(identified)),
            identified_with_abstract=MetadataValue.int(with_abstract),
            unresolved_identifiers=MetadataValue.json(completion.unresolved[:50] if completion else []),
            loop_rounds=MetadataValue.int(outcome.rounds),
            api_errors=MetadataValue.json(api_errors[:20]),
            identifiers_for_completion=MetadataValue.json(pending.model_dump(mode="json")),
            identifiers_for_completion_count=MetadataValue.int(pending.total),
        ),
    )
    papers_result = Output(
        identified,
        metadata=table_metadata(
            identified,
            ["depth", "title", "year", "doi"],
            identifier_completion=completion_state,
            with_abstract=MetadataValue.int(with_abstract),
        ),
    )
    return pages_result, papers_result
