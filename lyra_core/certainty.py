"""How far the votes behind a verdict can be trusted: certainty graded from study design and
consistency, the way evidence-based medicine grades a body of evidence (GRADE; docs/scoring.md).

The Beta score says which way the votes lean and how strongly; it does not know what kind of
study cast them. A reviewer does: one randomised trial outweighs three cross-sectional surveys,
and a single study, however clear, is a single study. Certainty starts from the best design on
the side the verdict takes (randomised trials and meta-analyses high, observational studies low,
animal, cell and unstated designs very low), then loses a level for each weakness:

- **one study**: a single paper on that side (imprecision);
- **inconsistent**: strong votes on the other side too;
- **small**: every stated sample on that side is small (under :data:`SMALL_SAMPLE` people in all);
- off-topic votes (lyra_core.topicality) never reach it: they are no votes;
- **not read explicitly**: no vote on that side was read from the passage's words or figures
  (the direction judge) or reviewed by a person, only the cross-encoder's overlap.

A verdict of ``well_supported`` needs at least moderate certainty from more than one study, at
least one of them read from its words or figures (or by a person); otherwise it says ``supported``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel

Level = Literal["high", "moderate", "low", "very_low"]
LEVELS: tuple[Level, ...] = ("very_low", "low", "moderate", "high")
LEVEL_WORDS: dict[str, str] = {"high": "high", "moderate": "moderate", "low": "low", "very_low": "very low"}
# Where a body of evidence starts, by the best design on its side (GRADE: trials high, observation low).
START: dict[str, Level] = {
    "meta_analysis": "high",
    "rct": "high",
    "cohort": "low",
    "case_control": "low",
    "cross_sectional": "low",
}
# The designs that start very low, named in the plural ("only animal or cell studies").
WEAK_DESIGNS: dict[str, str] = {"animal_cell": "animal or cell studies", "review": "narrative reviews"}
# People in all, across a side's studies that state a size, under which the side is imprecise: GRADE's
# rule of thumb for the optimal information size (about 400 people; Guyatt et al., J Clin Epidemiol 2011,
# GRADE guidelines 6): a trial of 215 children with 22 events is one study, and an imprecise one.
SMALL_SAMPLE = 400
# What the other side's votes must add to its Beta parameter for the evidence to be inconsistent
# (as lyra_core.scoring.STRONG_SIDE: as much weight as the prior itself).
STRONG_OTHER_SIDE = 1.0
EXPLICIT_JUDGES = ("direction", "label-model")  # judges that read a finding, not word overlap


class Vote(BaseModel):
    """What certainty needs of one paper's vote: its side, what kind of study cast it, and how it was read."""

    relation: str  # SUPPORTS | REFUTES
    weight: float = 1.0  # what the vote added to its side's Beta parameter
    study_design: str | None = None
    sample_size: int | None = None
    judged_by: str | None = None  # direction | label-model | cross-encoder
    human: bool = False  # a person reviewed this edge


class Certainty(BaseModel):
    level: Level
    reasons: list[str] = []  # what lowered it, in words ("one study", …), empty at the start level
    studies: int = 0  # papers voting on the side graded
    read_explicitly: bool = False  # one of them was read from words or figures, or by a person

    @property
    def allows_well_supported(self) -> bool:
        """Whether evidence like this may be called well supported: moderate or high certainty,
        more than one study, and not the cross-encoder's overlap alone."""
        return (
            LEVELS.index(self.level) >= LEVELS.index("moderate") and self.studies > 1 and self.read_explicitly
        )

    @property
    def words(self) -> str:
        """e.g. ``low certainty (observational studies only; one study)``."""
        return certainty_words(self.level, "; ".join(self.reasons))


def certainty_words(level: str | None, reasons: str | None = "") -> str:
    """A stored certainty (``claim_scores.certainty`` and ``certainty_reasons``) in words; "" for none."""
    if level not in LEVEL_WORDS:
        return ""
    return f"{LEVEL_WORDS[level]} certainty" + (f" ({reasons})" if reasons else "")


def _start(votes: list[Vote]) -> tuple[Level, str]:
    designs = [v.study_design for v in votes if v.study_design in START]
    if not designs:
        named = sorted({WEAK_DESIGNS[v.study_design] for v in votes if v.study_design in WEAK_DESIGNS})
        return "very_low", ("only " + " and ".join(named)) if named else "no study design stated"
    best = max(designs, key=lambda d: LEVELS.index(START[d]) * 10 + ("meta_analysis", "rct").count(d))
    if START[best] == "low":
        return "low", "observational studies only"
    return "high", ""


def grade(votes: Iterable[Vote], side: str) -> Certainty:
    """The certainty of the evidence on ``side`` (SUPPORTS or REFUTES) among one vote per paper."""
    votes = list(votes)
    mine = [v for v in votes if v.relation == side]
    if not mine:
        return Certainty(level="very_low", reasons=["no vote on this side"])
    level, why = _start(mine)
    reasons = [why] if why else []
    lowered = 0
    if len(mine) == 1:
        lowered, reasons = lowered + 1, [*reasons, "one study"]
    if sum(v.weight for v in votes if v.relation != side) >= STRONG_OTHER_SIDE:
        lowered, reasons = lowered + 1, [*reasons, "studies disagree"]
    sizes = [v.sample_size for v in mine if v.sample_size]
    if sizes and len(sizes) == len(mine) and sum(sizes) < SMALL_SAMPLE:
        lowered, reasons = lowered + 1, [*reasons, f"small samples ({sum(sizes)} in all)"]
    explicit = any(v.human or v.judged_by in EXPLICIT_JUDGES for v in mine)
    if not explicit:
        lowered, reasons = lowered + 1, [*reasons, "read by word overlap only"]
    return Certainty(
        level=LEVELS[max(0, LEVELS.index(level) - lowered)],
        reasons=reasons,
        studies=len(mine),
        read_explicitly=explicit,
    )
