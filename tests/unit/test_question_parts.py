"""A question's exposure and outcome, read from its hypothesis or its open form, and the adoption
rule that gates extracted claims on them."""

import numpy as np
import pytest

from lyra_core.evidence import ClaimCandidate, adoption, dedupe_claims
from lyra_core.question_parts import QuestionParts, addresses_question, question_parts

PARTS = [
    # open questions, by their common forms
    ("What are the effects of exercise on depression?", "exercise", "depression"),
    (
        "What is the effect of vitamin D supplementation on fracture risk in older adults?",
        "vitamin D supplementation",
        "fracture risk",
    ),
    ("What are the long-term effects of cannabis use on cognition?", "cannabis use", "cognition"),
    ("Effect of aspirin on colorectal cancer incidence", "aspirin", "colorectal cancer incidence"),
    ("What is the impact of remote work on productivity?", "remote work", "productivity"),
    ("What effect does caffeine have on sleep quality?", "caffeine", "sleep quality"),
    (
        "What impact has social media had on adolescent mental health?",
        "social media",
        "adolescent mental health",
    ),
    ("How does sleep deprivation affect memory?", "sleep deprivation", "memory"),
    ("How do statins reduce cardiovascular mortality?", "statins", "cardiovascular mortality"),
    ("How can mindfulness help reduce anxiety?", "mindfulness", "anxiety"),
    ("Why does smoking cause lung cancer?", "smoking", "lung cancer"),
    (
        "To what extent does alcohol consumption increase the risk of breast cancer?",
        "alcohol consumption",
        "breast cancer",
    ),
    ("How is obesity associated with breast cancer?", "obesity", "breast cancer"),
    ("How are sleep and obesity related?", "sleep", "obesity"),
    ("What is the relationship between smoking and lung cancer?", "smoking", "lung cancer"),
    ("What is the association between air pollution and asthma in children?", "air pollution", "asthma"),
    ("The link between gut bacteria and depression", "gut bacteria", "depression"),
    ("What is the role of gut microbiota in obesity?", "gut microbiota", "obesity"),
    ("Role of inflammation in the development of atherosclerosis", "inflammation", "atherosclerosis"),
    ("Exercise and depression", "Exercise", "depression"),
    ("Vitamin D and risk of fracture", "Vitamin D", "fracture"),
    ("How effective is CBT for insomnia?", "CBT", "insomnia"),
    # yes/no questions: their hypothesis's frame, or the open form where the frame reads none
    ("Is obesity associated with increased risk of type 2 diabetes?", "Obesity", "risk of type 2 diabetes"),
    ("Does vitamin D supplementation reduce fracture risk?", "Vitamin D supplementation", "fracture risk"),
    ("Can exercise reduce depression?", "Exercise", "depression"),
    ("Are exercise and depression linked?", "exercise", "depression"),
    ("Is there a link between vaccines and autism?", "vaccines", "autism"),
    ("Is exercise good for depression?", "exercise", "depression"),
    ("Is exercise effective in treating depression?", "Exercise", "depression"),
]


@pytest.mark.parametrize(("question", "exposure", "outcome"), PARTS)
def test_a_question_names_its_exposure_and_outcome(question, exposure, outcome):
    assert question_parts(question) == QuestionParts(exposure=exposure, outcome=outcome)


@pytest.mark.parametrize(
    "question",
    [
        "What causes migraine?",
        "What are the effects of caffeine?",
        "What are the health benefits of green tea?",
        "Which drugs lower blood pressure?",
        "What is known about metformin?",
        "How does X work?",
        "What is the best treatment for depression?",
        "Diet and exercise reduce weight",
        "Are statins effective?",
    ],
)
def test_a_question_without_both_parts_has_none(question):
    assert question_parts(question) is None


def test_a_claim_addresses_the_question_when_it_names_the_outcome_and_it_or_its_paper_the_exposure():
    parts = question_parts("What are the effects of exercise on depression?")
    claims = [
        "Exercise reduced depressive symptoms compared with usual care.",
        "Depression scores fell by 30% in the intervention group.",  # exposure named by its paper
        "Depression scores fell by 30% in the intervention group.",  # … not by this one
        "Balance and gait improved after the exercise programme.",
        "Dementia incidence was lower among physically active adults.",
    ]
    papers = [
        "",
        "Aerobic exercise for major depression: a randomised trial.",
        "Sertraline for major depression: a randomised trial.",
        "",
        "",
    ]
    assert addresses_question(parts, claims, papers) == [True, True, False, False, False]
    assert addresses_question(None, claims, papers) == [None] * 5


def _merged(texts: list[str], user: int = 0):
    cands = [ClaimCandidate(text=t, origin="extracted", extractor="x") for t in texts]
    cands += [ClaimCandidate(text=f"user claim {i}", origin="user", extractor="user") for i in range(user)]
    merged = dedupe_claims(cands, np.eye(len(cands)), threshold=0.9)
    return merged, [cands.index(m.head) for m in merged]


def test_adoption_takes_only_claims_that_address_the_question_at_the_same_bar():
    merged, rows = _merged(
        ["on topic, high", "off topic, highest", "on topic, low", "on topic, under the bar"], user=1
    )
    relevance = np.array([0.7, 0.95, 0.6, 0.3, 0.0])[rows]
    addresses = [True, False, True, True, None]
    statuses = dict(
        zip(
            [m.head.text for m in merged],
            adoption(merged, relevance, 10, 0.53, [addresses[i] for i in rows]),
            strict=True,
        )
    )
    assert statuses == {
        "user claim 0": "adopted",
        "on topic, high": "adopted",
        "off topic, highest": "not_adopted",
        "on topic, low": "adopted",
        "on topic, under the bar": "not_adopted",
    }


def test_adoption_of_addressing_claims_keeps_the_most_relevant_up_to_max_claims():
    merged, rows = _merged(["a", "b", "c"])
    relevance = np.array([0.5, 0.9, 0.7])[rows]
    statuses = adoption(merged, relevance, 2, 0.44, [True, True, True])
    assert dict(zip([m.head.text for m in merged], statuses, strict=True)) == {
        "a": "not_adopted",
        "b": "adopted",
        "c": "adopted",
    }


def test_adoption_without_question_parts_is_the_relevance_rule():
    merged, rows = _merged(["a", "b", "c"])
    relevance = np.array([0.5, 0.9, 0.6])[rows]
    expected = adoption(merged, relevance, 5, 0.55)
    assert adoption(merged, relevance, 5, 0.55, [None, None, None]) == expected
    assert dict(zip([m.head.text for m in merged], expected, strict=True)) == {
        "a": "not_adopted",
        "b": "adopted",
        "c": "adopted",
    }
