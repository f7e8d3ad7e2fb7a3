"""Section labels of structured abstracts: finding them, taking them out of the text, keeping them aside.

PubMed-style abstracts run their labels into the prose: "… was measured. CONCLUSIONS AND RELEVANCE In
this genome-wide investigation …", "MAIN OUTCOMES AND MEASURES Colorectal cancer. RESULTS Regular use
…". A label is a run of capitalised label words ("DESIGN, SETTING, AND PARTICIPANTS",
"METHODOLOGY/PRINCIPAL FINDINGS", "MAIN OUTCOME MEASURE(S)", "ABSTRACT.METHODS:"), or a common
heading in title case with a colon ("Results:"). Acronyms that open a sentence ("DNA methylation …",
"VEGF regulates …") are no label: only the words below make one.

``labelled_sentences`` splits a text into sentences, each without its label and with the label of the
section it stands in; the label says whether a sentence is a finding (RESULTS, CONCLUSIONS …) or
background, aims or methods (``label_role``).
"""

from __future__ import annotations

import re
from typing import Literal

from lyra_core.sentences import split_sentences

# Words that head a section on their own.
_HEADS = {
    "BACKGROUND",
    "INTRODUCTION",
    "CONTEXT",
    "RATIONALE",
    "IMPORTANCE",
    "OBJECTIVE",
    "OBJECTIVES",
    "AIM",
    "AIMS",
    "PURPOSE",
    "PURPOSES",
    "GOAL",
    "GOALS",
    "METHOD",
    "METHODS",
    "METHODOLOGY",
    "DESIGN",
    "SETTING",
    "SETTINGS",
    "PARTICIPANTS",
    "PATIENTS",
    "PATIENT",
    "SUBJECTS",
    "INTERVENTION",
    "INTERVENTIONS",
    "MEASUREMENTS",
    "EXPOSURE",
    "EXPOSURES",
    "RESULTS",
    "RESULT",
    "FINDINGS",
    "CONCLUSION",
    "CONCLUSIONS",
    "INTERPRETATION",
    "SIGNIFICANCE",
    "RELEVANCE",
    "IMPLICATIONS",
    "DISCUSSION",
    "SUMMARY",
    "ABSTRACT",
    "UNLABELLED",
    "UNLABELED",
    "FUNDING",
    "MOTIVATION",
    "AVAILABILITY",
    "IMPLEMENTATION",
    "CONTACT",
    "LIMITATIONS",
    "HYPOTHESIS",
}
# Words that make a label only beside others ("MAIN OUTCOME MEASURES", "TRIAL REGISTRATION", "KEY POINTS").
_PARTS = {
    "MAIN",
    "PRIMARY",
    "SECONDARY",
    "OUTCOME",
    "OUTCOMES",
    "MEASURE",
    "MEASURES",
    "KEY",
    "POINTS",
    "STUDY",
    "TRIAL",
    "TRIALS",
    "REGISTRATION",
    "REGISTRY",
    "NUMBER",
    "DATA",
    "SOURCES",
    "SOURCE",
    "SELECTION",
    "EXTRACTION",
    "SYNTHESIS",
    "COLLECTION",
    "ANALYSIS",
    "ANALYSES",
    "SEARCH",
    "STRATEGY",
    "CRITERIA",
    "ELIGIBILITY",
    "MATERIALS",
    "MATERIAL",
    "EXPERIMENTAL",
    "RESEARCH",
    "PRINCIPAL",
    "RECENT",
    "REVIEW",
    "LAY",
    "STATEMENT",
    "SUPPLEMENTARY",
    "INFORMATION",
    "GENERAL",
    "ENHANCED",
    "VERSION",
    "CLINICAL",
    "QUESTION",
    "POPULATION",
    "SAMPLE",
    "APPRAISAL",
    "SIZE",
    "DURATION",
    "CASE",
    "PRESENTATION",
    "OUTLINE",
    "SCOPE",
    "COMPETING",
    "INTEREST",
    "INTERESTS",
    "MEASURED",
    "HYPOTHESES",
    "MESSAGES",
    "STATEMENTS",
}
_JOINERS = {"AND", "OF", "THE"}
_WORDS = sorted(_HEADS | _PARTS | _JOINERS, key=len, reverse=True)
_WORD = r"(?:{})(?:\(S\))?(?![A-Za-z0-9-])".format("|".join(_WORDS))
# A run of label words joined by spaces, commas, slashes or '&', ending at a colon, a full stop or the prose.
_RUN = re.compile(rf"(?:ABSTRACT\.)?(?P<run>{_WORD}(?:(?:(?:\s*[,/&]\s*)+|\s+){_WORD})*)(?:\s*[:.]\s*|\s+|$)")
_TITLE_HEADS = (
    "Background",
    "Introduction",
    "Objectives",
    "Objective",
    "Aims",
    "Aim",
    "Purpose",
    "Methods",
    "Method",
    "Materials and methods",
    "Design",
    "Setting",
    "Participants",
    "Patients",
    "Results",
    "Findings",
    "Conclusions",
    "Conclusion",
    "Interpretation",
)
# A title-case heading counts with a colon ("Results: …"); the commonest five also before a capital.
_TITLE = re.compile(
    r"(?P<run>{})\s*:\s*|(?P<bare>Background|Objectives?|Methods|Results|Conclusions?)\s+(?=[A-Z][a-z])".format(
        "|".join(_TITLE_HEADS)
    )
)
# Where a label may start inside a sentence that did not end with a full stop ("… thrombosis RESULTS Among").
_INNER = re.compile(
    r"(?<=[a-z0-9%)\]]) (?=(?:{})(?![A-Za-z0-9-]))".format(
        "|".join(sorted(_HEADS | _PARTS, key=len, reverse=True))
    )
)

_FINDING_WORDS = {"RESULTS", "RESULT", "FINDINGS", "CONCLUSION", "CONCLUSIONS", "INTERPRETATION", "RELEVANCE"}
_NEUTRAL_WORDS = {
    "SUMMARY",
    "ABSTRACT",
    "UNLABELLED",
    "UNLABELED",
    "SIGNIFICANCE",
    "IMPLICATIONS",
    "DISCUSSION",
    "KEY",
    "POINTS",
    "STATEMENT",
    "LAY",
}
Role = Literal["finding", "other"]


def _label_words(label: str) -> set[str]:
    return set(re.findall(r"[A-Z]+", label.upper())) - _JOINERS - {"S"}


def _is_label(run: str) -> bool:
    """A run names a section when it holds a heading word, or at least two label words."""
    words = [w for w in re.findall(r"[A-Z]+", run) if w != "S"]
    content = [w for w in words if w not in _JOINERS]
    return bool(content) and (any(w in _HEADS for w in content) or len(content) >= 2)


def split_label(sentence: str) -> tuple[str, str | None]:
    """The sentence without the section label it opens with, and the label (lower case, single-spaced).

    ``"CONCLUSIONS AND RELEVANCE In this study …"`` → ``("In this study …", "conclusions and relevance")``;
    a label's tail (``"AND RELEVANCE In …"``) goes too; ``"DNA methylation …"`` is left as it is.
    """
    text = sentence.lstrip()
    match = _RUN.match(text)
    if match and _is_label(match.group("run")):
        rest = text[match.end() :]
        # a run that swallowed the first word of the prose ("RESULTS A total of …"): give it back
        run = match.group("run").strip(" ,/&")
        return rest.strip(), " ".join(run.lower().replace("abstract.", "").split()) or None
    title = _TITLE.match(text)
    if title:
        return text[title.end() :].strip(), (title.group("run") or title.group("bare")).lower()
    return sentence, None


def label_role(label: str | None) -> Role | None:
    """``finding`` for RESULTS, FINDINGS, CONCLUSIONS, INTERPRETATION (and their kin), ``other`` for
    background, aims, methods, setting, funding …; None for no label, a neutral one (SUMMARY) or one
    that mixes both ("METHODS AND RESULTS")."""
    if not label:
        return None
    words = _label_words(label)
    finding = bool(words & _FINDING_WORDS)
    other = bool(words - _FINDING_WORDS - _NEUTRAL_WORDS - {"MAIN", "PRINCIPAL", "RECENT", "GENERAL"})
    if finding and other:
        return None
    return "finding" if finding else "other" if other else None


def _pieces(sentence: str) -> list[str]:
    """The sentence cut where a label starts inside it: a run of label words followed by prose that
    opens with a capital or a digit ("of AIM in cells" is no cut)."""
    cuts = [0]
    for match in _INNER.finditer(sentence):
        rest = sentence[match.end() :]
        body, label = split_label(rest)
        if label is not None and body[:1].isupper() | body[:1].isdigit() and len(label) >= 4:
            cuts.append(match.end())
    return [sentence[a:b].strip() for a, b in zip(cuts, [*cuts[1:], len(sentence)], strict=True)]


def labelled_sentences(text: str) -> list[tuple[str, str | None]]:
    """The sentences of ``text`` without section labels, each with the label of its section (the
    last label seen; None before the first). No prose is dropped: a sentence that is only a label
    ("RESULTS.") sets the section and yields nothing."""
    out: list[tuple[str, str | None]] = []
    section: str | None = None
    for sentence in split_sentences(text):
        for piece in _pieces(sentence):
            body, label = split_label(piece)
            while label is not None:  # "ABSTRACT BACKGROUND: …"
                section = label
                body, label = split_label(body)
            if body:
                out.append((body, section))
    return out


def strip_labels(text: str) -> str:
    """``text`` with every section label taken out, the prose kept word for word."""
    return " ".join(body for body, _ in labelled_sentences(text))
