"""Which passages may vote on a claim about an effect, on sentences of real abstracts (the SciFact
corpus): a passage votes only when it, or its paper, is about the claim's exposure and outcome,
with the short forms an abstract defines spelled out, the people who do a thing read as the thing,
and a question's exposure read as its noun phrase."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from lyra_core.direction.abbreviations import definitions, outcome_definitions, spelled_out
from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.relevance import outcome_sentences, relevance
from lyra_core.direction.terms import concepts
from lyra_core.direction.verdict import judge_passage
from lyra_core.hypothesis import to_hypothesis
from lyra_core.question_parts import question_parts

CLOTS_1 = 11718220  # thigh-length graduated compression stockings after stroke: 10.0 % vs 10.5 % DVT
PHS_II = 12009265  # vitamins E and C and prostate cancer: HR 0.97 (0.85-1.09)
SMOKING_REDUCTION = 16422880  # smoking reduction and lung cancer, Copenhagen cohorts
TREG_COLITIS = 5800138  # bacteria-triggered CD4+ regulatory T cells and H. hepaticus colitis
CRP_MACROPHAGES = 9334631  # C-reactive protein decreases IL-10 secretion in monocyte-derived macrophages
RSV_IL10 = 26068103  # IL-10 in RSV-induced lung inflammation, in mice
PD1_HIV = 10648422  # PD-1-induced IL-10 production by monocytes in HIV infection


@functools.cache
def _papers(path: Path) -> dict[int, dict]:
    rows = (json.loads(line) for line in path.open(encoding="utf-8"))
    return {row["doc_id"]: row for row in rows}


@pytest.fixture
def paper(shared_data):
    papers = _papers(shared_data / "scifact" / "corpus.jsonl")

    def get(doc_id: int) -> tuple[list[str], str]:
        row = papers[doc_id]
        return row["abstract"], f"{row['title']} {' '.join(row['abstract'])}"

    return get


def test_an_abstract_defines_its_short_forms_and_its_primary_outcome(paper):
    _, text = paper(CLOTS_1)
    assert definitions(text) == {"DVT": "Deep vein thrombosis", "GCS": "graduated compression stockings"}
    assert outcome_definitions(text)["primary"].startswith(
        "the occurrence of symptomatic or asymptomatic DVT"
    )
    _, colitis = paper(TREG_COLITIS)
    found = definitions(colitis)
    assert found["RAG"] == "recombination activating gene" and found["TGF"] == "transforming growth factor"
    assert not any(short.startswith(("n=", "10")) for short in definitions(text))  # "(n=1256)", "(10.0%)"


def test_the_trial_result_naming_its_primary_outcome_and_gcs_votes_on_stockings_and_dvt(paper):
    abstract, text = paper(CLOTS_1)
    result = abstract[
        11
    ]  # "The primary outcome occurred in 126 (10.0%) patients allocated to thigh-length GCS …"
    assert "DVT" not in result and "thrombosis" not in result
    about = relevance("graduated compression stockings", "deep vein thrombosis after stroke", result, text)
    assert about.about_both, about
    assert {"deep", "vein", "thrombosi"} <= set(about.outcome_terms)
    assert "graduated compression stockings" in spelled_out(result, text)


def test_a_question_in_short_forms_matches_the_long_forms_the_abstract_defines(paper):
    abstract, text = paper(CLOTS_1)
    parts = question_parts("Do GCS reduce DVT after stroke?")
    assert parts is not None and (parts.exposure, parts.outcome) == ("GCS", "DVT after stroke")
    assert relevance(parts.exposure, parts.outcome, abstract[11], text).about_both


def test_smokers_are_about_smoking(paper):
    abstract, _ = paper(SMOKING_REDUCTION)
    sentence = abstract[
        10
    ]  # "… the adjusted hazard ratio (HR) for lung cancer in reducers … compared with persistent heavy smokers."
    frame = read_claim("Cigarette smoking increases the risk of lung cancer.")
    about = relevance(frame.exposure, frame.outcome, sentence)  # the sentence alone: its words must carry it
    assert about.about_both, about
    assert concepts("smokers") == concepts("smoking") and concepts("statin users") == concepts("statin use")
    assert concepts("liver") != concepts("live")  # no suffix rule: a liver is no agent of living


def test_the_alpha_tocopheryl_question_asks_about_the_supplement_and_phs_ii_votes(paper):
    question = "Does taking 400 mg of alpha-tocopheryl acetate help prevent prostate cancer?"
    hypothesis = to_hypothesis(question).hypothesis
    assert hypothesis == "Taking 400 mg of alpha-tocopheryl acetate helps prevent prostate cancer."
    frame = read_claim(hypothesis)
    assert (frame.exposure, frame.outcome, frame.direction) == (
        "400 mg of alpha-tocopheryl acetate",
        "prostate cancer",
        "decrease",
    )
    parts = question_parts(question)
    assert parts is not None and parts.exposure == "400 mg of alpha-tocopheryl acetate"
    abstract, text = paper(PHS_II)
    result = abstract[
        9
    ]  # "Compared with placebo, vitamin E had no effect on the incidence of prostate cancer … HR 0.97"
    assert relevance(frame.exposure, frame.outcome, result, text).about_both
    # "… colorectal, lung, or other site-specific cancers": the trial's null on the other cancers is not
    # its finding on prostate cancer, though its title names prostate cancer
    others = next(s for s in abstract if "other site-specific cancers" in s)
    assert not relevance(frame.exposure, frame.outcome, others, text).outcome_matched


def test_help_with_a_noun_before_it_stays_the_subject():
    assert read_claim("Social help improves recovery.").exposure == "Social help"
    assert read_claim("Exercise may help reduce depression.").exposure == "Exercise"


def test_a_colitis_study_does_not_vote_on_pd1_and_monocyte_il10(paper):
    frame = read_claim(
        to_hypothesis("Does PD-1 triggering on monocytes reduce their IL-10 production?").hypothesis
    )
    assert (frame.exposure, frame.outcome, frame.direction) == (
        "PD-1 triggering on monocytes",
        "IL-10 production",
        "decrease",
    )
    abstract, text = paper(TREG_COLITIS)
    voting = [s for s in abstract if relevance(frame.exposure, frame.outcome, s, text).about_both]
    assert voting == []


def test_a_passage_that_does_not_name_the_exact_molecule_does_not_vote_on_it(paper):
    # monocytes and IL-10 are shared, PD-1 is not: studies of CRP and of RSV in mice are about other things
    frame = read_claim("PD-1 triggering on monocytes reduces their IL-10 production.")
    for other in (CRP_MACROPHAGES, RSV_IL10):
        abstract, text = paper(other)
        assert "PD-1" not in text
        windows = [" ".join(abstract[i : i + 2]) for i in range(len(abstract))]
        assert [w for w in windows if relevance(frame.exposure, frame.outcome, w, text).about_both] == []
    abstract, text = paper(PD1_HIV)  # the study the question is about still votes
    windows = [" ".join(abstract[i : i + 2]) for i in range(len(abstract))]
    assert any(relevance(frame.exposure, frame.outcome, w, text).about_both for w in windows)


def test_the_direction_is_read_from_the_sentence_naming_the_outcome_by_its_definition(paper):
    # the window holds the DVT result (named as "the primary outcome") and a skin-damage odds ratio:
    # the ratio is not about deep vein thrombosis, and a null stated in words is a finding
    abstract, text = paper(CLOTS_1)
    window = f"{abstract[11]} {abstract[12]}"
    assert "Skin breaks" in abstract[12] and "4.18" in abstract[12]
    where = outcome_sentences("deep vein thrombosis after stroke", window, paper_text=text)
    assert where == abstract[11]
    frame = read_claim("Graduated compression stockings reduce deep vein thrombosis after stroke.")
    unsure_reader = {"increased": 0.01, "decreased": 0.01, "no_difference": 0.03, "unrelated": 0.95}
    verdict = judge_passage(frame, window, text, unsure_reader)
    assert verdict.passage_direction == "no_difference" and "4.18" not in verdict.reason
    assert verdict.relation == "REFUTES", verdict.reason


def test_a_papers_initials_are_read_once_for_all_its_passages_and_only_for_a_phrase_with_an_acronym(paper):
    from lyra_core.direction.relevance import _initials, names_by_acronym

    abstract, text = paper(CLOTS_1)
    _initials.cache_clear()
    about = [
        relevance("graduated compression stockings", "deep vein thrombosis after stroke", s, text)
        for s in abstract
    ]
    assert about[11].about_both  # the trial's result, as above
    # the abstract's initials (the costly side) once for its many passages, each phrase's once
    assert _initials.cache_info().misses <= 3 < len(abstract)
    _initials.cache_clear()
    assert names_by_acronym("deep vein thrombosis", text)  # the text names it DVT
    assert not names_by_acronym(
        "hip fracture", text
    )  # no acronym in the phrase: the text's initials are not read
    assert _initials.cache_info().misses == 2  # the two phrases' own, against the text's acronyms (DVT, GCS)
    assert names_by_acronym(
        "GCS", "patients wore graduated compression stockings"
    )  # an acronym the text spells out


def test_a_sentence_that_speaks_of_the_one_before_is_about_its_outcome_and_its_null_is_read():
    # an Evidence Inference train abstract (electronic vs acoustic stethoscopes): the null is said of
    # "these", the outcomes the sentence before names
    window = (
        "Grading and characterisation of murmurs and, if present, report of non existing murmurs were also "
        "rated. None of these yielded any significant differences between the groups."
    )
    assert outcome_sentences("grading the murmurs", window) == window
    frame = read_claim(
        "Electronic stethoscopes improve the grading of murmurs compared with acoustic stethoscopes."
    )
    unsure_reader = {"increased": 0.05, "decreased": 0.05, "no_difference": 0.5, "unrelated": 0.4}
    title = "Cardiac auscultation training of medical students: a comparison of electronic and acoustic stethoscopes"
    verdict = judge_passage(frame, window, f"{title} {window}", unsure_reader)
    assert verdict.passage_direction == "no_difference" and verdict.relation == "REFUTES", verdict.reason
    # a sentence that names another outcome is not drawn in by its first words
    other = "Grading of murmurs was also rated. No significant differences were seen in the total time."
    assert outcome_sentences("grading of murmurs", other) == "Grading of murmurs was also rated."


def test_a_reason_says_when_the_outcome_is_named_only_as_who_was_studied():
    frame = read_claim("Taking 400 mg of alpha-tocopheryl acetate helps prevent prostate cancer.")
    passage = (
        "Men given 400 mg of alpha-tocopheryl acetate during the treatment of prostate cancer lived longer."
    )
    unsure_reader = {"increased": 0.1, "decreased": 0.1, "no_difference": 0.1, "unrelated": 0.7}
    verdict = judge_passage(frame, passage, passage, unsure_reader)
    assert verdict.relation == "NEUTRAL"
    assert (
        verdict.reason
        == "names prostate cancer only as who was studied, not as what happened to them → neutral"
    )


def test_neither_arm_changing_the_outcome_is_a_null_in_words():
    from lyra_core.direction.passage import read_passage

    reading = read_passage(
        "Neither vitamin E nor C supplementation reduced the risk of prostate or total cancer.",
        "vitamin E",
        "risk of prostate cancer",
    )
    assert (reading.direction, reading.source) == ("no_difference", "words")


@pytest.mark.parametrize(
    "outcome, passage, about",
    [
        # SciFact corpus: an AMPK study of chronic kidney disease is not about fibrosis in the lungs
        (
            "fibrosis in the lungs",
            "We show that induction of AMPK activity with either metformin or 5-aminoimidazole-4-carboxamide "
            "ribonucleotide increases AMPK activity in this model and also corrects kidney metabolic "
            "inefficiency, improves kidney function, and ameliorates kidney fibrosis and structural alterations.",
            False,
        ),
        (
            "fibrosis in the lungs",
            "Pharmacological activation of AMPK in myofibroblasts from lungs of humans with IPF display lower "
            "fibrotic activity.",
            True,
        ),
        ("prostate cancer", "Aspirin use was associated with a lower risk of colorectal cancer.", False),
        # a passage that names no site is read as it is
        ("fibrosis in the lungs", "AMPK activation reduced fibrosis in treated mice.", True),
    ],
)
def test_an_outcome_named_at_another_site_of_the_body_is_another_thing(outcome, passage, about):
    exposure = "aspirin" if "cancer" in outcome else "AMPK activation"
    assert relevance(exposure, outcome, passage, passage).outcome_matched is about
