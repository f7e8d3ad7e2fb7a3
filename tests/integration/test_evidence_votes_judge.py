"""The shipped judge on pairs that SciFact train claims were shown with as their strongest evidence
for or against, and are not: a cross-encoder reading it holds less likely than not, and a review's
plan, are no votes; a reading it holds likelier than not still is one."""

import pytest

pytestmark = pytest.mark.slow

HELMINTHS = "Helminths interfere with immune system control of coinfections by microbial pathogens 16."
# doc 7433668
MTB = (
    "However, the helminth-induced Th2 environment resulted in the accumulation of alternatively activated "
    "macrophages (AAMs) in the lung. Co-infected mice lacking interleukin (IL) 4Rα exhibited improved ability to "
    "control Mtb infection, which was accompanied by significantly reduced accumulation of AAMs."
)
TUBERCULOSIS = "Tuberculosis incidence occurs at higher rates in more sparsely populated areas in the UK."
# doc 24241932
OVERCROWDING = (
    "For the white population, overcrowding was associated with tuberculosis rates independently of other "
    "variables (P=0.0036). No relation with deprivation was found for the south Asian population in "
    "either single or multivariable analyses."
)
TRANSGLUTAMINASE = "Chemical injury represses transglutaminase 2 activity."
# doc 26008462
REVIEW = (
    'In this article we discuss the function of the most widely expressed member of the TG family "tissue '
    'transglutaminase" (TG2) in wound repair. Using both early and recent evidence from the literature we '
    "demonstrate how the multifunctional TG2 affects the stability of the ECM, cell-ECM interactions and as a "
    "consequence cell behavior within the different phases of wound healing, and highlight how TG2 itself "
    "might be exploited for therapeutic use."
)


def test_only_readings_likelier_than_not_and_findings_vote():
    from lyra_resources.models.direction_judge import DirectionJudge

    doubtful, likely, review = DirectionJudge().judge_pairs(
        [(HELMINTHS, MTB, ""), (TUBERCULOSIS, OVERCROWDING, ""), (TRANSGLUTAMINASE, REVIEW, "")]
    )
    # the cross-encoder's likeliest label, refutes, at about 0.40: shown as neutral, and the reason says why
    assert doubtful.judged_by == "cross-encoder" and doubtful.p_refutes < 0.5
    assert doubtful.relation == "NEUTRAL" and doubtful.reason.endswith("less likely than not: no vote")
    assert likely.relation == "REFUTES" and likely.p_refutes >= 0.5
    assert (
        review.relation == "NEUTRAL" and review.reason == "states an aim or a method, not a finding → neutral"
    )
