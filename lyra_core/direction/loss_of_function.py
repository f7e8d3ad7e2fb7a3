"""An exposure named by its loss: "knockout of MVP", "PP2A inhibition", "silencing TLR4". A passage that
reports what happens without X reports the opposite of what X does, as a biologist reads a knockout
(docs/direction.md); the judge asks the reader about the exposure as the passage names it and turns
what it reads round. A nutrient's deficiency is not read so: a status is not a knockout
(``other_end.status_for_intervention``).
"""

from __future__ import annotations

import re

_LOSS_BEFORE = (
    r"knock(?:-?out|-?down)s?|knocked[- ](?:out|down)|deletion|depletion|silencing|ablation|loss|lack|"
    r"absence|inhibition|blockade|inactivation|disruption|inhibiting|blocking|silencing|depleting|deleting|"
    r"knocking[- ](?:out|down)"
)
_LOSS_AFTER = (
    r"knock-?outs?|knock-?downs?|null|deleted|depleted|silenced|inhibition|blockade|inactivation|deficient"
)
_GAIN = r"over-?expression|over-?expressing|up-?regulation|activation|induction|gain"
# words that already make the claim's exposure a loss or a gain: it is read as it is
_CLAIM_LOSS = re.compile(
    rf"\b(?:{_LOSS_BEFORE}|{_LOSS_AFTER}|inhibitors?|antagonists?|blockers?|deficiency|"
    rf"{_GAIN}|agonists?)\b|-/-|−/−",
    re.IGNORECASE,
)


def _names(exposure: str) -> list[str]:
    """The names a passage may call the exposure by: its phrase without a bracketed short form, and that
    short form ("major vault protein (MVP)": both)."""
    short = re.findall(r"\(([A-Za-z][\w-]{1,15})\)", exposure)
    long = re.sub(r"\s*\([^)]*\)", "", exposure).strip()
    return [n for n in [long, *short] if len(n) >= 2]


def named_as_lost(exposure: str, passage: str) -> str | None:
    """The loss of ``exposure`` as ``passage`` names it ("knockout of MVP"), where the passage speaks of
    the exposure's loss and not of its gain; None otherwise, or where the claim's exposure is itself
    a loss or a gain ("PP2A inhibitors")."""
    if _CLAIM_LOSS.search(exposure):
        return None
    for name in _names(exposure):
        x = re.escape(name)
        gain = re.search(
            rf"\b(?:{_GAIN})\s+of\s+(?:the\s+)?{x}\b|\b{x}[- ](?:{_GAIN})\b", passage, re.IGNORECASE
        )
        if gain:
            return None  # both ends named: read as it is
        loss = re.search(
            rf"\b(?:{_LOSS_BEFORE})\s+(?:of\s+)?(?:the\s+)?{x}(?![\w-])", passage, re.IGNORECASE
        ) or re.search(rf"(?<![\w-]){x}(?:[- ](?:{_LOSS_AFTER})\b|\s*[-−]/[-−])", passage, re.IGNORECASE)
        if loss and not named_as_comparator(passage, loss.start()):
            return loss.group(0)
    return None


# the words before an arm named as what the exposure is compared with ("17% lower than it would have been
# in the absence of ART", "compared with persistent heavy smokers"): the passage speaks of the exposure itself
_AS_COMPARATOR = re.compile(
    r"\b(?:than|compared\s+(?:with|to)|relative\s+to|versus|vs\.?)\b[^.;]{0,45}$", re.IGNORECASE
)


def named_as_comparator(passage: str, start: int) -> bool:
    """Whether the words at ``start`` name the arm the exposure was compared with ("than …", "compared with
    …", "versus …" before them, within the clause)."""
    return _AS_COMPARATOR.search(passage[max(0, start - 60) : start]) is not None
