"""An outcome or exposure named in a text only as another thing of its kind: another type, stage or grade
("type 1 diabetes" for type 2), another site of the body ("kidney fibrosis" for fibrosis in the lungs), or
only as "other" ones ("colorectal, lung, or other site-specific cancers" for prostate cancer). The
relevance gate (``lyra_core.direction.relevance``) takes such a text as not about the phrase.
"""

from __future__ import annotations

import re

from lyra_core.direction.terms import concepts, specific

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")

# "type 2 diabetes", "stage III cancer": the number names which kind; another number is another thing
_KIND = re.compile(
    r"\b(type|stage|grade|class|phase)[\s-]*([0-9]+[a-c]?|i{1,3}v?|iv|vi{0,3})\b", re.IGNORECASE
)


def _kinds(text: str) -> set[tuple[str, str]]:
    return {(word.lower(), number.lower()) for word, number in _KIND.findall(text)}


def another_kind(phrase: str, text: str) -> bool:
    """Whether ``text`` names only other kinds than ``phrase`` does ("type 1 diabetes" for "type 2
    diabetes"): a passage that never names the phrase's kind but names another is about another thing."""
    wanted = _kinds(phrase)
    if not wanted:
        return False
    named = _kinds(text)
    words = {word for word, _ in wanted}
    return not (wanted & named) and any(word in words for word, _ in named)


# Sites of the body, each with the words that name it: "kidney fibrosis" is not fibrosis in the lungs,
# "colorectal cancer" not prostate cancer.
_SITES = [
    frozenset(words.split())
    for words in (
        "lung lungs pulmonary",
        "kidney kidneys renal nephropathy",
        "liver hepatic",
        "heart cardiac myocardial",
        "brain cerebral",
        "skin cutaneous dermal",
        "colon colonic colorectal rectal",
        "breast mammary",
        "prostate prostatic",
        "pancreas pancreatic",
        "stomach gastric",
        "bladder",
        "ovary ovarian",
        "cervix cervical",
        "thyroid",
        "oesophagus esophagus oesophageal esophageal",
    )
]
_SITE_WORD = re.compile(r"[a-z]+")


def _sites(text: str) -> set[int]:
    words = set(_SITE_WORD.findall(text.lower()))
    return {n for n, site in enumerate(_SITES) if words & site}


def another_site(phrase: str, text: str) -> bool:
    """Whether ``text`` names only other sites of the body than ``phrase`` does ("ameliorates kidney
    fibrosis" for fibrosis in the lungs; "colorectal cancer" for prostate cancer)."""
    wanted = _sites(phrase)
    if len(wanted) != 1:
        return False
    named = _sites(text)
    return bool(named) and not named & wanted


def named_as_other(phrase: str, text: str) -> bool:
    """Whether ``text`` names the phrase's kind of thing only as "other" ones, without the phrase's own
    qualifier: "colorectal, lung, or other site-specific cancers" is not about prostate cancer."""
    words = _TOKEN.findall(phrase.lower())
    if len(words) < 2:
        return False
    head = words[-1]
    qualifiers = specific(phrase) - specific(head)
    if not qualifiers or qualifiers & concepts(text):
        return False
    stem = re.escape(head[: max(4, len(head) - 2)])
    return re.search(rf"\bother\s+(?:[\w-]+\s+){{0,2}}?{stem}\w*", text, re.IGNORECASE) is not None
