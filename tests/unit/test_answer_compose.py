"""The answer to a task's question is composed in one place (lyra_core.answer.compose_answer) and
written as text by one function (answer_text), whoever asks: the ``task_answer`` asset with the
model's edges, the read side with human feedback applied."""

from lyra_core.answer import (
    OPEN_CLAIMS_SHOWN,
    PAPERS_SHOWN,
    AnswerPaper,
    CandidateClaim,
    HypothesisScore,
    answer_line,
    answer_text,
    compose_answer,
    paper_votes,
)

HYPOTHESIS = HypothesisScore(
    claim_id="c_h",
    text="Vitamin D reduces fracture risk.",
    verdict="supported",
    confidence=0.7,
    uncertainty=0.1,
    controversy=0.1,
    alpha=4.0,
    beta=2.0,
)


def edge(n: int, paper: str, relation: str, p: float) -> dict:
    return {
        "edge_id": f"e{n:02d}",
        "paper": paper,
        "page_id": paper,
        "relation": relation,
        "nli_confidence": p,
        "study_design": None,
    }


def test_a_hypothesis_names_its_five_strongest_papers_a_side_and_counts_every_vote():
    edges = [edge(n, f"p{n}", "SUPPORTS", 0.5 + n / 100) for n in range(7)] + [
        edge(9, "q", "REFUTES", 0.9),
        edge(10, "r", "NEUTRAL", 0.9),
    ]
    papers = {"p6": AnswerPaper(paper_id="p6", title="The strongest", year=2020)}
    answer = compose_answer(HYPOTHESIS, edges, 0.0, papers, question_reading="rule")
    assert (answer.supporting_papers, answer.refuting_papers, answer.papers_judged) == (7, 1, 9)
    assert PAPERS_SHOWN == 5 and [p.paper_id for p in answer.papers_for] == ["p6", "p5", "p4", "p3", "p2"]
    assert (
        answer.papers_for[0].title == "The strongest" and answer.papers_for[1].title is None
    )  # unknown: its id
    assert answer.line == answer_line("supported", 0.7, 0.1, paper_votes(edges), alpha=4.0, beta=2.0)
    assert answer.undecided_because is None and answer.hypothesis_claim_id == "c_h"


def test_an_unscored_hypothesis_reads_as_unverified():
    answer = compose_answer(HypothesisScore(claim_id="c_h", text="X reduces Y."), [], 0.0, {})
    assert answer.verdict == "unverified" and answer.line.startswith(
        "Answer: unverified (0.00 ± 0.00) — 0 papers"
    )


def test_an_open_question_lists_its_most_relevant_claims_then_the_most_voted():
    claims = [CandidateClaim(claim_id=f"c{n}", text=f"claim {n}", relevance=0.5, votes=n) for n in range(9)]
    claims += [
        CandidateClaim(claim_id="unranked", text="no relevance", votes=99),
        CandidateClaim(claim_id="top", text="most relevant", relevance=0.9, verdict="supported"),
    ]
    answer = compose_answer(
        None, [], 0.0, {}, claims, question_reading="open_question", not_addressed="No claim …"
    )
    assert len(answer.claims) == OPEN_CLAIMS_SHOWN == 8
    assert [c.claim_id for c in answer.claims] == ["top", "c8", "c7", "c6", "c5", "c4", "c3", "c2"]
    assert (answer.claims[1].verdict, answer.claims[1].confidence) == ("unverified", 0.5)
    assert answer.not_addressed is None  # claims about the question are its answer
    assert (
        answer.line == "Answer: open question (no yes/no hypothesis to judge) — 8 most relevant claims follow"
    )
    alone = compose_answer(
        None, [], 0.0, {}, [], not_addressed="No claim in the 3 papers addresses X and Y together"
    )
    assert alone.not_addressed == "No claim in the 3 papers addresses X and Y together"


def test_the_text_is_the_same_in_markdown_and_on_a_terminal_but_for_its_list_markers():
    edges = [edge(1, "p1", "SUPPORTS", 0.9), edge(2, "p2", "REFUTES", 0.8)]
    papers = {"p1": AnswerPaper(paper_id="p1", title="A trial", year=2019)}
    answer = compose_answer(HYPOTHESIS, edges, 0.0, papers, question_reading="rule", not_addressed=None)
    plain = answer_text(answer, "task_1")
    assert plain == [
        answer.line,
        "Hypothesis (read by rule from the question): Vitamin D reduces fracture risk.",
        "  claim c_h: `lyra evidence task_1` lists its passages",
        "  for: A trial (2019)",
        "  against: untitled source",
    ]  # a paper without a title is never named by Lyra's internal id
    assert answer_text(answer, "task_1", markdown=True) == [
        line.replace("  ", "- ", 1) if line.startswith("  ") else line for line in plain
    ]


def test_an_open_questions_claims_are_grouped_by_topic_when_they_have_one():
    claims = [
        CandidateClaim(claim_id="a", text="Dose matters", relevance=0.9, verdict="supported", topic="dose"),
        CandidateClaim(claim_id="b", text="Falls drop", relevance=0.8, topic=None),
    ]
    answer = compose_answer(None, [], 0.0, {}, claims)
    assert answer_text(answer, "t")[1:] == [
        "  dose:",
        "    Dose matters (supported)",
        "  other claims:",
        "    Falls drop (unverified)",
    ]
    assert answer_text(answer, "t", markdown=True)[1:] == [
        "- dose:",
        "  - Dose matters (supported)",
        "- other claims:",
        "  - Falls drop (unverified)",
    ]
