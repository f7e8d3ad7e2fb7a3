"""What a study adjusted for is not what it examined: "odds ratios … adjusted for body mass index,
smoking, aspirin use and dietary intakes" names aspirin as a covariate of a study of vitamin D, and a
finding of that study says nothing about aspirin. The relevance gate
(``lyra_core.direction.relevance``) looks for a claim's exposure in a text with such lists taken out
(``without_covariates``).

A list runs from "adjusted / adjusting / controlled / controlling for" (or "adjustment for") to the end of
its sentence or bracket, and stops before a part that holds a verb ("adjusted for age and sex, IMT in
adulthood was associated with …": the list is "age and sex"). A list that opens its sentence ("After
adjusting for weight, later age at menarche … were associated with …") ends at its first comma: the
main clause follows it.
"""

from __future__ import annotations

import re

_ADJUSTED_FOR = re.compile(
    r"\b(?:adjust(?:ed|ing)|adjustments?|control(?:led|ling)|accounting)\s+(?:for|by)\b", re.IGNORECASE
)
# where a list ends at the latest: its sentence or its bracket
_LIST_END = re.compile(r"[.;:)\]]\s|[.;:)\]]$|$")
# a part of a list that holds one of these is the sentence's main clause, not an item
_VERB = re.compile(
    r"\b(?:was|were|is|are|had|has|have|remained|showed|shown|did|does|do|increased|decreased|reduced|"
    r"improved|associated|correlated|predicted|resulted|led|found|observed|lowered|raised)\b",
    re.IGNORECASE,
)
# words that may stand before a list that opens its sentence ("After adjusting for …", "When controlling for …")
_OPENERS = {"after", "with", "when", "following", "upon", "on", "further", "also", "even"}


def _opens_sentence(text: str, start: int) -> bool:
    before = re.split(r"[.;:!?]\s", text[:start])[-1]
    words = re.findall(r"[A-Za-z]+", before)
    return all(w.lower() in _OPENERS for w in words)


def _list_end(text: str, start: int, opening: bool) -> int:
    found = _LIST_END.search(text, start)
    end = found.start() if found else len(text)  # the pattern's "$" always matches
    if opening:
        comma = text.find(",", start, end)
        return comma if comma >= 0 else end
    position = start
    for part in text[start:end].split(","):
        if _VERB.search(part):
            return position - 1 if position > start else start
        position += len(part) + 1
    return end


def without_covariates(text: str) -> str:
    """``text`` with every list of what a study adjusted for taken out (the words "adjusted for" stay)."""
    out, kept = [], 0
    for match in _ADJUSTED_FOR.finditer(text):
        if match.start() < kept:
            continue  # inside a list already taken out
        end = _list_end(text, match.end(), _opens_sentence(text, match.start()))
        out.append(text[kept : match.end()])
        kept = max(end, match.end())
    out.append(text[kept:])
    return "".join(out)
