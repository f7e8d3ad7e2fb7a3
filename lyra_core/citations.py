"""Citation tracking (docs/pipeline.md, step 3): candidates and their two-stage scores.

Every paper's references and citing papers, as reported by S2 and OpenAlex, are merged into
candidate papers (the same paper from two APIs is one candidate listing both), then filtered:

- stage 1 (coarse): ``0.5·is_influential + 0.5·cosine(paper abstract, candidate abstract)``,
  top 30 per paper; candidates without an abstract cannot be judged and stop here;
- stage 2 (fine): an LLM rates relevance 0–10; ``final = 0.5·(LLM/10) + 0.3·stage1 +
  0.2·is_influential``, top 10 per paper selected.

Without an LLM, stage 2 uses ``10·max(0, cosine(task question, candidate abstract))`` as the
relevance: the question is what the LLM is asked to judge against, and the cosine is the one
signal of it Lyra always has. Every row records which method scored it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from lyra_core.identifiers import normalize_title
from lyra_core.papers import CanonicalPaper, PaperRecord, canonicalize, paper_id_for

Direction = Literal["references", "cited_by"]
STAGE1_INFLUENTIAL, STAGE1_SIMILARITY = 0.5, 0.5
FINAL_LLM, FINAL_STAGE1, FINAL_INFLUENTIAL = 0.5, 0.3, 0.2
FALLBACK_METHOD = "fallback:question-cosine"


class CitationEdge(BaseModel):
    """One reported edge: ``paper_id`` cites ``record`` (references) or is cited by it (cited_by)."""

    paper_id: str
    direction: Direction
    is_influential: bool = False
    record: PaperRecord


class CitationCandidate(BaseModel):
    """A candidate paper for one of the task's papers, merged over the APIs that reported it."""

    paper_id: str
    candidate_id: str
    direction: Direction
    is_influential: bool
    sources: list[str] = Field(description="source:source_id of every record reporting the candidate")


def stage1_score(is_influential: bool, similarity: float) -> float:
    """0.5·influential + 0.5·cosine (negative cosines count as 0: unrelated, not anti-related)."""
    return STAGE1_INFLUENTIAL * float(is_influential) + STAGE1_SIMILARITY * min(max(similarity, 0.0), 1.0)


def final_score(llm_score: float, stage1: float, is_influential: bool) -> float:
    """0.5·(LLM relevance / 10) + 0.3·stage-1 score + 0.2·influential."""
    return (
        FINAL_LLM * min(max(llm_score, 0.0), 10.0) / 10.0
        + FINAL_STAGE1 * stage1
        + FINAL_INFLUENTIAL * float(is_influential)
    )


def fallback_relevance(question_similarity: float) -> float:
    """Stage-2 relevance (0–10) when no LLM answers: the candidate's cosine to the question, scaled."""
    return round(10.0 * min(max(question_similarity, 0.0), 1.0), 4)


def _keys(doi: str | None, pmid: str | None, arxiv_id: str | None, title_key: str) -> list[str]:
    keys = [
        f"doi:{doi}" if doi else "",
        f"pmid:{pmid}" if pmid else "",
        f"arxiv:{arxiv_id}" if arxiv_id else "",
        f"title:{title_key}" if len(title_key) >= 20 else "",
    ]
    return [k for k in keys if k]


class PaperIndex:
    """Finds which known paper (the task's, or one expanded before) a merged candidate is."""

    def __init__(self, papers: Iterable[CanonicalPaper]) -> None:
        self._owner: dict[str, str] = {}
        for p in papers:
            for key in _keys(p.doi, p.pmid, p.arxiv_id, normalize_title(p.title)):
                self._owner.setdefault(key, p.paper_id)

    def find(self, paper: CanonicalPaper) -> str | None:
        return next(
            (
                self._owner[k]
                for k in _keys(paper.doi, paper.pmid, paper.arxiv_id, normalize_title(paper.title))
                if k in self._owner
            ),
            None,
        )


def merge_candidates(
    edges: Sequence[CitationEdge], extra: Sequence[PaperRecord], known: Sequence[CanonicalPaper]
) -> tuple[list[CitationCandidate], dict[str, CanonicalPaper]]:
    """Candidates per (paper, candidate, direction), and the candidate papers by id.

    All reported records (plus ``extra``, e.g. abstracts found by identifier completion) are
    merged with the canonical-paper rules (DOI, PMID, arXiv id, title), so the same paper from S2
    and OpenAlex is one candidate with both in ``sources``. A candidate that is one of ``known``
    takes that paper's id; a paper is never its own candidate.
    """
    merged = canonicalize([e.record for e in edges] + list(extra))
    index = PaperIndex(known)
    by_record: dict[str, CanonicalPaper] = {}
    papers: dict[str, CanonicalPaper] = {}
    for paper in merged:
        own = index.find(paper)
        if own:
            paper = paper.model_copy(update={"paper_id": own})
        papers.setdefault(paper.paper_id, paper)
        for source in paper.sources:
            by_record[source] = papers[paper.paper_id]
    grouped: dict[tuple[str, str, str], CitationCandidate] = {}
    for edge in edges:
        r = edge.record
        # a group canonicalize folded into another with the same id has no entry of its own
        candidate = by_record.get(f"{r.source}:{r.source_id}") or papers.get(
            paper_id_for(r.doi, r.pmid, r.arxiv_id, r.title_key)
        )
        if candidate is None or candidate.paper_id == edge.paper_id:
            continue
        key = (edge.paper_id, candidate.paper_id, edge.direction)
        source = f"{edge.record.source}:{edge.record.source_id}"
        if key in grouped:
            row = grouped[key]
            row.is_influential = row.is_influential or edge.is_influential
            if source not in row.sources:
                row.sources.append(source)
        else:
            grouped[key] = CitationCandidate(
                paper_id=edge.paper_id,
                candidate_id=candidate.paper_id,
                direction=edge.direction,
                is_influential=edge.is_influential,
                sources=[source],
            )
    return list(grouped.values()), papers


def top_unique(rows: Sequence[tuple[str, float]], k: int) -> set[str]:
    """The ``k`` best distinct candidate ids by score (ties broken by id, so runs agree)."""
    best: dict[str, float] = {}
    for candidate_id, score in rows:
        best[candidate_id] = max(score, best.get(candidate_id, float("-inf")))
    ordered = sorted(best.items(), key=lambda item: (-item[1], item[0]))
    return {cid for cid, _ in ordered[:k]}
