"""The identifier loop's lookups: identifiers found on fetched pages (DOIs, PMIDs, arXiv ids)
looked up in the live academic APIs, the papers found kept for the ``identified_papers`` table."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lyra_core.identifiers import Identifiers
from lyra_core.papers import CanonicalPaper, PaperRecord, canonicalize
from lyra_resources.corpus.paper_rows import papers_frame
from lyra_resources.sources.academic import AcademicApiError, AcademicSource
from lyra_resources.sources.academic.gather import complete_identifiers, reachable_sources
from lyra_resources.web.crawl import FetchTarget


def identifier_stubs(ids: Identifiers) -> list[CanonicalPaper]:
    """One paper to look up per identifier; the sources answer with the real record."""
    return (
        [CanonicalPaper(paper_id=f"doi:{d}", doi=d, title="") for d in ids.dois]
        + [CanonicalPaper(paper_id=f"pmid:{p}", pmid=p, title="") for p in ids.pmids]
        + [CanonicalPaper(paper_id=f"arxiv:{a}", arxiv_id=a, title="") for a in ids.arxiv_ids]
    )


class IdentifierCompletion:
    """The crawl's ``complete``: looks the identifiers found on pages up in the live APIs
    (identifier completion), keeps every record found, and answers with the landing pages
    (through the DOI resolver) of the papers that came back without an abstract."""

    def __init__(self, sources: Sequence[AcademicSource], resolver: str) -> None:
        self.sources = list(sources)
        self.resolver = resolver
        self.records: list[tuple[PaperRecord, int]] = []
        self.errors: list[AcademicApiError] = []
        self.unresolved: list[str] = []

    async def __call__(self, fresh: Identifiers, depth: int) -> list[FetchTarget]:
        stubs = identifier_stubs(fresh)
        sources = reachable_sources(self.sources)
        if not sources:
            self.unresolved += [s.paper_id for s in stubs]
            return []
        found = await complete_identifiers(stubs, sources, need=lambda paper: True)
        self.errors += found.errors
        self.records += [(record, depth) for record in found.records]
        self.unresolved += [s.paper_id for s in stubs if s.paper_id not in found.resolved]
        # this round's papers, each source's record merged: only one still without an abstract
        # needs its landing page
        return [
            FetchTarget(url=f"{self.resolver}{paper.doi}", source=f"doi:{paper.doi}")
            for paper in canonicalize(found.records)
            if paper.doi and not paper.abstract
        ]

    def papers(self, known: Identifiers) -> pd.DataFrame:
        """The papers found, merged by identifier, each with the first round that found it;
        papers the task already had (by any identifier) are left to ``papers``."""
        new = [
            p
            for p in canonicalize(r for r, _ in self.records)
            if p.doi not in known.dois and p.pmid not in known.pmids and p.arxiv_id not in known.arxiv_ids
        ]
        frame = papers_frame(new, "identified_papers")
        frame["depth"] = pd.array(
            [min(d for r, d in self.records if f"{r.source}:{r.source_id}" in p.sources) for p in new],
            dtype="Int64",
        )
        return frame
