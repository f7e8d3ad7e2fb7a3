"""How a judge's reason names a claim's parts, so that every reason reads as an English sentence.

A claim's exposure and outcome are cut from its own words: "Thigh-length graduated compression
stockings" (a plural, capitalised as the claim's first word) and "preventing invasive cervical
cancer" (the verb that carried the claim's direction still in front). Put into one template per
case ("reports lower … with …", "the claim says … reduces it"), they are set in lower case where
the claim only capitalised its first word, the outcome is named by its noun phrase, and the verb
agrees with the exposure ("stockings reduce it", "screening reduces it").
"""

from __future__ import annotations

import re

# the verbs that carried a claim's direction, left at the head of its outcome ("more effective in
# preventing X"): the direction already says which way X goes, so the reason names X alone
_DIRECTION_GERUND = re.compile(
    r"^(?:preventing|reducing|lowering|decreasing|increasing|raising|improving|worsening|causing|inducing|"
    r"promoting|protecting\s+against|treating|slowing|delaying)\s+(?=\S)",
    re.IGNORECASE,
)
_HEAD_ENDS = re.compile(
    r"\s(?:of|in|on|for|with|among|after|before|during|to|at|from|by|versus|vs\.?)\s", re.IGNORECASE
)
# plurals that end in s are the rule; these singular nouns end in s too
_SINGULAR_S = (
    "ss",
    "us",
    "is",
    "physics",
    "genetics",
    "omics",
    "economics",
    "ethics",
    "politics",
    "kinetics",
    "dynamics",
    "mechanics",
    "informatics",
    "ous",
    "ness",
    "plus",
    "gas",
    "news",
    "mumps",
    "diabetes",
    "herpes",
    "rabies",
    "measles",
    "scabies",
    "series",
    "species",
    "caries",
    "rickets",
)


def in_sentence(phrase: str) -> str:
    """``phrase`` as it reads inside a sentence: its first letter in lower case when only the claim's
    sentence start capitalised it ("Crime" → "crime"), kept where the word is a name or an acronym
    ("HPV-based screening", "PD-1", "Alzheimer's disease")."""
    phrase = " ".join(phrase.split())
    first = phrase.split(" ", 1)[0] if phrase else ""
    if len(first) > 1 and first[0].isupper() and first[1:].islower() and "'" not in first:
        return phrase[0].lower() + phrase[1:]
    return phrase


def outcome_noun(outcome: str) -> str:
    """The outcome by its noun phrase: "preventing invasive cervical cancer" → "invasive cervical
    cancer" (the claim's direction already says which way it goes)."""
    stripped = _DIRECTION_GERUND.sub("", " ".join(outcome.split()))
    return in_sentence(stripped or outcome)


_TRAILING_ABBREVIATION = re.compile(r"\s*\([^()]*\)\s*$")


def is_plural(phrase: str) -> bool:
    """Whether a noun phrase names several things, by its head noun (the last word before "of",
    "in", "after" …): "graduated compression stockings", "statins", "omega-3 fatty acids"; not
    "HPV-based screening", "400 mg of vitamin E", "diabetes"."""
    phrase = _TRAILING_ABBREVIATION.sub("", phrase)  # "compression stockings (GCS)": the head is before it
    head = _HEAD_ENDS.split(f" {' '.join(phrase.split())} ", maxsplit=1)[0].split()
    written = head[-1].strip(".,;:()") if head else ""
    word = written.lower()
    if len(written) > 2 and written[:-1].isupper():  # "NSAIDs" are several; "AIDS" is one thing
        return written[-1] == "s"
    if len(word) <= 3 or not word.endswith("s") or word.endswith(_SINGULAR_S):
        return False
    return word[-2].isalpha()


def agree(subject: str, singular: str, plural: str) -> str:
    """``subject`` and the form of the verb that agrees with it: "stockings reduce", "screening reduces"."""
    return f"{in_sentence(subject)} {plural if is_plural(subject) else singular}"
