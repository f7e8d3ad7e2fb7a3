"""Stage 3: ``pages`` and ``fragments`` — every source document (the task's papers and the
papers citation tracking selected), and its text cut into fragments."""


import hashlib
from urllib.parse import urlparse

import pandas as pd
from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from lyra_assets.metadata import table_metadata
from lyra_assets.partitions import task_partitions
from lyra_core.fragments import make_fragments
from lyra_resources.settings import FragmentSettings, LyraSettings
from lyra_resources.store import LyraStore

PAGE_COLUMNS = ["page_id", "paper_id", "url", "domain", "kind", "title"]
FRAGMENT_COLUMNS = ["fragment_id", "page_id", "position", "text"]


def paper_url(doi: str | None, pmid: str | None, arxiv_id: str | None, url: str | None) -> str | None:
    """The most canonical address of a paper: its DOI resolver link when it has a DOI."""
    if doi:
        return f"https://doi.org/{doi}"
    if url:
        return url
    if pmid:
        return f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"
    if arxiv_id:
        return f"https://arxiv.org/abs/{arxiv_id}"
    return None


def domain_of(url: str | None) -> str:
    """Host without 'www.'; 'local' for a paper known only from a local corpus file."""
    if not url:
        return "local"
    host = (urlparse(url).hostname or "").lower()
    return host.removeprefix("www.") or "local"


def page_id_for(paper_id: str, kind: str) -> str:
    return "pg_" + hashlib.sha1(f"{paper_id}\x1f{kind}".encode()).hexdigest()[:16]


def abstract_pages(papers: pd.DataFrame) -> pd.DataFrame:
    """One ``abstract`` page per paper that has an abstract."""
    rows = []
    for paper in papers.itertuples(index=False):
        if not isinstance(paper.abstract, str) or not paper.abstract.strip():
            continue
        url = paper_url(paper.doi, paper.pmid, paper.arxiv_id, paper.url)
        rows.append({
            "page_id": page_id_for(paper.paper_id, "abstract"), "paper_id": paper.paper_id,
            "url": url, "domain": domain_of(url), "kind": "abstract", "title": paper.title,
        })
    return pd.DataFrame(rows, columns=PAGE_COLUMNS)


def page_fragments(pages: pd.DataFrame, texts: dict[str, str], cfg: FragmentSettings) -> pd.DataFrame:
    """Sentence-window fragments of each page's text (``texts`` maps page_id to text)."""
    rows = []
    for page_id in pages["page_id"]:
        for fragment in make_fragments(page_id, texts.get(page_id, ""), window=cfg.window_sentences,
                                       stride=cfg.stride_sentences, max_chars=cfg.max_chars):
            rows.append(fragment.model_dump())
    return pd.DataFrame(rows, columns=FRAGMENT_COLUMNS)


def citation_pages(cited: pd.DataFrame) -> pd.DataFrame:
    """One ``citation`` page per selected citation paper (phase 5); they all have abstracts."""
    rows = []
    for paper in cited.itertuples(index=False):
        url = paper_url(paper.doi, paper.pmid, paper.arxiv_id, paper.url)
        rows.append({
            "page_id": page_id_for(paper.paper_id, "citation"), "paper_id": paper.paper_id,
            "url": url, "domain": domain_of(url), "kind": "citation", "title": paper.title,
        })
    return pd.DataFrame(rows, columns=PAGE_COLUMNS)


def selected_citation_papers(store: LyraStore, task_id: str) -> pd.DataFrame:
    """Citation papers that stage 2 selected for at least one paper, with their abstracts."""
    return store.fetch_df(
        "SELECT c.paper_id, c.doi, c.pmid, c.arxiv_id, c.url, c.title, c.abstract FROM citation_papers c "
        "WHERE c.task_id = ? AND c.abstract IS NOT NULL AND c.paper_id IN (SELECT candidate_paper_id "
        "FROM citation_expansions WHERE task_id = ? AND selected) ORDER BY c.paper_id",
        [task_id, task_id],
    )


def identified_papers_with_abstract(store: LyraStore, task_id: str) -> pd.DataFrame:
    """Papers the identifier loop found (phase 6 → 3) that came with an abstract."""
    return store.fetch_df(
        "SELECT paper_id, doi, pmid, arxiv_id, url, title, abstract FROM identified_papers "
        "WHERE task_id = ? AND length(trim(coalesce(abstract, ''))) > 0 ORDER BY paper_id", [task_id])


def fetched_web_pages(store: LyraStore, task_id: str) -> pd.DataFrame:
    """Browser-fetched pages with main text, as ``web`` pages (their ids already hash the final URL)."""
    return store.fetch_df(
        "SELECT page_id, NULL AS paper_id, coalesce(final_url, url) AS url, domain, 'web' AS kind, title "
        "FROM web_pages WHERE task_id = ? AND status = 'ok' AND length(trim(coalesce(text, ''))) > 0 "
        "ORDER BY page_id", [task_id])


# ``citation_expansions`` and ``web_pages`` are upstream so that the papers citation tracking selects
# and the pages the browser fetched become pages here: ``pages`` and ``fragments`` stay the one
# table of record for every document the task reads.
@asset(partitions_def=task_partitions, group_name="documents", deps=["papers", "citation_expansions", "web_pages"],
       kinds={"duckdb", "parquet"})
def pages(context: AssetExecutionContext, store: LyraStore) -> MaterializeResult:
    """Every source document of the task: one ``abstract`` page per paper with an abstract, one
    ``citation`` page per paper that citation tracking selected, one ``abstract`` page per paper the
    identifier loop found with an abstract, and one ``web`` page per page the browser fetched with text. ``domain`` is what trust levels attach to."""
    papers = store.read_partition("papers", context.partition_key)
    cited = selected_citation_papers(store, context.partition_key)
    cited = cited[~cited["paper_id"].isin(papers["paper_id"])]  # a task paper keeps its abstract page
    identified = identified_papers_with_abstract(store, context.partition_key)
    identified = identified[~identified["paper_id"].isin(papers["paper_id"])]
    web = fetched_web_pages(store, context.partition_key)
    parts = [abstract_pages(papers), citation_pages(cited), abstract_pages(identified), web[PAGE_COLUMNS]]
    frame = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) \
        else pd.DataFrame(columns=PAGE_COLUMNS)
    frame = frame.drop_duplicates("page_id")
    store.replace_partition("pages", context.partition_key, frame)
    return MaterializeResult(metadata=table_metadata(
        frame, ["kind", "domain", "title", "url"], citation_pages=MetadataValue.int(len(cited)),
        identified_papers=MetadataValue.int(len(identified)), web_pages=MetadataValue.int(len(web))))


@asset(partitions_def=task_partitions, group_name="documents", deps=["pages"], kinds={"duckdb", "parquet"})
def fragments(context: AssetExecutionContext, store: LyraStore, settings: LyraSettings) -> MaterializeResult:
    """Overlapping sentence windows of every page's text, with ids stable across runs
    (a hash of page and text), the unit that ranking and NLI judge."""
    task_id = context.partition_key
    pages_frame = store.read_partition("pages", task_id)
    texts = store.fetch_df(
        "SELECT pg.page_id, p.abstract AS text FROM pages pg JOIN (SELECT task_id, paper_id, abstract FROM papers "
        "UNION ALL SELECT task_id, paper_id, abstract FROM identified_papers WHERE paper_id NOT IN "
        "(SELECT paper_id FROM papers WHERE task_id = ?)) p ON p.task_id = pg.task_id AND p.paper_id = pg.paper_id "
        "WHERE pg.task_id = ? AND pg.kind = 'abstract' "
        "UNION ALL SELECT pg.page_id, c.abstract AS text FROM pages pg JOIN citation_papers c "
        "ON c.task_id = pg.task_id AND c.paper_id = pg.paper_id "
        "WHERE pg.task_id = ? AND pg.kind = 'citation' "
        "UNION ALL SELECT pg.page_id, w.text FROM pages pg JOIN web_pages w "
        "ON w.task_id = pg.task_id AND w.page_id = pg.page_id "
        "WHERE pg.task_id = ? AND pg.kind = 'web'",
        [task_id, task_id, task_id, task_id],
    )
    frame = page_fragments(pages_frame, dict(zip(texts["page_id"], texts["text"], strict=True)), settings.fragments)
    store.replace_partition("fragments", task_id, frame)
    return MaterializeResult(metadata=table_metadata(frame, ["page_id", "position", "text"]))
