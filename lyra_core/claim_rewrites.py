"""Rule-based rewrites of scientific claims, used to make verifier training pairs.

``negate`` turns a stated finding into its opposite the way SciFact's annotators wrote refuted
claims: swap a direction word (increases ↔ decreases, higher ↔ lower, …) or negate the first
auxiliary verb. It returns ``None`` when no rule applies, so a caller never trains on a claim
that was not really changed. ``templated_claim`` writes an intervention/comparator/outcome
finding (Evidence Inference prompts) as a one-sentence claim.
"""

from __future__ import annotations

import re

from lyra_core.hypothesis.words import AUXILIARY_VERBS

# Direction words and their opposites (both ways); whole words only, first occurrence only.
_ANTONYMS = {
    "increases": "decreases",
    "increased": "decreased",
    "increase": "decrease",
    "increasing": "decreasing",
    "higher": "lower",
    "more": "less",
    "greater": "smaller",
    "larger": "smaller",
    "reduces": "increases",
    "reduced": "increased",
    "reduce": "increase",
    "reducing": "increasing",
    "improves": "worsens",
    "improved": "worsened",
    "improve": "worsen",
    "enhances": "impairs",
    "enhanced": "impaired",
    "enhance": "impair",
    "promotes": "inhibits",
    "promoted": "inhibited",
    "promote": "inhibit",
    "activates": "inhibits",
    "activated": "inhibited",
    "activate": "inhibit",
    "positive": "negative",
    "positively": "negatively",
    "upregulates": "downregulates",
    "upregulated": "downregulated",
    "up-regulates": "down-regulates",
    "beneficial": "harmful",
    "protective": "harmful",
    "effective": "ineffective",
    "efficacious": "ineffective",
    "prevents": "causes",
    "lowers": "raises",
    "raises": "lowers",
    "accelerates": "slows",
    "sufficient": "insufficient",
    "required": "dispensable",
    "necessary": "dispensable",
}
_ANTONYMS.update({v: k for k, v in list(_ANTONYMS.items()) if v not in _ANTONYMS})
# "am" would take the abbreviation AM (alveolar macrophages) for a verb; findings are not stated with "shall".
_AUXILIARIES = AUXILIARY_VERBS - {"am", "shall"}
_NEGATED_AUX = re.compile(rf"\b({'|'.join(sorted(_AUXILIARIES))})(\s+not\b|n't\b)", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")
# Main verbs of findings that take "does not" when no direction word or auxiliary is there.
_FINDING_VERBS = {
    "regulates",
    "causes",
    "induces",
    "mediates",
    "correlates",
    "predicts",
    "contributes",
    "affects",
    "drives",
    "requires",
    "binds",
    "interacts",
    "modulates",
    "leads",
    "results",
    "protects",
    "suppresses",
    "triggers",
    "controls",
    "determines",
    "alters",
    "influences",
    "stimulates",
    "blocks",
    "confers",
    "encodes",
    "targets",
    "depends",
    "occurs",
    "exhibits",
    "shows",
    "plays",
    "facilitates",
    "impairs",
    "limits",
    "restores",
    "increases",
    "decreases",
    "reduces",
    "cause",
    "induce",
    "regulate",
    "mediate",
    "correlate",
    "predict",
    "contribute",
    "affect",
    "drive",
    "require",
    "bind",
    "interact",
    "modulate",
    "lead",
    "result",
    "protect",
    "occur",
    "play",
}


def _case_like(template: str, word: str) -> str:
    return word.capitalize() if template[:1].isupper() else word


def negate(claim: str) -> str | None:
    """The claim's opposite by one rule, or ``None`` where no rule applies.

    Order: remove an existing negation ("does not cause" → "does cause"), else swap the first
    direction word, else negate the first auxiliary ("is" → "is not").
    """
    cannot = re.search(r"\b([Cc])annot\b", claim)
    if cannot:
        return claim[: cannot.start()] + cannot.group(1) + "an" + claim[cannot.end() :]
    negated = _NEGATED_AUX.search(claim)
    if negated:
        return claim[: negated.start()] + negated.group(1) + claim[negated.end() :]
    for match in _WORD.finditer(claim):
        opposite = _ANTONYMS.get(match.group(0).lower())
        if opposite:
            return claim[: match.start()] + _case_like(match.group(0), opposite) + claim[match.end() :]
    for match in _WORD.finditer(claim):
        word = match.group(0)
        if match.start() > 0 and word in _FINDING_VERBS:
            return claim[: match.start()] + _does_not(word) + claim[match.end() :]
        if word.lower() in _AUXILIARIES:
            replacement = "cannot" if word.lower() == "can" else f"{word} not"
            return claim[: match.start()] + _case_like(word, replacement) + claim[match.end() :]
    return None


def _does_not(verb: str) -> str:
    """ "regulates" → "does not regulate", "bind" (plural subject) → "do not bind"."""
    if not verb.endswith("s"):
        return f"do not {verb}"
    if verb.endswith(("sses", "shes", "ches", "xes", "zes")):
        return f"does not {verb[:-2]}"
    if verb.endswith("ies"):
        return f"does not {verb[:-3]}y"
    return f"does not {verb[:-1]}"


def templated_claim(intervention: str, comparator: str, outcome: str, direction: str) -> str:
    """ "I increases O compared with C" for direction ``increased`` / ``decreased`` / ``no_difference``."""
    intervention, comparator, outcome = (
        " ".join(s.split()).rstrip(".") for s in (intervention, comparator, outcome)
    )
    if direction == "no_difference":
        return f"{intervention} does not change {outcome} compared with {comparator}."
    verb = "increases" if direction == "increased" else "decreases"
    return f"{intervention} {verb} {outcome} compared with {comparator}."
