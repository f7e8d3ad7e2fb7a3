"""A claim Lyra adopts from a paper is shown as stated by that paper, with its design and size; with
no other paper's on-topic finding voting on it, the report says it is not checked elsewhere, not
"unverified" (docs/scoring.md#certainty)."""

from lyra_core.report.markdown import markdown
from lyra_core.report.models import Report, ReportClaim, ReportTopic

# A real SciFact trial's own conclusion (doc 23349986), as Lyra extracts it
CLAIM = (
    "In this study of children undergoing tonsillectomy, dexamethasone decreased the risk of PONV dose "
    "dependently but was associated with an increased risk of postoperative bleeding."
)


def _claim(**votes: int) -> ReportClaim:
    return ReportClaim(
        number=1,
        claim_id="c1",
        text=CLAIM,
        origin="extracted",
        verdict="unverified",
        confidence=0.5,
        uncertainty=0.29,
        supporting=0,
        refuting=0,
        neutral=3,
        recomputed=False,
        stated_in=1,
        stated_facts="RCT, n = 215",
        **votes,
    )


def _markdown(claim: ReportClaim) -> str:
    report = Report(
        task_id="t",
        query="q",
        status="done",
        topics=[ReportTopic(label="x", contradicted=False, claims=[claim])],
    )
    return markdown(report)


def test_a_claim_no_other_paper_checked_is_stated_by_one_study():
    text = _markdown(_claim())
    assert (
        "**stated by one study, not checked elsewhere · votes: 0 for, 0 against** · stated by [1] (RCT, n = 215)"
        in text
    )
    assert "unverified" not in text


def test_a_claim_other_papers_voted_on_keeps_its_verdict_and_names_its_paper():
    checked = _claim(supporting_votes=1).model_copy(update={"verdict": "supported", "confidence": 0.82})
    assert (
        "**supported · confidence 0.82 ± 0.29 · votes: 1 for, 0 against** · stated by [1] (RCT, n = 215)"
        in (_markdown(checked))
    )
    user = _claim().model_copy(update={"origin": "user"})
    assert "unverified · confidence 0.50" in _markdown(user)  # the user's claim is theirs to check
