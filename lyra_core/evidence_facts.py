"""What an evidence edge says about its study, stored beside the edge and shown beside its passage.

An edge's ``study_design``, ``design_cue`` and ``sample_size`` columns are read once, when the edge
is judged, from its paper's title and text and the passage (lyra_core.study_design). Every view
shows them in one line beside the passage (``facts_line``: "RCT, n = 861, HR 0.63 (0.35–1.13)"),
and the answer weighs the voting papers by design (``designs_text``: "1 meta-analysis and 2 RCTs
for; 1 cohort study against").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from lyra_core.study_design import LABEL, RANK, describe_passage
from lyra_core.study_design.facts import figure_text

# The plural of each design's label, for counts of papers.
PLURAL: dict[str, str] = {
    "meta_analysis": "meta-analyses",
    "rct": "RCTs",
    "cohort": "cohort studies",
    "registry": "registry studies",
    "case_control": "case-control studies",
    "cross_sectional": "cross-sectional studies",
    "animal_cell": "animal/cell studies",
    "human_cells": "human cell/tissue studies",
    "review": "reviews",
}
NO_DESIGN = "other"  # no design stated: left out of the lines below, which name designs only


def design_columns(title: str, text: str, passage: str) -> dict[str, Any]:
    """An edge's design columns from its paper's title and text and the passage itself, and
    ``effect_figures``: the effects the passage states, each with its interval or p-value (up to
    two, ";"-separated)."""
    facts = describe_passage(title or "", text or "", passage or "")
    return {
        "study_design": facts.design.design,
        "design_cue": facts.design_cue,
        "sample_size": facts.sample_size,
        "effect_figures": "; ".join(figure_text(f) for f in facts.figures[:2]),
    }


# An interval ("0.45–0.89", "1.1 to 7.4") or a p-value ("p = 0.03", "P<0.001") written with a figure.
_CHECKED = re.compile(r"\d\s*(?:[–-]|to)\s*-?\d|\bp\s*(?:[=<>≤≥]|\d|\.\d)", re.IGNORECASE)


def figures_shown(judged: str | None, read: str, outcome_read: bool = False) -> str:
    """The figures an edge shows: those its judge quoted that carry their interval or p-value
    ("1 vs 0.8" alone is no effect figure), else the ones ``design_columns`` read in the whole
    fragment, unless the judge read the sentences that name the claim's outcome (``outcome_read``,
    the direction judge): then a figure about another outcome beside them ("skin breaks … OR 4.18")
    is never shown as this one's."""
    kept = [part.strip() for part in (judged or "").split(";") if _CHECKED.search(part)]
    return "; ".join(kept) or ("" if outcome_read else read)


def _known(value: Any) -> bool:
    return value is not None and not (
        isinstance(value, float) and math.isnan(value)
    )  # a frame's NaN: unknown


def facts_line(study_design: str | None, sample_size: Any = None, effect_figures: str | None = None) -> str:
    """'RCT, n = 861, HR 0.63 (0.35–1.13)': the design, the size and the figures, each left out
    when not stated (an edge written before designs were read has none); "" when none is."""
    parts = []
    if _known(study_design) and study_design in LABEL and study_design != NO_DESIGN:
        parts.append(LABEL[study_design])
    if _known(sample_size):
        parts.append(f"n = {int(sample_size):,}")
    if _known(effect_figures) and str(effect_figures).strip():
        parts.append(str(effect_figures).strip())
    return ", ".join(parts)


def _counted(designs: Iterable[str | None]) -> str:
    counts = Counter(d for d in designs if d in PLURAL)
    ordered = sorted(counts, key=lambda d: (-RANK[d], d))
    named = [f"{counts[d]} {PLURAL[d] if counts[d] != 1 else LABEL[d]}" for d in ordered]
    return " and ".join(named) if len(named) < 3 else ", ".join(named[:-1]) + " and " + named[-1]


def designs_text(supporting: Iterable[str | None], refuting: Iterable[str | None]) -> str:
    """The designs of the papers that voted, strongest design first: '1 meta-analysis and 2 RCTs
    for; 1 cohort study against'. Papers whose design is not stated are not named; "" when no
    voting paper states one."""
    sides = [(_counted(supporting), "for"), (_counted(refuting), "against")]
    return "; ".join(f"{text} {side}" for text, side in sides if text)
