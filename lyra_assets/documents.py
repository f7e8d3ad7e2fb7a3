"""``pages`` and ``fragments``: every source document of the task (its papers, the papers citation
tracking selected or the identifier loop found, the web pages the browser fetched), and its text
cut into fragments."""

import hashlib
from urllib.parse import urlparse

import pandas as pd
from dagster import MetadataValue, Output, ResourceParam

from lyra_assets import sources, web
from lyra_assets.citations import tracking as citations
from lyra_assets.metadata import table_metadata
from lyra_assets.task_assets import task_table
from lyra_core.fragments import make_fragments
from lyra_resources.schema import TABLES
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.settings.pipeline import FragmentSettings

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
        rows.append(
            {
                "page_id": page_id_for(paper.paper_id, "abstract"),
                "paper_id": paper.paper_id,
                "url": url,
                "domain": domain_of(url),
                "kind": "abstract",
                "title": paper.title,
            }
        )
    return pd.DataFrame(rows, columns=PAGE_COLUMNS)


def page_fragments(pages: pd.DataFrame, texts: dict[str, str], cfg: FragmentSettings) -> pd.DataFrame:
    """Sentence-window fragments of each page's text (``texts`` maps page_id to text)."""
    rows = []
    for page_id in pages["page_id"]:
        for fragment in make_fragments(
            page_id,
            texts.get(page_id, ""),
            window=cfg.window_sentences,
            stride=cfg.stride_sentences,
            max_chars=cfg.max_chars,
        ):
            rows.append(fragment.model_dump())
    return pd.DataFrame(rows, columns=FRAGMENT_COLUMNS)


def citation_pages(cited: pd.DataFrame) -> pd.DataFrame:
    """One ``citation`` page per selected citation paper; they all have abstracts."""
    rows = []
    for paper in cited.itertuples(index=False):
        url = paper_url(paper.doi, paper.pmid, paper.arxiv_id, paper.url)
        rows.append(
            {
                "page_id": page_id_for(paper.paper_id, "citation"),
                "paper_id": paper.paper_id,
                "url": url,
                "domain": domain_of(url),
                "kind": "citation",
                "title": paper.title,
            }
        )
    return pd.DataFrame(rows, columns=PAGE_COLUMNS)


def selected_citation_papers(cited: pd.DataFrame, expansions: pd.DataFrame) -> pd.DataFrame:
    """Citation papers selected for at least one task paper, with their abstracts."""
    chosen = set(expansions.loc[expansions["selected"].fillna(False).astype(bool), "candidate_paper_id"])
    kept = cited[cited["abstract"].notna() & cited["paper_id"].isin(chosen)]
    return kept.sort_values("paper_id", kind="stable").reset_index(drop=True)


def _has_text(column: pd.Series) -> pd.Series:
    return column.fillna("").astype(str).str.strip().str.len() > 0


def identified_papers_with_abstract(identified: pd.DataFrame) -> pd.DataFrame:
    """Papers the identifier loop found that came with an abstract."""
    kept = identified[_has_text(identified["abstract"])]
    return kept.sort_values("paper_id", kind="stable").reset_index(drop=True)


def fetched_web_pages(web_pages: pd.DataFrame) -> pd.DataFrame:
    """Browser-fetched pages with main text, as ``web`` pages (their ids already hash the final URL)."""
    kept = web_pages[(web_pages["status"] == "ok") & _has_text(web_pages["text"])]
    frame = pd.DataFrame(
        {
            "page_id": kept["page_id"],
            "paper_id": None,
            "url": kept["final_url"].fillna(kept["url"]),
            "domain": kept["domain"],
            "kind": "web",
            "title": kept["title"],
        },
        columns=PAGE_COLUMNS,
    )
    return frame.sort_values("page_id", kind="stable").reset_index(drop=True)


def document_texts(
    pages: pd.DataFrame,
    papers: pd.DataFrame,
    identified: pd.DataFrame,
    cited: pd.DataFrame,
    web_pages: pd.DataFrame,
) -> dict[str, str]:
    """Each page's text by ``page_id``: an ``abstract`` page's paper's abstract (a task paper's, or
    else an identified paper's), a ``citation`` page's citation paper's, a ``web`` page's main text."""
    abstracts = dict(zip(identified["paper_id"], identified["abstract"], strict=True))
    abstracts |= dict(zip(papers["paper_id"], papers["abstract"], strict=True))
    cited_abstracts = dict(zip(cited["paper_id"], cited["abstract"], strict=True))
    web_texts = dict(zip(web_pages["page_id"], web_pages["text"], strict=True))
    texts: dict[str, str] = {}
    for page in pages.itertuples(index=False):
        if page.kind == "abstract":
            text = abstracts.get(page.paper_id)
        elif page.kind == "citation":
            text = cited_abstracts.get(page.paper_id)
        else:
            text = web_texts.get(page.page_id) if page.kind == "web" else None
        if isinstance(text, str):
            texts[page.page_id] = text
    return texts


# The citation tables and the web tables are upstream so that the papers citation tracking selects,
# the papers the identifier loop found and the pages the browser fetched become pages here: ``pages``
# and ``fragments`` stay the one table of record for every document the task reads.
@task_table(
    ins={
        "papers": sources.papers_spec,
        "citation_expansions": citations.citation_expansions_spec,
        "citation_papers": citations.citation_papers_spec,
        "identified_papers": web.identified_papers_spec,
        "web_pages": web.web_pages_spec,
    }
)
def pages(
    papers: pd.DataFrame,
    citation_expansions: pd.DataFrame,
    citation_papers: pd.DataFrame,
    identified_papers: pd.DataFrame,
    web_pages: pd.DataFrame,
) -> Output[pd.DataFrame]:
    """Every source document of the task, one row per page; `domain` is what trust levels attach to.

    One `abstract` page per task paper with an abstract, one `citation` page per paper citation
    tracking selected, one `abstract` page per paper the identifier loop found with an abstract,
    and one `web` page per page the browser fetched with text."""
    cited = selected_citation_papers(citation_papers, citation_expansions)
    cited = cited[~cited["paper_id"].isin(papers["paper_id"])]  # a task paper keeps its abstract page
    identified = identified_papers_with_abstract(identified_papers)
    identified = identified[~identified["paper_id"].isin(papers["paper_id"])]
    fetched = fetched_web_pages(web_pages)
    parts = [abstract_pages(papers), citation_pages(cited), abstract_pages(identified), fetched[PAGE_COLUMNS]]
    frame = (
        pd.concat([p for p in parts if len(p)], ignore_index=True)
        if any(len(p) for p in parts)
        else pd.DataFrame(columns=PAGE_COLUMNS)
    )
    frame = frame.drop_duplicates("page_id")
    return Output(
        frame,
        metadata=table_metadata(
            frame,
            ["kind", "domain", "title", "url"],
            citation_pages=MetadataValue.int(len(cited)),
            identified_papers=MetadataValue.int(len(identified)),
            web_pages=MetadataValue.int(len(fetched)),
        ),
    )


@task_table(
    ins={
        "pages": pages,
        "papers": sources.papers_spec,
        "citation_papers": citations.citation_papers_spec,
        "identified_papers": web.identified_papers_spec,
        "web_pages": web.web_pages_spec,
    }
)
def fragments(
    pages: pd.DataFrame,
    papers: pd.DataFrame,
    citation_papers: pd.DataFrame,
    identified_papers: pd.DataFrame,
    web_pages: pd.DataFrame,
    settings: ResourceParam[LyraSettings],
) -> Output[pd.DataFrame]:
    """Overlapping sentence windows of every page's text: the unit that ranking and NLI judge.

    Each page's text (its paper's abstract, or the fetched page's main text) is cut into windows
    of sentences; a fragment's id hashes its page and text, so it is stable across runs."""
    texts = document_texts(pages, papers, identified_papers, citation_papers, web_pages)
    frame = page_fragments(pages, texts, settings.fragments)
    return Output(frame, metadata=table_metadata(frame, ["position", "text"]))
