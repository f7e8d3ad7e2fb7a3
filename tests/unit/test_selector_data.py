"""The learned judge's data: gold evidence sentences found by text, no held-out article trained on
under another id, and generated findings whose labels follow from their numbers."""

import random
import re

import pytest

from lyra_training.finding_forms import (
    Topic,
    claim_label,
    counts_sentence,
    generated_pairs,
    ratio_sentence,
)
from lyra_training.label_data import evidence_text, finding_pairs
from lyra_training.selector_data import (
    EvidenceQuery,
    gold_sentences,
    leaks,
    read_linearized,
    selector_pairs,
    without_leaks,
)

SENTENCES = [
    "Hypertension is common in older adults.",
    "We randomised 200 patients to amlodipine or placebo.",
    "Systolic blood pressure fell by 12 mmHg with amlodipine versus 2 mmHg with placebo (P < 0.001).",
    "Adverse events were similar in both groups.",
]
TOPIC = Topic(intervention="amlodipine", comparator="placebo", outcome="systolic blood pressure")


def query(article: str, sentences: list[str], gold: list[int], **kw) -> EvidenceQuery:
    return EvidenceQuery(
        query="effect of a versus b on c", sentences=sentences, gold=gold, article=article, source="t", **kw
    )


def test_the_gold_sentence_is_the_one_that_holds_the_span():
    span = "Systolic blood pressure fell by 12 mmHg with amlodipine versus 2 mmHg with placebo"
    assert gold_sentences(SENTENCES, span) == [2]


def test_a_span_copied_with_a_word_changed_still_finds_its_sentence_and_a_reworded_one_none():
    span = "systolic blood pressure fell by 12 mmHg on amlodipine versus 2 mmHg on placebo"
    assert gold_sentences(SENTENCES, span) == [2]
    assert gold_sentences(SENTENCES, "mortality was halved by an entirely different drug regimen") == []


def test_a_training_article_that_shares_a_passage_with_a_held_out_one_is_dropped_whatever_its_id():
    held = [query("test:1", SENTENCES, [2])]
    copy = query("train:9", ["Preface.", *SENTENCES[1:3]], [1])
    other = query("train:2", ["A different trial of statins and cholesterol in 50 men with diabetes."], [0])
    assert leaks([copy, other], held) == {"train:9"}
    assert [q.article for q in without_leaks([copy, other], held)] == ["train:2"]


def test_selector_pairs_pair_each_gold_sentence_with_negatives_of_its_own_abstract():
    q = query("a", SENTENCES, [2])
    pairs = selector_pairs(
        [q, query("b", ["Unrelated text about soil bacteria."], [0])], negatives=2, far_negatives=0
    )
    mine = [p for p in pairs if p.passage in SENTENCES]
    assert sum(p.label for p in mine) == 1 and len(mine) == 3
    assert next(p for p in mine if p.label == 1.0).passage == SENTENCES[2]


@pytest.mark.parametrize(
    ("direction", "truth", "swapped", "label"),
    [
        ("increase", "increased", False, "SUPPORTS"),
        ("decrease", "increased", False, "REFUTES"),
        ("decrease", "increased", True, "SUPPORTS"),  # "C reduces O compared with I" where I raised O
        ("increase", "increased", True, "REFUTES"),
        ("no_effect", "no_difference", True, "SUPPORTS"),
        ("no_effect", "decreased", False, "REFUTES"),
    ],
)
def test_a_claims_label_follows_from_the_truth_and_which_arm_it_names_first(direction, truth, swapped, label):
    assert claim_label(direction, truth, swapped) == label


def test_a_generated_ratio_has_its_interval_on_the_side_of_one_its_truth_says():
    rng = random.Random(3)
    for truth in ("increased", "decreased", "no_difference"):
        for _ in range(30):
            text = ratio_sentence(rng, TOPIC, truth)
            low, high = (float(x) for x in re.findall(r"(\d+\.\d+)", text.split("CI")[-1])[:2])
            assert (low > 1) == (truth == "increased") and (high < 1) == (truth == "decreased"), text


def test_generated_counts_carry_the_fisher_p_their_truth_needs():
    rng = random.Random(5)
    for truth in ("increased", "decreased", "no_difference"):
        for _ in range(20):
            text = counts_sentence(rng, TOPIC, truth)
            significant = "P < 0.001" in text or float(text.rsplit("P = ", 1)[-1].rstrip(").")) < 0.05
            assert significant == (truth != "no_difference"), text


def test_generated_pairs_mix_labels_and_name_only_their_topic():
    pairs = generated_pairs([TOPIC] * 60, per_topic=2, seed=1)
    assert {p.label for p in pairs} == {"SUPPORTS", "REFUTES", "NEUTRAL"}
    assert all("amlodipine" in p.claim or "placebo" in p.claim for p in pairs)


def test_the_label_model_reads_the_chosen_sentences_in_the_abstracts_order():
    assert evidence_text(SENTENCES, [2, 1, 2]) == f"{SENTENCES[1]} {SENTENCES[2]}"
    q = query(
        "a",
        SENTENCES,
        [2],
        intervention="amlodipine",
        comparator="placebo",
        outcome="systolic blood pressure",
        label="significantly decreased",
    )
    pairs = finding_pairs([q, q.model_copy(update={"article": "b"})], seed=2)
    reduces = [p for p in pairs if p.label != "neutral" and p.hypothesis.startswith("amlodipine reduces")]
    assert reduces and all(p.label == "entailment" for p in reduces)


def test_evidence_inference_findings_are_read_with_their_direction(shared_data):
    path = shared_data / "nli_training" / "evidence_inference_linearized" / "test_wlabels.csv"
    findings = read_linearized(path)
    assert len(findings) > 300
    assert {q.label for q in findings} == {
        "significantly increased",
        "significantly decreased",
        "no significant difference",
    }
    assert all(q.gold and "ABSTRACT." not in " ".join(q.sentences) for q in findings)
