"""Claim relevance to the question: cosine sharpened by coverage of the question's concepts.

The sentences are real SciFact corpus sentences, the ones a vitamin D fracture question adopted
by cosine alone (issue 17): the vitamin E, folic acid and statin claims must now fall below the
adoption threshold while the vitamin D fracture claims stay.
"""

import numpy as np
import pytest

from lyra_core.relevance import (
    DEFAULT_COSINE_WEIGHT,
    DEFAULT_MIN_RELEVANCE,
    claim_relevance,
    concepts,
    coverage,
    stem,
    term_weights,
)

QUESTION = "Does vitamin D supplementation reduce fracture risk?"
ON_TOPIC = [
    "Vitamin D insufficiency and deficiency exacerbate osteoporosis, cause osteomalacia, and increase the "
    "risk of skeletal fractures.",
    "Low vitamin D (VD) is associated with secondary hyperparathyroidism and both contribute to deleterious "
    "consequences (reduced bone mineral density (BMD), risk of fractures and falls).",
]
OFF_TOPIC = [
    "A large-scale randomized trial suggested that vitamin E may reduce risk of prostate cancer; "
    "however, few trials have been powered to address this relationship.",
    "In this large, long-term trial of male physicians, neither vitamin E nor C supplementation reduced the "
    "risk of prostate or total cancer.",
    "This finding suggests that folic acid-containing multivitamins may reduce the risk of gestational "
    "hypertension.",
    "These findings support an association between statin use by elderly patients and reduction in the risk "
    "of hip fracture.",
]
OTHER_FRAGMENTS = [  # more of what such a task retrieves: the idf of its terms comes from these too
    "A meta-analysis published in 2007 showed that vitamin D supplementation was associated with "
    "significantly reduced mortality.",
    "Intake of 1000IU/day of Vitamin D, half the safe upper intake established by the National Academy of "
    "Sciences, was associated with 50% lower risk.",
    "Compared with placebo bisphosphonates significantly reduced the odds ratio for fractures.",
]


def test_stems_and_concepts_keep_the_letter_that_names_the_vitamin():
    assert stem("fractures") == stem("fracture") == "fractur"
    assert stem("reduced") == stem("reduces") == stem("reduce")
    assert stem("analysis") == "analysis" and stem("mass") == "mass"
    assert {"vitamin d", "fractur risk", "supplement"} <= concepts(QUESTION)
    assert "vitamin d" not in concepts(OFF_TOPIC[1]) and "vitamin e" in concepts(OFF_TOPIC[1])


def test_coverage_weighs_rare_terms_more_and_is_zero_without_content_words():
    weights = term_weights(["vitamin d fracture", "vitamin d mortality", "vitamin d cancer", "hip fracture"])
    assert weights.weight("vitamin") < weights.weight("fractur") < weights.weight("unseen")
    assert coverage(QUESTION, QUESTION, weights) == pytest.approx(1.0)
    assert coverage("Is it?", "anything", weights) == 0.0
    # "supplement", "reduc", "risk" are in none of the texts: no claim could cover them, so they are left out
    assert coverage(QUESTION, "Vitamin D and fractures.", weights) == pytest.approx(1.0)

    def cov(claim, w=weights):
        return coverage(QUESTION, claim, w)

    assert 0 < cov("Fractures.") < cov("Vitamin E and hip fractures.") < cov("Vitamin D and fractures.")
    assert cov("Vitamin E and prostate cancer.") < cov("Vitamin D.")
    assert cov("Fractures.", term_weights([])) < cov("Vitamin D fracture.", term_weights([]))


def test_off_topic_claims_fall_below_the_threshold_and_vitamin_d_fracture_claims_stay():
    from lyra_resources.models.inference import embedder

    claims = ON_TOPIC + OFF_TOPIC
    vectors = embedder().encode([QUESTION, *claims])
    cosines = vectors[1:] @ vectors[0]
    weights = term_weights(claims + OTHER_FRAGMENTS)
    scores = claim_relevance(QUESTION, claims, cosines, weights, DEFAULT_COSINE_WEIGHT)
    on, off = scores[: len(ON_TOPIC)], scores[len(ON_TOPIC) :]
    assert min(on) >= DEFAULT_MIN_RELEVANCE > max(off), (on, off)
    assert min(on) > max(off)
    # cosine alone at the old threshold (0.25) adopted every one of them
    assert (cosines >= 0.25).all()
    assert np.all((scores >= 0) & (scores <= 1.0))
