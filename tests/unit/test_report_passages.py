"""A passage in the report is shown whole, with the sentence that holds its figures, and a paper the
corpus gives no DOI, PMID or link is cited by its reference number alone, never by Lyra's internal
id. The passage is real: CLOTS trial 1's findings (SciFact corpus 11718220)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lyra_core.fragments import make_fragments
from lyra_core.report.markdown import more_sources, sentence_md
from lyra_core.report.refs import References
from lyra_resources.store.reviewed_graph import report as reports

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "data" / "scifact" / "corpus.jsonl"
PAPER_ID = "p_0549ef12ab34cd56"


def clots_findings() -> str:
    if not CORPUS.exists():
        pytest.skip("the SciFact corpus is not beside the repository")
    with CORPUS.open() as lines:
        record = json.loads(next(line for line in lines if line.startswith('{"doc_id": 11718220,')))
    return next(
        f.text
        for f in make_fragments("pg", " ".join(record["abstract"]))
        if f.text.startswith("The primary outcome occurred in 126")
    )


def test_a_passage_is_shown_whole_and_cited_by_its_number_not_an_internal_id():
    text = clots_findings()
    assert len(text) > 420  # longer than the report once cut passages at
    refs = References(
        {
            PAPER_ID: {
                "is_paper": True,
                "title": "Effectiveness of thigh-length graduated compression "
                "stockings to reduce the risk of deep vein thrombosis after stroke (CLOTS trial 1)",
            }
        },
        {},
    )
    edge = {
        "paper": PAPER_ID,
        "relation": "REFUTES",
        "nli_confidence": 0.9,
        "text": text,
        "human_corrected": False,
        "model_relation": None,
        "reason": "reports no difference in deep vein thrombosis with graduated compression stockings",
        "study_design": "rct",
        "sample_size": 2518,
        "effect_figures": "",
    }
    shown = reports._sentence(edge, refs)
    assert shown.text == text and shown.text.endswith(
        "(64 [5%] vs 16 [1%]; odds ratio 4.18, 95% CI 2.40-7.27)."
    )
    line = sentence_md("Refutes", shown)
    assert PAPER_ID not in line and line.count("[1]") == 1 and "RCT, n = 2,518" in line
    assert refs.items[0].text().startswith("Effectiveness of thigh-length")


def test_the_sources_not_quoted_are_counted_in_english():
    assert more_sources("Refutes", 2) == "… and 2 more refuting sources"
    assert more_sources("Supports", 1) == "… and 1 more supporting source"


def test_a_questions_report_does_not_say_no_claims_were_scored_beside_its_answer():
    from lyra_core.answer import AnswerView
    from lyra_core.report.html import render_html
    from lyra_core.report.markdown import markdown
    from lyra_core.report.models import Report

    answered = Report(
        task_id="task_1",
        query="Do stockings prevent DVT?",
        status="completed",
        answer=AnswerView(line="Answer: likely false", origin="question"),
    )
    unanswered = answered.model_copy(update={"answer": None})
    assert "No scored claims yet." not in markdown(answered) + render_html(answered)
    assert "No scored claims yet." in markdown(unanswered) and "No scored claims yet." in render_html(
        unanswered
    )
