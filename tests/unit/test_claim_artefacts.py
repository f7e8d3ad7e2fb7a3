"""Claims and fragments of real SciFact abstracts: no section labels in their text, no claim whose
subject points to another sentence, topic labels that name a topic, and a contradiction flag that
means conflicting votes."""

import functools
import json
from pathlib import Path

import numpy as np
import pytest

from lyra_core.claim_subjects import lacks_referent
from lyra_core.claims import extract_claims
from lyra_core.evidence import ClaimCandidate, MergedClaim, adoption
from lyra_core.fragments import make_fragments
from lyra_core.sections import label_role, labelled_sentences, split_label
from lyra_core.topics import contradicted, distinctive_terms


@functools.cache
def _abstracts(path: Path) -> dict[int, str]:
    rows = (json.loads(line) for line in path.open())
    return {row["doc_id"]: " ".join(row["abstract"]) for row in rows}


@pytest.fixture
def corpus(shared_data):
    return _abstracts(shared_data / "scifact" / "corpus.jsonl")


def test_labels_and_their_tails_leave_claims_of_a_jama_abstract(corpus):
    abstract = corpus[43334921]  # aspirin, NSAIDs and colorectal cancer by genotype
    claims = [c.text for c in extract_claims(abstract)]
    assert any(
        t.startswith("In this genome-wide investigation of gene × environment interactions") for t in claims
    )
    assert not [t for t in claims if t.split()[0].isupper() and len(t.split()[0]) > 3], claims
    assert not [t for t in claims if t.startswith(("AND RELEVANCE", "MAIN OUTCOMES", "RESULTS"))]


def test_fragments_lose_the_labels_keep_the_prose_and_record_each_sentence_section(corpus):
    abstract = corpus[43334921]
    fragments = make_fragments("pg", abstract)
    text = " ".join(f.text for f in fragments)
    for label in (
        "MAIN OUTCOMES AND MEASURES",
        "CONCLUSIONS AND RELEVANCE",
        "RESULTS Regular",
        "IMPORTANCE Use",
        "DESIGN, SETTING, AND PARTICIPANTS",
        "EXPOSURES Genome",
    ):
        assert label not in text
    first = next(f for f in fragments if f.text.startswith("Colorectal cancer. Regular use of aspirin"))
    assert first.sections == ["main outcomes and measures", "results"]
    last = fragments[-1]
    assert last.sections == ["conclusions and relevance", "conclusions and relevance"]
    # no prose is lost: every word of the abstract but the labels' is in some fragment
    prose = " ".join(body for body, _ in labelled_sentences(abstract))
    assert set(prose.split()) <= set(text.split())


def test_lancet_labels_are_stripped_and_tell_findings_from_methods(corpus):
    abstract = corpus[15648443]  # CAPP2: aspirin in Lynch syndrome
    by_text = {c.text: c for c in extract_claims(abstract)}
    finding = by_text[
        "600 mg aspirin per day for a mean of 25 months substantially reduced cancer incidence after "
        "55·7 months in carriers of hereditary colorectal cancer."
    ]
    assert "section:interpretation" in finding.features
    assert not [t for t in by_text if t.startswith(("INTERPRETATION", "FUNDING", "RESULTS", "METHODS"))]
    assert label_role("interpretation") == "finding" and label_role("methods") == "other"
    assert label_role("conclusions and relevance") == "finding" and label_role("methods and results") is None


@pytest.mark.parametrize(
    "sentence, body, label",
    [
        (
            "AND RELEVANCE In this genome-wide investigation of gene × environment interactions, use of aspirin and/or "
            "NSAIDs was associated with lower risk of colorectal cancer.",
            "In this genome-wide investigation of gene × environment interactions, use of aspirin and/or NSAIDs was "
            "associated with lower risk of colorectal cancer.",
            "and relevance",
        ),
        (
            "MAIN OUTCOME MEASURE(S) Maximal serum E(2) levels, follicular development, dose, and duration of "
            "gonadotropin therapy.",
            "Maximal serum E(2) levels, follicular development, dose, and duration of gonadotropin therapy.",
            "main outcome measure(s)",
        ),
        (
            "METHODOLOGY/PRINCIPAL FINDINGS We determined the receptor and tissue specificity of FGF21.",
            "We determined the receptor and tissue specificity of FGF21.",
            "methodology/principal findings",
        ),
        (
            "TRIAL REGISTRATION anzctr.org.au Identifier: ACTRN12605000136606.",
            "anzctr.org.au Identifier: ACTRN12605000136606.",
            "trial registration",
        ),
        # acronyms that open a sentence are no label
        (
            "DNA methylation plays an important role in biological processes in human health and disease.",
            "DNA methylation plays an important role in biological processes in human health and disease.",
            None,
        ),
        (
            "VEGF regulates osteoclastic differentiation, migration, and activity.",
            "VEGF regulates osteoclastic differentiation, migration, and activity.",
            None,
        ),
        (
            "RNA interference-mediated reductions in total IGF-I had no effect on cell viability.",
            "RNA interference-mediated reductions in total IGF-I had no effect on cell viability.",
            None,
        ),
    ],
)
def test_split_label_on_real_sentences(sentence, body, label):
    assert split_label(sentence) == (body, label)


def test_corpus_sentences_opening_with_a_label_before_and_after(corpus):
    from bench.section_labels import measure

    counts = measure(list(corpus.values())[:1500])
    print(counts)
    assert counts["labelled_before"] > 1000  # the splitter leaves a label at the head of a sentence
    assert counts["labelled_after"] <= 2 and counts["fragments_labelled"] <= 2
    assert counts["claims_labelled"] == 0


# Real SciFact sentences (doc id in the comment) and whether their subject lacks a referent.
REFERENTS = [
    ("When this is altered there is a higher risk of developing Type 2 diabetes.", True),  # 27449472
    (
        "The latter appear to indicate the failure of the beta cell to produce enough insulin to compensate for the "
        "increased demand due to insulin resistance.",
        True,
    ),  # 27449472
    ("This may be due to behavioural factors such as dieting in response to weight gain.", True),  # 41310252
    (
        "These regions can either pre-exist in chromatin (pre-programmed) or be induced by the receptor (de novo).",
        True,
    ),  # 2754534
    (
        "This change was associated with a 38% decrease in total CSF Aβ concentrations in the drug-treated group.",
        True,
    ),  # 5260382
    (
        "These patients might benefit from closer follow-up and earlier medical interventions.",
        True,
    ),  # 24408040
    (
        "These data support a protective role for apoE expression by the macrophage in early atherogenesis.",
        True,
    ),  # 1122198: 'these data' with no reported clause lean on results stated elsewhere
    (
        "Collectively, these results are consistent with the existence of conformational or topological "
        "lineage-specific differences in the TCR.CD3 from CD4(+) and CD8(+) wild type T cells.",
        True,
    ),  # 20457190
    (
        "Although these initial observations indicated diminished DNA repair, insight into the mechanistic re-wiring "
        "of DDR signaling during mitosis was only recently provided.",
        True,
    ),  # 10704438
    (
        "In contrast, these adherent Orai1(R93W) platelets were defective in surface phosphatidylserine exposure.",
        True,
    ),  # 24670522
    (
        "It does not produce methane from hydrogen and carbon dioxide, formate, acetate or methylamines.",
        True,
    ),  # 35768199
    ("Its properties in exponential families are explored.", True),  # 70115
    (
        "They are not associated with vasculature, give rise to all craniofacial bones in the adult and are "
        "activated during injury repair.",
        True,
    ),  # 104130
    (
        "Such defects are mimicked by downregulation of OSBP, a VAP interactor and PI4P transporter.",
        True,
    ),  # 600437
    (
        "We found that this progressive disease course paralleled persistently elevated IL-17 release from T cells.",
        True,
    ),  # 39084565
    # the paper itself, the authors, an expletive, a reported clause: claims that stand alone
    (
        "This study demonstrates that IL-10 can prevent EAE completely if present at appropriate levels and times "
        "during disease induction.",
        False,
    ),  # 854417
    (
        "This study shows that normal replication is restored by addition of Pol ε holoenzyme to Pol ε-depleted "
        "extracts.",
        False,
    ),  # 9379687
    (
        "This analysis of RIM1 suggests that the protein may function as a transcriptional activator.",
        False,
    ),  # 8148304
    (
        "This suggests that glutamate released from the antiporter is a source of endogenous tone on mGluR2/3.",
        False,
    ),  # 2039912
    (
        "These findings suggest that screening for maltreatment, other trauma, and PTSD symptoms may enhance "
        "prevention, treatment, and research concerning childhood disruptive behavior disorders.",
        False,
    ),  # 38873881
    (
        "It is well established that an upregulation of glial-derived chondroitin sulphate proteoglycans (CSPGs) "
        "within the glial scar creates a barrier to axonal regrowth and sprouting.",
        False,
    ),  # 4447055
    (
        "It is well known that upon stress, the level of the tumor suppressor p53 is remarkably elevated.",
        False,
    ),  # 7225911
    (
        "Moreover, it has been suggested that higher order genomic architecture involving LCRs plays a significant "
        "role in karyotypic evolution accompanying primate speciation.",
        False,
    ),  # 36713289
    (
        "There were no significant differences in systemic and neurologic functional preservation and toxic effects "
        "of radiation.",
        False,
    ),  # 3944632
    (
        "Here, we show that Numb-mediated control on Notch signaling is lost in ∼50% of human mammary carcinomas.",
        False,
    ),  # 16086778
    ("In this study, we show that IL-17-mediated granulopoiesis requires G-CSF release.", False),  # 24612804
    (
        "We conclude that the yeast metabolic cycle is an intrinsic property of yeast metabolism.",
        False,
    ),  # 9696379
    (
        "Those with an epsilon4 allele exhibited better performance than children without an epsilon4 allele on a "
        "test of constructional skill.",
        False,
    ),  # 24906548
    (
        "In this genome-wide investigation of gene × environment interactions, use of aspirin and/or NSAIDs was "
        "associated with lower risk of colorectal cancer.",
        False,
    ),  # 43334921
    (
        "600 mg aspirin per day for a mean of 25 months substantially reduced cancer incidence after 55·7 months in "
        "carriers of hereditary colorectal cancer.",
        False,
    ),  # 15648443
]


@pytest.mark.parametrize("sentence, expected", REFERENTS)
def test_subject_without_referent(sentence, expected):
    assert lacks_referent(sentence) is expected


def test_the_sentences_are_the_corpus_own(corpus):
    text = " ".join(corpus.values())
    for sentence, _ in REFERENTS:
        assert sentence.rstrip(".")[:60] in text, sentence


def test_a_relevant_claim_without_referent_is_kept_but_not_adopted():
    texts = [
        "When this is altered there is a higher risk of developing Type 2 diabetes.",
        "ACE inhibitors and ARBs are the antihypertensive agents least associated with incident diabetes.",
    ]
    merged = [
        MergedClaim(head=ClaimCandidate(text=t, origin="extracted", extractor="local-rules"), index=i)
        for i, t in enumerate(texts)
    ]
    assert adoption(merged, np.array([0.9, 0.8]), max_claims=10, min_relevance=0.5) == [
        "not_adopted",
        "adopted",
    ]


def test_topic_labels_name_no_adverb_and_no_general_term():
    groups = [
        [
            "Finally, ChREBP activity was increased in patients with obesity.",
            "ChREBP activity also regulates hepatic lipogenesis in patients.",
            "However, ChREBP activity was higher in the study patients.",
        ],
        [
            "Aspirin use was associated with lower risk of colorectal cancer in the study.",
            "Regular aspirin use reduced colorectal adenoma recurrence in patients.",
        ],
    ]
    labels = distinctive_terms(groups)
    assert "chrebp" in labels[0] and "aspirin" in labels[1]
    for terms in labels:
        assert not set(terms) & {
            "finally",
            "however",
            "also",
            "activity",
            "patients",
            "study",
            "results",
            "increased",
        }


def test_contradicting_evidence_needs_strong_votes_on_both_sides():
    # one strong vote for (alpha 1 + 4·0.9) and a refuting edge below min_vote (beta stays 1): no conflict;
    # strong votes for and against: conflict
    alphas, betas = np.array([4.6, 4.2, 1.0]), np.array([1.0, 3.8, 1.0])
    assert not contradicted([0, 2], alphas, betas)
    assert contradicted([1, 2], alphas, betas)
