"""The combiner weighs the label model's reading with the rules' edges as numbers."""

from __future__ import annotations

import pytest

from lyra_resources.models.direction_judge import EdgeJudgement
from lyra_resources.models.judge_combiner import Combiner, combined_judgement, rule_features
from lyra_resources.models.label_model import PaperReading

FEATURES = ["label_entail", "label_contra", "label_neutral", "selector", "rule_sup", "rule_ref"]


def edge(relation: str, p: float, figures: str = "", exposure: bool | None = None) -> EdgeJudgement:
    rest = (1 - p) / 2
    probs = {"SUPPORTS": rest, "REFUTES": rest, "NEUTRAL": rest, relation: p}
    return EdgeJudgement(
        relation=relation,
        p_supports=probs["SUPPORTS"],
        p_refutes=probs["REFUTES"],
        p_neutral=probs["NEUTRAL"],
        judged_by="direction",
        effect_figures=figures,
        exposure_matched=exposure,
        reason=f"rules read {relation.lower()}",
    )


def reading(entail: float, contra: float) -> PaperReading:
    return PaperReading(
        relation="SUPPORTS" if entail >= contra else "REFUTES",
        confidence=max(entail, contra),
        probs={"entailment": entail, "contradiction": contra, "neutral": 1 - entail - contra},
        sentences=[2, 3],
        best=3,
        passage="…",
        figures="[figures: odds ratio 1.6, 1.2–2.1: higher]",
        selector_probability=0.9,
    )


def combiner() -> Combiner:
    # supports where the model and the rules say so, refutes likewise, neutral otherwise
    return Combiner(
        features=FEATURES,
        relations=["SUPPORTS", "REFUTES", "NEUTRAL"],
        coef=[[3, 0, 0, 0, 3, 0], [0, 3, 0, 0, 0, 3], [0, 0, 3, 0, -2, -2]],
        intercept=[0, 0, 1],
    )


def test_rule_features_read_the_strongest_vote_each_way_and_the_figures():
    edges = [
        edge("SUPPORTS", 0.7),
        edge("SUPPORTS", 0.9, figures="RR 0.5"),
        edge("NEUTRAL", 0.8),
        edge("REFUTES", 0.6),
    ]
    f = rule_features(edges)
    assert f["rule_sup"] == pytest.approx(0.9) and f["rule_ref"] == pytest.approx(0.6)
    assert f["share_sup"] == pytest.approx(0.5) and f["share_ref"] == pytest.approx(0.25)
    assert f["figure_sup"] == 1.0 and f["figure_ref"] == 0.0
    assert rule_features([])["rule_sup"] == 0.0


def test_rules_can_turn_a_hesitant_reading():
    hesitant = reading(0.45, 0.40)
    alone = combined_judgement(combiner(), hesitant, [], "label-model")
    with_rules = combined_judgement(combiner(), hesitant, [edge("REFUTES", 0.95)], "label-model")
    assert alone.relation == "NEUTRAL"
    assert with_rules.relation == "REFUTES"
    assert sum((with_rules.p_supports, with_rules.p_refutes, with_rules.p_neutral)) == pytest.approx(1.0)


def test_the_reason_names_what_was_read():
    judged = combined_judgement(
        combiner(), reading(0.9, 0.05), [edge("SUPPORTS", 0.8, exposure=True)], "label-model"
    )
    assert judged.relation == "SUPPORTS"
    assert "sentences 3, 4" in judged.reason and "rules read supports" in judged.reason
    assert judged.effect_figures == "odds ratio 1.6, 1.2–2.1: higher"
    assert judged.exposure_matched is True and judged.outcome_matched is None
