"""What lowers the certainty of an answer beyond design and numbers of studies, as GRADE names it, read
from the passages that voted on the answer's side: risk of bias (a trial stopped early, a subgroup or
post hoc analysis), imprecision (few people, few events, a wide interval) and indirectness (only
children studied where the question names no such group; a narrower outcome than the question's,
such as cardiovascular mortality for mortality). Each becomes one caveat sentence of the report
(docs/outputs.md#the-report); the certainty itself is graded in lyra_core.certainty from what every
edge carries (design, size, on-topic votes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from lyra_core.certainty import SMALL_SAMPLE

STOPPED_EARLY = re.compile(
    r"\b(?:stopped|terminated|halted|discontinued)\s+(?:early|prematurely)\b|\bearly\s+(?:termination|stopping)\b",
    re.IGNORECASE,
)
SUBGROUP = re.compile(r"\bsub-?groups?\b|\bpost[- ]hoc\b", re.IGNORECASE)
# "26 postoperative bleeding episodes", "48 participants had developed 53 primary colorectal cancers"
EVENTS = re.compile(
    r"\b(\d[\d,]*)\s+(?:[a-z-]+\s+){0,3}?(?:events|episodes|deaths|cases|fractures)\b", re.IGNORECASE
)
FEW_EVENTS = 300  # GRADE's rule of thumb: fewer events than this make a dichotomous outcome imprecise
INTERVAL = re.compile(r"(\d+(?:\.\d+)?)\s*[–-]\s*(\d+(?:\.\d+)?)")
WIDE_INTERVAL = 4.0  # a ratio's interval spanning more than 4-fold is imprecise, whatever it shows
RATIO = re.compile(r"ratio|relative risk|\b(?:[OHR]R|IRR|HRR)\b", re.IGNORECASE)
CHILDREN = re.compile(
    r"\b(?:children|child|paediatric|pediatric|infants?|neonates?|newborns?|adolescents?|boys|girls)\b",
    re.IGNORECASE,
)
# words that narrow an outcome to one cause or site: "cardiovascular mortality" is not "mortality"
NARROWING = (
    "cardiovascular",
    "cardiac",
    "coronary",
    "cancer",
    "stroke",
    "vascular",
    "respiratory",
    "infection-related",
    "in-hospital",
)

GENERIC = {"the", "of", "risk", "incidence", "rate", "rates", "odds", "occurrence", "hazard", "in", "after"}


def _paper(edge: Mapping[str, Any]) -> str:
    return str(edge.get("paper") or edge.get("page_id") or "")


def _text(vote: Mapping[str, Any]) -> str:
    return " ".join(str(vote.get(k) or "") for k in ("title", "text"))


def _wide(figures: str) -> bool:
    if not RATIO.search(figures):
        return False
    ratios = [(float(lo), float(hi)) for lo, hi in INTERVAL.findall(figures)]
    return any(0 < lo and hi > WIDE_INTERVAL * lo for lo, hi in ratios)


def _narrower(outcome_words: list[str], text: str) -> str | None:
    """The narrower outcome a passage names where the question names a broad one ("cardiovascular
    mortality" for "mortality"), or None."""
    words = [w for w in outcome_words if w not in GENERIC]
    if not words:
        return None
    head = words[-1]
    for word in NARROWING:
        if word in words:
            continue
        if re.search(rf"\b{re.escape(word)}\s+{re.escape(head)}\b", text, re.IGNORECASE) and not re.search(
            rf"\b(?:all[- ]cause|overall|total)\s+{re.escape(head)}\b", text, re.IGNORECASE
        ):
            return f"{word} {head}"
    return None


def grade_caveats(
    question: str,
    outcome: str,
    votes: Iterable[Mapping[str, Any]],
    read: Iterable[Mapping[str, Any]] = (),
) -> list[str]:
    """The caveats of the votes on the answer's side (``votes``: each paper's strongest edge, with its
    passage ``text``, ``title``, ``sample_size`` and ``effect_figures``), for the question's hypothesis
    ``question`` whose outcome is ``outcome``; each one sentence, none where nothing is found. ``read``:
    every edge judged on the hypothesis, so a paper's other passages ("The trial was stopped early")
    count as its own."""
    votes = list(votes)
    if not votes:
        return []
    passages: dict[str, set[str]] = {}
    for edge in read:
        passages.setdefault(_paper(edge), set()).add(str(edge.get("text") or ""))
    texts = [" ".join([_text(v), *sorted(passages.get(_paper(v), ()))]) for v in votes]
    out = []
    if any(STOPPED_EARLY.search(t) for t in texts):
        out.append(
            "Risk of bias: a trial that voted was stopped early, and trials stopped early for benefit or harm "
            "overstate the effect."
        )
    if any(SUBGROUP.search(str(v.get("text") or "")) for v in votes):
        out.append("Risk of bias: a passage that voted reports a subgroup or post hoc analysis.")
    sizes = [int(v["sample_size"]) for v in votes if _number(v.get("sample_size"))]
    if sizes and len(sizes) == len(votes) and sum(sizes) < SMALL_SAMPLE:
        out.append(
            f"Imprecision: {sum(sizes):,} people in all on this side, fewer than the {SMALL_SAMPLE} or so an "
            "effect of moderate size needs."
        )
    events = [int(n.replace(",", "")) for t in texts for n in EVENTS.findall(t)]
    if events and max(events) < FEW_EVENTS:
        out.append(
            f"Imprecision: few events ({max(events)} at most named in the passages of the papers on this side)."
        )
    if any(_wide(str(v.get("effect_figures") or "")) for v in votes):
        out.append("Imprecision: a ratio's interval spans more than four-fold.")
    if not CHILDREN.search(question) and all(CHILDREN.search(t) for t in texts):
        out.append("Indirectness: every paper on this side studied children or adolescents only.")
    narrowed = [_narrower(outcome.lower().split(), t) for t in texts]
    if all(narrowed):
        named = ", ".join(sorted({n for n in narrowed if n}))
        out.append(f"Indirectness: the outcome reported is narrower than the question's ({named}).")
    return out


def _number(value: Any) -> bool:
    try:
        return value is not None and value == value and int(value) > 0
    except (TypeError, ValueError):
        return False
