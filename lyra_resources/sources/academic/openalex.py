"""OpenAlex works: search, work by id / DOI / PMID, batch lookup, references and citing works.

References come from a work's ``referenced_works`` (OpenAlex ids only), fetched 50 at a time
with ``filter=openalex_id:W1|W2|…`` — never one call per reference. Citing works come from
``filter=cites:W…`` (cursor paging, most cited first). Abstracts arrive as an inverted index
(word → positions) and are rebuilt with the local corpus's ``rebuild_abstract``.

Environment (wins over ``config/settings.yaml``): ``LYRA_OPENALEX_BASE_URL`` (proxies, mirrors,
tests), ``LYRA_MAILTO`` (OpenAlex's polite pool), ``OPENALEX_API_KEY`` (sent as ``api_key``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from lyra_core.identifiers import find_arxiv_ids, normalize_arxiv_id, normalize_doi, normalize_pmid
from lyra_core.papers import PaperRecord
from lyra_resources.corpus.json_files import rebuild_abstract
from lyra_resources.environment import read_environment
from lyra_resources.settings.services import SourcesSettings
from lyra_resources.sources.academic.base import (
    ApiSource,
    CitationLink,
    LinkResult,
    chunked,
    parse,
    parse_items,
)
from lyra_resources.sources.academic.errors import AcademicApiError
from lyra_resources.sources.academic.policy import HttpPolicy
from lyra_resources.sources.academic.registry import AcademicSourceSpec, shared_limits

SOURCE = "openalex"
API = "OpenAlex"
# root fields only (``select`` cannot pick nested ones); enough for a PaperRecord and its references
WORK_FIELDS = (
    "id,doi,title,display_name,publication_year,publication_date,ids,primary_location,locations,"
    "authorships,abstract_inverted_index,referenced_works"
)
FILTER_BATCH = 50  # ids OR-ed in one filter; one page holds them all
PAGE_SIZE = 100  # the most per_page OpenAlex serves
_WORK_ID = re.compile(r"^(?:https?://openalex\.org/)?(W\d+)$", re.IGNORECASE)
_PREFIXED = re.compile(r"^\s*(doi|pmid|arxiv|openalex)\s*:\s*(.+)$", re.IGNORECASE)


def work_id(value: Any) -> str | None:
    """``W123`` from ``W123`` or ``https://openalex.org/W123``; None otherwise."""
    match = _WORK_ID.match(str(value or "").strip())
    return match.group(1).upper() if match else None


class OASource(BaseModel):
    display_name: str | None = None


class OALocation(BaseModel):
    source: OASource | None = None
    landing_page_url: str | None = None


class OAAuthor(BaseModel):
    display_name: str | None = None


class OAAuthorship(BaseModel):
    author: OAAuthor | None = None
    raw_author_name: str | None = None


class OAWork(BaseModel):
    """A work object (only the fields Lyra reads)."""

    model_config = ConfigDict(extra="ignore")
    id: str
    doi: str | None = None
    title: str | None = None
    display_name: str | None = None
    publication_year: int | None = None
    ids: dict[str, Any] | None = None
    primary_location: OALocation | None = None
    locations: list[OALocation] | None = None
    authorships: list[OAAuthorship] | None = None
    abstract_inverted_index: dict[str, list[int]] | None = None
    referenced_works: list[str] | None = None

    @property
    def work_id(self) -> str | None:
        return work_id(self.id)

    @property
    def pmid(self) -> str | None:
        value = (self.ids or {}).get("pmid")
        return normalize_pmid(str(value)) if value else None

    @property
    def referenced_ids(self) -> list[str]:
        return list(dict.fromkeys(w for r in self.referenced_works or [] if (w := work_id(r))))

    def to_record(self) -> PaperRecord | None:
        title = (self.display_name or self.title or "").strip()
        if not self.work_id or not title:
            return None
        doi = normalize_doi(self.doi) if self.doi else None
        landing = " ".join(loc.landing_page_url or "" for loc in self.locations or [])
        arxiv = (
            normalize_arxiv_id(doi.removeprefix("10.48550/arxiv."))
            if doi and doi.startswith("10.48550/arxiv.")
            else next(iter(find_arxiv_ids(landing)), None)
        )
        primary = self.primary_location or OALocation()
        return PaperRecord(
            source=SOURCE,
            source_id=self.work_id,
            title=title,
            abstract=rebuild_abstract(self.abstract_inverted_index),
            doi=doi,
            pmid=self.pmid,
            arxiv_id=arxiv,
            year=self.publication_year,
            venue=primary.source.display_name if primary.source else None,
            url=f"https://doi.org/{doi}" if doi else primary.landing_page_url or self.id,
            authors=[
                name
                for a in self.authorships or []
                if (name := (a.author.display_name if a.author else None) or a.raw_author_name)
            ],
        )


class OAMeta(BaseModel):
    count: int | None = None
    page: int | None = None
    per_page: int | None = None
    next_cursor: str | None = None


class OAPage(BaseModel):
    meta: OAMeta | None = None
    results: list[dict[str, Any]]


def _kind(value: str) -> tuple[str, str] | None:
    """('openalex' | 'doi' | 'pmid', normalised value) for an id OpenAlex can be asked by."""
    text = value.strip()
    if wid := work_id(text):
        return "openalex", wid
    match = _PREFIXED.match(text)
    if match:
        kind, rest = match.group(1).lower(), match.group(2)
        if kind == "openalex":
            return ("openalex", wid) if (wid := work_id(rest)) else None
        if kind == "doi":
            return ("doi", doi) if (doi := normalize_doi(rest)) else None
        if kind == "pmid":
            return ("pmid", pmid) if (pmid := normalize_pmid(rest)) else None
        arxiv = normalize_arxiv_id(rest)
        return ("doi", f"10.48550/arxiv.{arxiv}") if arxiv else None  # arXiv's own DOI
    if doi := normalize_doi(text):
        return "doi", doi
    return None


# OpenAlex's filter names for each kind of id
_FILTERS = {"openalex": "openalex_id", "doi": "doi", "pmid": "ids.pmid"}


class OpenAlexClient(ApiSource):
    """OpenAlex works as a PaperProvider (plus batch lookup and citation links)."""

    name = SOURCE
    label = API

    async def _page(
        self, params: dict[str, Any], endpoint: str = "GET /works"
    ) -> tuple[list[OAWork], OAMeta]:
        page = await self.http.get_json(
            "/works", {"select": WORK_FIELDS, **params}, check=lambda d: parse(OAPage, d, API, endpoint)
        )
        if page is None:
            return [], OAMeta()
        return parse_items(OAWork, page.results, API, endpoint), page.meta or OAMeta()

    async def search(self, query: str, limit: int = 50) -> list[PaperRecord]:
        """Best-first records of ``/works?search=``, paging by ``page``."""
        records: list[PaperRecord] = []
        size = min(PAGE_SIZE, limit)  # one page size throughout: page n is items (n-1)·size+1 …
        page_no = 1
        while len(records) < limit:
            works, meta = await self._page({"search": query, "per_page": size, "page": page_no})
            records.extend(r for w in works if (r := w.to_record()))
            if len(works) < size or (meta.count is not None and page_no * size >= meta.count):
                break
            page_no += 1
        return records[:limit]

    async def work(self, paper_id: str) -> OAWork | None:
        """One work by W id, DOI, PMID or arXiv id; None when OpenAlex does not know it."""
        kind = _kind(paper_id)
        if kind is None:
            return None
        key = {"openalex": kind[1], "doi": f"https://doi.org/{kind[1]}", "pmid": f"pmid:{kind[1]}"}[kind[0]]
        path = f"/works/{key}"
        return await self.http.get_json(
            path, {"select": WORK_FIELDS}, check=lambda d: parse(OAWork, d, API, f"GET {path}")
        )

    async def get_paper(self, paper_id: str) -> PaperRecord | None:
        work = await self.work(paper_id)
        return work.to_record() if work else None

    async def works(self, ids: list[str]) -> dict[str, OAWork]:
        """Works for many ids, keyed by the id asked: one ``filter=<kind>:a|b|…`` call per 50 ids
        of a kind. Ids OpenAlex does not know are left out."""
        by_kind: dict[str, dict[str, list[str]]] = {"openalex": {}, "doi": {}, "pmid": {}}
        for asked in dict.fromkeys(i for i in ids if i):
            kind = _kind(asked)
            # ',' and '|' are the filter syntax's own separators: such DOIs are asked one by one
            if kind and not (kind[0] == "doi" and re.search(r"[,|]", kind[1])):
                by_kind[kind[0]].setdefault(kind[1], []).append(asked)
        found: dict[str, OAWork] = {}
        for kind, wanted in by_kind.items():
            for chunk in chunked(list(wanted), FILTER_BATCH):
                flt = f"{_FILTERS[kind]}:{'|'.join(chunk)}"
                works, _ = await self._page(
                    {"filter": flt, "per_page": FILTER_BATCH}, f"GET /works?filter={_FILTERS[kind]}:…"
                )
                for w in works:
                    value = {
                        "openalex": w.work_id,
                        "doi": normalize_doi(w.doi) if w.doi else None,
                        "pmid": w.pmid,
                    }[kind]
                    for asked in wanted.get(value or "", []):
                        found.setdefault(asked, w)
        for asked in ids:
            kind = _kind(asked) if asked else None
            if (
                kind
                and kind[0] == "doi"
                and re.search(r"[,|]", kind[1])
                and asked not in found
                and (w := await self.work(asked)) is not None
            ):
                found[asked] = w
        return found

    async def get_papers(self, ids: list[str]) -> dict[str, PaperRecord]:
        return {asked: r for asked, w in (await self.works(ids)).items() if (r := w.to_record())}

    async def referenced(self, works: list[OAWork], limit: int) -> dict[str, list[PaperRecord]]:
        """The first ``limit`` referenced works of each work, fetched for all of them together
        in batches of 50 ids (a reference shared by two works is fetched once)."""
        wanted = {w.work_id: w.referenced_ids[:limit] for w in works if w.work_id}
        everything = list(dict.fromkeys(r for refs in wanted.values() for r in refs))
        fetched = await self.works(everything)
        return {
            wid: [r for ref in refs if ref in fetched and (r := fetched[ref].to_record())]
            for wid, refs in wanted.items()
        }

    async def citing(self, wid: str, limit: int) -> list[PaperRecord]:
        """Works that cite ``wid`` (most cited first), cursor-paged until ``limit``."""
        records: list[PaperRecord] = []
        cursor: str | None = "*"
        while cursor and len(records) < limit:
            size = min(PAGE_SIZE, limit - len(records))
            works, meta = await self._page(
                {"filter": f"cites:{wid}", "per_page": size, "sort": "cited_by_count:desc", "cursor": cursor},
                "GET /works?filter=cites:…",
            )
            records.extend(r for w in works if (r := w.to_record()))
            if not works or meta.next_cursor == cursor:
                break
            cursor = meta.next_cursor
        return records[:limit]

    async def references(self, paper_id: str, limit: int = 100) -> list[CitationLink]:
        work = await self.work(paper_id)
        if work is None or not work.work_id:
            return []
        refs = (await self.referenced([work], limit)).get(work.work_id, [])
        return [CitationLink(record=r, direction="references") for r in refs]

    async def citations(self, paper_id: str, limit: int = 100) -> list[CitationLink]:
        wid = work_id(paper_id) or getattr(await self.work(paper_id), "work_id", None)
        if not wid:
            return []
        return [CitationLink(record=r, direction="cited_by") for r in await self.citing(wid, limit)]

    async def citation_links(self, ids: dict[str, str], references: int, citations: int) -> LinkResult:
        """All papers' works resolved in batches, their references fetched in batches, then one
        cursor walk of ``filter=cites:`` per work."""
        result = LinkResult()
        try:
            works = await self.works(list(ids.values()))
        except AcademicApiError as exc:
            result.errors.append(exc)
            return result
        keyed = {key: works[i] for key, i in ids.items() if i in works and works[i].work_id}
        if references > 0 and keyed:
            try:
                refs = await self.referenced(list(keyed.values()), references)
                for key, work in keyed.items():
                    result.links.setdefault(key, []).extend(
                        CitationLink(record=r, direction="references") for r in refs.get(work.work_id, [])
                    )
            except AcademicApiError as exc:
                result.errors.append(exc)

        async def cited(key: str, work: OAWork) -> None:
            try:
                found = await self.citing(work.work_id, citations)
                result.links.setdefault(key, []).extend(
                    CitationLink(record=r, direction="cited_by") for r in found
                )
            except AcademicApiError as exc:
                result.errors.append(exc)

        if citations > 0:
            await asyncio.gather(*(cited(k, w) for k, w in keyed.items()))
        return result


def openalex_policy(cfg: SourcesSettings, env: Mapping[str, str] | None = None) -> HttpPolicy:
    variables = read_environment(env)
    mailto = (variables.mailto or cfg.mailto).strip()
    key = (variables.openalex_api_key or "").strip()
    agent = f"lyra/0.1 (mailto:{mailto})" if mailto else HttpPolicy.model_fields["user_agent"].default
    return HttpPolicy(
        api="OpenAlex",
        base_url=variables.openalex_base_url or cfg.openalex_url,
        requests_per_second=cfg.openalex_requests_per_second,
        user_agent=agent,
        params={k: v for k, v in (("mailto", mailto), ("api_key", key)) if v},
        **shared_limits(cfg),
    )


SOURCE_SPEC = AcademicSourceSpec(
    name=SOURCE,
    policy=openalex_policy,
    client=OpenAlexClient,
    settings_keys=("openalex_url", "mailto", "openalex_requests_per_second"),
    env_keys=("LYRA_OPENALEX_BASE_URL", "LYRA_MAILTO", "OPENALEX_API_KEY"),
)
