"""The learned judge's last step: one verdict per claim and paper from what the label model read and
what the rules' edges over the paper's windows say, weighed by a small logistic model fit on held-out
Evidence Inference prompts (``bench.judge_stack``; docs/selector.md, "The combiner").

The rules enter as numbers, not as the judge: the strongest SUPPORTS and REFUTES probability among the
paper's windows, the share of windows voting each way, and whether a figure the code read carried a
vote each way, and the share of windows found about the claim's exposure and outcome or about something
else. Which of them are kept is decided by the bench's ablation (label features alone, rule
features alone, both), on validation prompts, before the test prompts are scored.
"""

from __future__ import annotations

import math
from pathlib import Path

from pydantic import BaseModel

from lyra_resources.models.direction_judge import EdgeJudgement
from lyra_resources.models.label_model import PaperReading

RELATIONS = ("SUPPORTS", "REFUTES", "NEUTRAL")
COMBINER_FILE = "combiner.json"


def rule_features(edges: list[EdgeJudgement]) -> dict[str, float]:
    """What the rules' edges over one paper's windows say, as numbers."""
    sup = [e.p_supports for e in edges if e.relation == "SUPPORTS"]
    ref = [e.p_refutes for e in edges if e.relation == "REFUTES"]
    n = max(len(edges), 1)
    return {
        "rule_sup": max(sup, default=0.0),
        "rule_ref": max(ref, default=0.0),
        "share_sup": len(sup) / n,
        "share_ref": len(ref) / n,
        "figure_sup": float(any(e.effect_figures and e.relation == "SUPPORTS" for e in edges)),
        "figure_ref": float(any(e.effect_figures and e.relation == "REFUTES" for e in edges)),
        # topicality: windows found about the claim's exposure and outcome, or about something else
        "on_topic": sum(bool(e.exposure_matched and e.outcome_matched) for e in edges) / n,
        "off_topic": sum(e.exposure_matched is False or e.outcome_matched is False for e in edges) / n,
    }


def label_features(reading: PaperReading) -> dict[str, float]:
    """What the label model read in the paper, as numbers."""
    return {
        "label_entail": reading.probs["entailment"],
        "label_contra": reading.probs["contradiction"],
        "label_neutral": reading.probs["neutral"],
        "selector": reading.selector_probability,
    }


class Combiner(BaseModel):
    """A multinomial logistic model over named features; rows of ``coef`` follow ``relations``."""

    features: list[str]
    relations: list[str]
    coef: list[list[float]]
    intercept: list[float]
    C: float = 1.0

    @classmethod
    def read(cls, folder: Path) -> Combiner | None:
        path = folder / COMBINER_FILE
        return cls.model_validate_json(path.read_text()) if path.exists() else None

    def uses_rules(self) -> bool:
        return any(name.startswith(("rule_", "share_", "figure_", "on_", "off_")) for name in self.features)

    def probabilities(self, features: dict[str, float]) -> dict[str, float]:
        x = [features[name] for name in self.features]
        scores = [
            b + sum(w * v for w, v in zip(row, x, strict=True))
            for row, b in zip(self.coef, self.intercept, strict=True)
        ]
        top = max(scores)
        exp = [math.exp(s - top) for s in scores]
        total = sum(exp)
        return {r: e / total for r, e in zip(self.relations, exp, strict=True)}


def combined_judgement(
    combiner: Combiner, reading: PaperReading, rule_edges: list[EdgeJudgement], judged_by: str
) -> EdgeJudgement:
    """One edge for the paper: the combiner's probabilities, the reason naming both readings."""
    p = combiner.probabilities({**label_features(reading), **rule_features(rule_edges)})
    relation = max(p, key=lambda r: p[r])
    # the rules' edge to show: the strongest that says what the combiner says, else the strongest vote
    agreeing = [e for e in rule_edges if e.relation == relation]
    strongest = max(agreeing or rule_edges, key=lambda e: max(e.p_supports, e.p_refutes), default=None)
    rules = (
        f"; the rules read {strongest.relation.lower()} ({strongest.confidence:.2f}) in one of "
        f"{len(rule_edges)} window{'s' if len(rule_edges) != 1 else ''}: {strongest.reason}"
        if strongest and combiner.uses_rules()
        else ""
    )
    reason = f"{relation.lower()} ({p[relation]:.2f}): {reading.described()}{rules}"
    return EdgeJudgement(
        relation=relation,
        p_supports=p["SUPPORTS"],
        p_refutes=p["REFUTES"],
        p_neutral=p["NEUTRAL"],
        judged_by=judged_by,
        effect_figures=reading.figures.removeprefix("[figures: ").removesuffix("]"),
        exposure_matched=_any_matched([e.exposure_matched for e in rule_edges]),
        outcome_matched=_any_matched([e.outcome_matched for e in rule_edges]),
        reason=reason,
    )


def _any_matched(values: list[bool | None]) -> bool | None:
    """True where any window was found about it, False where all read were not, None where none was read."""
    read = [v for v in values if v is not None]
    return any(read) if read else None
