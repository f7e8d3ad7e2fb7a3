"""Reading a fetched HTML page: its title, main text, citation metadata and the identifiers it
names (its own first, then those it links to or quotes).

Nothing here touches the network: the assets hand fetched HTML to ``extract_page``.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from lxml import html as lxml_html
from lxml.html import HtmlElement
from pydantic import BaseModel, Field

from lyra_core.identifiers import (
    Identifiers,
    identifiers_in_text,
    identifiers_in_url,
    normalize_arxiv_id,
    normalize_doi,
    normalize_pmid,
)
from lyra_core.urls import unwrap_redirect

# -- citation metadata (Highwire / Dublin Core / PRISM metas) --------------------------------------


class CitationMetadata(BaseModel):
    """What a landing page says about the paper it presents (``citation_*`` and friends)."""

    doi: str | None = None
    pmid: str | None = None
    arxiv_id: str | None = None
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    publication_date: str | None = None
    journal: str | None = None
    volume: str | None = None
    issue: str | None = None
    firstpage: str | None = None
    lastpage: str | None = None
    publisher: str | None = None
    issn: str | None = None
    language: str | None = None
    pdf_url: str | None = None
    abstract: str | None = None
    keywords: list[str] = Field(default_factory=list)

    def compact(self) -> dict[str, Any]:
        return self.model_dump(exclude_defaults=True)


def _metas(tree: HtmlElement) -> dict[str, list[tuple[str, str]]]:
    """Meta tags by lower-cased name/property: [(content, scheme)] in document order."""
    out: dict[str, list[tuple[str, str]]] = {}
    for meta in tree.iter("meta"):
        key = (meta.get("name") or meta.get("property") or "").strip().lower()
        content = " ".join((meta.get("content") or "").split())
        if key and content:
            out.setdefault(key, []).append((content, (meta.get("scheme") or "").strip().lower()))
    return out


def _first(metas: dict[str, list[tuple[str, str]]], *keys: str) -> str | None:
    for key in keys:
        for content, _ in metas.get(key, []):
            return content
    return None


def _page_doi(metas: dict[str, list[tuple[str, str]]]) -> str | None:
    """The page's own DOI: citation_doi when it holds a full DOI (Project Euclid puts only the
    suffix there), else a Dublin Core identifier marked as a DOI, else PRISM / bepress."""
    for content, _ in metas.get("citation_doi", []):
        if doi := normalize_doi(content):
            return doi
    for key in ("dc.identifier", "dcterms.identifier"):
        for content, scheme in metas.get(key, []):
            marked = scheme == "doi" or content.lower().startswith(
                ("doi:", "info:doi/", "https://doi.org/", "http://dx.doi.org/", "http://doi.org/")
            )
            if marked and (doi := normalize_doi(content.removeprefix("info:doi/"))):
                return doi
    for key in ("prism.doi", "bepress_citation_doi", "eprints.id_number"):
        for content, _ in metas.get(key, []):
            if doi := normalize_doi(content):
                return doi
    return None


def citation_metadata(tree: HtmlElement) -> CitationMetadata:
    metas = _metas(tree)
    pmid = _first(metas, "citation_pmid")
    # Old PubMed pages name their record only in NCBI metas.
    if not pmid and _first(metas, "ncbi_db") == "pubmed" and (uid := _first(metas, "ncbi_uidlist")):
        pmid = uid if uid.isdigit() else None
    abstract = _first(
        metas, "citation_abstract", "dc.description", "dcterms.abstract", "og:description", "description"
    )
    keywords = [
        k.strip()
        for content, _ in metas.get("citation_keywords", [])
        for k in re.split(r"[;,]", content)
        if k.strip()
    ]
    return CitationMetadata(
        doi=_page_doi(metas),
        pmid=normalize_pmid(pmid),
        arxiv_id=normalize_arxiv_id(_first(metas, "citation_arxiv_id")),
        title=_first(metas, "citation_title", "dc.title", "og:title"),
        authors=[c for c, _ in metas.get("citation_author", [])]
        or [c for c, _ in metas.get("dc.creator", [])],
        publication_date=_first(
            metas, "citation_publication_date", "citation_date", "dc.date", "citation_online_date"
        ),
        journal=_first(metas, "citation_journal_title", "prism.publicationname"),
        volume=_first(metas, "citation_volume", "prism.volume"),
        issue=_first(metas, "citation_issue", "prism.number"),
        firstpage=_first(metas, "citation_firstpage", "prism.startingpage"),
        lastpage=_first(metas, "citation_lastpage", "prism.endingpage"),
        publisher=_first(metas, "citation_publisher", "dc.publisher"),
        issn=_first(metas, "citation_issn", "prism.issn"),
        language=_first(metas, "citation_language", "dc.language"),
        pdf_url=_first(metas, "citation_pdf_url"),
        abstract=abstract,
        keywords=keywords,
    )


# -- a whole page ----------------------------------------------------------------------------------


def parse_html(html: str | bytes) -> HtmlElement:
    """An lxml tree for any real-world HTML (declared encodings, XHTML prologs, fragments)."""
    if isinstance(html, str):
        # lxml refuses str input that carries an XML encoding declaration.
        html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html, count=1)
    if not html or (isinstance(html, str) and not html.strip()):
        return lxml_html.fromstring("<html></html>")
    return lxml_html.document_fromstring(html)


def link_identifiers(tree: HtmlElement, base_url: str | None) -> Identifiers:
    """Identifiers named by the page's links (``<a href>``), in document order."""
    found = Identifiers()
    for anchor in tree.iter("a"):
        href = anchor.get("href")
        if href and (url := unwrap_redirect(href, base_url)):
            ids = identifiers_in_url(url)
            if not ids.is_empty():
                found = found.merged(ids)
    return found


class PageContent(BaseModel):
    title: str | None
    text: str
    extractor: Literal["trafilatura", "abstract", "body", "none"]
    metadata: CitationMetadata
    identifiers: Identifiers = Field(description="the page's own ids first, then those it links to or quotes")


def _visible_text(tree: HtmlElement) -> str:
    body = tree.find("body")
    if body is None:
        return ""
    for bad in body.xpath(".//script|.//style|.//noscript|.//template"):
        bad.drop_tree()
    # Spaces between elements: adjacent blocks must not glue ("…110320." + "PMCID").
    return " ".join(" ".join(body.itertext()).split())


def _main_text(html: str, url: str | None) -> str | None:
    import trafilatura  # heavy import, only where pages are read

    # deduplicate=False: trafilatura's deduplication remembers text across calls, which would make a
    # page's text depend on the pages read before it.
    return trafilatura.extract(html, url=url, include_comments=False, include_tables=True, deduplicate=False)


def extract_page(html: str, url: str | None = None, *, max_text_chars: int = 200_000) -> PageContent:
    """Title, main text (trafilatura), citation metadata and identifiers of one HTML page.

    The citation abstract is put in front of the main text when the extractor missed it (APS and
    ScienceDirect pages keep it in a block readers skip). Identifier order: the page's own
    (metas), then links, then the text.
    """
    tree = parse_html(html)
    meta = citation_metadata(tree)
    title_node = tree.find(".//title")
    page_title = " ".join(title_node.text_content().split()) if title_node is not None else None
    title = meta.title or page_title or None

    text = (_main_text(html, url) or "").strip()
    extractor: Literal["trafilatura", "abstract", "body", "none"] = "trafilatura" if text else "none"
    abstract = (meta.abstract or "").strip()
    if (
        abstract
        and len(abstract) > 80
        and " ".join(abstract.split())[:60].lower() not in " ".join(text.split()).lower()
    ):
        text = f"{abstract}\n{text}".strip()
        extractor = "abstract" if extractor == "none" else extractor
    if not text:
        text = _visible_text(parse_html(html))
        extractor = "body" if text else "none"
    text = text[:max_text_chars]

    own = Identifiers.of([meta.doi], [meta.pmid], [meta.arxiv_id])
    ids = own.merged(link_identifiers(tree, url), identifiers_in_text(text))
    return PageContent(title=title, text=text, extractor=extractor, metadata=meta, identifiers=ids)
