"""The browser stages: search result pages, fetched web pages and the papers they name."""

from __future__ import annotations

from lyra_resources.schema.columns import Column, TableSpec, table
from lyra_resources.schema.tasks import PAPERS

SERP_RESULTS = table(
    "serp_results",
    "browser search results per engine: rank, link (redirects unwrapped), title, snippet, and the "
    "DOIs / PMIDs / arXiv ids they name",
    """
    task_id VARCHAR
    engine VARCHAR
    query VARCHAR
    rank INTEGER
    url VARCHAR
    title VARCHAR
    snippet VARCHAR
    domain VARCHAR
    dois VARCHAR[]
    pmids VARCHAR[]
    arxiv_ids VARCHAR[]
    """,
)

WEB_PAGES = table(
    "web_pages",
    "pages fetched with the browser: main text, citation metadata, the identifiers found on them "
    "(the page's own first), and how the fetch went; page_id hashes the final URL",
    """
    task_id VARCHAR
    page_id VARCHAR
    url VARCHAR
    final_url VARCHAR
    domain VARCHAR
    title VARCHAR
    text VARCHAR
    status VARCHAR
    error VARCHAR
    http_status INTEGER
    truncated BOOLEAN
    page_doi VARCHAR
    dois VARCHAR[]
    pmids VARCHAR[]
    arxiv_ids VARCHAR[]
    citation JSON
    source VARCHAR
    fetched_at TIMESTAMP
    depth INTEGER
    """,
)

IDENTIFIED_PAPERS = TableSpec(
    name="identified_papers",
    description="papers behind the DOIs / PMIDs / arXiv ids that search results and fetched pages named, "
    "looked up by identifier in the live APIs; those with an abstract become `abstract` pages; `depth` is "
    "the round of fetching pages and looking up the ids they name that found them",
    columns=[*(c for c in PAPERS.columns if c.name != "search_rank"), Column(name="depth", type="INTEGER")],
)
