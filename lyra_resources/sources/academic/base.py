"""What the academic clients share: citation links, the source protocol, and response parsing."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, Field, ValidationError

from lyra_core.papers import PaperRecord
from lyra_resources.sources.academic.errors import AcademicApiError, MalformedResponse
from lyra_resources.sources.academic.policy import ApiClient
from lyra_resources.sources.providers import PaperProvider

log = logging.getLogger(__name__)

Direction = Literal["references", "cited_by"]
M = TypeVar("M", bound=BaseModel)


class CitationLink(BaseModel):
    """One edge of the citation graph as one API reports it, seen from the paper asked about:
    ``references`` = the paper cites ``record``; ``cited_by`` = ``record`` cites the paper."""

    record: PaperRecord
    direction: Direction
    is_influential: bool = Field(False, description="S2's isInfluential; OpenAlex has no such flag")


@dataclass
class LinkResult:
    """Links per asked-for key, and the calls that failed (the other keys' links still count)."""

    links: dict[str, list[CitationLink]] = field(default_factory=dict)
    errors: list[AcademicApiError] = field(default_factory=list)


@runtime_checkable
class AcademicSource(PaperProvider, Protocol):
    """A live API: a PaperProvider that also resolves ids in batches and walks citations."""

    label: str

    async def get_papers(self, ids: list[str]) -> dict[str, PaperRecord]:
        """Records for many ids at once (as few calls as the API allows), keyed by the id asked."""
        ...

    async def citation_links(self, ids: dict[str, str], references: int, citations: int) -> LinkResult:
        """References and citing papers of each paper; ``ids`` maps the caller's key to an id
        this API understands (see ``lookup_id``)."""
        ...

    async def aclose(self) -> None: ...


def parse(model: type[M], data: Any, api: str, endpoint: str) -> M:
    """``data`` as ``model``, or MalformedResponse naming the endpoint and the first problem."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise MalformedResponse(api, endpoint, f"unexpected answer shape at {where}: {first['msg']}") from exc


def parse_items(model: type[M], items: Iterable[Any], api: str, endpoint: str) -> list[M]:
    """Each item as ``model``; an odd item is skipped with a warning rather than losing the page."""
    out = []
    for i, item in enumerate(items):
        try:
            out.append(model.model_validate(item))
        except ValidationError as exc:
            log.warning("%s %s: skipping item %d: %s", api, endpoint, i, exc.errors()[0]["msg"])
    return out


def chunked(values: list[str], size: int) -> list[list[str]]:
    return [values[i : i + size] for i in range(0, len(values), size)]


def lookup_id(
    api: str,
    *,
    doi: str | None = None,
    pmid: str | None = None,
    arxiv_id: str | None = None,
    sources: Iterable[str] = (),
) -> str | None:
    """The id to ask the source named ``api`` (``s2``, ``openalex``, …) for a paper: its own id when a
    record came from it, else ``DOI:…`` > ``PMID:…`` > ``ARXIV:…``; None when there is nothing to ask with."""
    own = next((s.split(":", 1)[1] for s in sources if s.startswith(f"{api}:")), None)
    if own:
        return own
    if doi:
        return f"DOI:{doi}"
    if pmid:
        return f"PMID:{pmid}"
    if arxiv_id:
        return f"ARXIV:{arxiv_id}"
    return None


class ApiSource:
    """What both API clients share: the rate-limited, cached HTTP client they speak through."""

    name: str
    label: str

    def __init__(self, http: ApiClient) -> None:
        self.http = http

    async def aclose(self) -> None:
        await self.http.aclose()
