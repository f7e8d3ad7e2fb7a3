"""Counterfactual verifier pairs: the direction of a claim or of its evidence turned round, the
label flipped, and nothing rewritten where the flipped label could be wrong."""

from __future__ import annotations

import json

import pytest

from lyra_training.counterfactual import counterfactual_pairs
from lyra_training.nli_data import NliPair
from lyra_training.verifier_data import TrainingPair

NEUTRAL_PREMISE = "Participants were followed for five years."


def rewrites(
    claim: str, premise: str = NEUTRAL_PREMISE, label: str = "entailment"
) -> dict[str, list[TrainingPair]]:
    pairs = counterfactual_pairs(
        [TrainingPair(premise=premise, hypothesis=claim, label=label, source="scifact", group="g7")],
        rate=1.0,
        seed=1,
    )
    out: dict[str, list[TrainingPair]] = {}
    for pair in pairs:
        out.setdefault(pair.source, []).append(pair)
    return out


@pytest.mark.parametrize(
    "claim,swapped",
    [
        (
            "Aspirin reduces the risk of colorectal cancer.",
            "Aspirin increases the risk of colorectal cancer.",
        ),
        (
            "Vitamin D reduced hip fractures in older women.",
            "Vitamin D increased hip fractures in older women.",
        ),
        ("Metformin decreased HbA1c in adolescents.", "Metformin increased HbA1c in adolescents."),
        ("Mortality was lower with statins.", "Mortality was higher with statins."),
        ("Statin users had fewer strokes.", "Statin users had more strokes."),
        ("TNF inhibits apoptosis of neutrophils.", "TNF promotes apoptosis of neutrophils."),
        ("Exercise upregulates PGC-1 in muscle.", "Exercise downregulates PGC-1 in muscle."),
        (
            "Ketamine is associated with a reduction in suicidal ideation.",
            "Ketamine is associated with an increase in suicidal ideation.",
        ),
        ("An increase in IL-6 follows surgery.", "A decrease in IL-6 follows surgery."),
        ("Hypoxia prolongs the QT interval.", "Hypoxia shortens the QT interval."),
        ("Obesity is linked to shorter telomeres.", "Obesity is linked to longer telomeres."),
        ("Smoking accelerated lung function decay.", "Smoking slowed lung function decay."),
        ("Lower vitamin D predicts frailty.", "Higher vitamin D predicts frailty."),
    ],
)
def test_the_claims_one_direction_word_is_swapped_in_its_own_form_and_the_label_flipped(claim, swapped):
    for label, flipped in (("entailment", "contradiction"), ("contradiction", "entailment")):
        [pair] = rewrites(claim, label=label)["counterfactual_claim"]
        assert (pair.hypothesis, pair.premise, pair.label) == (swapped, NEUTRAL_PREMISE, flipped)
        assert pair.group == "g7"


@pytest.mark.parametrize(
    "claim,negated",
    [
        ("Aspirin reduces the risk of stroke.", "Aspirin does not reduce the risk of stroke."),
        ("Smoking increased lung cancer risk.", "Smoking did not increase lung cancer risk."),
        ("Statins reduce LDL cholesterol.", "Statins do not reduce LDL cholesterol."),
        ("Metformin inhibits mTOR signalling.", "Metformin does not inhibit mTOR signalling."),
        ("Ketamine amplifies glutamate release.", "Ketamine does not amplify glutamate release."),
        ("Aerobic training lowered blood pressure.", "Aerobic training did not lower blood pressure."),
        ("Vaccination prevents cervical cancer.", "Vaccination does not prevent cervical cancer."),
    ],
)
def test_the_claims_direction_verb_is_negated_and_the_label_flipped(claim, negated):
    [pair] = rewrites(claim, label="contradiction")["counterfactual_negated"]
    assert (pair.hypothesis, pair.label) == (negated, "entailment")


@pytest.mark.parametrize(
    "claim",
    [
        "Reduced sleep is associated with obesity.",  # an adjective, not the claim's verb
        "Blood pressure was reduced by exercise.",  # passive
        "Exercise significantly reduced blood pressure.",  # an adverb in between
        "Increases in IL-6 follow surgery.",  # a noun
        "Patients with lower LDL live longer.",  # two direction words
    ],
)
def test_no_does_not_where_the_direction_word_is_no_finite_verb_of_the_claim(claim):
    assert "counterfactual_negated" not in rewrites(claim)


@pytest.mark.parametrize(
    "claim,premise,flipped",
    [
        (
            "Vitamin D reduces fracture risk.",
            "Vitamin D lowered hip fractures by 30%.",
            "Vitamin D raised hip fractures by 30%.",
        ),
        (
            "Exercise raises bone density.",
            "Spine density rose 2% after a year of training.",
            "Spine density fell 2% after a year of training.",
        ),
        (
            "Statins reduce mortality.",
            "Mortality fell (HR 0.69, 95% CI 0.64-0.74) among statin users.",
            "Mortality rose (HR 1.45, 95% CI 1.35-1.56) among statin users.",
        ),
        (
            "Statins reduce mortality.",
            "Mortality was significantly higher than in controls.",
            "Mortality was significantly lower than in controls.",
        ),
    ],
)
def test_the_premises_one_direction_word_is_swapped_with_its_ratio_and_the_label_flipped(
    claim, premise, flipped
):
    [pair] = rewrites(claim, premise, "entailment")["counterfactual_premise"]
    assert (pair.premise, pair.hypothesis, pair.label) == (flipped, claim, "contradiction")


@pytest.mark.parametrize(
    "premise,inverted",
    [
        (
            "Statin use was associated with colorectal cancer (OR 0.69 (95% CI 0.64-0.74)).",
            "Statin use was associated with colorectal cancer (OR 1.45 (95% CI 1.35-1.56)).",
        ),
        (
            "Use of the drug was associated with death (hazard ratio 2.5; 95% CI: 1.8 to 3.4).",
            "Use of the drug was associated with death (hazard ratio 0.40; 95% CI: 0.29 to 0.56).",
        ),
        (
            "Aspirin users had colorectal cancer at RR = 0.8 (95% CI 0.7–0.9).",
            "Aspirin users had colorectal cancer at RR = 1.25 (95% CI 1.11–1.43).",
        ),
        (
            "Aspirin users had colorectal cancer with an odds ratio of 0.5.",
            "Aspirin users had colorectal cancer with an odds ratio of 2.00.",
        ),
    ],
)
def test_a_ratio_and_its_ci_in_the_premise_are_inverted_and_the_label_flipped(premise, inverted):
    [pair] = rewrites("Statins reduce colorectal cancer risk.", premise, "contradiction")[
        "counterfactual_ratio"
    ]
    assert (pair.premise, pair.label) == (inverted, "entailment")


@pytest.mark.parametrize(
    "premise",
    [
        "Cancer was as frequent in both arms (OR 0.9, 95% CI 0.7-1.2).",  # the CI spans 1: no direction
        "Cancer (OR 0.69, 95% CI 0.64-0.74) and stroke (HR 0.8, 95% CI 0.7-0.9) were studied.",  # two ratios
        "Cancer was seen with an OR of 0.69 [CI 0.64, 0.74].",  # a CI not read would keep pointing the old way
        "Mortality fell and hospital stays were longer.",  # two direction words
        "Mortality did not fall among statin users.",  # negated
        "Mortality was similar between the groups.",  # a null finding
        "Patients were randomly assigned to caspase-1-activating treatment.",  # a direction inside a compound
    ],
)
def test_a_premise_with_no_single_certain_direction_is_left_alone(premise):
    out = rewrites("Statins reduce mortality.", premise)
    assert "counterfactual_premise" not in out and "counterfactual_ratio" not in out


@pytest.mark.parametrize(
    "claim",
    [
        "Statins reduce LDL and increase HDL.",  # two direction words
        "Aspirin does not reduce the risk of stroke.",  # already negated
        "Mortality did not differ between statin users and non-users.",  # a null finding
        "Klf2 is important for myeloid cell function.",  # no direction word
        "Statins lower LDL cholesterol.",  # "lower" may be the verb: "higher" would not read
        "Smoking accelerates lung function decline.",  # "decline" states a direction too
    ],
)
def test_a_claim_with_no_single_certain_direction_is_not_swapped(claim):
    assert "counterfactual_claim" not in rewrites(claim)


@pytest.mark.parametrize(
    "claim",
    [
        "ART has no effect on the infectiveness of HIV-positive people.",
        "Statin use is associated with colorectal cancer.",
    ],
)
def test_a_premise_is_not_turned_round_under_a_claim_of_no_effect_or_of_an_association(claim):
    """Against "no effect", higher and lower evidence both contradict: the label would not flip."""
    assert rewrites(claim, "HIV incidence was 17% to 32% higher than without ART.") == {}
    assert rewrites(claim, "Cancer was less frequent (OR 0.69, 95% CI 0.64-0.74).") == {}


def test_neutral_pairs_are_never_rewritten():
    assert (
        rewrites(
            "Aspirin reduces the risk of stroke.",
            "Mortality fell (HR 0.69, 95% CI 0.64-0.74).",
            label="neutral",
        )
        == {}
    )


def test_plain_nli_pairs_are_rewritten_without_a_group():
    [pair, *_] = counterfactual_pairs(
        [NliPair(premise=NEUTRAL_PREMISE, hypothesis="Aspirin reduces pain.", label="entailment")],
        rate=1.0,
        seed=3,
    )
    assert pair.source == "counterfactual_claim" and pair.group is None and pair.label == "contradiction"


def many_pairs() -> list[TrainingPair]:
    claims = [
        "Aspirin reduces the risk of stroke.",
        "Statins lowered mortality.",
        "Exercise increases bone density.",
        "Klf2 is important for myeloid cell function.",
    ]
    return [
        TrainingPair(
            premise=f"Trial {i} enrolled adults.",
            hypothesis=claims[i % 4],
            label=("entailment", "contradiction", "neutral")[i % 3],
            source="scifact",
            group=f"g{i}",
        )
        for i in range(240)
    ]


def test_the_share_rewritten_follows_the_rate_and_the_seed():
    pairs = many_pairs()
    assert counterfactual_pairs(pairs, rate=0.0, seed=1) == []
    every = counterfactual_pairs(pairs, rate=1.0, seed=1)
    rewritable = {p.group for p in pairs if p.label != "neutral" and not p.hypothesis.startswith("Klf2")}
    assert {p.group for p in every} == rewritable
    half = counterfactual_pairs(pairs, rate=0.5, seed=1)
    assert half == counterfactual_pairs(pairs, rate=0.5, seed=1)
    assert half != counterfactual_pairs(pairs, rate=0.5, seed=2)
    assert 0.3 * len(rewritable) < len({p.group for p in half}) < 0.7 * len(rewritable)


def test_the_scifact_stage_trains_on_counterfactuals_of_its_rationale_pairs_only_when_asked(shared_data):
    from lyra_training.verifier import ScifactData, VerifierRecipe, stage_pairs

    scifact = ScifactData.read(shared_data / "scifact")
    claims = scifact.claims[:80]
    general = [
        TrainingPair(
            premise=f"A man rides horse {i}.",
            hypothesis="A man is outdoors.",
            label="entailment",
            source="snli",
        )
        for i in range(40)
    ]
    off = stage_pairs(
        scifact, claims, general, {}, VerifierRecipe(general_replay=10, counterfactual_rate=0.0), seed=5
    )
    on = stage_pairs(
        scifact, claims, general, {}, VerifierRecipe(general_replay=10, counterfactual_rate=1.0), seed=5
    )
    assert not any(p.source.startswith("counterfactual") for p in off)
    added = [p for p in on if p.source.startswith("counterfactual")]
    assert [p for p in on if not p.source.startswith("counterfactual")] == off
    assert {p.source for p in added} >= {
        "counterfactual_claim",
        "counterfactual_negated",
        "counterfactual_premise",
    }
    rationale = {(p.premise, p.hypothesis): p for p in off if p.source == "scifact"}
    groups = {p.group for p in rationale.values()}
    assert all(p.label in ("entailment", "contradiction") and p.group in groups for p in added)
    # a claim negation already made (scifact_negated) is not repeated
    assert not {(p.premise, p.hypothesis) for p in added} & {(p.premise, p.hypothesis) for p in off}
    # each claim rewrite keeps a rationale premise whose pair had the other label
    for pair in (p for p in added if p.source == "counterfactual_claim"):
        assert any(r.premise == pair.premise and r.label != pair.label for r in rationale.values())


def test_the_counterfactual_rate_is_recorded_with_the_recipe():
    from lyra_training.verifier import VerifierRecipe, VerifierReport

    report = VerifierReport(
        out_dir="out",
        recipe=VerifierRecipe(counterfactual_rate=0.3),
        stages={},
        temperature=1.0,
        oof_accuracy=0.5,
        oof_pairs=10,
        oof_nll_before=1.0,
        oof_nll_after=0.9,
    )
    assert json.loads(report.model_dump_json())["recipe"]["counterfactual_rate"] == 0.3
    assert VerifierRecipe().counterfactual_rate == 0.5  # the shipped verifier's recipe
