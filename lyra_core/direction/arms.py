"""Which arm a phrase of an abstract names, where the claim names what its exposure is compared with.

A trial compares two arms that often share most of their words ("80 mg of intramuscular
methylprednisolone" against "40 mg of intralesional methylprednisolone", "pain education plus
telemonitoring" against "pain education alone"); a phrase names one arm when it holds a word of that
arm the other arm does not hold, and no such word of the other arm. Short forms count ("OCP" for "oral
cyclophosphamide (OCP)", "CQ/SP"), so words are split at hyphens and slashes and kept from two letters.
docs/direction.md.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z][a-z0-9]+")
# words that name no arm: doses, schedules, the people in an arm, linking words
_NOT_AN_ARM = {
    "the",
    "and",
    "with",
    "for",
    "of",
    "in",
    "or",
    "to",
    "on",
    "at",
    "by",
    "an",
    "as",
    "its",
    "their",
    "mg",
    "kg",
    "ml",
    "mcg",
    "day",
    "days",
    "daily",
    "dose",
    "doses",
    "group",
    "groups",
    "arm",
    "arms",
    "patients",
    "patient",
    "subjects",
    "participants",
    "those",
    "who",
    "receiving",
    "received",
    "treated",
    "given",
    "plus",
    "weekly",
    "once",
    "twice",
    "times",
    "per",
    "hr",
    "week",
    "weeks",
    "month",
    "months",
    "treatment",
    "therapy",
    "intervention",
    "was",
    "were",
    "had",
    "have",
    "has",
    "be",
    "been",
}


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 4 else word


def arm_terms(text: str) -> set[str]:
    """The words of ``text`` that may tell one arm from another, lower-cased, plural -s folded."""
    return {_stem(w) for w in _TOKEN.findall(text.lower()) if w not in _NOT_AN_ARM}


def names_arm(text: str, arm: str, other_arm: str) -> bool:
    """Whether ``text`` names ``arm`` and not ``other_arm``: a word of ``arm`` that ``other_arm`` does
    not hold, and no word of ``other_arm`` that ``arm`` does not hold. False where either arm is empty."""
    if not arm.strip() or not other_arm.strip():
        return False
    own, other, named = arm_terms(arm), arm_terms(other_arm), arm_terms(text)
    return bool(named & (own - other)) and not named & (other - own)


def named_order(clause: str, arm: str, other_arm: str) -> bool | None:
    """True where ``clause`` names ``arm`` (by a word ``other_arm`` does not hold) only before it first
    names ``other_arm`` (so), False where only after, None where it names one of them or mixes them."""
    own, other = arm_terms(arm) - arm_terms(other_arm), arm_terms(other_arm) - arm_terms(arm)
    words = [_stem(m.group(0)) for m in _TOKEN.finditer(clause.lower())]
    at_own = [i for i, w in enumerate(words) if w in own]
    at_other = [i for i, w in enumerate(words) if w in other]
    if not at_own or not at_other:
        return None
    if max(at_own) < min(at_other):
        return True
    if max(at_other) < min(at_own):
        return False
    return None
