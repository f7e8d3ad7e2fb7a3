"""The Bayesian claim model of docs/scoring.md, checked row by row against its table of the per-edge rule."""

import inspect

import pytest

from lyra_core import scoring
from lyra_core.scoring import Evidence, bayesian_score, determine_verdict, legacy_score, score_claim


def edges(supports=0, refutes=0, conf=0.9, neutral=0):
    return (
        [Evidence(relation="SUPPORTS", nli_confidence=conf, page_id=f"s{i}") for i in range(supports)]
        + [Evidence(relation="REFUTES", nli_confidence=conf, page_id=f"r{i}") for i in range(refutes)]
        + [Evidence(relation="NEUTRAL", nli_confidence=0.99, page_id="n") for _ in range(neutral)]
    )


# An earlier table of the model (docs/scoring.md#the-per-edge-rule): state, edges, then alpha, beta, confidence.
# Its uncertainty and controversy columns cannot come from its own formulas (e.g. SUPPORTS x5,
# REFUTES x5 gives alpha = beta = 5.5, so controversy = min(4.5, 4.5) / 9 = 0.5, not the printed
# 0.45), and the formulas are the specification; so those two columns are checked against the
# formula's values, with the printed ones kept beside them for the record.
SEED_TABLE = [
    # state,                    edges,        a,   b,   conf, unc (formula, printed), contr (formula, printed)
    ("no evidence", edges(), 1.0, 1.0, 0.50, (0.289, 0.29), (0.00, 0.00)),
    ("SUPPORTS x1 (0.9)", edges(1), 1.9, 1.0, 0.66, (0.241, 0.22), (0.00, 0.00)),
    ("SUPPORTS x3 (0.9)", edges(3), 3.7, 1.0, 0.79, (0.171, 0.13), (0.00, 0.00)),
    ("SUPPORTS x3, REFUTES x1", edges(3, 1), 3.7, 1.9, 0.66, (0.184, 0.14), (0.25, 0.24)),
    ("SUPPORTS x5, REFUTES x5", edges(5, 5), 5.5, 5.5, 0.50, (0.144, 0.09), (0.50, 0.45)),
]


@pytest.mark.parametrize("state,evidence,alpha,beta,confidence,uncertainty,controversy", SEED_TABLE)
def test_seed_table_row(state, evidence, alpha, beta, confidence, uncertainty, controversy):
    score = bayesian_score(evidence)
    assert score.alpha == pytest.approx(alpha)
    assert score.beta == pytest.approx(beta)
    assert round(alpha / (alpha + beta) + 1e-9, 2) == confidence  # the table's two-decimal figure
    assert score.confidence == pytest.approx(alpha / (alpha + beta), abs=0.0005)
    assert score.uncertainty == pytest.approx(uncertainty[0], abs=0.0005)
    assert score.controversy == pytest.approx(controversy[0], abs=0.0005)
    assert abs(score.uncertainty - uncertainty[1]) <= 0.06 and abs(score.controversy - controversy[1]) <= 0.05


def test_neutral_edges_add_nothing_but_are_counted():
    plain, with_neutral = bayesian_score(edges(2)), bayesian_score(edges(2, neutral=4))
    assert (plain.alpha, plain.beta, plain.confidence) == (
        with_neutral.alpha,
        with_neutral.beta,
        with_neutral.confidence,
    )
    assert with_neutral.neutral_count == 4 and with_neutral.evidence_count == 6


def test_nli_confidence_is_the_weight_and_uncertainty_falls_with_evidence():
    assert bayesian_score(edges(1, conf=0.5)).alpha == 1.5
    assert bayesian_score(edges(3)).uncertainty < bayesian_score(edges(1)).uncertainty
    assert bayesian_score(edges(0, 2)).confidence < 0.5 < bayesian_score(edges(2)).confidence


def test_independent_sources_counts_distinct_supporting_pages():
    same_page = [Evidence(relation="SUPPORTS", nli_confidence=0.9, page_id="p1") for _ in range(3)]
    score = bayesian_score(same_page + [Evidence(relation="REFUTES", nli_confidence=0.9, page_id="p2")])
    assert score.independent_sources == 1 and score.supporting_count == 3 and score.refuting_count == 1


@pytest.mark.parametrize(
    "confidence,controversy,verdict",
    [
        (0.5, 0.31, "contested"),
        (0.9, 0.31, "contested"),
        (0.75, 0.0, "well_supported"),
        (0.6, 0.3, "supported"),
        (0.74, 0.0, "supported"),
        (0.25, 0.0, "likely_false"),
        (0.5, 0.0, "unverified"),
        (0.59, 0.1, "unverified"),
        (0.26, 0.0, "unverified"),
    ],
)
def test_verdict_rule(confidence, controversy, verdict):
    assert determine_verdict(confidence, controversy) == verdict


def test_legacy_calculation_behind_the_flag():
    evidence = edges(3, 1)
    assert score_claim(evidence, use_bayesian_confidence=False) == legacy_score(evidence)
    assert score_claim(evidence) == bayesian_score(evidence)
    legacy = legacy_score(evidence)
    assert legacy.confidence == 0.75 and legacy.uncertainty == 0.0
    assert legacy.supporting_count == 3


def test_domain_trust_cannot_enter_the_score():
    # The score's only input is Evidence, which has no trust field; extra fields are ignored. The
    # design, size and reader of an edge grade the certainty of a verdict, never its confidence.
    assert set(Evidence.model_fields) == {
        "relation",
        "nli_confidence",
        "page_id",
        "study_design",
        "sample_size",
        "judged_by",
        "human",
        "on_topic",  # whether the edge votes at all (lyra_core.topicality), never its weight
    }
    trusted = [
        Evidence.model_validate(
            {"relation": "SUPPORTS", "nli_confidence": 0.8, "page_id": "a", "source_trust_level": "PRIMARY"}
        )
    ]
    untrusted = [
        Evidence.model_validate(
            {"relation": "SUPPORTS", "nli_confidence": 0.8, "page_id": "a", "source_trust_level": "BLOCKED"}
        )
    ]
    assert bayesian_score(trusted) == bayesian_score(untrusted)
    assert "trust" not in inspect.getsource(scoring.bayesian_score)


def _edge(relation: str, confidence: float, page: str) -> Evidence:
    return Evidence(relation=relation, nli_confidence=confidence, page_id=page)


def test_vote_counts_are_the_votes_that_entered_the_score():
    edges = [
        _edge("SUPPORTS", 0.9, "p1"),
        _edge("SUPPORTS", 0.6, "p1"),
        _edge("REFUTES", 0.3, "p2"),
        _edge("REFUTES", 0.45, "p3"),
        _edge("NEUTRAL", 0.8, "p4"),
    ]
    rule = scoring.ScoringRule()  # one vote per page, none under min_vote 0.5
    assert scoring.vote_counts(edges, rule=rule) == scoring.VoteCounts(
        supporting=1, refuting=0, below_threshold=2
    )
    assert (
        bayesian_score(edges, rule).alpha == pytest.approx(1 + 4 * 0.9)
        and bayesian_score(edges, rule).beta == 1
    )
    # the seed's rule and the legacy calculation count every edge: none is left under a threshold
    for counted in (scoring.vote_counts(edges), scoring.vote_counts(edges, use_bayesian_confidence=False)):
        assert counted == scoring.VoteCounts(supporting=2, refuting=2, below_threshold=0)


@pytest.mark.parametrize(
    ("verdict", "alpha", "beta", "why"),
    [
        ("contested", 2.0, 2.0, "conflicting"),  # each side adds exactly the prior's weight: strong
        ("contested", 1.99, 5.0, "insufficient"),  # one side just under it
        ("contested", 5.0, 1.99, "insufficient"),
        ("unverified", 1.0, 1.0, "insufficient"),  # no evidence at all
        ("unverified", 2.5, 2.2, "conflicting"),
        ("supported", 4.0, 2.0, None),  # a verdict that decides needs no reason
        ("likely_false", 1.0, 4.0, None),
    ],
)
def test_undecided_because_boundaries(verdict, alpha, beta, why):
    assert scoring.undecided_because(verdict, alpha, beta) == why


def test_undecided_because_from_real_scores():
    # the default rule: one counted vote on each side is strong (4 × 0.5 = 2 beyond the prior)
    both = bayesian_score([_edge("SUPPORTS", 0.5, "p1"), _edge("REFUTES", 0.5, "p2")], scoring.ScoringRule())
    assert (
        both.verdict == "contested"
        and scoring.undecided_because(both.verdict, both.alpha, both.beta) == "conflicting"
    )
    # the seed's per-edge rule: two weak edges make a contested verdict, but not a conflict
    weak = bayesian_score([_edge("SUPPORTS", 0.4, "p1"), _edge("REFUTES", 0.3, "p2")])
    assert (
        weak.verdict == "contested"
        and scoring.undecided_because(weak.verdict, weak.alpha, weak.beta) == "insufficient"
    )
