"""Certainty follows study design and consistency (lyra_core.certainty, docs/scoring.md#certainty):
one study, observational designs only, or votes read by word overlap alone never make a claim
well supported, however confident its Beta score."""

from lyra_core.answer import PaperVotes, answer_line
from lyra_core.certainty import Vote, certainty_words, grade
from lyra_core.scoring import Evidence, ScoringRule, bayesian_score, evidence_of


def edge(
    page: str,
    design: str | None,
    relation: str = "SUPPORTS",
    p: float = 0.95,
    size: int | None = 2000,
    judge: str = "direction",
) -> Evidence:
    return Evidence(
        relation=relation,
        nli_confidence=p,
        page_id=page,
        study_design=design,
        sample_size=size,
        judged_by=judge,
    )


RULE = ScoringRule()


def test_one_observational_study_is_supported_not_well_supported():
    score = bayesian_score([edge("cohort-1", "cohort")], RULE)
    assert score.confidence >= 0.75  # the Beta score alone would say well supported
    assert score.verdict == "supported"
    assert score.certainty == "very_low"
    assert score.certainty_reasons == "observational studies only; one study"


def test_one_large_trial_is_moderate_and_still_one_study():
    score = bayesian_score([edge("trial", "rct", size=14641)], RULE)
    assert (score.verdict, score.certainty, score.certainty_reasons) == ("supported", "moderate", "one study")


def test_consistent_trials_read_from_their_figures_are_well_supported():
    score = bayesian_score([edge("t1", "rct"), edge("t2", "rct"), edge("c1", "cohort")], RULE)
    assert (score.verdict, score.certainty, score.certainty_reasons) == ("well_supported", "high", "")


def test_votes_by_word_overlap_alone_never_make_well_supported():
    score = bayesian_score([edge(f"t{i}", "rct", judge="cross-encoder") for i in range(4)], RULE)
    assert score.confidence >= 0.75
    assert score.verdict == "supported"
    assert score.certainty == "moderate"
    assert score.certainty_reasons == "read by word overlap only"


def test_a_person_reviewing_an_edge_counts_as_reading_it():
    votes = [
        Vote(relation="SUPPORTS", study_design="rct", judged_by="cross-encoder", human=True),
        Vote(relation="SUPPORTS", study_design="rct", judged_by="cross-encoder"),
    ]
    assert grade(votes, "SUPPORTS").allows_well_supported


def test_observational_studies_only_start_low_and_do_not_make_well_supported():
    score = bayesian_score(
        [edge(f"c{i}", d) for i, d in enumerate(["cohort", "case_control", "cross_sectional"])], RULE
    )
    assert (score.verdict, score.certainty, score.certainty_reasons) == (
        "supported",
        "low",
        "observational studies only",
    )


def test_disagreement_and_small_samples_lower_certainty():
    edges = [
        edge("t1", "rct", size=30),
        edge("t2", "rct", size=40),
        edge("t3", "rct", size=20),
        edge("t4", "rct", relation="REFUTES", p=0.7, size=25),
    ]
    score = bayesian_score(edges, RULE)
    assert score.certainty == "low"
    assert score.certainty_reasons == "studies disagree; small samples (90 in all)"
    assert score.verdict in ("supported", "unverified", "contested")


def test_animal_and_unstated_designs_are_very_low():
    score = bayesian_score([edge("m1", "animal_cell"), edge("m2", "animal_cell")], RULE)
    assert (score.verdict, score.certainty, score.certainty_reasons) == (
        "supported",
        "very_low",
        "only animal or cell studies",
    )
    unstated = bayesian_score([edge("a", None), edge("b", "other")], RULE)
    assert unstated.certainty_reasons.startswith("no study design stated")


def test_refuting_side_is_graded_for_a_claim_the_evidence_rejects():
    score = bayesian_score(
        [edge("t1", "rct", relation="REFUTES"), edge("t2", "meta_analysis", relation="REFUTES")], RULE
    )
    assert (score.verdict, score.certainty) == ("likely_false", "high")


def test_edge_rows_from_tables_are_read_with_missing_values_as_none():
    import pandas as pd

    frame = pd.DataFrame(
        [
            {
                "relation": "SUPPORTS",
                "nli_confidence": 0.9,
                "page_id": "p",
                "study_design": None,
                "sample_size": pd.NA,
                "judged_by": "direction",
                "human_reviewed": None,
            },
            {
                "relation": "REFUTES",
                "nli_confidence": 0.8,
                "page_id": None,
                "study_design": "rct",
                "sample_size": 120.0,
                "judged_by": float("nan"),
                "human_reviewed": True,
            },
        ]
    )
    first, second = (evidence_of(r) for r in frame.to_dict("records"))
    assert (first.sample_size, first.study_design, first.human) == (None, None, False)
    assert (second.sample_size, second.judged_by, second.human, second.page_id) == (120, None, True, None)


def test_the_answer_line_says_how_certain_a_deciding_verdict_is():
    votes = PaperVotes(supporting_papers=1, papers_judged=12, supporting_designs=["cohort"])
    line = answer_line(
        "supported",
        0.83,
        0.14,
        votes,
        certainty="very_low",
        certainty_reasons="observational studies only; one study",
    )
    assert line.endswith("— very low certainty (observational studies only; one study)")
    undecided = answer_line(
        "unverified",
        0.5,
        0.2,
        PaperVotes(),
        alpha=1.0,
        beta=1.0,
        certainty="very_low",
        certainty_reasons="no vote on this side",
    )
    assert "certainty" not in undecided
    assert certainty_words(None) == ""


def test_one_small_trial_alone_is_low_certainty():
    # a stopped-early paediatric trial of 215 with 22 events: one study, and under GRADE's ~400 people
    [trial] = [Vote(relation="SUPPORTS", study_design="rct", sample_size=215, judged_by="direction")]
    graded = grade([trial], "SUPPORTS")
    assert graded.level == "low" and graded.reasons == ["one study", "small samples (215 in all)"]


def test_off_topic_votes_neither_decide_nor_raise_certainty():
    def row(page: str, reason: str, relation: str = "REFUTES", p: float = 0.82) -> dict:
        return {
            "relation": relation,
            "nli_confidence": p,
            "page_id": page,
            "study_design": "meta_analysis",
            "judged_by": "direction",
            "exposure_matched": True,
            "outcome_matched": True,
            "reason": reason,
        }

    # a passage about another exposure or outcome casts no vote; the reader alone on the claim's own
    # exposure and outcome does (evidence.reader_alone_min decides, docs/direction.md)
    off = {**row("hnscc", "reports higher mortality with statins"), "outcome_matched": False}
    alone_read = row("cells", "the direction reader reads an increase (0.82); reports higher mortality")
    stated = row("meta", "reports lower mortality with statins (odds ratio 0.88, 0.81–0.96)", "SUPPORTS", 0.9)
    assert not evidence_of(off).on_topic and evidence_of(stated).on_topic and evidence_of(alone_read).on_topic
    alone = bayesian_score([evidence_of(off)], RULE)
    assert (alone.verdict, alone.confidence, alone.certainty) == ("unverified", 0.5, "very_low")
    both = bayesian_score([evidence_of(off), evidence_of(stated)], RULE)
    assert both.verdict == "supported" and "studies disagree" not in both.certainty_reasons
    reviewed = bayesian_score([evidence_of({**off, "human_reviewed": True})], RULE)
    assert reviewed.verdict == "likely_false"  # a person's relation is theirs
