"""Pure helpers for the browser stages: URL safety, redirect unwrapping, identifiers in URLs and
HTML, citation metadata, main text, and the Phase 6 → Phase 3 identifier loop.

Nothing here touches the network: the browser resource resolves hosts and hands the addresses to
``address_refusal``; the assets hand fetched HTML to ``extract_page``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import re
from collections.abc import Iterable, Sequence
from typing import Literal
from urllib.parse import parse_qs, unquote, urljoin, urlsplit, urlunsplit

from lxml import html as lxml_html
from pydantic import BaseModel, ConfigDict, Field

from lyra_core.identifiers import (
    find_arxiv_ids,
    find_dois,
    find_pmids,
    normalize_arxiv_id,
    normalize_doi,
    normalize_pmid,
)

# -- URL safety ------------------------------------------------------------------------------------

FETCHABLE_SCHEMES = ("http", "https")
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def url_refusal(url: str) -> str | None:
    """Why ``url`` may not be fetched from its text alone (scheme, host), or None when it may."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError as exc:
        return f"malformed URL {url[:200]!r}: {exc}"
    scheme = parts.scheme.lower()
    if scheme not in FETCHABLE_SCHEMES:
        return f"only http(s) URLs are fetched, not {scheme or 'scheme-less'}: {url[:200]!r}"
    if not host:
        return f"URL has no host: {url[:200]!r}"
    return None


def parse_networks(values: Iterable[str]) -> list[IpNetwork]:
    """Networks from settings ('127.0.0.1/32', '::1'); a bad entry is an error naming it."""
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError as exc:
            raise ValueError(f"browser.allowed_networks: {value!r} is not an IP network: {exc}") from exc
    return networks


def is_public_address(address: IpAddress) -> bool:
    """True only for globally routable unicast addresses (an IPv4-mapped IPv6 address is judged
    as the IPv4 address it carries)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def address_refusal(host: str, addresses: Sequence[str], *, allow_private: bool = False,
                    allowed_networks: Sequence[IpNetwork] = ()) -> str | None:
    """Why a host resolving to ``addresses`` may not be fetched, or None.

    Every address must be public (or inside ``allowed_networks``, or ``allow_private`` set):
    one private answer among public ones is refused too, since the browser may pick it.
    """
    if not addresses:
        return f"{host} did not resolve to any address"
    for text in addresses:
        try:
            address = ipaddress.ip_address(text.split("%", 1)[0])  # drop an IPv6 zone id
        except ValueError:
            return f"{host} resolved to {text!r}, which is not an IP address"
        if allow_private or is_public_address(address):
            continue
        if any(address in network for network in allowed_networks):
            continue
        return (f"{host} resolves to {address}, a private, loopback, link-local or reserved address "
                "(refused unless browser.allow_private_addresses or browser.allowed_networks allows it)")
    return None


def canonical_url(url: str) -> str:
    """Scheme and host lower-cased, default port and fragment dropped: one page, one key."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or (scheme, port) in (("http", 80), ("https", 443)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def url_domain(url: str | None) -> str:
    """Host without 'www.' (what trust levels and politeness attach to); '' when there is none."""
    if not url:
        return ""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host.lower().rstrip(".").removeprefix("www.")


def web_page_id(final_url: str) -> str:
    """Stable id of a fetched page: a hash of its canonical final URL (``pg_`` like every page)."""
    return "pg_" + hashlib.sha1(f"{canonical_url(final_url)}\x1fweb".encode()).hexdigest()[:16]


# -- redirect links of search engines --------------------------------------------------------------

def _first_param(query: str, *names: str) -> str | None:
    params = parse_qs(query, keep_blank_values=False)
    for name in names:
        if params.get(name):
            return params[name][0]
    return None


def _bing_target(encoded: str) -> str | None:
    # Bing's /ck/a links carry the target as 'a1' + unpadded base64url.
    if not encoded.startswith("a1"):
        return None
    payload = encoded[2:]
    try:
        return base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def unwrap_redirect(href: str | None, base_url: str | None = None) -> str | None:
    """The target of a result link: absolute, with the engines' click-tracking redirects removed
    (DuckDuckGo ``/l/?uddg=``, Google ``/url?q=``, Scholar ``/scholar_url?url=``, Bing ``/ck/a?u=``).
    None for links that lead nowhere fetchable (``javascript:``, fragments, other schemes)."""
    if not href:
        return None
    href = href.strip()
    if href.startswith("#"):
        return None
    url = urljoin(base_url, href) if base_url else ("https:" + href if href.startswith("//") else href)
    for _ in range(3):  # a wrapper may wrap another one
        try:
            parts = urlsplit(url)
        except ValueError:
            return None
        host = (parts.hostname or "").lower()
        path = parts.path
        target = None
        if host.endswith("duckduckgo.com") and path.startswith("/l/"):
            target = _first_param(parts.query, "uddg")
        elif path in ("/url", "/scholar_url", "/interstitial") and ("google." in host or not host
                                                                    or host == (urlsplit(base_url or "").hostname or "")):
            target = _first_param(parts.query, "q", "url")
        elif host.endswith("bing.com") and path.startswith("/ck/"):
            encoded = _first_param(parts.query, "u")
            target = _bing_target(encoded) if encoded else None
        if not target:
            break
        url = urljoin(url, target)
    if url_refusal(url) is not None:
        return None
    return url


# -- identifiers -----------------------------------------------------------------------------------

_DOI_CANDIDATE = re.compile(r"10\.\d{4,9}/[^\s\"'<>]+", re.IGNORECASE)
# Path tails that publishers append to a DOI in their URLs; never part of the DOI itself.
_URL_DOI_TAILS = re.compile(
    r"(?:\.pdf|/(?:abstract|abs|full|fulltext|pdf|epdf|pdfdirect|html|summary|references|figures|"
    r"tables|meta|citation|bibtex|suppl|supplemental|metrics|info|issuetoc|toc))+/?$",
    re.IGNORECASE,
)


# normalize_doi keeps a closing bracket the DOI opened (10.1061/(ASCE)1090-0241(2003)129:11(1054)).
clean_doi = normalize_doi


dois_in_text = find_dois


def _unique(values: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


class Identifiers(BaseModel):
    """DOIs, PMIDs and arXiv ids, normalised, distinct, in the order they were found."""

    model_config = ConfigDict(frozen=True)
    dois: tuple[str, ...] = ()
    pmids: tuple[str, ...] = ()
    arxiv_ids: tuple[str, ...] = ()

    def merged(self, *others: Identifiers) -> Identifiers:
        everything = (self, *others)
        return Identifiers(dois=_unique(d for i in everything for d in i.dois),
                           pmids=_unique(p for i in everything for p in i.pmids),
                           arxiv_ids=_unique(a for i in everything for a in i.arxiv_ids))

    def without(self, known: Identifiers) -> Identifiers:
        return Identifiers(dois=tuple(d for d in self.dois if d not in set(known.dois)),
                           pmids=tuple(p for p in self.pmids if p not in set(known.pmids)),
                           arxiv_ids=tuple(a for a in self.arxiv_ids if a not in set(known.arxiv_ids)))

    def first(self, limit: int) -> Identifiers:
        """At most ``limit`` identifiers in all: the order of finding decides, DOIs first."""
        dois = self.dois[:limit]
        pmids = self.pmids[:max(limit - len(dois), 0)]
        arxiv_ids = self.arxiv_ids[:max(limit - len(dois) - len(pmids), 0)]
        return Identifiers(dois=dois, pmids=pmids, arxiv_ids=arxiv_ids)

    @property
    def total(self) -> int:
        return len(self.dois) + len(self.pmids) + len(self.arxiv_ids)

    def is_empty(self) -> bool:
        return self.total == 0

    @classmethod
    def of(cls, dois: Iterable[str | None] = (), pmids: Iterable[str | None] = (),
           arxiv_ids: Iterable[str | None] = ()) -> Identifiers:
        """From raw values in any spelling; values that do not parse are dropped."""
        return cls(dois=_unique(clean_doi(d) for d in dois if d),
                   pmids=_unique(normalize_pmid(p) for p in pmids if p),
                   arxiv_ids=_unique(normalize_arxiv_id(a) for a in arxiv_ids if a))


def identifiers_in_text(text: str | None) -> Identifiers:
    text = text or ""
    return Identifiers(dois=tuple(dois_in_text(text)), pmids=tuple(find_pmids(text)),
                       arxiv_ids=tuple(find_arxiv_ids(text)))


_PUBMED_PATH = re.compile(r"^/(?:pubmed/)?(\d{1,9})/?$")
_EUROPEPMC_PATH = re.compile(r"/(?:abstract|article)/MED/(\d{1,9})", re.IGNORECASE)
_ARXIV_PATH = re.compile(r"^/(?:abs|pdf|html)/(.+?)(?:\.pdf)?/?$", re.IGNORECASE)


def identifiers_in_url(url: str | None) -> Identifiers:
    """Identifiers a link names: a DOI in its path or query (``/doi/10.1/x``, ``doi.org/10.1/x``,
    ``?doi=10.1/x``), a PubMed or Europe PMC id, an arXiv abs/pdf id."""
    if not url:
        return Identifiers()
    try:
        parts = urlsplit(url)
    except ValueError:
        return Identifiers()
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = unquote(parts.path)
    dois: list[str] = []
    for piece in [path, *(unquote(v) for vs in parse_qs(parts.query).values() for v in vs)]:
        for match in _DOI_CANDIDATE.finditer(piece):
            candidate = _URL_DOI_TAILS.sub("", match.group(0))
            if doi := clean_doi(candidate):
                dois.append(doi)
    pmids: list[str] = []
    if host in ("pubmed.ncbi.nlm.nih.gov", "ncbi.nlm.nih.gov") and (m := _PUBMED_PATH.match(path)) or host.endswith("europepmc.org") and (m := _EUROPEPMC_PATH.search(path)):
        pmids.append(m.group(1))
    arxiv_ids: list[str] = []
    if host in ("arxiv.org", "export.arxiv.org") and (m := _ARXIV_PATH.match(path)):
        arxiv_ids.append(m.group(1))
    return Identifiers.of(dois, pmids, arxiv_ids)


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

    def compact(self) -> dict:
        return self.model_dump(exclude_defaults=True)


def _metas(tree) -> dict[str, list[tuple[str, str]]]:
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
        if doi := clean_doi(content):
            return doi
    for key in ("dc.identifier", "dcterms.identifier"):
        for content, scheme in metas.get(key, []):
            marked = scheme == "doi" or content.lower().startswith(
                ("doi:", "info:doi/", "https://doi.org/", "http://dx.doi.org/", "http://doi.org/"))
            if marked and (doi := clean_doi(content.removeprefix("info:doi/"))):
                return doi
    for key in ("prism.doi", "bepress_citation_doi", "eprints.id_number"):
        for content, _ in metas.get(key, []):
            if doi := clean_doi(content):
                return doi
    return None


def citation_metadata(tree) -> CitationMetadata:
    metas = _metas(tree)
    pmid = _first(metas, "citation_pmid")
    # Old PubMed pages name their record only in NCBI metas.
    if not pmid and _first(metas, "ncbi_db") == "pubmed" and (uid := _first(metas, "ncbi_uidlist")):
        pmid = uid if uid.isdigit() else None
    abstract = _first(metas, "citation_abstract", "dc.description", "dcterms.abstract", "og:description",
                      "description")
    keywords = [k.strip() for content, _ in metas.get("citation_keywords", [])
                for k in re.split(r"[;,]", content) if k.strip()]
    return CitationMetadata(
        doi=_page_doi(metas),
        pmid=normalize_pmid(pmid),
        arxiv_id=normalize_arxiv_id(_first(metas, "citation_arxiv_id")),
        title=_first(metas, "citation_title", "dc.title", "og:title"),
        authors=[c for c, _ in metas.get("citation_author", [])] or [c for c, _ in metas.get("dc.creator", [])],
        publication_date=_first(metas, "citation_publication_date", "citation_date", "dc.date",
                                "citation_online_date"),
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

def parse_html(html: str | bytes):
    """An lxml tree for any real-world HTML (declared encodings, XHTML prologs, fragments)."""
    if isinstance(html, str):
        # lxml refuses str input that carries an XML encoding declaration.
        html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html, count=1)
    if not html or (isinstance(html, str) and not html.strip()):
        return lxml_html.fromstring("<html></html>")
    return lxml_html.document_fromstring(html)


def link_identifiers(tree, base_url: str | None) -> Identifiers:
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


def _visible_text(tree) -> str:
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
    if abstract and len(abstract) > 80 and " ".join(abstract.split())[:60].lower() not in " ".join(text.split()).lower():
        text = f"{abstract}\n{text}".strip()
        extractor = "abstract" if extractor == "none" else extractor
    if not text:
        text = _visible_text(parse_html(html))
        extractor = "body" if text else "none"
    text = text[:max_text_chars]

    own = Identifiers.of([meta.doi], [meta.pmid], [meta.arxiv_id])
    ids = own.merged(link_identifiers(tree, url), identifiers_in_text(text))
    return PageContent(title=title, text=text, extractor=extractor, metadata=meta, identifiers=ids)


# -- the Phase 6 → Phase 3 loop --------------------------------------------------------------------

def new_identifiers(found: Iterable[Identifiers], known: Identifiers, *, depth: int, max_depth: int,
                    per_page: int | None = None, limit: int | None = None) -> Identifiers:
    """Identifiers found on pages fetched at ``depth`` that identifier completion has not seen.

    Completing them creates work at ``depth + 1``; nothing is returned once that would pass
    ``max_depth``, so the loop (fetch → identifiers → completion → fetch) always ends. ``per_page``
    caps what one page contributes (its own ids come first: a reference list cannot crowd them
    out); ``limit`` caps the whole batch. Order is deterministic: page order, then finding order.
    """
    if depth < 0 or max_depth < 0:
        raise ValueError(f"depth and max_depth must be >= 0, got {depth} and {max_depth}")
    if depth + 1 > max_depth:
        return Identifiers()
    batch = Identifiers()
    for page_ids in found:
        fresh = page_ids.without(known).without(batch)
        batch = batch.merged(fresh.first(per_page) if per_page is not None else fresh)
    return batch.first(limit) if limit is not None else batch


def browser_mode(setting: str, live: str, *, has_local_corpus: bool) -> tuple[bool, str]:
    """Whether a task uses the browser, and why (recorded in the asset's metadata).

    ``on``/``off`` decide; ``auto`` follows the live sources and stays off for a task with a local
    corpus, so the offline default pipeline never launches a browser.
    """
    if setting == "off":
        return False, "browser.search is off"
    if setting == "on":
        return True, "browser.search is on"
    if setting != "auto":
        raise ValueError(f"browser.search must be auto, on or off, not {setting!r}")
    if live == "off":
        return False, "browser.search is auto and live sources are off"
    if has_local_corpus:
        return False, "browser.search is auto and the task reads a local corpus"
    return True, f"browser.search is auto and live sources are {live}"
