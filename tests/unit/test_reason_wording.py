"""A judge's reason reads as an English sentence: the outcome named by its noun phrase, the exposure
in lower case inside the sentence and its verb agreeing with it. Passages are real: a randomised trial of
HPV testing and CLOTS trial 1 (SciFact corpus abstracts 27873158 and 11718220)."""

from __future__ import annotations

import pytest

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.verdict import judge_passage
from lyra_core.direction.wording import is_plural, outcome_noun

LOWER = {"increased": 0.05, "decreased": 0.85, "no_difference": 0.05, "unrelated": 0.05}

HPV_TITLE = (
    "Efficacy of human papillomavirus testing for the detection of invasive cervical cancers and cervical "
    "intraepithelial neoplasia: a randomised controlled trial."
)
HPV_RESULT = (
    "Overall, in the two rounds of screening, 18 invasive cancers were detected in the cytology group "
    "versus seven in the HPV group (p=0.028)."
)
CLOTS_TITLE = (
    "Effectiveness of thigh-length graduated compression stockings to reduce the risk of deep vein "
    "thrombosis after stroke (CLOTS trial 1): a multicentre, randomised controlled trial"
)


def test_a_reason_names_the_outcome_by_its_noun_phrase_not_the_verb_that_carried_the_direction():
    frame = read_claim(
        "HPV-based screening is more effective than cytology in preventing invasive cervical cancer."
    )
    verdict = judge_passage(frame, HPV_RESULT, f"{HPV_TITLE} {HPV_RESULT}", LOWER)
    assert verdict.relation == "SUPPORTS"
    assert verdict.reason.startswith(
        "reports lower invasive cervical cancer with HPV-based screening (p = 0.028)"
    )
    assert "preventing" not in verdict.reason


def test_the_claims_verb_agrees_with_its_exposure_set_in_lower_case():
    stockings = read_claim("Graduated compression stockings reduce deep vein thrombosis after stroke.")
    passage = (
        "In small trials of patients undergoing surgery, graduated compression stockings (GCS) "
        "reduce the risk of DVT."
    )
    verdict = judge_passage(stockings, passage, f"{CLOTS_TITLE} {passage}", LOWER)
    assert "the claim says graduated compression stockings reduce it →" in verdict.reason
    assert (
        read_claim(
            "HPV-based screening is more effective than cytology in preventing invasive cervical cancer."
        ).says()
        == "HPV-based screening reduces it"
    )
    assert read_claim("Statins do not reduce the risk of hip fracture.").says() == "statins do not reduce it"


@pytest.mark.parametrize(
    "phrase, plural",
    [
        ("thigh-length graduated compression stockings", True),
        ("thigh-length graduated compression stockings (GCS)", True),
        ("cognitive behavioral therapy (CBT)", False),
        ("omega-3 fatty acids", True),
        ("NSAIDs", True),
        ("HPV-based screening", False),
        ("400 mg of alpha-tocopheryl acetate", False),
        ("diabetes", False),
        ("AIDS", False),
        ("vitamin D supplements in older adults", True),
        ("stress", False),
    ],
)
def test_a_phrase_is_plural_by_its_head_noun(phrase, plural):
    assert is_plural(phrase) is plural


def test_an_outcome_without_a_leading_verb_is_kept_whole():
    assert outcome_noun("deep vein thrombosis after stroke") == "deep vein thrombosis after stroke"
    assert outcome_noun("Preventing invasive cervical cancer") == "invasive cervical cancer"
