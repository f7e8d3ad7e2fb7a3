"""Semantic Scholar Graph API: search, paper by id, batch lookup, references and citations.

Endpoints (relative to the base URL, ``https://api.semanticscholar.org/graph/v1`` by default):
``GET /paper/search``, ``GET /paper/{id}``, ``POST /paper/batch``, ``GET /paper/{id}/references``
and ``GET /paper/{id}/citations`` (the only place S2's ``isInfluential`` flag is given).
Ids may be S2 paper ids or ``DOI:…``, ``PMID:…``, ``ARXIV:…``, ``CorpusId:…``.

Environment (wins over ``config/settings.yaml``): ``LYRA_S2_BASE_URL`` (proxies, mirrors, tests),
``S2_API_KEY`` (sent as ``x-api-key``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from lyra_core.identifiers import normalize_arxiv_id, normalize_doi, normalize_pmid
from lyra_core.papers import PaperRecord
from lyra_resources.environment import read_environment
from lyra_resources.settings.services import SourcesSettings
from lyra_resources.sources.academic.base import (
    ApiSource,
    CitationLink,
    Direction,
    LinkResult,
    chunked,
    parse,
)
from lyra_resources.sources.academic.errors import AcademicApiError, MalformedResponse
from lyra_resources.sources.academic.policy import HttpPolicy
from lyra_resources.sources.academic.registry import AcademicSourceSpec, shared_limits

SOURCE = "s2"
API = "Semantic Scholar"
PAPER_FIELDS = (
    "paperId,externalIds,title,abstract,year,venue,publicationVenue,journal,url,authors,publicationDate"
)
EDGE_FIELDS = "isInfluential," + PAPER_FIELDS
SEARCH_PAGE = 100  # the most /paper/search returns per call
SEARCH_WINDOW = 1000  # /paper/search serves offset + limit up to this
EDGE_PAGE = 500  # /references and /citations allow 1000; abstracts make big pages slow
BATCH_SIZE = 500  # the most ids /paper/batch takes per call
_HEX_ID = re.compile(r"^[0-9a-f]{40}$", re.IGNORECASE)
_PREFIXED = re.compile(r"^\s*(doi|pmid|arxiv|corpusid|mag|acl|pmcid|url)\s*:\s*(.+)$", re.IGNORECASE)


class S2Author(BaseModel):
    name: str | None = None


class S2Paper(BaseModel):
    """A paper object of the Graph API (only the fields Lyra asks for)."""

    model_config = ConfigDict(extra="ignore")
    paperId: str | None = None
    externalIds: dict[str, Any] | None = None
    title: str | None = None
    abstract: str | None = None
    year: int | None = None
    venue: str | None = None
    publicationVenue: dict[str, Any] | None = None
    journal: dict[str, Any] | None = None
    url: str | None = None
    authors: list[S2Author] | None = None
    publicationDate: str | None = None

    def to_record(self) -> PaperRecord | None:
        """None for entries S2 could not resolve to a paper (no paperId) or that have no title."""
        if not self.paperId or not (self.title or "").strip():
            return None
        ext = self.externalIds or {}
        doi = normalize_doi(str(ext.get("DOI") or "")) or None
        arxiv = ext.get("ArXiv") or (
            doi.removeprefix("10.48550/arxiv.") if doi and doi.startswith("10.48550/arxiv.") else None
        )
        venue = self.venue or (self.publicationVenue or {}).get("name") or (self.journal or {}).get("name")
        return PaperRecord(
            source=SOURCE,
            source_id=self.paperId,
            title=self.title.strip(),
            abstract=self.abstract,
            doi=doi,
            pmid=normalize_pmid(ext.get("PubMed")) if ext.get("PubMed") else None,
            arxiv_id=normalize_arxiv_id(str(arxiv)) if arxiv else None,
            year=self.year,
            venue=venue or None,
            url=self.url,
            authors=[a.name for a in self.authors or [] if a.name],
        )


class S2SearchPage(BaseModel):
    total: int = 0
    offset: int = 0
    next: int | None = None
    data: list[S2Paper] = Field(default_factory=list)


class S2Edge(BaseModel):
    isInfluential: bool | None = None
    citingPaper: S2Paper | None = None
    citedPaper: S2Paper | None = None


class S2EdgePage(BaseModel):
    offset: int = 0
    next: int | None = None
    data: list[S2Edge] | None = None  # null when S2 may not show a paper's references


def s2_id(value: str) -> str:
    """An id in the form the Graph API takes: ``DOI:10.x/y``, ``PMID:1``, ``ARXIV:1706.03762``,
    ``CorpusId:1``, or a 40-hex S2 id; bare DOIs and arXiv ids get their prefix."""
    text = value.strip()
    match = _PREFIXED.match(text)
    if match:
        kind, rest = match.group(1).lower(), match.group(2).strip()
        if kind == "doi":
            return f"DOI:{normalize_doi(rest) or rest}"
        if kind == "pmid":
            return f"PMID:{normalize_pmid(rest) or rest}"
        if kind == "arxiv":
            return f"ARXIV:{normalize_arxiv_id(rest) or rest}"
        return (
            {"corpusid": "CorpusId", "mag": "MAG", "acl": "ACL", "pmcid": "PMCID", "url": "URL"}[kind]
            + ":"
            + rest
        )
    if _HEX_ID.match(text):
        return text.lower()
    if doi := normalize_doi(text):
        return f"DOI:{doi}"
    if arxiv := normalize_arxiv_id(text):
        return f"ARXIV:{arxiv}"
    return text


def _path_id(value: str) -> str:
    # DOIs keep their slashes (S2 expects /paper/DOI:10.1/x); '?', '#', '%' and spaces are escaped
    return quote(s2_id(value), safe="/:;()[]<>,+=@!$'*")


class SemanticScholarClient(ApiSource):
    """The Graph API as a PaperProvider (plus batch lookup and citation links)."""

    name = SOURCE
    label = API

    async def search(self, query: str, limit: int = 50) -> list[PaperRecord]:
        """Best-first records from /paper/search, paging by ``offset`` until ``limit``."""
        records: list[PaperRecord] = []
        offset = 0
        while len(records) < limit and offset < SEARCH_WINDOW:
            size = min(SEARCH_PAGE, limit - len(records), SEARCH_WINDOW - offset)
            page = await self.http.get_json(
                "/paper/search",
                {"query": query, "fields": PAPER_FIELDS, "offset": offset, "limit": size},
                check=lambda d: parse(S2SearchPage, d, API, "GET /paper/search"),
            )
            if page is None:
                break
            records.extend(r for p in page.data if (r := p.to_record()))
            if page.next is None or not page.data or page.next <= offset:
                break
            offset = page.next
        return records[:limit]

    async def get_paper(self, paper_id: str) -> PaperRecord | None:
        path = f"/paper/{_path_id(paper_id)}"
        paper = await self.http.get_json(
            path, {"fields": PAPER_FIELDS}, check=lambda d: parse(S2Paper, d, API, f"GET {path}")
        )
        return paper.to_record() if paper is not None else None

    async def get_papers(self, ids: list[str]) -> dict[str, PaperRecord]:
        """POST /paper/batch, 500 ids a call; ids S2 does not know are left out (a chunk it answers
        with 404 for knowing none of them adds nothing)."""
        wanted = list(dict.fromkeys(i for i in ids if i))
        found: dict[str, PaperRecord] = {}
        for chunk in chunked(wanted, BATCH_SIZE):

            def check(data: Any, n: int = len(chunk)) -> list[S2Paper | None]:
                if not isinstance(data, list) or len(data) != n:
                    got = f"a list of {len(data)}" if isinstance(data, list) else type(data).__name__
                    raise MalformedResponse(
                        API, "POST /paper/batch", f"expected a list of {n} papers, got {got}"
                    )
                return [
                    parse(S2Paper, item, API, "POST /paper/batch") if item is not None else None
                    for item in data
                ]

            papers = await self.http.post_json(
                "/paper/batch", {"fields": PAPER_FIELDS}, {"ids": [s2_id(i) for i in chunk]}, check=check
            )
            if papers is None:  # 404: S2 knows none of the chunk's ids
                continue
            for asked, paper in zip(chunk, papers, strict=True):
                if paper is not None and (record := paper.to_record()):
                    found[asked] = record
        return found

    async def references(self, paper_id: str, limit: int = 100) -> list[CitationLink]:
        return await self._edges(paper_id, "references", limit)

    async def citations(self, paper_id: str, limit: int = 100) -> list[CitationLink]:
        return await self._edges(paper_id, "cited_by", limit)

    async def _edges(self, paper_id: str, direction: Direction, limit: int) -> list[CitationLink]:
        kind = "references" if direction == "references" else "citations"
        path = f"/paper/{_path_id(paper_id)}/{kind}"
        links: list[CitationLink] = []
        offset = seen = 0
        while seen < limit:
            size = min(EDGE_PAGE, limit - seen)
            page = await self.http.get_json(
                path,
                {"fields": EDGE_FIELDS, "offset": offset, "limit": size},
                check=lambda d: parse(S2EdgePage, d, API, f"GET {path}"),
            )
            if page is None:  # S2 does not know the paper
                break
            edges = (page.data or [])[: limit - seen]
            seen += len(edges)
            for edge in edges:
                other = edge.citedPaper if direction == "references" else edge.citingPaper
                record = other.to_record() if other else None
                if record:  # unresolved references (no paperId) cannot be followed
                    links.append(
                        CitationLink(
                            record=record, direction=direction, is_influential=bool(edge.isInfluential)
                        )
                    )
            if page.next is None or not edges or page.next <= offset:
                break
            offset = page.next
        return links

    async def citation_links(self, ids: dict[str, str], references: int, citations: int) -> LinkResult:
        """Per paper: /references and /citations (S2 has no batch form that keeps isInfluential)."""
        result = LinkResult()

        async def one(key: str, paper_id: str) -> None:
            for direction, limit in (("references", references), ("cited_by", citations)):
                if limit <= 0:
                    continue
                try:
                    result.links.setdefault(key, []).extend(await self._edges(paper_id, direction, limit))
                except AcademicApiError as exc:
                    result.errors.append(exc)

        # the shared rate limiter spaces the calls; gathering only keeps the pipe full
        await asyncio.gather(*(one(k, i) for k, i in ids.items()))
        return result


def s2_policy(cfg: SourcesSettings, env: Mapping[str, str] | None = None) -> HttpPolicy:
    variables = read_environment(env)
    key = (variables.s2_api_key or "").strip()
    return HttpPolicy(
        api="Semantic Scholar",
        base_url=variables.s2_base_url or cfg.semantic_scholar_url,
        requests_per_second=cfg.s2_requests_per_second,
        headers={"x-api-key": key} if key else {},
        **shared_limits(cfg),
    )


SOURCE_SPEC = AcademicSourceSpec(
    name=SOURCE,
    policy=s2_policy,
    client=SemanticScholarClient,
    settings_keys=("semantic_scholar_url", "s2_requests_per_second"),
    env_keys=("LYRA_S2_BASE_URL", "S2_API_KEY"),
)
