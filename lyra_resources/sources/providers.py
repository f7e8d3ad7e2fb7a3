"""The interface every literature source implements: the local corpus and the live academic APIs."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel

from lyra_core.papers import PaperRecord


class SourceIssue(BaseModel):
    """Something a source could not read or answer; reported, never silently dropped."""

    source: str
    location: str  # file:line for local files, endpoint for APIs
    reason: str


@runtime_checkable
class PaperProvider(Protocol):
    """Search and fetch papers. Async so live sources can be queried side by side."""

    name: str

    async def search(self, query: str, limit: int = 50) -> list[PaperRecord]:
        """Best-first records for a free-text query."""
        ...

    async def get_paper(self, paper_id: str) -> PaperRecord | None:
        """One paper by the source's id or by ``DOI:…``, ``PMID:…``, ``ARXIV:…``; None if unknown."""
        ...
