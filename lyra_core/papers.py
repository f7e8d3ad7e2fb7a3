"""The paper record every source returns, and the canonical merge of records into papers."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field, field_validator

from lyra_core.identifiers import (
    normalize_arxiv_id,
    normalize_doi,
    normalize_pmid,
    normalize_title,
)


class PaperRecord(BaseModel):
    """One paper as one source describes it (local corpus, Semantic Scholar, OpenAlex, …)."""

    source: str = Field(description="where the record came from: local, s2, openalex, …")
    source_id: str = Field(description="the id the source uses for it")
    title: str
    abstract: str | None = None
    doi: str | None = None
    pmid: str | None = None
    arxiv_id: str | None = None
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    authors: list[str] = Field(default_factory=list)
    score: float | None = Field(default=None, description="the source's own relevance score, if any")

    @field_validator("doi", mode="before")
    @classmethod
    def _doi(cls, value: str | None) -> str | None:
        return normalize_doi(value) if value else None

    @field_validator("pmid", mode="before")
    @classmethod
    def _pmid(cls, value: str | int | None) -> str | None:
        return normalize_pmid(value) if value not in (None, "") else None

    @field_validator("arxiv_id", mode="before")
    @classmethod
    def _arxiv(cls, value: str | None) -> str | None:
        return normalize_arxiv_id(value) if value else None

    @field_validator("abstract", mode="before")
    @classmethod
    def _abstract(cls, value: str | None) -> str | None:
        if value is None:
            return None
        text = " ".join(str(value).split())
        return text or None

    @property
    def title_key(self) -> str:
        return normalize_title(self.title)


class CanonicalPaper(BaseModel):
    """A paper after merging every record that shares an identifier or normalised title."""

    paper_id: str
    doi: str | None = None
    pmid: str | None = None
    arxiv_id: str | None = None
    title: str
    abstract: str | None = None
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    sources: list[str] = Field(default_factory=list, description="source:source_id of each merged record")
    authors: list[str] = Field(default_factory=list, description='"Family, Given" per author, in order')
    best_rank: int = Field(default=0, description="best rank any source gave it (0 = first)")


_PARTICLES = {
    "van",
    "von",
    "der",
    "den",
    "de",
    "del",
    "della",
    "di",
    "da",
    "du",
    "la",
    "le",
    "dos",
    "das",
    "ter",
    "ten",
}
_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}


# Words that make an author a group ("World Health Organization", "PROTECT Trial Investigators"),
# whose name is not a person's to be turned around.
_CORPORATE = {
    "organization",
    "organisation",
    "group",
    "consortium",
    "committee",
    "society",
    "association",
    "institute",
    "collaboration",
    "collaborative",
    "council",
    "foundation",
    "agency",
    "network",
    "investigators",
    "trialists",
    "team",
    "board",
    "commission",
    "department",
    "university",
}


def family_given(name: str) -> str:
    """An author's name as ``Family, Given`` (the form BibTeX, RIS and CSL all read):
    ``Jane Q. Smith`` → ``Smith, Jane Q.``, ``Ludwig van Beethoven`` → ``van Beethoven, Ludwig``;
    a name already in that form, a single word or a group's name ("World Health Organization") is kept."""
    name = " ".join(str(name).split())
    if "," in name or " " not in name or _CORPORATE & set(name.lower().split()):
        return name
    words = name.split(" ")
    suffix = words.pop() if words[-1].lower() in _SUFFIXES and len(words) > 2 else None
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in _PARTICLES:  # "van der Berg" stays the family name
        start -= 1
    family, given = " ".join(words[start:]), " ".join(words[:start])
    return f"{family}, {given}" + (f", {suffix}" if suffix else "")


def paper_id_for(
    doi: str | None, pmid: str | None, arxiv_id: str | None, title_key: str, source_key: str | None = None
) -> str:
    """Stable id from the strongest identifier, so a paper keeps its id across runs and sources.
    A record with no identifier and no title (an untitled corpus line) is known by ``source_key``,
    its source and its id there."""
    if doi:
        basis = f"doi:{doi}"
    elif pmid:
        basis = f"pmid:{pmid}"
    elif arxiv_id:
        basis = f"arxiv:{arxiv_id}"
    elif title_key or not source_key:
        basis = f"title:{title_key}"
    else:
        basis = f"source:{source_key}"
    return "p_" + hashlib.sha1(basis.encode()).hexdigest()[:16]


def canonicalize(records: Iterable[PaperRecord]) -> list[CanonicalPaper]:
    """Merge records naming the same paper (same DOI, PMID, arXiv id or normalised title).

    Records arrive best-first; the merged paper keeps the first non-empty value of each field
    (and the longest abstract), and lists every source that returned it. Union-find over shared
    keys, so A~B by DOI and B~C by title put all three in one paper.
    """
    # an untitled record without identifiers still counts when it has text and a source id
    items = [
        r for r in records if r.title_key or r.doi or r.pmid or r.arxiv_id or (r.abstract and r.source_id)
    ]
    parent = list(range(len(items)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, rec in enumerate(items):
        keys = [
            f"doi:{rec.doi}" if rec.doi else None,
            f"pmid:{rec.pmid}" if rec.pmid else None,
            f"arxiv:{rec.arxiv_id}" if rec.arxiv_id else None,
            # very short titles ("Editorial", "Reply") are not evidence of identity
            f"title:{rec.title_key}" if len(rec.title_key) >= 20 else None,
        ]
        for key in filter(None, keys):
            if key in owner:
                a, b = find(owner[key]), find(i)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                owner[key] = i

    groups: dict[int, list[int]] = {}
    for i in range(len(items)):
        groups.setdefault(find(i), []).append(i)

    papers: list[CanonicalPaper] = []
    for root in sorted(groups):
        members = [items[i] for i in groups[root]]

        def first(
            attr: str, members: list[PaperRecord] = members
        ) -> Any:  # any field: a str, the year an int
            return next((getattr(m, attr) for m in members if getattr(m, attr)), None)

        abstracts = [m.abstract for m in members if m.abstract]
        doi, pmid, arxiv = first("doi"), first("pmid"), first("arxiv_id")
        title = first("title") or ""
        sources = list(dict.fromkeys(f"{m.source}:{m.source_id}" for m in members))
        papers.append(
            CanonicalPaper(
                paper_id=paper_id_for(doi, pmid, arxiv, normalize_title(title), sources[0]),
                doi=doi,
                pmid=pmid,
                arxiv_id=arxiv,
                title=title,
                abstract=max(abstracts, key=len) if abstracts else None,
                year=first("year"),
                venue=first("venue"),
                url=first("url"),
                sources=sources,
                best_rank=min(groups[root]),
                authors=[family_given(a) for a in first("authors") or []],
            )
        )
    # Two groups can still share a paper_id (same title key, no ids); keep the first.
    unique: dict[str, CanonicalPaper] = {}
    for paper in papers:
        unique.setdefault(paper.paper_id, paper)
    return list(unique.values())
