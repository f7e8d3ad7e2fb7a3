"""What a research question is about: its exposure and its outcome, where it names both.

A yes/no question is read through its hypothesis ("Is obesity associated with increased risk of
type 2 diabetes?" → obesity / risk of type 2 diabetes, by the direction judge's claim reader). An
open question is read from its common forms: "What are the effects of X on Y?", "How does X affect
Y?", "What is the relationship between X and Y?", "What is the role of X in Y?", "X and Y". A
question that names no exposure and outcome ("What causes migraine?", "What are the effects of
caffeine?") has no parts, and nothing is gated on them.

A claim addresses the question when it names the outcome and it, or its paper's title and text,
names the exposure: the relevance gate of the direction judge (``lyra_core.direction.relevance``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.relevance import relevance
from lyra_core.hypothesis import HYPOTHESIS, ParsedQuestion, to_hypothesis


class QuestionParts(BaseModel):
    """The exposure and the outcome a question asks about."""

    exposure: str
    outcome: str


_AUX = r"(?:does|do|did|can|could|may|might|would|will|should|is|are|was|were|has|have|had)"
_EFFECT = (
    r"(?:effects?|impacts?|influences?|consequences?|benefits?|harms?|risks?|outcomes?|"
    r"contributions?|associations?|relationships?)"
)
_LINK = (
    r"(?:relationships?|relations?|associations?|links?|linkages?|correlations?|connections?"
    r"|interactions?|interplay)"
)
_VERB = (
    r"(?:affect|influence|impact|alter|change|modify|modulate|regulate|improve|worsen|reduce|lower|"
    r"increase|raise|decrease|prevent|protect|treat|cause|predict|contribute|lead|relate|promote|"
    r"inhibit|trigger|induce|shape|determine|mediate|help|benefit|harm|damage)(?:s|es|ed|d)?"
    r"(?:\s+(?:against|to|with|in))?"
)
_WH = r"(?:what|which|how|why|in\s+what\s+ways?|to\s+what\s+extent)"
_HOW = r"(?:how|why|in\s+what\s+ways?|to\s+what\s+extent)"  # asks how X acts on Y, not what X is
# "What are the effects of X on Y", "What is the impact of X on Y", "Effect of X on Y"
_EFFECT_OF = re.compile(
    rf"^(?:{_WH}\s+(?:is|are|were|was|have\s+been|has\s+been)\s+)?(?:the\s+|any\s+)?(?:[\w-]+\s+){{0,2}}?{_EFFECT}\s+"
    rf"of\s+(?P<x>.+?)\s+(?:on|upon|for|in\s+terms\s+of)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
# "What effect does X have on Y", "What impact has X had on Y"
_EFFECT_DOES = re.compile(
    rf"^(?:what|which)\s+(?:\w+\s+)?{_EFFECT}\s+{_AUX}\s+(?P<x>.+?)\s+(?:have|has|had)\s+(?:on|upon)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
# "How does X affect Y", "Why does X increase Y", "How can X help prevent Y"
_HOW_DOES = re.compile(
    rf"^{_HOW}\s+{_AUX}\s+(?P<x>.+?)\s+(?:\w+ly\s+)?(?:help\s+(?:to\s+)?)?{_VERB}\s+(?P<y>.+)$", re.IGNORECASE
)
# "How is X associated with Y", "How are X related to Y"
_HOW_IS = re.compile(
    rf"^{_WH}\s+{_AUX}\s+(?P<x>.+?)\s+(?:associated|related|linked|correlated|connected)\s+"
    rf"(?:with|to)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
# "How are X and Y related", "Are X and Y linked" (yes/no: read by its hypothesis first)
_PAIR_RELATED = re.compile(
    rf"^(?:{_WH}\s+)?{_AUX}\s+(?P<x>.+?)\s+and\s+(?P<y>.+?)\s+"
    r"(?:associated|related|linked|correlated|connected)$",
    re.IGNORECASE,
)
# "Is exercise good for depression", "How effective is X against Y"
_GOOD_FOR = re.compile(
    rf"^(?:{_WH}\s+)?{_AUX}\s+(?P<x>.+?)\s+(?:good|bad|beneficial|harmful|effective|helpful|"
    r"useful|protective|safe|a\s+risk\s+factor|a\s+treatment)\s+(?:for|against|in)\s+"
    r"(?:treating\s+|preventing\s+|reducing\s+)?(?P<y>.+)$",
    re.IGNORECASE,
)
# "How effective is CBT for insomnia"
_HOW_GOOD = re.compile(
    r"^how\s+(?:effective|safe|beneficial|useful|helpful|harmful)\s+(?:is|are|was|were)\s+(?P<x>.+?)"
    r"\s+(?:for|against|in)\s+(?:treating\s+|preventing\s+|reducing\s+)?(?P<y>.+)$",
    re.IGNORECASE,
)
# "What is the relationship between X and Y", "Is there a link between X and Y"
_BETWEEN = re.compile(
    rf"^(?:(?:{_WH}\s+)?(?:is|are|was|were)\s+(?:there\s+)?)?(?:the\s+|any\s+|an?\s+)?(?:[\w-]+\s+){{0,2}}?{_LINK}\s+"
    r"(?:between|of)\s+(?P<x>.+?)\s+(?:and|with|to)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
# "What is the role of X in Y", "Role of X in the development of Y"
_ROLE = re.compile(
    rf"^(?:{_WH}\s+(?:is|are|was|were)\s+)?(?:the\s+)?(?:\w+\s+)?roles?\s+"
    r"(?:of|for|played\s+by)\s+(?P<x>.+?)\s+in\s+(?P<y>.+)$",
    re.IGNORECASE,
)
# "Exercise and depression", "Vitamin D and risk of fracture": a topic named by its two parts
_TOPIC_PAIR = re.compile(r"^(?P<x>[^,;:]+?)\s+(?:and|versus|vs\.?)\s+(?P<y>[^,;:]+)$", re.IGNORECASE)
_OPEN_FORMS = (
    _EFFECT_DOES,
    _EFFECT_OF,
    _HOW_IS,
    _PAIR_RELATED,
    _GOOD_FOR,
    _HOW_GOOD,
    _HOW_DOES,
    _BETWEEN,
    _ROLE,
)

_WH_START = re.compile(rf"^{_WH}\b", re.IGNORECASE)
# what follows the outcome without being it: "... on depression in older adults", "... among women"
_POPULATION = re.compile(
    r"\s+(?:in|among|amongst|during|for|within)\s+(?:the\s+)?"
    r"(?:patients?|people|persons?|individuals?|adults?|children|adolescents?|women|men|"
    r"elderly|older|young|pregnan\w*|subjects?|participants?|populations?|those|mice|rats|"
    r"animals?|humans?|healthy|obese|diabetic|postmenopausal|infants?|cohorts?)\b.*$",
    re.IGNORECASE,
)
# "the development of Y", "the risk of Y": Y is the outcome
_OUTCOME_HEAD = re.compile(
    r"^(?:the\s+)?(?:development|pathogenesis|progression|onset|prevention|treatment|"
    r"management|severity|symptoms|course|incidence|risk)\s+of\s+",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^(?:the|a|an|any)\s+", re.IGNORECASE)
# a topic pair whose parts read as a clause is no topic ("Diet and exercise reduce weight")
_CLAUSE_WORD = re.compile(rf"\b(?:{_AUX}|{_VERB}|for|on|with)\b", re.IGNORECASE)


def _clean(part: str, outcome: bool = False) -> str:
    part = part.strip(" ,;:.?!\"'")
    if outcome:
        part = _POPULATION.sub("", part)
        part = _OUTCOME_HEAD.sub("", part)
    return _LEAD.sub("", part).strip(" ,;:.")


def _open_parts(question: str) -> QuestionParts | None:
    text = " ".join(question.split()).rstrip(" ?.!")
    for form in _OPEN_FORMS:
        match = form.match(text)
        if match is not None:
            exposure, outcome = _clean(match.group("x")), _clean(match.group("y"), outcome=True)
            if exposure and outcome:
                return QuestionParts(exposure=exposure, outcome=outcome)
    match = _TOPIC_PAIR.match(text)
    if match is None or _WH_START.match(text) or len(text.split()) > 10:
        return None
    exposure, outcome = _clean(match.group("x")), _clean(match.group("y"), outcome=True)
    if not exposure or not outcome or _CLAUSE_WORD.search(exposure) or _CLAUSE_WORD.search(outcome):
        return None
    return QuestionParts(exposure=exposure, outcome=outcome)


class QuestionReading(BaseModel):
    """A research question read once, as every step that needs it reads it: its hypothesis (or that
    it is an open question) and the exposure and outcome it names (None when it names no such pair)."""

    model_config = ConfigDict(frozen=True)  # one reading is shared by every step that asks

    parsed: ParsedQuestion
    parts: QuestionParts | None


@functools.lru_cache(maxsize=256)
def read_question(question: str) -> QuestionReading:
    """``question``'s hypothesis (:func:`lyra_core.hypothesis.to_hypothesis`) and its parts
    (:func:`question_parts`), the question parsed once for both, and once per process: the steps
    of a task's run that read the question all get this reading."""
    parsed = to_hypothesis(question)
    return QuestionReading(parsed=parsed, parts=_parts(question, parsed))


def question_parts(question: str) -> QuestionParts | None:
    """The exposure and outcome ``question`` asks about; None when it names no such pair. A yes/no
    question's parts are its hypothesis's, as the direction judge reads them."""
    return read_question(question).parts


def _parts(question: str, parsed: ParsedQuestion) -> QuestionParts | None:
    if parsed.origin == HYPOTHESIS and parsed.hypothesis:
        frame = read_claim(parsed.hypothesis)
        if frame.exposure.strip() and frame.outcome.strip():
            return QuestionParts(exposure=frame.exposure.strip(), outcome=frame.outcome.strip())
        return _open_parts(question)  # "Are exercise and depression linked?"
    return _open_parts(question)


def addresses_question(
    parts: QuestionParts | None, claims: Sequence[str], paper_texts: Sequence[str]
) -> list[bool | None]:
    """For each claim, whether it addresses the question's exposure and outcome (it names the
    outcome, and it or its paper's title and text, ``paper_texts``, the exposure); None for every
    claim when the question has no parts."""
    if parts is None:
        return [None] * len(claims)
    return [
        relevance(parts.exposure, parts.outcome, claim, paper).about_both
        for claim, paper in zip(claims, paper_texts, strict=True)
    ]
