"""The learned judge (``evidence.judge: learned``): the shipped label model reads a claim against the
sentences the evidence selector chose, tells a claim from its opposite on the same passage, and
`lyra verify` then judges each paper once, with the label model's reason on the edge."""

from fixtures.verify_runs import verified_edges
from lyra_resources.models.label_model import label_model

TRIAL = [
    "Hip fractures are a major cause of disability in older adults.",
    "We randomly assigned 2,400 women aged 70 or older to vitamin D3 or placebo for three years.",
    "Hip fracture occurred in 31 of 1200 women given vitamin D3 and 58 of 1200 given placebo (P = 0.002).",
    "Falls were recorded by monthly telephone calls.",
]


def test_a_claim_and_its_opposite_are_read_apart_on_the_same_sentences():
    claims = [
        "Vitamin D3 reduces hip fracture compared with placebo.",
        "Vitamin D3 increases hip fracture compared with placebo.",
        "Vitamin D3 has no effect on hip fracture compared with placebo.",
    ]
    readings = label_model().read(claims, [TRIAL] * len(claims))
    reduces, increases, no_effect = readings
    assert reduces.relation == "SUPPORTS" and no_effect.relation == "REFUTES"
    assert reduces.probs["entailment"] > increases.probs["entailment"] > no_effect.probs["entailment"]
    assert all(2 in r.sentences and r.best == 2 for r in readings)  # read where the finding is
    assert "p = 0.002: lower" in reduces.figures  # the counts read by code, Fisher's p beside them
    assert all(abs(sum(r.probs.values()) - 1) < 1e-5 for r in readings)


def test_a_ratio_whose_interval_lies_above_one_is_an_increase_not_no_difference():
    passage = (
        "The odds ratio for hip fracture among users of statins versus non-users was 1.6 (95% CI 1.2 to 2.1)."
    )
    claims = [
        "Statin use increases the risk of hip fracture.",
        "Statin use reduces the risk of hip fracture.",
        "Statins have no effect on hip fracture.",
    ]
    increases, reduces, no_effect = label_model().judge(claims, [passage] * 3)
    assert (increases.relation, reduces.relation, no_effect.relation) == ("SUPPORTS", "REFUTES", "REFUTES")


def test_a_difference_short_of_significance_is_no_effect():
    passage = (
        "Death occurred in 45 (9.0%) of 500 patients assigned to aspirin and 62 (12.4%) of 500 patients "
        "receiving placebo (p=0.08)."
    )
    reduces, no_effect = label_model().judge(
        [
            "Aspirin reduces death compared with placebo.",
            "Aspirin has no effect on death compared with placebo.",
        ],
        [passage] * 2,
    )
    assert (reduces.relation, no_effect.relation) == ("REFUTES", "SUPPORTS")


def test_a_finding_about_another_outcome_supports_nothing():
    reading = label_model().read(["Statins lower LDL cholesterol in adults with diabetes."], [TRIAL])[0]
    assert reading.relation == "NEUTRAL"


def test_verify_with_the_learned_judge_reads_each_paper_once_and_says_what_it_read(tmp_path, small_corpus):
    edges = verified_edges(
        tmp_path,
        small_corpus,
        "evidence:\n  judge: learned\n",
        "Vitamin D supplementation reduces fracture risk.",
    )
    assert len(edges) > 0
    assert not edges.duplicated(["page_id"]).any()  # one reading per paper for the one claim
    assert (edges["judged_by"] == "label-model").all()
    assert edges["model_version"].str.startswith("lyra-label-minilm-l6").all()
    assert (
        edges["reason"]
        .str.contains(
            r"the label model reads (?:supports|refutes|neutral) \(\d\.\d\d\) in the paper's sentences? "
        )
        .all()
    )
