"""Whether a direction word in a passage is said of something other than the claim's outcome: the
thing it acts on ("raising HDL-C" for a claim about heart disease) or the subject a comparative is
said of ("the 25OHD level was higher" for a claim about fractures). Used by the rule reader
(``lyra_core.direction.passage``), which then leaves the direction unread.
"""

from __future__ import annotations

import re

from lyra_core.direction.population import POPULATION
from lyra_core.direction.relevance import names_by_acronym
from lyra_core.direction.terms import concepts, named_things, specific

_OBJECT_TOKEN = re.compile(r"[A-Za-z0-9][\w+-]*|[^\sA-Za-z0-9]")
_OPENERS = {
    "the",
    "a",
    "an",
    "its",
    "their",
    "both",
    "further",
    "also",
    "only",
    "all",
    "any",
    "this",
    "these",
}
_OBJECT_ENDS = {
    "in",
    "by",
    "with",
    "among",
    "at",
    "from",
    "to",
    "for",
    "than",
    "on",
    "over",
    "under",
    "after",
    "before",
    "during",
    "compared",
    "versus",
    "vs",
    "was",
    "were",
    "is",
    "are",
    "be",
    "been",
    "and",
    "or",
    "but",
    "whereas",
    "while",
    "when",
    "as",
    "that",
    "which",
    "who",
    "whereby",
    "thereby",
    "via",
    "through",
    "without",
    "within",
    "across",
    "against",
    "into",
    "per",
}


# What a comparative says of its subject, not a thing it names: "fractures were less frequent", "more common"
_PREDICATES = frozenset(
    "frequent frequently common commonly likely prevalent often pronounced marked severe "
    "rapid widespread evident apparent effective successful favorable favourable".split()
)


def said_of_another_thing(after: str, outcome: str) -> bool:
    """Whether the direction word that ``after`` follows is said of something other than the outcome:
    its object, the noun phrase right after it, names a thing and not the outcome ("raising HDL-C and
    lowering TG" for a claim about cardiovascular disease, "reducing CPU time" for contigs). A word
    followed by a preposition, a figure or a pause ("was reduced in the X group", "reduced by 20%"),
    or by words that name nothing in particular ("reduced the risk", "lowered it"), keeps its claim
    on the outcome."""
    words: list[str] = []
    for token in _OBJECT_TOKEN.findall(after)[:16]:
        low = token.lower()
        if not words and (low in _OPENERS or (low.endswith("ly") and len(low) > 4)):
            continue  # "the", "significantly": the object starts after them
        if not token[0].isalnum() or low in _OBJECT_ENDS or (not words and token[0].isdigit()):
            break
        if not words and low in _PREDICATES:
            return False  # "less frequent with X": said of the subject before it
        words.append(token)
        if len(words) >= 6:
            break
    named = named_things(" ".join(words))
    if not named:
        return False
    return not named & (specific(outcome) | set(concepts(outcome))) and not names_by_acronym(
        outcome, " ".join(words)
    )


# "the 25OHD level was significantly higher": the subject a comparative is said of, back to a pause
_SUBJECT_OF = re.compile(
    r"(?P<subject>[^,;:.()]{1,80}?)\s+(?:was|were|is|are|remained|became)\s+(?:\w+ly\s+)?$", re.IGNORECASE
)


# what people do with an arm, not the arm itself: a comparative said of it is not said of the outcome
_CONDUCT = re.compile(
    r"^(?:the\s+|a\s+|an\s+|their\s+)?(?:compliance|adherence|uptake|acceptance|acceptability|persistence|"
    r"awareness|knowledge|willingness|intention|satisfaction|costs?)\b",
    re.IGNORECASE,
)


def subject_is_another_thing(
    before: str, outcome: str, arms: str = "", short_arms: tuple[str, ...] = ()
) -> bool:
    """Whether the comparative that ``before`` ends at is said, as a predicate, of a subject that names
    another thing than the outcome ("the 25OHD level was significantly higher in those with prior
    fragility fractures": the vitamin D level is higher, not the fracture risk). A subject that names
    people or an arm (``arms``: the exposure and the comparator) is who had more or less of the outcome
    ("children treated with X were less likely to carry gametocytes"), an arm named by its initials in
    ``short_arms`` too; what people do with an arm ("the
    compliance to VD supplementation was lower") is another thing."""
    match = _SUBJECT_OF.search(before)
    if match is None:
        return False
    subject = re.sub(
        r"^.*\b(?:among|in|for|with|of)\s+(?:these|those|the|all)?\s*\w+\s+",
        "",
        match.group("subject").strip(),
        flags=re.IGNORECASE,
    )
    named = named_things(subject)
    names_outcome = bool(named & (specific(outcome) | set(concepts(outcome)))) or names_by_acronym(
        outcome, subject
    )
    if _CONDUCT.match(subject) and not names_outcome:
        return True  # "the compliance to VD supplementation was lower": said of taking it, not of the outcome
    if not named or named & (POPULATION | set(concepts(arms))):
        return False
    if any(arm and names_by_acronym(arm, subject) for arm in short_arms):
        return False  # "interventions based on CBT" for cognitive behavioral therapy: the arm by its initials
    return not names_outcome
