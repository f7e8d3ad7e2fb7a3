"""Which fragments each claim of a task meets in `nli_edges`: the claims judged, the fragments
that report a finding, the result passages of the best-ranked papers added back, the fragments
about the hypothesis's exposure and outcome, a claim's own pages left out, and a verify task's
claims kept to their own papers."""

import numpy as np
import pandas as pd

from lyra_core.cells import cell_list
from lyra_core.claims import claim_id_for
from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.relevance import relevance
from lyra_core.evidence import select_scoped_pairs
from lyra_core.hypothesis import HYPOTHESIS
from lyra_core.result_passages import top_paper_results
from lyra_core.tasks import TaskOptions
from lyra_resources.models.claim_roles import claim_role_model
from lyra_resources.settings.pipeline import EvidenceSettings


def findings_only(
    fragments: pd.DataFrame, vectors: np.ndarray, min_finding: float
) -> tuple[pd.DataFrame, np.ndarray, int]:
    """The fragments that can be evidence: those the sentence-role model reads as reporting a
    finding (probability ≥ ``min_finding``), from their embedding, cue words and place in their
    page. An aims or methods sentence restates the question's words without answering it."""
    roles = claim_role_model()
    if fragments.empty or min_finding <= 0 or not roles.reads(vectors):  # another embedder: no gate
        return fragments, vectors, 0
    last = fragments.groupby("page_id")["position"].transform("max").astype(float)
    places = ((fragments["position"].astype(float) + 0.5) / (last + 1)).tolist()
    probs = roles.probabilities(fragments["text"].tolist(), vectors, places)
    keep = probs >= min_finding
    return fragments[keep].reset_index(drop=True), vectors[keep], int((~keep).sum())


def with_result_passages(
    gated: pd.DataFrame,
    gated_vectors: np.ndarray,
    every: pd.DataFrame,
    every_vector: np.ndarray,
    pages: pd.DataFrame,
    papers: pd.DataFrame,
) -> tuple[pd.DataFrame, np.ndarray, list[int]]:
    """The gated fragments with the result passages of the best-ranked papers added back where the
    finding gate dropped them, and the indices of those passages (lyra_core.result_passages): the
    sentence that holds a trial's figures is judged even when the role model reads it as methods."""
    rank_of_paper = dict(zip(papers["paper_id"], papers["search_rank"], strict=True)) if len(papers) else {}
    page_rank = {
        page: int(rank_of_paper[paper])
        for page, paper in zip(pages["page_id"], pages["paper_id"], strict=True)
        if paper in rank_of_paper and pd.notna(rank_of_paper[paper])
    }
    chosen = top_paper_results(
        every["page_id"].tolist(),
        every["text"].tolist(),
        [cell_list(s) for s in every["sections"]],
        page_rank,
    )
    kept = set(gated["fragment_id"])
    missing = [i for i in chosen if every["fragment_id"].iat[i] not in kept]
    if missing:
        gated = pd.concat([gated, every.iloc[missing]], ignore_index=True)
        gated_vectors = (
            np.vstack([gated_vectors, every_vector[missing]]) if len(gated_vectors) else every_vector[missing]
        )
    wanted = set(every["fragment_id"].iloc[chosen])
    return gated, gated_vectors, [i for i, f in enumerate(gated["fragment_id"]) if f in wanted]


def addressing_fragments(
    claims: pd.DataFrame, fragments: pd.DataFrame, texts: dict[str, str]
) -> dict[int, list[int]]:
    """For the question's hypothesis, when it is about an effect: the fragments about its exposure
    and its outcome (the judge's relevance check, docs/direction.md)."""
    out = {}
    for ci, (text, origin) in enumerate(zip(claims["text"], claims["origin"], strict=True)):
        frame = read_claim(text) if origin == HYPOTHESIS else None
        if frame is None or not frame.directional:
            continue
        out[ci] = [
            fi
            for fi, (passage, page) in enumerate(zip(fragments["text"], fragments["page_id"], strict=True))
            if relevance(
                frame.exposure, frame.outcome, passage, texts.get(page, ""), treated=frame.treats
            ).about_both
        ]
    return out


def adopted_claims(claims: pd.DataFrame) -> pd.DataFrame:
    """The claims judged: the adopted ones, by ``claim_id``."""
    adopted = claims[claims["adoption_status"] == "adopted"]
    return adopted.sort_values("claim_id", kind="stable").reset_index(drop=True)


def excluded_pages(claims: pd.DataFrame, fragment_page: dict[str, str]) -> list[set[str]]:
    """Pages an extracted claim came from: its own fragments must not confirm it. A user's claim
    excludes nothing: a paper that states it (even one an extracted duplicate came from) is
    evidence for it."""
    out = []
    for claim in claims.itertuples(index=False):
        if claim.origin == "user":
            out.append(set())
            continue
        ids = [claim.source_fragment_id, *cell_list(claim.also_in_fragments)]
        out.append({fragment_page[f] for f in ids if isinstance(f, str) and f in fragment_page})
    return out


def scoped_pairs(
    task_id: str,
    options: TaskOptions,
    scope: pd.DataFrame,
    pages: pd.DataFrame,
    claims: pd.DataFrame,
    fragments: pd.DataFrame,
    claim_vectors: np.ndarray,
    fragment_vectors: np.ndarray,
    cfg: EvidenceSettings,
) -> list[list[tuple[int, float]]]:
    """A verify task's pairs: each claim against fragments of its ``claim_scope`` papers — all of
    them (up to ``verify_max_fragments``) for papers the user named, the ``verify_top_k`` most
    similar for papers its own search found."""
    by_claim: dict[str, dict[str, int]] = {}
    for row in scope.itertuples(index=False):
        by_claim.setdefault(row.claim_id, {})[row.paper_id] = int(row.rank)
    named = {claim_id_for(task_id, c.claim) for c in options.verify_claims if c.papers}
    searched = [cid not in named for cid in claims["claim_id"]]
    paper_of_page = dict(zip(pages["page_id"], pages["paper_id"], strict=True))
    return select_scoped_pairs(
        claim_vectors,
        fragment_vectors,
        [paper_of_page.get(p) for p in fragments["page_id"]],
        [int(p) for p in fragments["position"]],
        [by_claim.get(cid, {}) for cid in claims["claim_id"]],
        [cfg.verify_top_k if s else cfg.verify_max_fragments for s in searched],
        searched,
    )
