"""A passage is about a claim's outcome where it names what the outcome is, not only how it is measured or
summed ("scale", "score", "total") nor only the exposure its name holds ("blood caffeine" with caffeine).
Sentences and prompts quoted from Evidence Inference v2 train abstracts."""

from __future__ import annotations

import pytest

from lyra_core.direction.relevance import relevance


@pytest.mark.parametrize(
    "exposure, outcome, passage",
    [
        # another instrument's scale or score
        (
            "synthetic amyloid-β peptide (Aβ42) (AN1792)",
            "Dependence Scale",
            "Significantly less decline was observed on the Disability Assessment for Dementia scale among antibody "
            "responders than placebo-treated patients (p=0.015) after 4.6 years.",
        ),
        (
            "high thoracic epidural anesthesia (HTEA)",
            "Recovery scores",
            "VAS score decreased in 30 minutes and 12 hours following extubation in HTEA and control group, "
            "respectively.",
        ),
        # the exposure named, the outcome named after it not
        (
            "caffeine",
            "blood caffeine",
            "This study was performed in healthy sedentary men, who were randomized into three groups, control (n = "
            "6), "
            "decaffeinated (n = 10), and caffeine (n = 10).",
        ),
    ],
)
def test_a_passage_naming_only_the_measure_or_the_exposure_is_not_about_the_outcome(
    exposure, outcome, passage
):
    assert not relevance(exposure, outcome, passage, passage).outcome_matched


@pytest.mark.parametrize(
    "exposure, outcome, passage",
    [
        (
            "synthetic amyloid-β peptide (Aβ42) (AN1792)",
            "Dependence Scale",
            "Significant differences in favor of responders were also observed on the Dependence Scale (p=0.033).",
        ),
        (
            "caffeine",
            "blood caffeine",
            "In addition, the blood caffeine level also increased only in the caffeine group (P = 0.008).",
        ),
    ],
)
def test_a_passage_naming_the_outcome_itself_is_about_it(exposure, outcome, passage):
    assert relevance(exposure, outcome, passage, passage).outcome_matched
