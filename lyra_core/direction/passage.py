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

from lyra_core.direction.another_thing import said_of_another_thing, subject_is_another_thing
from lyra_core.direction.arms import names_arm
from lyra_core.direction.contrast import exposure_named_after_than, named_at_other_level
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


# Sentences that say what is not known: background or a call for more research, not a finding.
OPEN_QUESTION = re.compile(
    r"\b(?:lack\s+of\s+(?:consensus|evidence|data)|remains?\s+(?:largely\s+|still\s+)?(?:unclear|unknown|"
    r"controversial|uncertain|to\s+be\s+(?:determined|established|elucidated|clarified))|(?:is|are)\s+(?:still\s+)?"
    r"(?:unclear|unknown|controversial|uncertain|debated|not\s+(?:well\s+)?(?:known|understood|established))|"
    r"further\s+(?:studies|research|investigations?|trials|work)\s+(?:is\s+|are\s+)?(?:needed|required|warranted)|"
    r"requires?\s+further\s+(?:investigation|study|studies|research)|(?:are|is)\s+needed\s+to\s+(?:establish|determine|"
    r"clarify|confirm))\b",
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


def states_open_question(passage: str) -> bool:
    """Whether every sentence of the passage says what is not known ("there is a lack of consensus
    about …; the optimal dose requires further investigation")."""
    from lyra_core.sentences import split_sentences

    sentences = split_sentences(passage) or [passage]
    return all(OPEN_QUESTION.search(s) for s in sentences)


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
    other_level: str = (
        ""  # the exposure's arm named at its opposite level first ("a low fitness level"): turned round
    )
    # a comparative the passage says of a subject that is another thing than the outcome ("the 25OHD level
    # was higher in those with fractures"), where no word or figure gives the outcome a direction: the
    # passage's change is not the outcome's
    said_of_another: str = ""

    def figures_text(self) -> str:
        return "; ".join(f.text for f in self.figures[:2])

    def read_text(self) -> str:
        """What a reason quotes: the figures, else the words the direction was read from, and the
        exposure's arm where the passage names it at its opposite level."""
        words = f"“{self.cue}”" if self.source == "words" and self.cue else ""
        if (
            words and self.comparator_first
        ):  # "higher in the placebo group than …": a lower one with the exposure
            words += " said of the comparator's arm"
        parts = [self.figures_text(), words]
        shown = "; ".join(p for p in parts if p)
        if self.other_level:
            shown += f"{'; ' if shown else ''}said of “{self.other_level}”, turned round"
        return shown


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
    if way in ("up", "down") and counts_events_of_survival(figures, outcome):
        worded_way = _worded_direction(passage, exposure, outcome, comparator)
        if worded_way is None or worded_way[0] != way:  # "survival was higher (HR 1.4)": the words say which
            way = "down" if way == "up" else "up"
    if way in ("up", "down") and counts_reductions(figures, passage):
        way = "down" if way == "up" else "up"  # "more likely to reduce its intensity (RR 1.41)": less of it
    if way in ("up", "down") and null and all(f.tested for f in figures if f.way == way):
        way = None  # the authors' "similar" outweighs a test run here on their counts
    if way is not None:
        reading = PassageReading(
            direction=FROM_WAY[way],
            source="figures",
            figures=figures,
            cue=figures[0].text if figures else "",
            null_stated=null_stated,
        )
        return _other_level_turned(reading, passage, exposure)
    elsewhere: list[str] = []
    worded = _worded_direction(passage, exposure, outcome, comparator, elsewhere)
    if worded is not None and not_significant:
        return PassageReading(
            direction="no_difference",
            source="words",
            figures=figures,
            cue=not_significant.group(0),
            null_stated=True,
        )
    if null and (
        worded is None
        or null.start() <= worded[1]
        or _nearer_the_outcome(passage, outcome, null.start(), worded[1])
    ):
        return PassageReading(
            direction="no_difference", source="words", figures=figures, cue=null.group(0), null_stated=True
        )
    if worded is not None:
        reading = PassageReading(
            direction=FROM_WAY[worded[0]],
            source="words",
            figures=figures,
            cue=worded[2],
            comparator_first=worded[3],
            null_stated=null_stated,
        )
        return reading if worded[3] else _other_level_turned(reading, passage, exposure)
    return PassageReading(
        figures=figures,
        null_stated=null_stated,
        said_of_another=elsewhere[0] if elsewhere and not null_stated else "",
    )


_SURVIVAL = re.compile(
    r"\b(?:surviv\w*|event-free|disease-free|progression-free|recurrence-free|relapse-free)\b", re.IGNORECASE
)
_HAZARD = re.compile(r"^(?:[as]?HRs?|HRR|(?:adjusted\s+|pooled\s+)?hazard\s+ratios?)$", re.IGNORECASE)


def counts_events_of_survival(figures: list[EffectFigure], outcome: str) -> bool:
    """Whether the deciding figures are hazard ratios of an outcome named as survival: a hazard ratio
    counts the events (death, progression), so HR 0.8 for progression-free survival is longer survival."""
    deciding = [f for f in figures if f.way in ("up", "down")]
    return bool(
        deciding
        and _SURVIVAL.search(outcome)
        and all(f.kind == "ratio" and _HAZARD.match(f.label) for f in deciding)
    )


# the event a ratio counts is a reduction of the outcome: "more likely to reduce the intensity of headaches"
_REDUCTION_EVENT = re.compile(
    r"\b(?:likely|likelihood|odds|chance|probability)\s+(?:of|to)\s+(?:an?\s+)?(?:reduc|decreas|lower|reliev|halv)\w*",
    re.IGNORECASE,
)


def counts_reductions(figures: list[EffectFigure], passage: str) -> bool:
    """Whether the deciding figures are ratios of the chance of a reduction of the outcome ("more likely
    to reduce the intensity of headaches by at least 50%, relative risk 1.41"): a ratio above 1 is less
    of the outcome."""
    deciding = [f for f in figures if f.way in ("up", "down")]
    return bool(deciding and all(f.kind == "ratio" for f in deciding) and _REDUCTION_EVENT.search(passage))


_TURNED: dict[str, Reported] = {"increased": "decreased", "decreased": "increased"}


def _other_level_turned(reading: PassageReading, passage: str, exposure: str) -> PassageReading:
    """The reading turned round where the passage contrasts the exposure's levels and names the opposite
    level first ("higher mortality in men with a low fitness level compared with … a high fitness level")."""
    if reading.direction not in _TURNED:
        return reading
    other = named_at_other_level(passage, exposure)
    if not other:
        return reading
    return reading.model_copy(update={"direction": _TURNED[str(reading.direction)], "other_level": other})


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


_CAUSE_NOUN_BEFORE = {
    "any",
    "all",
    "a",
    "the",
    "main",
    "leading",
    "common",
    "major",
    "other",
    "underlying",
    "its",
    "their",
    "root",
    "specific",
    "unknown",
    "same",
    "one",
}


def _names_a_cause(tokens: list[tuple[str, int]], i: int) -> bool:
    """Whether "cause(s)" at ``i`` is the noun ("from any cause", "causes of death", "all-cause")."""
    before = tokens[i - 1][0].lower() if i else ""
    after = tokens[i + 1][0].lower() if i + 1 < len(tokens) else ""
    return before in _CAUSE_NOUN_BEFORE or after == "of"


# "one or more adenomas", "3 or fewer visits": a comparative that bounds a count states no change
_BOUNDED_COUNT = re.compile(
    r"(?:\b(?:one|two|three|four|five|six|seven|eight|nine|ten)|\d)\s+or\s+$", re.IGNORECASE
)


_NOUN_CUES = {"damage", "loss", "losses", "injury"}
_BESIDE_AFTER = re.compile(r"\s*(?:,|and|or)\s+(?:[\w-]+\s+){0,2}")
_BESIDE_BEFORE = re.compile(r"[\w-]+\s*(?:,|and|or)\s+(?:[\w-]+\s+){0,2}")


def _listed_beside(passage: str, pos: int, word: str, previous: str, mentions: list[int]) -> bool:
    """Whether a noun naming a harm ("damage", "loss") is a condition of its own listed beside a mention of
    the outcome ("epithelial damage and fibrosis", "foot process effacement and urinary protein loss"):
    a compound ("protein loss") next to the outcome with "and", "or" or a comma between, and no "of"."""
    if word.lower() not in _NOUN_CUES or not previous or previous.lower() in _STOP:
        return False
    end = pos + len(word)
    if re.match(r"\s+(?:of|in|to)\b", passage[end:]):
        return False
    return any(
        (m >= end and _BESIDE_AFTER.fullmatch(passage[end:m]))
        or (m < pos and _BESIDE_BEFORE.fullmatch(passage[m:pos]))
        for m in mentions
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


def _nearer_the_outcome(passage: str, outcome: str, null_at: int, word_at: int) -> bool:
    """Whether a null phrase stands nearer the fullest mention of the outcome than the direction word
    does ("the change in venous pressure caused by X does not affect the risk of venous air embolism":
    the finding is the null one)."""
    targets = content_words(outcome)
    words = [(content_words(m.group(0)) & targets, m.start()) for m in _WORD.finditer(passage)]
    named = [(len(set().union(*(w for w, q in words if abs(q - pos) <= 40))), pos) for w, pos in words if w]
    if not named:
        return False
    fullest = max(n for n, _ in named)
    mentions = [pos for n, pos in named if n == fullest]
    return min(abs(null_at - m) for m in mentions) < min(abs(word_at - m) for m in mentions)


# What may open a direction word's object ("reduced the risk of …", "raising HDL-C"), and what ends it
def _worded_direction(
    passage: str, exposure: str, outcome: str, comparator: str = "", elsewhere: list[str] | None = None
) -> tuple[str, int, str, bool] | None:
    """(way, position, word, comparator named first) of the direction word nearest a mention of the outcome;
    the comparatives said of a subject that is another thing than the outcome are added to ``elsewhere``
    (not a verb's other object, "raising HDL-C": such a passage often names the outcome in other words)."""
    elsewhere = [] if elsewhere is None else elsewhere
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
        if low in ("cause", "causes") and _names_a_cause(
            tokens, i
        ):  # "deaths from any cause" states no change
            continue
        if _BOUNDED_COUNT.search(passage[max(0, pos - 12) : pos]):
            continue
        after = passage[pos + len(word) : pos + len(word) + 120]
        if _listed_beside(passage, pos, word, tokens[i - 1][0] if i else "", mentions):
            continue  # "epithelial damage and fibrosis": another condition beside the outcome, not its change
        if not re.match(r"\s+of\b", after) and said_of_another_thing(after, outcome):
            continue  # "raising HDL-C", "reducing CPU time": a change of another thing than the outcome
        if low in COMPARATIVES and subject_is_another_thing(
            passage[max(0, pos - 120) : pos], outcome, f"{exposure} {comparator}", (exposure, comparator)
        ):
            elsewhere.append(word)
            continue  # "the 25OHD level was higher in those with fractures": said of the level
        way = resolve(raw, outcome)
        flipped = _comparator_named_first(passage[pos : pos + 70], exposure, comparator) or bool(
            exposure_named_after_than(
                passage[max(0, pos - 80) : pos], passage[pos + len(word) :], exposure, comparator
            )
        )
        if flipped:
            way = flip(
                way
            )  # "lower in the placebo group (than with X)": the exposure's arm is the higher one
        distance = min((abs(pos - m) for m in mentions), default=10_000)
        if best is None or distance < best[0]:
            best = (distance, way, pos, word, flipped)
    return (best[1], best[2], best[3], best[4]) if best else None
