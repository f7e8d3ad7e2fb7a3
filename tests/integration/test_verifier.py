"""The claim verifier's data, recipe and calibration (the model itself: tests/integration/test_models.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lyra_core.claim_rewrites import negate, templated_claim
from lyra_core.scoring import Evidence, ScoringRule, bayesian_score, paper_votes
from lyra_core.splits import claim_folds, claim_groups
from lyra_resources.models.inference import softmax
from lyra_training.verifier import fit_temperature
from lyra_training.verifier_data import scifact_pairs, windows


@pytest.mark.parametrize(
    "claim,negated",
    [
        ("Smoking increases lung cancer risk.", "Smoking decreases lung cancer risk."),
        ("RUNX is not expressed in skin tissue.", "RUNX is expressed in skin tissue."),
        ("Klf2 is important for myeloid cell function.", "Klf2 is not important for myeloid cell function."),
        (
            "GATA3 regulates self-renewal of stem cells.",
            "GATA3 does not regulate self-renewal of stem cells.",
        ),
        ("Statins cannot prevent dementia.", "Statins can prevent dementia."),
        ("Macrophages bind to cancer cells.", "Macrophages do not bind to cancer cells."),
    ],
)
def test_negation_rules(claim, negated):
    assert negate(claim) == negated


def test_negation_refuses_what_it_cannot_change():
    assert negate("Cell autonomous sex determination in Galliformes.") is None


def test_templated_claims_read_as_findings():
    assert (
        templated_claim("Aspirin", "placebo", "mortality", "decreased")
        == "Aspirin decreases mortality compared with placebo."
    )
    assert (
        templated_claim("Aspirin ", "placebo.", "mortality", "no_difference")
        == "Aspirin does not change mortality compared with placebo."
    )


CLAIMS = [
    {
        "id": 1,
        "claim": "Vitamin D reduces fracture risk.",
        "cited_doc_ids": [10],
        "evidence": {"10": [{"sentences": [1], "label": "SUPPORT"}]},
    },
    {
        "id": 2,
        "claim": "Vitamin D increases fracture risk.",
        "cited_doc_ids": [10, 11],
        "evidence": {"10": [{"sentences": [1], "label": "CONTRADICT"}]},
    },
    {"id": 3, "claim": "Sleep loss impairs memory.", "cited_doc_ids": [12], "evidence": {}},
    {
        "id": 4,
        "claim": "Exercise raises bone density.",
        "cited_doc_ids": [13],
        "evidence": {"13": [{"sentences": [0, 2], "label": "SUPPORT"}]},
    },
]
CORPUS = {
    10: {
        "abstract": [
            "We pooled 11 trials.",
            "Vitamin D lowered hip fractures by 30%.",
            "Doses varied.",
            "Adherence was high.",
        ]
    },
    11: {"abstract": ["Calcium was given.", "Kidney stones were more frequent."]},
    12: {"abstract": ["Participants slept 4 hours.", "Recall fell by a third.", "Effects lasted a day."]},
    13: {"abstract": ["Training lasted a year.", "Twenty adults took part.", "Spine density rose 2%."]},
}


def test_claims_citing_a_common_paper_share_a_group_and_a_fold():
    groups = claim_groups(CLAIMS)
    assert groups[1] == groups[2] and len({groups[1], groups[3], groups[4]}) == 3
    folds = claim_folds(CLAIMS, folds=2, seed=1)
    assert folds[1] == folds[2] and set(folds.values()) == {0, 1}


def test_scifact_pairs_label_rationales_negations_and_neutral_windows():
    pairs = scifact_pairs(
        CLAIMS, CORPUS, negation_rate=1.0, hard_negative=lambda c: 12 if c["id"] == 1 else None
    )
    by = {(p.source, p.hypothesis, p.premise): p.label for p in pairs}
    assert (
        by[("scifact", "Vitamin D reduces fracture risk.", "Vitamin D lowered hip fractures by 30%.")]
        == "entailment"
    )
    assert (
        by[("scifact", "Vitamin D increases fracture risk.", "Vitamin D lowered hip fractures by 30%.")]
        == "contradiction"
    )
    # the negated claim flips the label on the same premise
    premise = "Vitamin D lowered hip fractures by 30%."
    assert (
        by[("scifact_negated", "Vitamin D increases fracture risk.", premise)] == "contradiction"
    )  # claim 1's
    assert by[("scifact_negated", "Vitamin D decreases fracture risk.", premise)] == "entailment"  # claim 2's
    # a two-sentence rationale is one premise, never split
    assert (
        by[("scifact", "Exercise raises bone density.", "Training lasted a year. Spine density rose 2%.")]
        == "entailment"
    )
    # windows without a rationale sentence, NEI claims' abstracts and the retrieved paper are neutral
    neutral = {p.premise for p in pairs if p.label == "neutral"}
    assert "Doses varied. Adherence was high." in neutral
    assert any(p.source == "scifact_nei" for p in pairs) and any(
        p.source == "scifact_retrieved" for p in pairs
    )
    assert all("Vitamin D lowered" not in p.premise for p in pairs if p.label == "neutral")
    # claims of one group carry the same group id
    assert {p.group for p in pairs if p.hypothesis.startswith("Vitamin D")} == {claim_groups(CLAIMS)[1]}


def test_windows_match_the_fragment_cut():
    assert windows(["a", "b", "c"]) == [(0, 1), (1, 2)]
    assert windows(["a"]) == [(0,)]


def test_temperature_recovers_an_overconfident_model():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, 4000)
    true_logits = rng.normal(0, 1, (4000, 3))
    true_logits[np.arange(4000), labels] += 1.5
    # sample labels from the true probabilities, then show the model 3× sharper logits
    probs = softmax(true_logits)
    sampled = np.array([rng.choice(3, p=p) for p in probs])
    temperature = fit_temperature(true_logits * 3, sampled)
    assert 2.5 < temperature < 3.5


def test_one_vote_per_paper():
    overlapping = [
        Evidence(relation="SUPPORTS", nli_confidence=c, page_id="paper-a") for c in (0.9, 0.8, 0.7)
    ]
    votes = paper_votes(overlapping + [Evidence(relation="NEUTRAL", nli_confidence=0.99, page_id="paper-b")])
    assert [(v.page_id, v.nli_confidence) for v in votes] == [("paper-a", 0.9)]
    per_paper = bayesian_score(overlapping, ScoringRule(vote_weight=1.0))
    per_edge = bayesian_score(overlapping)  # the per-edge rule: every edge votes
    assert per_paper.alpha == pytest.approx(1.9) and per_edge.alpha == pytest.approx(3.4)
    assert per_paper.supporting_count == 3  # counts still report every edge


def test_a_clearly_refuting_paper_can_make_a_claim_likely_false_with_a_vote_weight():
    refuting = [Evidence(relation="REFUTES", nli_confidence=0.95, page_id="p")]
    assert bayesian_score(refuting, ScoringRule(vote_weight=1.0)).verdict == "unverified"
    assert bayesian_score(refuting, ScoringRule(vote_weight=3.0)).verdict == "likely_false"
    # the strongest edge decides a paper's vote, whichever side it is on
    mixed = [Evidence(relation="SUPPORTS", nli_confidence=0.6, page_id="p"), *refuting]
    assert [v.relation for v in paper_votes(mixed)] == ["REFUTES"]


def test_the_gate_rejects_an_adapter_that_forgets_the_science():
    from lyra_core.model_gate import gate_decision
    from lyra_core.training_metrics import Metrics

    def m(acc: float, pairs: int = 100) -> Metrics:
        return Metrics(pairs=pairs, accuracy=acc, macro_f1=acc)

    kept = gate_decision(m(0.6), m(0.7), m(0.83), m(0.83), 0.01, m(0.95, 300), 0.9)
    assert kept.activate and kept.science_agreement.accuracy == 0.95
    forgot = gate_decision(m(0.6), m(0.7), m(0.83), m(0.83), 0.01, m(0.80, 300), 0.9)
    assert not forgot.activate and "uncorrected scientific pairs" in forgot.reason
    assert gate_decision(m(0.6), m(0.7), m(0.83), m(0.83), 0.01).activate  # no scientific text judged yet


def test_a_weak_vote_below_the_minimum_is_no_vote():
    weak = [Evidence(relation="SUPPORTS", nli_confidence=0.55, page_id="p")]
    assert bayesian_score(weak, ScoringRule(vote_weight=1.0, min_vote=0.5)).alpha == pytest.approx(1.55)
    assert bayesian_score(weak, ScoringRule(vote_weight=1.0, min_vote=0.6)).alpha == 1.0


def test_train_nli_names_what_the_data_folder_lacks(tmp_path):
    from typer.testing import CliRunner

    from lyra_tools.cli import app

    result = CliRunner().invoke(
        app, ["models", "train-nli", "--data", str(tmp_path), "--home", str(tmp_path / "h")]
    )
    assert result.exit_code == 1
    assert "missing" in result.output and "scifact/claims_train.jsonl" in result.output
    assert not (tmp_path / "h" / "models").exists()


@pytest.mark.slow
def test_the_recipe_end_to_end_on_a_small_slice(shared_data, tmp_path):
    """Every stage of `lyra models train-nli` on a few pairs: general, two folds, final, temperature."""
    import json

    from lyra_resources.models.inference import NliModel
    from lyra_training.verifier import VerifierRecipe, train_verifier

    recipe = VerifierRecipe(
        folds=2, general_limit=48, claims_limit=24, general_replay=16, calibration_per_fold=30, batch_size=16
    )
    report = train_verifier(
        shared_data, tmp_path / "out", tmp_path / "work", recipe, cache_dir=tmp_path / "cache"
    )
    assert set(report.stages) == {"general", "fold0", "fold1", "final"}
    assert report.stages["general"]["pairs"] == 48 and report.oof_pairs > 0
    assert 0.25 <= report.temperature <= 8 and report.oof_nll_after <= report.oof_nll_before + 1e-9
    calibration = json.loads((tmp_path / "out" / "calibration.json").read_text())
    assert calibration["temperature"] == report.temperature
    model = NliModel(tmp_path / "out")
    assert model.temperature == report.temperature and f"-t{report.temperature:g}" in model.version
    prediction = model.predict(
        [("Vitamin D lowered hip fractures by 30%.", "Vitamin D reduces fracture risk.")]
    )[0]
    assert abs(sum(prediction.probs.values()) - 1) < 1e-5
    # stages found in the work folder are reused: a second run trains nothing
    again = train_verifier(
        shared_data, tmp_path / "out2", tmp_path / "work", recipe, cache_dir=tmp_path / "cache"
    )
    assert again.stages == report.stages and again.temperature == report.temperature
