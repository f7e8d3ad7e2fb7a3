"""The evidence selector (``evidence.selector: on``): the shipped model finds the sentence that reports
a claim's finding whatever direction the claim states, and `lyra verify` then reads each paper there,
once, and says so on the edge."""

from fixtures.verify_runs import verified_edges
from lyra_resources.models.evidence_selector import evidence_selector

TRIAL = [
    "Hip fractures are a major cause of disability in older adults.",
    "We randomly assigned 2,400 women aged 70 or older to vitamin D3 or placebo for three years.",
    "Hip fracture occurred in 31 of 1,200 women given vitamin D3 and 58 of 1,200 given placebo (P = 0.002).",
    "Falls were recorded by monthly telephone calls.",
]


def test_the_selector_finds_the_result_sentence_whatever_direction_the_claim_states():
    claims = [
        "Vitamin D3 reduces hip fracture compared with placebo.",
        "Vitamin D3 increases hip fracture compared with placebo.",
        "Placebo reduces hip fracture compared with vitamin D3.",
        "Vitamin D supplementation has no effect on the risk of hip fracture.",
    ]
    picks = evidence_selector().select(claims, [TRIAL] * len(claims))
    assert [p.first for p in picks] == [2, 2, 2, 2]
    assert all(p.probability > 0.5 and sorted(p.ranked) == [0, 1, 2, 3] for p in picks)


def test_a_sentence_about_another_finding_scores_low():
    pick = evidence_selector().select(["Statins lower LDL cholesterol in adults with diabetes."], [TRIAL])[0]
    assert pick.probability < 0.5


def test_verify_with_the_selector_reads_each_paper_once_where_it_reports_the_finding(tmp_path, small_corpus):
    edges = verified_edges(
        tmp_path,
        small_corpus,
        "evidence:\n  selector: true\n",
        "Vitamin D supplementation reduces fracture risk.",
    )
    assert len(edges) > 0
    assert not edges.duplicated(["page_id"]).any()  # one window per paper for the one claim
    assert (
        edges["reason"]
        .str.contains(r"read where the evidence selector finds the finding \(p \d\.\d\d\)")
        .all()
    )
