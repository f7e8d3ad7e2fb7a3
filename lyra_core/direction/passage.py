"""The direction a finding passage reports for a claim's outcome, read from its figures and words.

This is the rule reader: effect figures first (a ratio with its CI, two arms with a p-value), then
a null-finding phrase, then the direction word nearest the outcome, turned round when the
sentence names the comparator's arm as the one that changed ("lower in the placebo group"). The
learned reader (``lyra_resources``) reads the passages whose figures do not decide; this one gives
the figures and the words a reason line can quote.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from lyra_core.direction.arms import names_arm
from lyra_core.direction.figures import CONTROL_WORDS, EffectFigure, effect_figures, figures_way, p_values
from lyra_core.direction.lexicon import (
    CHANGE_NOUNS,
    CHANGE_VERBS,
    COMPARATIVES,
    DIRECTION_VERBS,
    NULL_FINDING,
    flip,
    resolve,
)
from lyra_core.text import index_terms

Reported = Literal["increased", "decreased", "no_difference"]
FROM_WAY: dict[str, Reported] = {"up": "increased", "down": "decreased", "none": "no_difference"}
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*|n't")
_NEGATORS = {"not", "no", "n't", "never", "without", "nor", "neither", "failed", "fail", "fails"}
_CONTENT = re.compile(r"[a-z][a-z0-9-]{2,}")
_STOP = set(
    "the and for with from that this were was are has have had been into than then its their our "
    "after before during among between versus effect effects group groups patients study".split()
)


# Sentences that state an aim, a question or a method: they name the claim's words without a finding.
AIM = re.compile(
    r"^\s*(?:(?:the\s+)?(?:aims?|objectives?|purposes?|goals?)\b|to\s+(?:assess|determine|evaluate|examine|"
    r"investigate|test|compare|explore|study)\b|we\s+(?:aimed|sought|hypothesi[sz]ed|examined|investigated|"
    r"assessed|evaluated|tested|asked|studied|will|propose)\b|this\s+(?:study|trial|review|paper)\s+"
    r"(?:aims?|examines?|investigates?|assesses|evaluates?|tests?|will)\b|(?:whether|if)\b|"
    # a review's plan: "In this article we discuss …", "Here we review …"
    r"(?:in\s+this\s+(?:article|review|paper|chapter)|here),?\s+we\s+(?:discuss|review|describe|summari[sz]e|"
    r"outline|present|highlight|consider)\b)",
    re.IGNORECASE,
)


# A comparison said to fall short of significance, in whatever words ("the difference between the groups was
# not statistically significant", "comparison with control was not significant", "did not reach significance"):
# the finding between the arms is a null, whatever change within an arm the sentence also names
NOT_SIGNIFICANT = re.compile(
    r"\b(?:not|no|nor|failed\s+to)\s+(?!only\b)(?:[a-z]+\s+){0,3}?(?:statistically\s+)?"
    r"(?:significant(?:ly)?|significance)\b",
    re.IGNORECASE,
)


def states_no_finding(passage: str) -> bool:
    """Whether the passage states an aim or method rather than a finding ("We examined whether …")."""
    return bool(AIM.search(passage)) or passage.rstrip().endswith("?")


class PassageReading(BaseModel):
    """What the rules read in a passage: the direction, the figures that show it, the words that say it."""

    direction: Reported | None = None
    source: Literal["figures", "words", "none"] = "none"
    figures: list[EffectFigure] = Field(default_factory=list)
    cue: str = ""
    comparator_first: bool = False  # the words name the comparator's arm first ("lower in the placebo group")
    null_stated: bool = False  # words or figures say "no (significant) difference"

    def figures_text(self) -> str:
        return "; ".join(f.text for f in self.figures[:2])

    def read_text(self) -> str:
        """What a reason quotes: the figures, else the words the direction was read from."""
        words = f"“{self.cue}”" if self.source == "words" and self.cue else ""
        if (
            words and self.comparator_first
        ):  # "higher in the placebo group than …": a lower one with the exposure
            words += " said of the comparator's arm"
        return "; ".join(p for p in (self.figures_text(), words) if p)


def content_words(text: str) -> set[str]:
    """Lower-cased words of three letters or more that are not function words, plural -s folded."""
    words = {w.lower() for w in _CONTENT.findall(text.lower()) if w.lower() not in _STOP}
    return {w[:-1] if w.endswith("s") and len(w) > 4 else w for w in words}


def read_passage(passage: str, exposure: str, outcome: str, comparator: str = "") -> PassageReading:
    """The direction ``passage`` reports for ``outcome`` with ``exposure`` against its comparator
    (``comparator``, where the claim names it: an arm named by its words is the comparator's)."""
    figures = effect_figures(passage, exposure, comparator)
    null = NULL_FINDING.search(passage)
    not_significant = NOT_SIGNIFICANT.search(passage)
    null_stated = (
        bool(null or not_significant)
        or any(f.way == "none" for f in figures)
        or any(v >= 0.05 for _, v in p_values(passage))
    )
    way = figures_way(figures)
    if way in ("up", "down") and null and all(f.tested for f in figures if f.way == way):
        way = None  # the authors' "similar" outweighs a test run here on their counts
    if way is not None:
        return PassageReading(
            direction=FROM_WAY[way],
            source="figures",
            figures=figures,
            cue=figures[0].text if figures else "",
            null_stated=null_stated,
        )
    worded = _worded_direction(passage, exposure, outcome, comparator)
    if worded is not None and not_significant:
        return PassageReading(
            direction="no_difference",
            source="words",
            figures=figures,
            cue=not_significant.group(0),
            null_stated=True,
        )
    if null and (worded is None or null.start() <= worded[1]):
        return PassageReading(
            direction="no_difference", source="words", figures=figures, cue=null.group(0), null_stated=True
        )
    if worded is not None:
        return PassageReading(
            direction=FROM_WAY[worded[0]],
            source="words",
            figures=figures,
            cue=worded[2],
            comparator_first=worded[3],
            null_stated=null_stated,
        )
    return PassageReading(figures=figures, null_stated=null_stated)


# "lower in the placebo group than in the X group": the direction word, the comparator's arm, "than"
_COMPARATOR_ARM = re.compile(
    r"^\S+\s+(?:\([^()]*\)\s+)?(?:in|among|with|for|at)\s+(?:the\s+|those\s+|patients\s+|"
    r"subjects\s+)?(?:(?:receiving|given|on|in|of|taking|treated\s+with)\s+)?(?:the\s+|a\s+)?"
    r"(?P<arm>[^.;,()]{1,40})",
    re.IGNORECASE,
)
_COMPARATOR_FIRST = re.compile(
    r"^\S+\s+(?:in|among|with|for|at)\s+(?:the\s+|those\s+|patients\s+|subjects\s+)?"
    r"(?:(?:receiving|given|on|in|of|taking)\s+)?(?:the\s+|a\s+)?(?P<arm>[^.;,]{1,40}?)\s+than\b",
    re.IGNORECASE,
)


def _comparator_named_first(after: str, exposure: str, comparator: str = "") -> bool:
    """Whether a direction word is said of the comparator's arm, compared with the exposure's ("lower in
    the placebo group than in the aspirin group"). Only that construction counts: a control word further
    on is most often another clause (measured on Evidence Inference: 1 of 26 such flips was right)."""
    match = _COMPARATOR_FIRST.match(after)
    if match is not None and CONTROL_WORDS.search(match.group("arm")):
        return not content_words(match.group("arm")) & content_words(exposure)
    # the arm the claim names as its comparator, by a word the exposure's arm does not hold ("shorter with
    # OCP than IVCP", "more (7.7% vs. 25%) in the fistulotomy group"), "than" or not
    match = match or _COMPARATOR_ARM.match(after)
    return match is not None and names_arm(match.group("arm"), comparator, exposure)


# "one or more adenomas", "3 or fewer visits": a comparative that bounds a count states no change
_BOUNDED_COUNT = re.compile(
    r"(?:\b(?:one|two|three|four|five|six|seven|eight|nine|ten)|\d)\s+or\s+$", re.IGNORECASE
)


def _outcome_mentions(passage: str, outcome: str) -> list[int]:
    """Where the passage names the outcome: by its words, else by their stems ("cognition" for cognitive
    functioning, where the nearest direction word would otherwise be any, "memory impairment" among them)."""
    targets = content_words(outcome)
    named = [m.start() for m in _WORD.finditer(passage) if content_words(m.group(0)) & targets]
    if named:
        return named
    stems = set(index_terms(" ".join(targets)))
    return [m.start() for m in _WORD.finditer(passage) if set(index_terms(m.group(0))) & stems]


def _worded_direction(
    passage: str, exposure: str, outcome: str, comparator: str = ""
) -> tuple[str, int, str, bool] | None:
    """(way, position, word, comparator named first) of the direction word nearest a mention of the outcome."""
    tokens = [(m.group(0), m.start()) for m in _WORD.finditer(passage)]
    targets = content_words(outcome)
    mentions = _outcome_mentions(passage, outcome)
    best = None
    for i, (word, pos) in enumerate(tokens):
        low = word.lower()
        raw = (
            COMPARATIVES.get(low)
            or DIRECTION_VERBS.get(low)
            or CHANGE_NOUNS.get(low)
            or CHANGE_VERBS.get(low)
        )
        if raw is None or content_words(word) & targets:  # "falls" in "falls were fewer" names the outcome
            continue
        if any(t.lower() in _NEGATORS for t, _ in tokens[max(0, i - 3) : i]):
            continue
        if _BOUNDED_COUNT.search(passage[max(0, pos - 12) : pos]):
            continue
        way = resolve(raw, outcome)
        flipped = _comparator_named_first(passage[pos : pos + 70], exposure, comparator)
        if flipped:  # "lower in the placebo group (than with X)": the exposure's arm is the higher one
            way = flip(way)
        distance = min((abs(pos - m) for m in mentions), default=10_000)
        if best is None or distance < best[0]:
            best = (distance, way, pos, word, flipped)
    return (best[1], best[2], best[3], best[4]) if best else None
