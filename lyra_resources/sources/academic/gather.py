"""What the assets ask of all live sources at once: search (phase 2), identifier completion
(phase 3) and citation links (phase 5). One source failing never loses the other's answers:
every call returns what it got plus the errors, and the asset decides what they mean."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lyra_core.papers import CanonicalPaper, PaperRecord
from lyra_resources.sources.academic.base import AcademicSource, CitationLink, lookup_id
from lyra_resources.sources.academic.errors import AcademicApiError, SourceUnreachable
from lyra_resources.sources.providers import SourceIssue


@dataclass
class Gathered:
    """Answers of the live sources, and what went wrong on the way."""

    errors: list[AcademicApiError] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)  # sources that answered at least one call

    def issues(self) -> list[SourceIssue]:
        return [SourceIssue(source=e.api, location=e.endpoint, reason=e.reason) for e in self.errors]

    def unreachable(self, sources: Sequence[AcademicSource]) -> list[str]:
        """Labels of the sources that could not be reached at all (no answer, connection failed)."""
        failed = {e.api for e in self.errors if isinstance(e, SourceUnreachable)}
        return [s.label for s in sources if s.label in failed and s.name not in self.answered]


@dataclass
class SearchResults(Gathered):
    records: dict[str, list[PaperRecord]] = field(default_factory=dict)  # per source name


async def search_live(sources: Sequence[AcademicSource], query: str, limit: int) -> SearchResults:
    """Phase 2: every source's best-first records for the question, side by side."""
    out = SearchResults()

    async def one(source: AcademicSource) -> None:
        try:
            out.records[source.name] = await source.search(query, limit)
            out.answered.add(source.name)
        except AcademicApiError as exc:
            out.errors.append(exc)

    await asyncio.gather(*(one(s) for s in sources))
    return out


def needs_completion(paper: CanonicalPaper) -> bool:
    """No abstract, or an id but no DOI (a PMID or arXiv id to turn into a DOI)."""
    return not paper.abstract or (not paper.doi and bool(paper.pmid or paper.arxiv_id))


@dataclass
class Completion(Gathered):
    records: list[PaperRecord] = field(default_factory=list)
    resolved: set[str] = field(default_factory=set)  # paper ids some source answered for


async def complete_identifiers(
    papers: Sequence[CanonicalPaper],
    sources: Sequence[AcademicSource],
    need: Callable[[CanonicalPaper], bool] = needs_completion,
) -> Completion:
    """Phase 3: look up, in batches, every paper that ``need``s it (default: lacking an abstract
    or a DOI) by its DOI / PMID / arXiv id in each source it did not come from (PMID → DOI
    without Crossref). The records found join the paper when the caller merges them."""
    out = Completion()

    async def one(source: AcademicSource) -> None:
        asked: dict[str, list[str]] = {}
        for paper in papers:
            if not need(paper) or any(s.startswith(f"{source.name}:") for s in paper.sources):
                continue  # asking a source again for its own record adds nothing
            if key := lookup_id(source.name, doi=paper.doi, pmid=paper.pmid, arxiv_id=paper.arxiv_id):
                asked.setdefault(key, []).append(paper.paper_id)
        if not asked:
            return
        try:
            found = await source.get_papers(list(asked))
            out.answered.add(source.name)
        except AcademicApiError as exc:
            out.errors.append(exc)
            return
        for key, record in found.items():
            out.records.append(record)
            out.resolved.update(asked.get(key, []))

    await asyncio.gather(*(one(s) for s in sources))
    return out


@dataclass
class Links(Gathered):
    # paper_id → (source name, link) for every link any source reported
    links: dict[str, list[tuple[str, CitationLink]]] = field(default_factory=dict)


async def citation_links(
    papers: Sequence[CanonicalPaper], sources: Sequence[AcademicSource], references: int, citations: int
) -> Links:
    """Phase 5: references and citing papers of every paper from every source."""
    out = Links()

    async def one(source: AcademicSource) -> None:
        ids = {
            p.paper_id: key
            for p in papers
            if (key := lookup_id(source.name, doi=p.doi, pmid=p.pmid, arxiv_id=p.arxiv_id, sources=p.sources))
        }
        if not ids:
            return
        result = await source.citation_links(ids, references, citations)
        out.errors.extend(result.errors)
        if result.links or not any(isinstance(e, SourceUnreachable) for e in result.errors):
            out.answered.add(source.name)
        for paper_id, links in result.links.items():
            out.links.setdefault(paper_id, []).extend((source.name, link) for link in links)

    await asyncio.gather(*(one(s) for s in sources))
    return out


def reachable_sources(sources: Sequence[AcademicSource]) -> list[AcademicSource]:
    """The sources not yet found unreachable in this session (worth asking again)."""
    return [s for s in sources if not getattr(s, "http", None) or not s.http.unreachable]


def unreachable_sources(sources: Sequence[AcademicSource]) -> dict[str, str]:
    """API label → why, for each source no connection could be made to during this session."""
    return {
        s.label: http.unreachable
        for s in sources
        if (http := getattr(s, "http", None)) is not None and http.unreachable
    }


def no_network_line(unreachable: dict[str, str]) -> str:
    """One line for the user: which APIs could not be reached, and the first reason."""
    reason = next(iter(unreachable.values()), "")
    return f"no network: could not reach {' or '.join(unreachable)} ({reason})"
