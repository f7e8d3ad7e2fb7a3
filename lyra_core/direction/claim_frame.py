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
from typing import Literal, TypedDict

from pydantic import BaseModel

from lyra_core.direction.claim_patterns import (
    AMONG,
    COMPARATOR_LEAD,
    NOT_SUBJECT_END,
    OWN_VERB,
    PATTERN_SOURCES,
)
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
WORDS: dict[str, Direction] = {UP: "increase", DOWN: "decrease"}
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
    def treats(self) -> bool:
        """A claim that the exposure is (or is not) an effective treatment for the outcome."""
        return self.cue in ("effective treatment", "ineffective")

    @property
    def comparator(self) -> str:
        """What the claim compares its exposure with, where it names it ("… compared with placebo",
        "… versus oral cyclophosphamide"); "" otherwise."""
        named = _COMPARED_WITH.search(self.population)
        return _exposure(COMPARATOR_LEAD.sub("", named.group("arm"))) if named else ""

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


_BETWEEN_SIGN = {"positive": "positively ", "negative": "negatively ", "inverse": "inversely "}
# which of the two things "a correlation between A and B" names is the outcome: the one named as a
# risk, a disease or an event, where the other is named as a use, an intake, a level or a variant
_OUTCOME_NAMED = re.compile(
    r"\b(?:risks?|incidence|mortality|death|deaths|fractures?|diseases?|cancers?|outcomes?|symptoms?|"
    r"diabetes|prevalence|events?|survival|failure|infections?|obesity|dementia|stroke|disorders?)\b",
    re.IGNORECASE,
)
_EXPOSURE_NAMED = re.compile(
    r"\b(?:use|users?|intake|consumption|exposure|mutations?|variants?|polymorphisms?|treatment|therapy|"
    r"supplementation|levels?|smoking|drinking|diet)\b",
    re.IGNORECASE,
)


def _exposure_then_outcome(a: str, b: str) -> tuple[str, str]:
    """The exposure and the outcome of "a correlation between A and B", in the order named unless A
    is named as an outcome and B is not, or B as an exposure and A is not."""
    a_outcome, b_outcome = bool(_OUTCOME_NAMED.search(a)), bool(_OUTCOME_NAMED.search(b))
    a_exposure, b_exposure = bool(_EXPOSURE_NAMED.search(a)), bool(_EXPOSURE_NAMED.search(b))
    if (a_outcome and not b_outcome) or (b_exposure and not a_exposure):
        return b, a
    return a, b


_EVEN = re.compile(r"\b(?:equally|similarly|alike|to\s+the\s+same\s+extent)\b", re.IGNORECASE)
_NO_ROLE = {"trivial", "negligible", "little", "no", "insignificant"}
_OUTCOME_FIRST = (
    "passive",
    "comparative",
    "changes_with",
    "affected_by",
    "changed_after",
    "occurs_more",
    "no_risk",
)


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
    r"regardless|independent\s+of)\b|\s*[,;:]|\s+\(",  # "Lp(a)" keeps its bracket
    re.IGNORECASE,
)
_EXPOSURE_LEAD = re.compile(
    r"^(?:(?:treatment|therapy|supplementation|intervention)\s+with|(?:the\s+)?use\s+of|"
    r"(?:people|patients|participants|subjects|individuals|those|women|men|children|adults)\s+"
    r"(?:treated\s+with|given|receiving|taking|on)|"
    r"administration\s+of|exposure\s+to|consumption\s+of|intake\s+of|taking)\s+",
    re.IGNORECASE,
)


@functools.cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    # a subject does not end in a function word, so a pattern seeks a later verb rather than fail ("a work
    # support intervention aimed at enhancing return-to-work increases …": not "… aimed at" enhancing)
    subject_end = "(?-i:" + "".join(rf"(?<!\s{re.escape(w)})" for w in sorted(NOT_SUBJECT_END)) + ")"
    return [
        (name, re.compile(rx.replace("^(?P<x>.+?)", "^(?P<x>.+?)" + subject_end, 1), re.IGNORECASE))
        for name, rx in PATTERN_SOURCES
    ]


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
    return bool(words) and words[-1] not in NOT_SUBJECT_END and len(words) <= 25


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
        if name == "between":  # "a positive correlation between A and B": an association of A and B
            x, y = _exposure_then_outcome(groups["a"], groups["b"])
            groups["inv"] = _BETWEEN_SIGN.get(groups["inv"].strip().lower(), "")
            groups["c"], name = "", "association"
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
        if name == "association" and OWN_VERB.search(y):
            # "Side effects associated with antidepressants increase the risk of stroke": the participle
            # names the subject, the sentence's own verb comes later
            continue
        negated = bool(groups.get("neg", "").strip())
        frame = _frame(name, groups, outcome, sentence, exposure, population, negated)
        if frame is not None:
            return frame
    return ClaimFrame(text=_clean(sentence), kind="other")


class _FrameText(TypedDict):
    """The words of a claim's frame, read before its kind and direction."""

    text: str
    exposure: str
    outcome: str
    population: str


def _frame(
    name: str,
    groups: dict[str, str],
    outcome: str,
    sentence: str,
    exposure: str,
    population: str,
    negated: bool,
) -> ClaimFrame | None:
    base = _FrameText(text=sentence, exposure=exposure, outcome=outcome, population=population)
    if name in ("no_effect", "no_risk"):
        return ClaimFrame(**base, kind="effect", direction="no_effect", cue="no effect")
    if name in ("treats", "effective_at"):
        # a treatment lowers what it treats ("effective at decreasing": the gerund's way); an ineffective
        # one leaves it as it is
        effective = groups["eff"].lower() != "ineffective"
        if effective and not negated:
            if name == "treats":
                return ClaimFrame(**base, kind="effect", direction="decrease", cue="effective treatment")
            verb = groups["v"].lower()
            direction = WORDS[resolve(DIRECTION_VERBS[verb], outcome)]
            return ClaimFrame(**base, kind="effect", direction=direction, cue=verb)
        if effective != negated:  # "not ineffective": no claim either way
            return None
        return ClaimFrame(**base, kind="effect", direction="no_effect", cue="ineffective")
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
        kind: Literal["effect", "association"] = "effect" if way else "association"
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
            **(base | {"outcome": outcome, "population": groups.get("comp", "")}),
            kind="effect",
            direction=WORDS[resolve(way, outcome)],
            negated=negated,
            cue=word,
        )
    if name in ("measure_than", "occurs_more"):  # the other thing compared is the claim's comparator
        way = COMPARATIVES[groups["c"].lower()]
        group = AMONG.match(base["exposure"]) if name == "measure_than" else None
        if group:  # "the incidence of fracture among statin users is lower than among non-users"
            base |= {"exposure": group.group("who"), "outcome": f"{outcome} of {group.group('what')}"}
        return ClaimFrame(
            **(base | {"population": f"than {_clean(groups['comp'])}"}),  # the comparator: see ``comparator``
            kind="effect",
            direction=WORDS[resolve(way, outcome)],
            negated=negated,
            cue=groups["c"].lower(),
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
