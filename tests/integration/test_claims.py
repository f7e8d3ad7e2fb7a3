"""The local claim extractor, claim deduplication and adoption, and NLI pair selection."""

import numpy as np

from lyra_core.claims import claim_id_for, extract_claims, strip_label
from lyra_core.evidence import ClaimCandidate, adoption, dedupe_claims, select_pairs

ABSTRACT = (
    "BACKGROUND: Hip fractures are a common cause of disability in older adults. "
    "The aim of this study was to assess vitamin D supplementation. "
    "METHODS: We randomized 2,686 participants to 100,000 IU of vitamin D3 or placebo every four months. "
    "RESULTS: Vitamin D reduced the risk of first fracture by 22% (RR 0.78, 95% CI 0.61-0.99). "
    "Mortality did not differ between the groups. "
    "CONCLUSIONS: Four-monthly vitamin D supplementation may prevent fractures in the elderly. "
    "What explains this effect?"
)


def test_extractor_keeps_findings_and_drops_methods_aims_and_background():
    claims = [c.text for c in extract_claims(ABSTRACT)]
    assert "Vitamin D reduced the risk of first fracture by 22% (RR 0.78, 95% CI 0.61-0.99)." in claims
    assert "Four-monthly vitamin D supplementation may prevent fractures in the elderly." in claims
    assert "Mortality did not differ between the groups." in claims
    joined = " ".join(claims)
    for not_a_claim in (
        "We randomized",
        "The aim of this study",
        "common cause of disability",
        "What explains",
    ):
        assert not_a_claim not in joined
    assert len(claims) < 7  # never every sentence


def test_section_labels_are_stripped_and_findings_score_higher():
    assert strip_label("RESULTS: Mortality fell.") == ("Mortality fell.", "results")
    assert strip_label("Results were mixed.") == ("Results were mixed.", None)
    by_text = {c.text: c for c in extract_claims(ABSTRACT)}
    rr = by_text["Vitamin D reduced the risk of first fracture by 22% (RR 0.78, 95% CI 0.61-0.99)."]
    assert {"statistic", "effect", "section:results"} <= set(rr.features)
    # the label holds for the whole section, not only the sentence it opens
    assert "section:results" in by_text["Mortality did not differ between the groups."].features


def test_claim_ids_are_stable_and_ignore_case_and_spacing():
    assert claim_id_for("t1", "Vitamin D  reduces fractures.") == claim_id_for(
        "t1", "vitamin d reduces fractures."
    )
    assert claim_id_for("t1", "a claim text") != claim_id_for("t2", "a claim text")


def unit(*rows):
    m = np.array(rows, dtype=float)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_dedupe_merges_near_identical_claims_and_keeps_provenance():
    cands = [
        ClaimCandidate(
            text="A reduces B.",
            origin="extracted",
            extractor="local-rules",
            fragment_id="f1",
            page_id="p1",
            score=2,
        ),
        ClaimCandidate(
            text="A lowers B.",
            origin="extracted",
            extractor="local-rules",
            fragment_id="f2",
            page_id="p2",
            score=3,
        ),
        ClaimCandidate(
            text="C raises D.",
            origin="extracted",
            extractor="local-rules",
            fragment_id="f3",
            page_id="p3",
            score=2,
        ),
        ClaimCandidate(text="A reduces B in adults.", origin="user", extractor="user", score=10),
        ClaimCandidate(text="A reduces B in children.", origin="user", extractor="user", score=10),
    ]
    vectors = unit([1, 0.02, 0], [1, 0.03, 0], [0, 1, 0], [1, 0.025, 0], [1, -0.2, 0.1])
    merged = dedupe_claims(cands, vectors, threshold=0.95)
    texts = [m.head.text for m in merged]
    # the two user claims stay apart; the extracted duplicates join the first user claim
    assert texts == ["A reduces B in adults.", "A reduces B in children.", "C raises D."]
    assert sorted(merged[0].also_in) == ["f1", "f2"] and sorted(merged[0].pages) == ["p1", "p2"]


def test_adoption_keeps_user_claims_and_the_most_relevant_extracted_ones():
    cands = [ClaimCandidate(text=f"claim {i}", origin="extracted", extractor="x") for i in range(4)]
    cands.append(ClaimCandidate(text="user claim", origin="user", extractor="user"))
    merged = dedupe_claims(cands, np.eye(5), threshold=0.9)
    relevance = np.array([0.9, 0.1, 0.5, 0.7, 0.0])
    order = [m.head.text for m in merged]
    status = dict(
        zip(order, adoption(merged, relevance[[cands.index(m.head) for m in merged]], 2, 0.2), strict=True)
    )
    assert status == {
        "user claim": "adopted",
        "claim 0": "adopted",
        "claim 3": "adopted",
        "claim 2": "not_adopted",
        "claim 1": "not_adopted",
    }


def test_pairs_are_the_most_similar_fragments_outside_the_claims_own_page():
    claims = unit([1, 0], [0, 1])
    fragments = unit([1, 0], [0.9, 0.1], [0.5, 0.5], [0, 1])
    pages = ["own", "other", "other2", "other3"]
    pairs = select_pairs(claims, fragments, pages, [{"own"}, set()], k=2)
    assert [j for j, _ in pairs[0]] == [1, 2]  # fragment 0 is on the claim's own page
    assert [j for j, _ in pairs[1]] == [3, 2]
    assert select_pairs(claims, np.zeros((0, 2)), [], [set(), set()], k=2) == [[], []]


BACKGROUND_AND_FINDINGS = [
    # (sentence, reports a finding) — the first has finding cues ("requires") the rules alone keep; background
    # opens an abstract (position 0.15 of its text), findings come after the methods (0.75)
    (
        "Vitamin D made in the skin or ingested in the diet is biologically inert and requires 2 successive "
        "hydroxylations first in the liver on carbon 25 to form 25-hydroxyvitamin D.",
        False,
    ),
    (
        "Vitamin D is a hormone that is essential for bone health and has been linked to many chronic diseases.",
        False,
    ),
    ("Vitamin D supplementation reduced the risk of hip fracture by 30% (RR 0.70, 95% CI 0.55-0.89).", True),
    (
        "In this large, long-term trial of male physicians, neither vitamin E nor C supplementation reduced "
        "the risk of prostate or total cancer.",
        True,
    ),
]


def test_the_sentence_role_model_drops_background_the_rules_would_keep():
    from lyra_assets.evidence.claims import LOCAL_EXTRACTOR, keep_findings
    from lyra_resources.models.inference import embedder

    candidates = [
        ClaimCandidate(
            text=t,
            origin="extracted",
            extractor=LOCAL_EXTRACTOR,
            fragment_id=f"f{i}",
            page_id=f"p{i}",
            score=2.0,
            position=0.75 if finding else 0.15,
        )
        for i, (t, finding) in enumerate(BACKGROUND_AND_FINDINGS)
    ]
    candidates.append(
        ClaimCandidate(text=BACKGROUND_AND_FINDINGS[0][0], origin="user", extractor="user", score=10.0)
    )
    vectors = embedder().encode([c.text for c in candidates])
    kept, kept_vectors, dropped = keep_findings(candidates, vectors)
    texts = [c.text for c in kept if c.origin == "extracted"]
    assert texts == [t for t, finding in BACKGROUND_AND_FINDINGS if finding]
    assert dropped == 2 and len(kept_vectors) == len(kept)
    assert any(c.origin == "user" for c in kept)  # a user's claim is never filtered
    assert all(any(f.startswith("finding:") for f in c.features) for c in kept if c.origin == "extracted")


def test_the_sentence_role_model_reads_the_sentence_not_only_its_place():
    from lyra_resources.models.claim_roles import claim_role_model
    from lyra_resources.models.inference import embedder

    texts = [t for t, _ in BACKGROUND_AND_FINDINGS]
    probs = claim_role_model().probabilities(texts, embedder().encode(texts), [0.5] * len(texts))
    background, findings = probs[:2], probs[2:]
    assert findings.min() > background.max()  # in the middle of an abstract, the words decide


def test_topic_labels_are_words_not_numbers():
    from lyra_core.topics import distinctive_terms

    groups = [
        [
            "Retention was 55.9% (14.8) with vitamin D in 14 of 20 subjects.",
            "Vitamin D retention rose in 14 weeks.",
        ],
        ["Statins lowered hip fracture risk.", "Hip fracture risk fell with statins."],
    ]
    labels = distinctive_terms(groups)
    assert all(any(ch.isalpha() for ch in term) for terms in labels for term in terms)
    assert "retention" in labels[0] or "vitamin" in labels[0]
