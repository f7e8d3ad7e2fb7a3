"""Each answer says its own weaknesses (lyra_core.report.caveats): one paper, observational or
laboratory studies only, votes read by overlap, papers that disagree, and the best-ranked papers
that cast no vote, each with why."""

from lyra_core.answer import AnswerView
from lyra_core.report.caveats import UncountedPaper, answer_caveats, answer_votes, uncounted_papers


def edge(
    edge_id: str,
    paper: str,
    relation: str,
    p: float,
    design: str | None,
    judge: str = "direction",
    reason: str = "",
) -> dict:
    return {
        "edge_id": edge_id,
        "paper": paper,
        "page_id": paper,
        "relation": relation,
        "nli_confidence": p,
        "study_design": design,
        "judged_by": judge,
        "reason": reason,
        "human_reviewed": False,
    }


ANSWER = AnswerView(
    line="Answer: supported",
    origin="hypothesis",
    verdict="supported",
    certainty="very_low",
    certainty_reasons="observational studies only; one study",
)


def test_one_observational_paper_read_by_overlap_says_so():
    votes = answer_votes(
        [
            edge("e1", "cohort", "SUPPORTS", 0.57, "cohort", judge="cross-encoder"),
            edge("e2", "cohort", "NEUTRAL", 0.9, "cohort"),
        ],
        min_vote=0.5,
    )
    caveats = answer_caveats(ANSWER, votes, [])
    assert caveats == [
        "The answer rests on one paper: a single study, however clear, is not a settled finding.",
        "Every paper that voted is an observational study: they show an association, not that the exposure "
        "causes the outcome.",
        "Every vote was read by the cross-encoder, which weighs the words a passage shares with the hypothesis, "
        "not a finding's direction: read those passages yourself.",
        "Certainty is very low (observational studies only; one study).",
    ]


def test_consistent_trials_read_from_their_figures_need_no_caveat():
    votes = answer_votes(
        [edge("e1", "t1", "SUPPORTS", 0.9, "rct"), edge("e2", "t2", "SUPPORTS", 0.8, "meta_analysis")],
        min_vote=0.5,
    )
    answer = ANSWER.model_copy(
        update={"verdict": "well_supported", "certainty": "high", "certainty_reasons": ""}
    )
    assert answer_caveats(answer, votes, []) == []


def test_votes_under_the_threshold_do_not_count_and_no_vote_says_there_is_no_answer():
    assert answer_votes([edge("e1", "p", "REFUTES", 0.4, "rct")], min_vote=0.5) == []
    assert answer_caveats(ANSWER, [], []) == [
        "No paper voted for or against the hypothesis: there is no answer here, only papers to read."
    ]
    assert answer_caveats(AnswerView(line="Answer: open question", origin="open_question"), [], []) == []


def test_the_best_ranked_papers_that_cast_no_vote_are_named_with_why():
    edges = [
        edge("e1", "clots", "NEUTRAL", 0.8, "rct", reason="not about deep vein thrombosis → neutral"),
        edge("e2", "trial", "SUPPORTS", 0.9, "rct"),
        edge("e3", "weak", "REFUTES", 0.45, "cohort"),
    ]
    ranked = [
        ("clots", "Effectiveness of thigh-length graduated compression stockings (CLOTS 1)"),
        ("trial", "A trial"),
        ("weak", "A weak cohort"),
        ("unread", "A paper\nwith a newline"),
    ]
    uncounted = uncounted_papers(ranked, edges, voters={"trial"})
    assert uncounted == [
        UncountedPaper(
            paper_id="clots",
            title="Effectiveness of thigh-length graduated compression stockings (CLOTS 1)",
            reason="its passages were judged neutral: not about deep vein thrombosis → neutral",
        ),
        UncountedPaper(
            paper_id="weak",
            title="A weak cohort",
            reason="its strongest passage (refutes, 0.45) is under the vote threshold",
        ),
        UncountedPaper(
            paper_id="unread",
            title="A paper with a newline",
            reason="none of its passages was judged against the hypothesis",
        ),
    ]
    votes = answer_votes(edges, min_vote=0.5)
    assert answer_caveats(ANSWER.model_copy(update={"certainty": "moderate"}), votes, uncounted)[-1] == (
        "3 of the 5 best-ranked papers cast no vote; the report says why for each."
    )


def test_a_best_ranked_paper_whose_only_vote_is_off_topic_says_so():
    # a tumour cell line's "cell death": about statins, not about the hypothesis's outcome (mortality)
    why = "reports higher cell death with statins"
    off = edge("e1", "hnscc", "REFUTES", 0.82, "meta_analysis", reason=why)
    off |= {"exposure_matched": True, "outcome_matched": False}
    assert answer_votes([off], 0.5) == []
    [paper] = uncounted_papers([("hnscc", "In vitro anti-tumor effects of statins")], [off], set())
    assert (
        paper.reason == f"no passage of it states a finding on the hypothesis's exposure and outcome: {why}"
    )
