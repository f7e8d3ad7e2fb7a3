"""The arm a finding's words or figures are said of, where the claim names what its exposure is
compared with ("… compared with oral cyclophosphamide"): two active arms, no control word in sight
(docs/direction.md). Phrasings are those of trial abstracts."""

from __future__ import annotations

import pytest

from lyra_core.direction.arms import named_order, names_arm
from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.passage import read_passage
from lyra_core.direction.verdict import judge_passage


def test_a_claim_names_its_comparator_where_it_gives_one():
    frame = read_claim(
        "Intravenous cyclophosphamide (IVCP) shortens time to remission compared with oral "
        "cyclophosphamide (OCP)."
    )
    assert frame.comparator == "oral cyclophosphamide (OCP)"
    assert read_claim("Aspirin reduces colorectal cancer in adults.").comparator == ""


@pytest.mark.parametrize(
    "claim, passage, direction",
    [
        # the comparator's arm named first, "than" the exposure's
        (
            "Intravenous cyclophosphamide (IVCP) reduces time to remission compared with oral cyclophosphamide (OCP).",
            "Time to remission was shorter with OCP than IVCP (53 days vs. 84 days).",
            "increased",
        ),
        # the comparator's arm right after the word, no "than"
        (
            "Seton placement reduces postoperative pain compared with fistulotomy.",
            "Severe postoperative pain was more (7.7% vs. 25%) in the fistulotomy group, while wound discharge "
            "was commoner after seton placement.",
            "decreased",
        ),
        # the clause names the comparator, the exposure's arm follows "than"
        (
            "Chloroquine plus sulphadoxine-pyrimethamine (CQ/SP) reduces gametocyte carriage compared with artemether-"
            "lumefantrine.",
            "Children treated with artemether-lumefantrine were significantly less likely to carry gametocytes within "
            "four weeks than those receiving CQ/SP (p < 0.0001).",
            "increased",
        ),
        # figures ordered by the arms the clause names, the comparator first
        (
            "Continuous infusion increases microbiological success compared with bolus dosing.",
            "Microbiological success was recorded with bolus dosing and with continuous infusion (78.4% vs. 90.6%; "
            "P = 0.020).",
            "increased",
        ),
    ],
)
def test_a_finding_said_of_the_claims_comparator_is_read_for_its_exposure(claim, passage, direction):
    frame = read_claim(claim)
    assert read_passage(passage, frame.exposure, frame.outcome, frame.comparator).direction == direction


def test_two_arms_that_share_words_are_told_apart_by_the_words_they_do_not_share():
    exposure, comparator = (
        "80 mg of intramuscular methylprednisolone",
        "40 mg of intralesional methylprednisolone",
    )
    assert names_arm("the intralesional group", comparator, exposure)
    assert not names_arm("both intramuscular and intralesional groups", comparator, exposure)
    assert not names_arm("the methylprednisolone groups", comparator, exposure)
    assert names_arm(
        "those receiving CQ/SP", "chloroquine (CQ) and sulphadoxine-pyrimethamine (SP)", "artemether"
    )
    assert (
        named_order(
            "lower with pain education alone than with telemonitoring",
            "pain education alone",
            "pain education plus telemonitoring",
        )
        is True
    )


def test_the_judge_reads_the_finding_for_the_claims_exposure_against_its_named_comparator():
    frame = read_claim(
        "Intravenous cyclophosphamide (IVCP) reduces time to remission compared with oral "
        "cyclophosphamide (OCP)."
    )
    passage = "Time to remission was shorter with OCP than IVCP (53 days vs. 84 days)."
    unsure = {"increased": 0.45, "decreased": 0.45, "no_difference": 0.05, "unrelated": 0.05}
    paper = f"Intravenous cyclophosphamide (IVCP) versus oral cyclophosphamide (OCP) in nephrotic syndrome. {passage}"
    verdict = judge_passage(frame, passage, paper, unsure)
    assert verdict.relation == "REFUTES" and "said of the comparator's arm" in verdict.reason
