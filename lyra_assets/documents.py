"""``pages`` and ``fragments``: every source document of the task (its papers, the papers citation
tracking selected or the identifier loop found, the web pages the browser fetched), and its text
cut into fragments."""


import hashlib
from urllib.parse import urlparse

import pandas as pd
from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, ResourceParam, asset

from lyra_assets import citations, sources, web
from lyra_assets.metadata import table_metadata
from lyra_assets.partitions import task_partitions
from lyra_core.fragments import make_fragments
from lyra_resources.schema import TABLES
from lyra_resources.settings import FragmentSettings, LyraSettings
from lyra_resources.store.lyra_store import LyraStore

PAGE_COLUMNS = TABLES["pages"].data_columns
FRAGMENT_COLUMNS = TABLES["fragments"].data_columns


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
    """One ``citation`` page per selected citation paper; they all have abstracts."""
    rows = []
    for paper in cited.itertuples(index=False):
        url = paper_url(paper.doi, paper.pmid, paper.arxiv_id, paper.url)
        rows.append({
            "page_id": page_id_for(paper.paper_id, "citation"), "paper_id": paper.paper_id,
            "url": url, "domain": domain_of(url), "kind": "citation", "title": paper.title,
        })
    return pd.DataFrame(rows, columns=PAGE_COLUMNS)


def selected_citation_papers(store: LyraStore, task_id: str) -> pd.DataFrame:
    """Citation papers selected for at least one task paper, with their abstracts."""
    return store.fetch_df(
        "SELECT c.paper_id, c.doi, c.pmid, c.arxiv_id, c.url, c.title, c.abstract FROM citation_papers c "
        "WHERE c.task_id = ? AND c.abstract IS NOT NULL AND c.paper_id IN (SELECT candidate_paper_id "
        "FROM citation_expansions WHERE task_id = ? AND selected) ORDER BY c.paper_id",
        [task_id, task_id],
    )


def identified_papers_with_abstract(store: LyraStore, task_id: str) -> pd.DataFrame:
    """Papers the identifier loop found that came with an abstract."""
    return store.fetch_df(
        "SELECT paper_id, doi, pmid, arxiv_id, url, title, abstract FROM identified_papers "
        "WHERE task_id = ? AND length(trim(coalesce(abstract, ''))) > 0 ORDER BY paper_id", [task_id])


def fetched_web_pages(store: LyraStore, task_id: str) -> pd.DataFrame:
    """Browser-fetched pages with main text, as ``web`` pages (their ids already hash the final URL)."""
    return store.fetch_df(
        "SELECT page_id, NULL AS paper_id, coalesce(final_url, url) AS url, domain, 'web' AS kind, title "
        "FROM web_pages WHERE task_id = ? AND status = 'ok' AND length(trim(coalesce(text, ''))) > 0 "
        "ORDER BY page_id", [task_id])


# The citation tables and the web tables are upstream so that the papers citation tracking selects,
# the papers the identifier loop found and the pages the browser fetched become pages here: ``pages``
# and ``fragments`` stay the one table of record for every document the task reads.
@asset(partitions_def=task_partitions, group_name="documents", kinds={"duckdb", "parquet"}, code_version="1",
       deps=[sources.papers_spec, citations.citation_expansions_spec, citations.citation_papers_spec,
             web.identified_papers_spec, web.web_pages_spec])
def pages(context: AssetExecutionContext, store: ResourceParam[LyraStore]) -> MaterializeResult:
    """Every source document of the task, one row per page; `domain` is what trust levels attach to.

    One `abstract` page per task paper with an abstract, one `citation` page per paper citation
    tracking selected, one `abstract` page per paper the identifier loop found with an abstract,
    and one `web` page per page the browser fetched with text."""
    papers = store.read_partition("papers", context.partition_key)
    cited = selected_citation_papers(store, context.partition_key)
    cited = cited[~cited["paper_id"].isin(papers["paper_id"])]  # a task paper keeps its abstract page
    identified = identified_papers_with_abstract(store, context.partition_key)
    identified = identified[~identified["paper_id"].isin(papers["paper_id"])]
    fetched = fetched_web_pages(store, context.partition_key)
    parts = [abstract_pages(papers), citation_pages(cited), abstract_pages(identified), fetched[PAGE_COLUMNS]]
    frame = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) \
        else pd.DataFrame(columns=PAGE_COLUMNS)
    frame = frame.drop_duplicates("page_id")
    store.replace_partition("pages", context.partition_key, frame)
    return MaterializeResult(metadata=table_metadata(
        frame, ["kind", "domain", "title", "url"], store=store, task=context.partition_key, table="pages",
        citation_pages=MetadataValue.int(len(cited)),
        identified_papers=MetadataValue.int(len(identified)), web_pages=MetadataValue.int(len(fetched))))


@asset(partitions_def=task_partitions, group_name="documents", kinds={"duckdb", "parquet"}, code_version="1",
       deps=[pages, sources.papers_spec, citations.citation_papers_spec, web.identified_papers_spec,
             web.web_pages_spec])
def fragments(context: AssetExecutionContext, store: ResourceParam[LyraStore], settings: ResourceParam[LyraSettings]) -> MaterializeResult:
    """Overlapping sentence windows of every page's text: the unit that ranking and NLI judge.

    Each page's text (its paper's abstract, or the fetched page's main text) is cut into windows
    of sentences; a fragment's id hashes its page and text, so it is stable across runs."""
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
    return MaterializeResult(metadata=table_metadata(frame, ["position", "text"], store=store, task=task_id,
                                                     table="fragments"))
