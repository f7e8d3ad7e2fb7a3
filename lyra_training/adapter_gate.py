"""An adapter candidate against the active NLI model: both judged on the held-out corrections,
the SNLI regression set and this home's confidently judged scientific text, then the pure
promotion rule of :mod:`lyra_core.model_gate` decides."""

from __future__ import annotations

from collections.abc import Sequence

from lyra_core.model_gate import GateResult, gate_decision
from lyra_core.training_metrics import Metrics, metrics
from lyra_resources.models.inference import NliModel
from lyra_resources.store.lyra_store import LyraStore
from lyra_training.adapters import RELATION_TO_LABEL
from lyra_training.nli_data import NliPair


def evaluate(model: NliModel, pairs: Sequence[NliPair]) -> Metrics:
    """Accuracy and macro-F1 (over the classes present in the gold labels) of ``model`` on ``pairs``."""
    if not pairs:
        return metrics([], [])
    predicted = [p.label for p in model.predict([(x.premise, x.hypothesis) for x in pairs])]
    return metrics([x.label for x in pairs], predicted)


def gate(
    active: NliModel,
    candidate: NliModel,
    heldout: Sequence[NliPair],
    regression: Sequence[NliPair],
    tolerance: float,
    science: Sequence[NliPair] = (),
    science_min: float = 0.9,
) -> GateResult:
    """``science``: pairs the active model judged confidently on this home's tasks, labelled with
    its own judgement (empty: no such check)."""
    return gate_decision(
        evaluate(active, heldout),
        evaluate(candidate, heldout),
        evaluate(active, regression),
        evaluate(candidate, regression),
        tolerance,
        evaluate(candidate, science) if science else None,
        science_min,
    )


def science_pairs(
    store: LyraStore, version: str, excluded_edges: set[str], limit: int = 400, min_confidence: float = 0.8
) -> list[NliPair]:
    """Up to ``limit`` (fragment, claim) pairs of this home's tasks that ``version`` judged with at
    least ``min_confidence`` and no human corrected, labelled with that judgement."""
    rows = store.fetch_df(
        "SELECT e.edge_id, f.text AS premise, c.text AS hypothesis, e.relation FROM nli_edges e "
        "JOIN fragments f ON f.task_id = e.task_id AND f.fragment_id = e.fragment_id "
        "JOIN claims c ON c.task_id = e.task_id AND c.claim_id = e.claim_id "
        "WHERE e.model_version = ? AND e.nli_confidence >= ? ORDER BY md5(e.edge_id) LIMIT ?",
        [version, min_confidence, limit + len(excluded_edges)],
    )
    return [
        NliPair(premise=r.premise, hypothesis=r.hypothesis, label=RELATION_TO_LABEL[r.relation])
        for r in rows.itertuples(index=False)
        if r.edge_id not in excluded_edges
    ][:limit]
