"""What an effect claim asserts: its exposure, its outcome and the direction it states.

"Aspirin reduces the risk of colorectal cancer" → exposure "aspirin", outcome "the risk of
colorectal cancer", direction ``decrease``. "Metformin does not raise blood glucose" → the same
with ``negated``. "X has no effect on Y" → ``no_effect``. A claim about something other than an
effect (prevalence, mechanism, location, a definition) has no direction (``kind == "other"``) and
is judged by the cross-encoder alone. The rules read the sentence's structure around a small set
of predicate patterns (docs/direction.md lists them); they never guess: no pattern, no direction.
"""

from __future__ import annotations

import functools
import re
from typing import Literal

from pydantic import BaseModel

from lyra_core.direction.lexicon import (
    BETTER,
    CHANGE_NOUNS,
    CHANGE_VERBS,
    COMPARATIVES,
    DIRECTION_VERBS,
    DOWN,
    UP,
    WORSE,
    resolve,
)
from lyra_core.direction.wording import agree

Direction = Literal["increase", "decrease", "no_effect"]
WORDS = {UP: "increase", DOWN: "decrease"}
# cues of a claim that an effect or an association exists without saying which way, and how the
# reason line says it
EITHER_WAY_CUES = {
    "associated": ("is associated with", "are associated with"),
    "affects": ("affects", "affect"),
    "role": ("has a role in", "have a role in"),
}  # the verb for one thing, for several


_COMPARED_WITH = re.compile(
    r"\b(?:(?:as\s+)?compared\s+(?:with|to)|relative\s+to|versus|vs\.?|than|"
    r"in\s+comparison\s+(?:with|to))\s+(?P<arm>.+)$",
    re.IGNORECASE,
)


class ClaimFrame(BaseModel):
    """The parts of a claim the judge reads."""

    text: str
    kind: Literal["effect", "association", "other"]
    direction: Direction | None = None
    negated: bool = False  # "does not reduce": the direction is denied, not asserted
    exposure: str = ""
    outcome: str = ""
    population: str = ""
    cue: str = ""  # the words that carried the direction

    @property
    def directional(self) -> bool:
        return self.direction is not None

    @property
    def comparator(self) -> str:
        """What the claim compares its exposure with, where it names it ("… compared with placebo",
        "… versus oral cyclophosphamide"); "" otherwise."""
        named = _COMPARED_WITH.search(self.population)
        return _clean(named.group("arm")) if named else ""

    @property
    def either_way(self) -> bool:
        """A plain association or an effect of no stated direction ("X is associated with Y", "X
        affects Y", "X plays a role in Y"): a significant change in either direction bears it out, no
        difference refutes it."""
        return self.kind == "association" and self.cue in EITHER_WAY_CUES and not self.negated

    def says(self) -> str:
        """The claim's assertion in a few words: "aspirin reduces it", "X does not change it"."""
        if self.direction is None:
            return "makes no claim about an effect"
        if self.either_way:
            return agree(self.exposure, *EITHER_WAY_CUES[self.cue]) + " it"
        if self.direction == "no_effect":
            return agree(self.exposure, "has", "have") + " no effect on it"
        verb = {"increase": "increase", "decrease": "reduce"}[self.direction]
        if self.negated:
            return agree(self.exposure, "does", "do") + f" not {verb} it"
        return agree(self.exposure, verb + "s", verb) + " it"


_VERB_LIST = "|".join(sorted((re.escape(w) for w in DIRECTION_VERBS), key=len, reverse=True))
_COMP_LIST = "|".join(sorted((re.escape(w) for w in COMPARATIVES), key=len, reverse=True))
_NOUN_LIST = "|".join(sorted((re.escape(w) for w in CHANGE_NOUNS), key=len, reverse=True))
_CHANGE_LIST = "|".join(sorted((re.escape(w) for w in CHANGE_VERBS), key=len, reverse=True))
_ADV = (
    r"(?:(?:significantly|substantially|markedly|strongly|greatly|further|dramatically|modestly|slightly|"
    r"independently|consistently|effectively|directly|partially|partly|also|only|in\s+part|not\s+only)\s+)*"
)
# "X may help (to) prevent Y": the help belongs to the claim's direction, not to the exposure; a
# verb in the base form follows it ("social help improves" is a noun)
_AUX = (
    r"(?:(?:may|might|can|could|will|would|should|does|do|did|to|must)\s+)?"
    r"(?:help(?:s|ed)?\s+(?:to\s+)?(?=[a-z]+\b(?<![^s]s)(?<!ed)))?"
)
_NEG_AUX = (
    r"(?:(?:does|do|did|will|would|may|might|can|could|should|must)\s*(?:not|n't)|cannot|never|"
    r"fails?\s+to|failed\s+to|(?:is|are|was|were)\s+(?:not\s+able|unable)\s+to)\s+"
)
_BE = r"(?:is|are|was|were|be|been|being|can\s+be|may\s+be|might\s+be|will\s+be|could\s+be)\s+"
_ART = r"(?:(?:an?|the|any)\s+)?"
_ASSOC = r"(?:associated|correlated|linked|related|connected)\s+(?:with|to)"
# "changes in cancer cells", "altered by": the word is not a verb with the outcome as its object
_NOT_AN_OBJECT = r"(?:in|of|by|with|to|for|on|at|from|over|between|is|are|was|were|be|been)\b"
_AFFECT = (
    r"(?:affects?|affected|influences?|influenced|alters?|altered|modif(?:y|ies|ied)|modulates?|modulated|"
    r"impacts?|impacted|changes?|changed|determines?|determined)"
)

# Each pattern: (name, regex). Groups: x (exposure), y (outcome), v (verb), c (comparative),
# n (change noun), neg (a negation), inv (inverse association). Compiled on the first claim read
# (tens of milliseconds), not when a command that never reads a claim imports this module.
_PATTERN_SOURCES: list[tuple[str, str]] = [
    (
        "no_effect",
        r"^(?P<x>.+?)\s+(?:has|have|had|shows?|showed|exerts?|exerted|produces?|produced|"
        r"demonstrates?|demonstrated|makes?|made)\s+no\s+"
        r"(?:\w+\s+){0,2}?(?:effects?|impact|influence|benefit|role|association|relationship|difference)\s+"
        r"(?:on|in|upon|with|for|to)\s+(?P<y>.+)$",
    ),
    (
        "no_effect",
        rf"^(?P<x>.+?)\s+(?:does|do|did|will|would|may|might|can|could)\s*(?:not|n't)\s+{_ADV}"
        r"(?:affect|alter|change|influence|impact|modify|modulate)\s+(?P<y>.+)$",
    ),
    (
        "no_effect",
        rf"^(?P<x>.+?)\s+{_BE}(?:un(?:related|associated|correlated)\s+(?:to|with)|independent\s+of|"
        r"not\s+(?:a\s+)?(?:significant\s+|independent\s+)?(?:predictor|determinant|cause|risk\s+factor)\s+(?:of|for))"
        r"\s+(?P<y>.+)$",
    ),
    (
        "protective",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?:protects?|protected|protecting)\s+"
        r"(?:\w+\s+)?against\s+(?P<y>.+)$",
    ),
    (
        "protective",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?:a\s+)?protective\s+(?:factor\s+)?(?:against|for)\s+"
        r"(?P<y>.+)$",
    ),
    (
        "risk_factor",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?:an?\s+)?(?:\w+\s+)?(?:risk\s+factors?|causes?|"
        r"predictors?|determinants?|drivers?|contributors?)\s+(?:of|for|to)\s+(?P<y>.+)$",
    ),
    (
        "association",
        rf"^(?P<x>.+?)\s+(?:{_BE})?(?P<neg>not\s+)?{_ADV}(?P<inv>inversely\s+|negatively\s+|positively\s+)?"
        rf"{_ASSOC}\s+{_ART}(?:(?P<c>{_COMP_LIST})\s+|(?:\w+\s+)?(?P<n>{_NOUN_LIST})\s+(?:in|of)\s+)?"
        r"(?P<y>.+)$",
    ),
    (
        "association",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?P<inv>inversely\s+|negatively\s+|positively\s+)?"
        rf"(?:correlates?|associates?|predicts?|predicted)\s+(?:with\s+)?{_ART}(?:(?P<c>{_COMP_LIST})\s+)?"
        r"(?P<y>.+)$",
    ),
    (
        "leads_to",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?:leads?\s+to|led\s+to|results?\s+in|resulted\s+in|"
        r"contributes?\s+to|contributed\s+to|is\s+responsible\s+for|gives?\s+rise\s+to|brings?\s+about)\s+"
        rf"{_ART}(?:(?:(?P<c>{_COMP_LIST})\s+)|(?:(?P<n>{_NOUN_LIST})\s+(?:in|of)\s+))?(?P<y>.+)$",
    ),
    (
        "has_more",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX})(?:have|has|had|show|shows|showed|exhibit|exhibits|"
        r"exhibited|display|displays|displayed|experience|experiences|experienced|develop|develops|developed|"
        rf"carry|carries|face|faces|achieve|achieves|achieved)\s+{_ART}{_ADV}(?:(?P<c>{_COMP_LIST})|"
        rf"(?P<n>{_NOUN_LIST})\s+(?:in|of))\s+(?P<y>.+)$",
    ),
    (
        "passive",
        rf"^(?P<y>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<v>{_VERB_LIST})\s+(?:by|with|after|following|upon|"
        r"in\s+response\s+to|through|via|when|in|among|during)\s+(?P<x>.+)$",
    ),
    (
        "comparative",
        rf"^(?P<y>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<c>{_COMP_LIST})\s+(?:in|among|with|after|following|"
        r"for|during|when|under)\s+(?P<x>.+)$",
    ),
    (
        "superior",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<c>superior|inferior|better|worse|more\s+effective|"
        r"less\s+effective|more\s+efficacious|less\s+efficacious)\s+(?:to|than)\s+(?P<comp>.+?)"
        r"(?:\s+(?:in|for|at|on)\s+(?P<y>.+))?$",
    ),
    (
        "more_likely",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<c>more|less)\s+(?:likely|prone)\s+to\s+"
        r"(?:develop|have|experience|suffer\s+from|get|die\s+(?:of|from)|be\s+diagnosed\s+with)\s+(?P<y>.+)$",
    ),
    (
        "changes_with",
        rf"^(?P<y>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?P<v>{_CHANGE_LIST})\s+(?:with|after|following|"
        r"upon|in\s+response\s+to|during)\s+(?P<x>.+)$",
    ),
    # a gerund before a preposition names the exposure ("PD-1 triggering on monocytes reduces …")
    (
        "verb",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}"
        rf"(?P<v>(?!\w+ing\s+(?:on|in|of|by|at|with|from|among|for)\b)(?:{_VERB_LIST}))\s+(?!(?:in|among)\s)(?P<y>.+)$",
    ),
    # an effect of no stated direction: "X affects Y", "Y is influenced by X", "Y changed after X",
    # "X plays a role in Y", "there is a role for X in Y", "X is involved in Y"
    ("affected_by", rf"^(?P<y>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}{_AFFECT}\s+by\s+(?P<x>.+)$"),
    (
        "affects",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}{_AFFECT}\s+(?!{_NOT_AN_OBJECT})(?P<y>.+)$",
    ),
    (
        "changed_after",
        rf"^(?P<y>.+?)\s+(?:(?:has|have|had)\s+)?(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}"
        r"(?:changed?|changes|altered|differs?|differed|varie[sd]|vary)\s+(?:with|after|following|upon|"
        r"in\s+response\s+to|during|since|according\s+to)\s+(?P<x>.+)$",
    ),
    (
        "role",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?:plays?|played|has|have|had)\s+"
        r"(?:an?\s+|the\s+)?(?:(?P<adj>\w+)\s+)?(?:role|part)\s+in\s+(?P<y>.+)$",
    ),
    (
        "role",
        r"^there\s+(?:is|are|was|exists?)\s+(?P<neg>no\s+)?(?:an?\s+)?(?:\w+\s+)?role\s+for\s+(?P<x>.+?)\s+"
        r"in\s+(?P<y>.+)$",
    ),
    ("role", rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?:involved|implicated)\s+in\s+(?P<y>.+)$"),
    # a change in a state, said of a group ("autophagy declines in aged organisms"): last, so that
    # "X reduces falls in older adults" stays X's effect on falls and "X affects falls in …" one of no direction
    (
        "changes_with",
        rf"^(?P<y>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?P<v>{_CHANGE_LIST})\s+(?:in|among)\s+(?P<x>.+)$",
    ),
]


_EVEN = re.compile(r"\b(?:equally|similarly|alike|to\s+the\s+same\s+extent)\b", re.IGNORECASE)
_NO_ROLE = {"trivial", "negligible", "little", "no", "insignificant"}
_OUTCOME_FIRST = ("passive", "comparative", "changes_with", "affected_by", "changed_after")


@functools.cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    return [(name, re.compile(rx, re.IGNORECASE)) for name, rx in _PATTERN_SOURCES]


_DETERMINERS = re.compile(r"^(?:the|a|an|its|their|this|these|those|such)\s+", re.IGNORECASE)
_TAIL = re.compile(
    r"\s+(?:(?:as\s+)?compared\s+(?:with|to)|relative\s+to|versus|vs\.?|than|in\s+comparison|"
    r"in\s+(?:patients|people|persons|adults|children|women|men|mice|rats|subjects|individuals|participants|humans|"
    r"older|elderly|healthy|those|infants|adolescents|pregnant|postmenopausal|obese|type|the\s+general|vitro|vivo|"
    r"cell|cells|animals|population|populations|cohort|trials?)|"
    r"in\s+(?:[\w-]+\s+){1,3}(?:residents|patients|people|persons|adults|children|women|men|subjects|individuals|"
    r"participants|users|smokers|survivors|volunteers|recipients|infants|adolescents|athletes|workers|veterans|"
    r"mice|rats)|"
    r"among|when|while|whereas|because|due\s+to|through|via|by\s+\w+ing|by\s+(?:about\s+|nearly\s+|approximately\s+|"
    r"up\s+to\s+)?\d+|which|that|who|where|"
    r"regardless|independent\s+of)\b|\s*[,;:(]",
    re.IGNORECASE,
)
_EXPOSURE_LEAD = re.compile(
    r"^(?:(?:treatment|therapy|supplementation|intervention)\s+with|(?:the\s+)?use\s+of|"
    r"administration\s+of|exposure\s+to|consumption\s+of|intake\s+of|taking)\s+",
    re.IGNORECASE,
)
_PLAIN_VERB_BLOCK = {
    "the",
    "a",
    "an",
    "of",
    "with",
    "and",
    "or",
    "in",
    "to",
    "for",
    "by",
    "on",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "that",
    "which",
    "its",
    "their",
    "has",
    "have",
    "had",
    "than",
    "as",
    "until",
    "unless",
    "when",
    "if",
    "because",
    "while",
    "once",
    "where",
}


def _clean(part: str) -> str:
    return " ".join(part.split()).strip(" .,;:")


def _outcome(part: str) -> tuple[str, str]:
    """The outcome phrase and the population or comparison that follows it."""
    part = _clean(part)
    cut = _TAIL.search(part)
    outcome, rest = (part[: cut.start()], part[cut.start() :]) if cut and cut.start() > 0 else (part, "")
    return _DETERMINERS.sub("", outcome.strip()), _clean(rest)


def _exposure(part: str) -> str:
    part = _DETERMINERS.sub("", _clean(part))
    return _clean(_EXPOSURE_LEAD.sub("", part))


def _plausible_subject(x: str) -> bool:
    """A subject phrase ends in a content word and is not a clause fragment."""
    words = x.split()
    return bool(words) and words[-1] not in _PLAIN_VERB_BLOCK and len(words) <= 25


# "A meta-analysis of 3,000 patients showed that aspirin reduced …": the finding is the clause after "that"
_REPORTED = re.compile(
    r"^.{0,200}?\b(?:show|shows|showed|shown|demonstrated?|demonstrates|found|finds|suggests?|"
    r"suggested|indicates?|indicated|revealed?|reveals|confirmed?|confirms|reported|reports)\s+that\s+"
    r"(?P<finding>.+)$",
    re.IGNORECASE,
)


# "In patients with congenital heart defects, β-blockers improve …": who or where, before the claim itself
_SETTING = re.compile(
    r"^(?:in|among|for)\s+(?!(?:contrast|addition|conclusion|summary|particular|general|fact|"
    r"short|sum|brief|comparison|turn|practice|theory|principle)\b)(?P<who>[^,]{3,80}),\s+(?P<rest>.+)$",
    re.IGNORECASE,
)


_DISCOURSE = re.compile(
    r"^(?:in\s+(?:contrast|addition|conclusion|summary|particular|general|fact|short|sum|brief|"
    r"comparison|turn|practice)|however|moreover|furthermore|therefore|thus|conversely|"
    r"overall|importantly|notably|similarly|additionally)\s*,\s+",
    re.IGNORECASE,
)


def read_claim(text: str) -> ClaimFrame:
    """The claim's exposure, outcome and direction, or ``kind="other"`` where no pattern fits."""
    sentence = _clean(text)
    reported = _REPORTED.match(sentence)
    if reported:
        inner = _read_sentence(reported.group("finding"))
        if inner.directional:
            return inner.model_copy(update={"text": sentence})
    marker = _DISCOURSE.match(sentence)  # "In contrast, aspirin reduces stroke": the claim follows the comma
    if marker:
        inner = _read_sentence(sentence[marker.end() :])
        if inner.directional:
            return inner.model_copy(update={"text": sentence})
    setting = _SETTING.match(sentence)
    if setting:
        inner = _read_sentence(setting.group("rest"))
        if inner.directional:
            return inner.model_copy(
                update={"text": sentence, "population": inner.population or setting.group("who")}
            )
    return _read_sentence(sentence)


def _read_sentence(sentence: str) -> ClaimFrame:
    for name, pattern in _patterns():
        match = pattern.search(sentence)
        if not match:
            continue
        groups = {k: (v or "") for k, v in match.groupdict().items()}
        x, y = groups.get("x", ""), groups.get("y", "")
        if not _plausible_subject(y if name in _OUTCOME_FIRST else x):
            continue
        outcome, population = _outcome(y)
        exposure = _exposure(x)
        if name in _OUTCOME_FIRST:
            outcome = _DETERMINERS.sub("", _clean(y))
            exposure, population = _outcome(x)
            exposure = _exposure(exposure)
        if not exposure or not (outcome or name == "superior"):
            continue
        negated = bool(groups.get("neg", "").strip())
        frame = _frame(name, groups, outcome, sentence, exposure, population, negated)
        if frame is not None:
            return frame
    return ClaimFrame(text=_clean(sentence), kind="other")


def _frame(
    name: str,
    groups: dict[str, str],
    outcome: str,
    sentence: str,
    exposure: str,
    population: str,
    negated: bool,
) -> ClaimFrame | None:
    base = dict(text=sentence, exposure=exposure, outcome=outcome, population=population)
    if name == "no_effect":
        return ClaimFrame(**base, kind="effect", direction="no_effect", cue="no effect")
    if name == "protective":
        return ClaimFrame(
            **base, kind="effect", direction="decrease", negated=negated, cue="protects against"
        )
    if name == "risk_factor":
        return ClaimFrame(
            **base, kind="association", direction="increase", negated=negated, cue="risk factor for"
        )
    if name == "association":  # "associated with lower Y", "associated with a reduction in Y"
        way = (COMPARATIVES.get(groups["c"].lower()) if groups["c"] else None) or CHANGE_NOUNS.get(
            groups.get("n", "").lower()
        )
        if groups.get("inv", "").strip().lower() in ("inversely", "negatively"):
            way = DOWN
        kind = "effect" if way else "association"
        if negated and not way:
            return ClaimFrame(**base, kind="effect", direction="no_effect", cue="not associated")
        direction = WORDS[resolve(way or UP, outcome)]
        return ClaimFrame(
            **base,
            kind=kind,
            direction=direction,
            negated=negated,
            cue=" ".join(
                p
                for p in (groups.get("inv", "").strip(), "associated", groups["c"], groups.get("n", ""))
                if p
            ),
        )
    if name in ("leads_to", "has_more"):
        word = groups.get("c") or groups.get("n") or ""
        way = (
            COMPARATIVES.get(word.lower())
            or CHANGE_NOUNS.get(word.lower())
            or (UP if name == "leads_to" else None)
        )
        if way is None:
            return None
        return ClaimFrame(
            **base,
            kind="effect",
            direction=WORDS[resolve(way, outcome)],
            negated=negated,
            cue=word or "leads to",
        )
    if name in ("passive", "verb"):
        verb = groups["v"].lower()
        way = DIRECTION_VERBS[verb]
        return ClaimFrame(
            **base, kind="effect", direction=WORDS[resolve(way, outcome)], negated=negated, cue=verb
        )
    if name == "changes_with":
        way = CHANGE_VERBS[groups["v"].lower()]
        return ClaimFrame(
            **base, kind="effect", direction=WORDS[way], negated=negated, cue=groups["v"].lower()
        )
    if name in ("affects", "affected_by", "changed_after", "role"):
        if _EVEN.search(
            sentence
        ):  # "affects boys and girls equally": a claim of no difference between groups
            return None
        if (
            negated or groups.get("adj", "").lower() in _NO_ROLE
        ):  # "does not affect", "plays a trivial role in"
            return ClaimFrame(**base, kind="effect", direction="no_effect", cue="no effect")
        cue = "role" if name == "role" else "affects"
        return ClaimFrame(**base, kind="association", direction="increase", cue=cue)
    if name == "superior":
        word = " ".join(groups["c"].lower().split())
        way = BETTER if word in ("superior", "better", "more effective", "more efficacious") else WORSE
        outcome = outcome if groups.get("y") else "effectiveness"
        return ClaimFrame(
            **{**base, "outcome": outcome, "population": groups.get("comp", "")},
            kind="effect",
            direction=WORDS[resolve(way, outcome)],
            negated=negated,
            cue=word,
        )
    if name in ("comparative", "more_likely"):
        way = COMPARATIVES.get(groups["c"].lower()) or (UP if groups["c"].lower() == "more" else DOWN)
        return ClaimFrame(
            **base,
            kind="effect",
            direction=WORDS[resolve(way, outcome)],
            negated=negated,
            cue=groups["c"].lower(),
        )
    return None
