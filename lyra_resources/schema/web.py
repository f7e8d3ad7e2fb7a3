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
    engine VARCHAR -- the search engine asked: duckduckgo | google_scholar | bing | google
    query VARCHAR -- the text searched: the task's question
    rank INTEGER -- the result's place among the engine's organic results, 1 first
    url VARCHAR -- the result's link, the engine's redirect unwrapped
    title VARCHAR -- the result's title as the engine shows it
    snippet VARCHAR -- the engine's excerpt under the result
    domain VARCHAR -- host of `url` without `www.`
    dois VARCHAR[] -- DOIs named in the link, title or snippet (bare, lower case)
    pmids VARCHAR[] -- PubMed ids named in the link, title or snippet
    arxiv_ids VARCHAR[] -- arXiv ids named in the link, title or snippet (without version)
    """,
)

WEB_PAGES = table(
    "web_pages",
    "pages fetched with the browser: main text, citation metadata, the identifiers found on them "
    "(the page's own first), and how the fetch went; page_id hashes the final URL",
    """
    task_id VARCHAR
    page_id VARCHAR -- `pg_` + hash of the canonical final URL: two links ending on one page are one row
    url VARCHAR -- the address fetched: a search result, a paper's DOI link or URL
    final_url VARCHAR -- where the fetch ended, after redirects
    domain VARCHAR -- host of the final URL without `www.`
    title VARCHAR -- the page's title; NULL unless `status` is ok
    text VARCHAR -- the page's main text; NULL unless `status` is ok
    status VARCHAR -- ok | http_error | refused | blocked | unsupported | timeout | error
    error VARCHAR -- what went wrong, in words; NULL when ok
    http_status INTEGER -- HTTP status code of the page's response; NULL when none came
    truncated BOOLEAN -- whether the HTML was cut at `browser.max_page_bytes`
    page_doi VARCHAR -- the DOI the page's citation metadata gives for itself; NULL if none
    dois VARCHAR[] -- DOIs found on the page, its own first
    pmids VARCHAR[] -- PubMed ids found on the page
    arxiv_ids VARCHAR[] -- arXiv ids found on the page
    citation JSON -- the page's citation metadata (`citation_*`, Dublin Core, PRISM meta tags), empty fields left out
    source VARCHAR -- why it was fetched: `serp:<engine>:<rank>`, `paper:<paper id>` or `doi:<doi>`
    fetched_at TIMESTAMP -- when the fetch ended (UTC)
    depth INTEGER -- round of the identifier loop: 0 for search results and papers' pages, N for pages it found
    """,
)

IDENTIFIED_PAPERS = TableSpec(
    name="identified_papers",
    description="papers behind the DOIs / PMIDs / arXiv ids that search results and fetched pages named, "
    "looked up by identifier in the live APIs; those with an abstract become `abstract` pages; `depth` is "
    "the round of fetching pages and looking up the ids they name that found them",
    columns=[
        *(c for c in PAPERS.columns if c.name != "search_rank"),
        Column(
            name="depth", type="INTEGER", description="the identifier loop's round that found it, 1 first"
        ),
    ],
)
