"""The label model's training pairs: every finding meets a claim in each direction against the same
passage (so only reading the claim against the passage tells the labels apart), and the figure
reader's note says what the numbers show."""

from collections import Counter

from lyra_core.figure_notes import figures_note, with_figures_note
from lyra_training.label_data import finding_pairs
from lyra_training.selector_data import EvidenceQuery

ABSTRACT = [
    "Hip fractures are a major cause of disability in older adults.",
    "We randomly assigned 2,400 women aged 70 or older to vitamin D3 or placebo for three years.",
    "Hip fracture occurred in 31 of 1,200 women given vitamin D3 and 58 of 1,200 given placebo (P = 0.002).",
    "Falls did not differ between the groups.",
]


def finding(label: str, article: str) -> EvidenceQuery:
    return EvidenceQuery(
        query="effect of vitamin D3 versus placebo on hip fracture",
        sentences=[*ABSTRACT[:2], f"{ABSTRACT[2]} (trial {article})", *ABSTRACT[3:]],
        gold=[2],
        article=article,
        source="evidence_inference",
        label=label,
        intervention="vitamin D3",
        comparator="placebo",
        outcome="hip fracture",
    )


def test_each_finding_meets_a_claim_in_every_direction_on_one_passage():
    queries = [finding("significantly decreased", str(i)) for i in range(40)]
    pairs = finding_pairs(queries, seed=3, neutral_rate=0.0)
    assert len(pairs) == 3 * len(queries)
    for k in range(0, len(pairs), 3):
        three = pairs[k : k + 3]
        assert len({p.premise for p in three}) == 1
        labels = Counter(p.label for p in three)
        # at most one claim in three is borne out, unless one states it with the comparator swapped in
        assert labels["contradiction"] >= 1 and labels["entailment"] <= 2 and not labels["neutral"]
    assert Counter(p.label for p in pairs)["entailment"] >= len(queries) * 0.8


def test_neutral_pairs_are_other_sentences_or_other_trials():
    queries = [finding("no significant difference", str(i)) for i in range(60)]
    neutral = [p for p in finding_pairs(queries, seed=5, neutral_rate=1.0) if p.label == "neutral"]
    assert neutral
    # never the trial's own finding: another sentence of its abstract, or another trial's finding
    for p in neutral:
        trial = p.hypothesis  # every claim is about the same topic; the premise decides
        assert p.premise in ABSTRACT or "(trial " in p.premise, trial


def test_the_figure_note_reads_intervals_and_counts():
    ratio = "The odds ratio for fracture among users versus non-users was 1.6 (95% CI 1.2 to 2.1)."
    assert figures_note(ratio) == "[figures: odds ratio 1.6, 1.2–2.1: higher]"
    counts = "Death occurred in 12 of 100 patients given aspirin and 30 of 100 given placebo."
    assert "Fisher" in figures_note(counts) and figures_note(counts).endswith(": lower]")
    assert figures_note("Pain was less frequent with the drug (p = 0.002).") == (
        "[figures: p = 0.002: a significant difference]"
    )
    assert figures_note(ABSTRACT[0]) == ""
    assert with_figures_note(ABSTRACT[0]) == ABSTRACT[0]
    crossing = "The hazard ratio was 0.95 (95% CI 0.80 to 1.12)."
    assert figures_note(crossing).endswith(": no significant difference]")
