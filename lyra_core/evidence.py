"""Pure steps of the evidence stage: claim deduplication and adoption, and NLI pair selection."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from lyra_core.claim_subjects import lacks_referent

if (
    TYPE_CHECKING
):  # numpy is imported by the functions that compute on vectors: feedback and readers need none
    import numpy as np


class ClaimCandidate(BaseModel):
    text: str
    origin: str  # extracted | user
    extractor: str  # local-rules | ollama:<model> | user
    fragment_id: str | None = None
    page_id: str | None = None
    score: float = 0.0
    features: list[str] = Field(default_factory=list)
    # where its source sits in the text, 0 (first sentence) … 1 (last): background comes first
    position: float | None = None


class MergedClaim(BaseModel):
    """One claim after deduplication; ``also_in`` keeps the provenance of merged duplicates."""

    head: ClaimCandidate
    also_in: list[str] = Field(default_factory=list)  # fragment ids of merged duplicates
    pages: list[str] = Field(default_factory=list)  # every page the claim was extracted from
    index: int  # row of the head in the candidate vectors


def dedupe_claims(
    candidates: list[ClaimCandidate], vectors: np.ndarray, threshold: float
) -> list[MergedClaim]:
    """Greedy merge of near-identical claims (cosine ≥ threshold). User claims come first and are
    never merged into each other; an extracted duplicate of a user claim joins the user claim."""
    import numpy as np

    order = sorted(
        range(len(candidates)), key=lambda i: (candidates[i].origin != "user", -candidates[i].score, i)
    )
    kept: list[MergedClaim] = []
    kept_vectors: list[np.ndarray] = []
    for i in order:
        cand = candidates[i]
        target = None
        if kept_vectors:
            sims = np.stack(kept_vectors) @ vectors[i]
            best = int(np.argmax(sims))
            both_user = cand.origin == "user" and kept[best].head.origin == "user"
            if sims[best] >= threshold and not both_user:
                target = kept[best]
        if target is None:
            kept.append(MergedClaim(head=cand, index=i, pages=[cand.page_id] if cand.page_id else []))
            kept_vectors.append(vectors[i])
        else:
            if (
                cand.fragment_id
                and cand.fragment_id != target.head.fragment_id
                and cand.fragment_id not in target.also_in
            ):
                target.also_in.append(cand.fragment_id)
            if cand.page_id and cand.page_id not in target.pages:
                target.pages.append(cand.page_id)
    return kept


def adoption(
    merged: list[MergedClaim],
    relevance: np.ndarray,
    max_claims: int,
    min_relevance: float,
    addresses: Sequence[bool | None] | None = None,
) -> list[str]:
    """'adopted' for user claims and the ``max_claims`` most relevant extracted claims at or above
    ``min_relevance``; 'not_adopted' for the rest, which stay in the graph unjudged. An extracted
    claim whose subject points to another sentence ("When this is altered …", "These findings
    suggest a role …") is never adopted: alone it cannot be judged (:mod:`lyra_core.claim_subjects`).

    ``addresses[i]`` says whether claim ``i`` addresses the question's exposure and outcome
    (:func:`lyra_core.question_parts.addresses_question`; None where the question names no such
    pair): a claim that does not is never adopted, however close its words. One that does still
    needs ``min_relevance``: a lower bar for it lost precision and recall alike on
    ``bench.claim_relevance``."""
    extracted = [
        i
        for i, m in enumerate(merged)
        if m.head.origin != "user"
        and relevance[i] >= min_relevance
        and (addresses is None or addresses[i] is not False)
        and not lacks_referent(m.head.text)
    ]
    chosen = set(sorted(extracted, key=lambda i: (-relevance[i], i))[:max_claims])
    return [
        "adopted" if m.head.origin == "user" or i in chosen else "not_adopted" for i, m in enumerate(merged)
    ]


def select_pairs(
    claim_vectors: np.ndarray,
    fragment_vectors: np.ndarray,
    fragment_pages: list[str],
    excluded_pages: list[set[str]],
    k: int,
) -> list[list[tuple[int, float]]]:
    """For each claim, its ``k`` most similar fragments as (fragment index, cosine), never a
    fragment of a page the claim was extracted from (overlapping windows of one abstract would
    otherwise confirm the claim with its own sentence)."""
    import numpy as np

    if len(claim_vectors) == 0 or len(fragment_vectors) == 0:
        return [[] for _ in range(len(claim_vectors))]
    sims = claim_vectors @ fragment_vectors.T
    pages = np.asarray(fragment_pages, dtype=object)
    pairs = []
    for row, excluded in zip(sims, excluded_pages, strict=True):
        allowed = np.flatnonzero(~np.isin(pages, list(excluded))) if excluded else np.arange(len(row))
        best = allowed[np.lexsort((allowed, -row[allowed]))][:k]
        pairs.append([(int(j), float(row[j])) for j in best])
    return pairs


def select_scoped_pairs(
    claim_vectors: np.ndarray,
    fragment_vectors: np.ndarray,
    fragment_papers: list[str | None],
    fragment_positions: list[int],
    scopes: list[dict[str, int]],
    limits: list[int],
    by_similarity: list[bool],
) -> list[list[tuple[int, float]]]:
    """For each claim of a verify task, fragments of its own papers only (``scopes[i]`` maps paper
    id to the paper's rank for claim ``i``) as (fragment index, cosine), at most ``limits[i]``:
    the most similar first where ``by_similarity[i]`` (a claim whose papers a search found), else
    every fragment, best-ranked paper first and in text order (papers the user named). A claim
    meets no other fragment, however similar."""
    sims = claim_vectors @ fragment_vectors.T if len(claim_vectors) and len(fragment_vectors) else None
    pairs = []
    for ci, scope in enumerate(scopes):
        paper_of = {
            j: paper for j, paper in enumerate(fragment_papers) if paper is not None and paper in scope
        }
        mine = list(paper_of)
        if by_similarity[ci] and sims is not None:
            mine.sort(key=lambda j: (-sims[ci, j], j))
        else:
            mine.sort(key=lambda j: (scope[paper_of[j]], paper_of[j], fragment_positions[j], j))
        pairs.append([(j, float(sims[ci, j])) for j in mine[: limits[ci]]] if sims is not None else [])
    return pairs


def edge_id_for(task_id: str, fragment_id: str, claim_id: str) -> str:
    return "e_" + hashlib.sha1(f"{task_id}\x1f{fragment_id}\x1f{claim_id}".encode()).hexdigest()[:16]


def text_hash(text: str) -> str:
    """The key of a text's content in Lyra's caches: the SHA-1 hex digest of its UTF-8 bytes."""
    return hashlib.sha1(text.encode()).hexdigest()


def unread_parts(judged_by: str | None = None, reason: str = "") -> dict[str, object]:
    """The direction columns of an edge no direction reading made (a hand-made graph, the
    cross-encoder's judgement): none read, and the reason given."""
    return {
        "judged_by": judged_by,
        "claim_direction": None,
        "passage_direction": None,
        "effect_figures": "",
        "exposure_matched": None,
        "outcome_matched": None,
        "reason": reason,
    }


def edge_probabilities(relation: str, confidence: float) -> dict[str, float]:
    """``p_supports``/``p_refutes``/``p_neutral`` for an edge known only by its relation and
    confidence (a human correction, a hand-made graph): the rest split evenly between the others."""
    rest = (1.0 - confidence) / 2
    columns = {"SUPPORTS": "p_supports", "REFUTES": "p_refutes", "NEUTRAL": "p_neutral"}
    return {column: (confidence if name == relation else rest) for name, column in columns.items()}


def with_required(
    pairs: list[list[tuple[int, float]]],
    claim_vectors: np.ndarray,
    fragment_vectors: np.ndarray,
    required: dict[int, list[int]],
) -> list[list[tuple[int, float]]]:
    """Each claim in ``required`` also meets every fragment listed for it, whatever the cap and
    however far its words (the result passages of the best-ranked papers,
    :mod:`lyra_core.result_passages`): a deciding trial is judged on its finding, not only on the
    background that shares the question's words."""
    out = [list(p) for p in pairs]
    for ci, indices in required.items():
        have = {fi for fi, _ in out[ci]}
        out[ci] += [
            (int(fi), float(claim_vectors[ci] @ fragment_vectors[fi])) for fi in indices if fi not in have
        ]
    return out


HYPOTHESIS_MAX_PAIRS = 60  # bounds the judge's work on a large task; most similar first


def with_addressing(
    pairs: list[list[tuple[int, float]]],
    claim_vectors: np.ndarray,
    fragment_vectors: np.ndarray,
    addressing: dict[int, list[int]],
    cap: int = HYPOTHESIS_MAX_PAIRS,
) -> list[list[tuple[int, float]]]:
    """Each claim in ``addressing`` (the question's hypothesis) meets, besides its most similar
    fragments, every fragment listed for it (those about its exposure and outcome), up to ``cap``
    pairs in all, the most similar first: the answer rests on every finding that addresses it, not
    on the few a similarity search ranks first."""
    out = [list(p) for p in pairs]
    for ci, indices in addressing.items():
        have = {fi for fi, _ in out[ci]}
        extra = [
            (int(fi), float(claim_vectors[ci] @ fragment_vectors[fi])) for fi in indices if fi not in have
        ]
        extra.sort(key=lambda pair: (-pair[1], pair[0]))
        out[ci] += extra[: max(0, cap - len(out[ci]))]
    return out
