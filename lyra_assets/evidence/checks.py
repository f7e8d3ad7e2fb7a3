"""Blocking checks on the evidence tables: each takes the frames the run just built (the task's
rows as the run sees them, through the table IO manager) and fails the run before a malformed
graph is published."""

from __future__ import annotations

from typing import Any

import pandas as pd
from dagster import AssetCheckResult, asset_check

from lyra_assets import documents
from lyra_assets.evidence.claims import claims as claims_asset
from lyra_assets.evidence.judging import claim_scores, nli_edges
from lyra_assets.partitions import task_partitions
from lyra_assets.table_io import table_input
from lyra_core.scoring import determine_verdict

RELATIONS = ("SUPPORTS", "REFUTES", "NEUTRAL")
SCORE_COLUMNS = ("confidence", "uncertainty", "controversy")


def edge_problems(edges: pd.DataFrame, fragments: pd.DataFrame, claims: pd.DataFrame) -> dict[str, int]:
    """How many edges name a fragment or a claim the task lacks, repeat an edge id, or carry a
    relation other than SUPPORTS / REFUTES / NEUTRAL."""
    return {
        "dangling_fragments": int((~edges["fragment_id"].isin(fragments["fragment_id"])).sum()),
        "dangling_claims": int((~edges["claim_id"].isin(claims["claim_id"])).sum()),
        "duplicate_edge_ids": int(edges["edge_id"].duplicated().sum()),
        "unknown_relations": int((~edges["relation"].isin(RELATIONS)).sum()),
    }


def _well_supported_allowed(score: Any) -> tuple[bool, ...]:
    """Whether a stored score's certainty could allow ``well_supported``: only at moderate or high
    certainty, and then not always (one study, overlap alone; lyra_core.certainty)."""
    return (True, False) if score.certainty in ("high", "moderate") else (False,)


def score_problems(scores: pd.DataFrame) -> dict[str, int]:
    """How many scores lie outside [0, 1], and how many verdicts do not follow from their
    confidence, controversy and certainty."""
    out_of_range = int(sum(((scores[c] < 0) | (scores[c] > 1)).sum() for c in SCORE_COLUMNS))
    # stored figures are rounded to 3 decimals; the verdict was decided on the exact ones
    inconsistent = int(
        sum(
            r.verdict
            not in {
                determine_verdict(r.confidence + dc, r.controversy + dk, allowed)
                for dc in (-5e-4, 0, 5e-4)
                for dk in (-5e-4, 0, 5e-4)
                for allowed in _well_supported_allowed(r)
            }
            for r in scores.itertuples(index=False)
        )
    )
    return {"out_of_range": out_of_range, "inconsistent_verdicts": inconsistent}


@asset_check(
    asset=nli_edges,
    blocking=True,
    partitions_def=task_partitions,
    additional_ins={"fragments": table_input(documents.fragments), "claims": table_input(claims_asset)},
    description="Every edge joins an existing fragment and claim, and edge ids are unique.",
)
def nli_edges_are_well_formed(
    nli_edges: pd.DataFrame, fragments: pd.DataFrame, claims: pd.DataFrame
) -> AssetCheckResult:
    problems = edge_problems(nli_edges, fragments, claims)
    return AssetCheckResult(passed=not any(problems.values()), metadata=problems)


@asset_check(
    asset=claim_scores,
    blocking=True,
    partitions_def=task_partitions,
    description="Scores lie in [0, 1] and every verdict follows from confidence and controversy.",
)
def claim_scores_are_consistent(claim_scores: pd.DataFrame) -> AssetCheckResult:
    problems = score_problems(claim_scores)
    return AssetCheckResult(passed=not any(problems.values()), metadata=problems)
