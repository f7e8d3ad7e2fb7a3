"""Counterfactual pairs for the claim verifier: a claim/evidence pair with the direction of the
effect turned around and the label flipped, so the verifier learns to read which way an effect goes
rather than how many words the claim and the evidence share.

From an entailment or contradiction pair, each rewrite is made only where the text states exactly
one direction (one word of :mod:`lyra_core.direction.lexicon`, or one ratio) and no negation, so the
flipped label is right:

- ``counterfactual_claim``: the claim's direction word swapped ("reduces" → "increases");
- ``counterfactual_premise``: the premise's direction word swapped (a ratio beside it inverted too);
- ``counterfactual_ratio``: the premise's one ratio and its CI inverted, where it has no direction
  word ("OR 0.69 (95% CI 0.64-0.74)" → "OR 1.45 (95% CI 1.35-1.56)");
- ``counterfactual_negated``: the claim's direction verb negated ("reduces" → "does not reduce").
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from lyra_core.direction.lexicon import (
    CHANGE_NOUNS,
    CHANGE_VERBS,
    COMPARATIVES,
    DIRECTION_VERBS,
    DOWN,
    NULL_FINDING,
    UP,
)
from lyra_training.nli_data import NliPair
from lyra_training.verifier_data import FLIP, TrainingPair

_WAY = {**DIRECTION_VERBS, **CHANGE_VERBS, **COMPARATIVES, **CHANGE_NOUNS}


def _verb_forms(base: str) -> list[str]:
    """Base, -s, -ed and -ing forms of a regular verb ("reduce" → reduces, reduced, reducing)."""
    s = base + ("es" if base.endswith(("s", "sh", "ch", "x", "z")) else "s")
    ed, ing = (
        base + ("d" if base.endswith("e") else "ed"),
        (base[:-1] if base.endswith("e") else base) + "ing",
    )
    if base.endswith("y") and base[-2] not in "aeiou":
        s, ed = base[:-1] + "ies", base[:-1] + "ied"
    return [base, s, ed, ing]


# Opposites by base verb (every form follows) and by whole word; a comparative's opposite wins over
# the verb's ("lower risk" → "higher risk"). Only pairs the lexicon reads as up ↔ down are kept.
_VERB_OPPOSITES = (
    "increase:decrease decrease:increase reduce:increase raise:lower elevate:lower enhance:diminish "
    "diminish:enhance promote:inhibit activate:inhibit inhibit:promote stimulate:suppress "
    "suppress:stimulate upregulate:downregulate downregulate:upregulate up-regulate:down-regulate "
    "down-regulate:up-regulate accelerate:slow slow:accelerate prolong:shorten shorten:prolong "
    "lengthen:shorten amplify:attenuate attenuate:amplify lower:raise"
)
_WORD_OPPOSITES = (
    "higher:lower lower:higher greater:smaller larger:smaller smaller:larger more:less less:more "
    "fewer:more longer:shorter shorter:longer elevated:reduced reduction:increase "
    "reductions:increases rise:fall rises:falls fall:rise falls:rises decline:rise declines:rises "
    "drop:rise drops:rises gain:loss gains:losses loss:gain losses:gains elevation:reduction "
    "upregulation:downregulation downregulation:upregulation up-regulation:down-regulation "
    "down-regulation:up-regulation fell:rose rose:fell falling:rising rising:falling "
    "declined:rose declining:rising dropped:rose dropping:rising"
)
_OPPOSITE = {
    form: other
    for pair in _VERB_OPPOSITES.split()
    for form, other in zip(_verb_forms(pair.split(":")[0]), _verb_forms(pair.split(":")[1]), strict=True)
}
_OPPOSITE.update(pair.split(":") for pair in _WORD_OPPOSITES.split())
_OPPOSITE = {w: o for w, o in _OPPOSITE.items() if {_WAY.get(w), _WAY.get(o)} == {UP, DOWN}}
# Direction verbs by form, for "does not": form → (base, "s" | "ed" | "base").
_VERB_FORM = {
    form: (base, kind)
    for base in DIRECTION_VERBS
    if base != "cut" and _verb_forms(base)[1] in DIRECTION_VERBS
    for form, kind in zip(_verb_forms(base)[:3], ("base", "s", "ed"), strict=True)
    if form in DIRECTION_VERBS
}

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")  # "caspase-1-activating" is one word
_NEGATION = re.compile(r"\b(not|no|never|without|neither|nor|cannot|fail(s|ed)?\s+to)\b|n't\b", re.IGNORECASE)
_NUMBER = r"(\d+(?:\.\d+)?|\.\d+)"
_RATIO_NAME = re.compile(
    r"\b(a?OR|a?RR|a?HR|IRR|[Oo]dds ratio|[Rr]isk ratio|[Hh]azard ratio|[Rr]elative risk)\b"
)
_RATIO = re.compile(
    _RATIO_NAME.pattern
    + r"(\s*(?:[:=,]|of|was|were|is)?\s*)"
    + _NUMBER
    + r"(?:(\s*[,;(\[]?\s*95\s*%\s*(?:CI|confidence interval)[\s:,=]*|\s*[,;(\[]\s*CI[\s:,=]*)"
    + _NUMBER
    + r"(\s*(?:-|–|—|to)\s*)"
    + _NUMBER
    + ")?"
)
# Words after which a direction verb is no finite verb of the claim ("was reduced", "the increased").
_NOT_SUBJECT = set(
    "a an the of in on at to by for with from and or than as is are was were be been being has have "
    "had do does did can could may might will would should must also that which who".split()
)


def _direction_words(text: str) -> list[re.Match] | None:
    """Every word stating a direction ("more than 300" states none, a compound such as "LDL-lowering"
    counts through its parts); ``None`` where the text negates or states a null finding, so that
    turning a word round would not turn its meaning round."""
    if NULL_FINDING.search(text) or _NEGATION.search(text):
        return None
    found = []
    for match in _WORD.finditer(text):
        word = match.group(0).lower()
        if word in COMPARATIVES and re.match(r"\s+than\s+[\d.]", text[match.end() :]):
            continue
        if word in _WAY or any(part in _WAY for part in word.split("-")):
            found.append(match)
    return found


def _previous(match: re.Match) -> str:
    before = match.string[: match.start()].split()
    return before[-1].lower() if before else ""


def _verb_lower(match: re.Match) -> bool:
    """Whether "lower" may be the verb ("statins lower LDL"), not the comparative ("had lower LDL")."""
    previous = _previous(match)
    return (
        match.group(0).lower() == "lower"
        and bool(previous)
        and previous not in _NOT_SUBJECT
        and not previous.endswith("ly")
        and not re.match(r"\s+than\b", match.string[match.end() :])
    )


def _replace(text: str, match: re.Match, word: str) -> str:
    """``text`` with ``match`` replaced by ``word`` in its case, an "a"/"an" before it agreeing."""
    word = word.capitalize() if match.group(0)[:1].isupper() else word
    head = text[: match.start()]
    article = re.search(r"\b([Aa])n?(\s+)$", head)
    if article:
        head = (
            head[: article.start()]
            + article.group(1)
            + ("n" if word[0] in "aeiouAEIOU" else "")
            + article.group(2)
        )
    return head + word + text[match.end() :]


def _inverse(match: re.Match) -> str | None:
    """The ratio of ``match`` and its CI as reciprocals, or ``None`` where it states no direction."""
    if not match.group(7) and re.match(
        r"[^.;]{0,25}(\bCI\b|confidence interval)", match.string[match.end() :]
    ):
        return None  # a CI written in a form not read here would be left pointing the old way
    numbers = [match.group(i) for i in (3, 5, 7) if match.group(i)]
    values = [float(n) for n in numbers]
    if 0 in values or not (all(v < 1 for v in values) or all(v > 1 for v in values)):
        return None
    places = [max(2, len(n.partition(".")[2])) for n in numbers]
    inverse = [f"{1 / v:.{p}f}" for v, p in zip(values, places, strict=True)]
    if any(float(i) == 1 for i in inverse):
        return None
    text = match.group(1) + match.group(2) + inverse[0]
    return text + match.group(4) + inverse[2] + match.group(6) + inverse[1] if len(inverse) == 3 else text


def _flip(text: str) -> tuple[str, bool] | None:
    """``text`` stating the opposite direction (its one direction word swapped and/or its one ratio
    inverted) and whether a ratio was inverted, or ``None`` where that is not certain."""
    words, names = _direction_words(text), list(_RATIO_NAME.finditer(text))
    if words is None or len(words) > 1 or len(names) > 1 or not (words or names):
        return None
    if words and (words[0].group(0).lower() not in _OPPOSITE or _verb_lower(words[0])):
        return None
    out = _replace(text, words[0], _OPPOSITE[words[0].group(0).lower()]) if words else text
    if names:
        ratio = _RATIO.search(out)
        inverse = _inverse(ratio) if ratio else None
        if inverse is None:
            return None
        out = out[: ratio.start()] + inverse + out[ratio.end() :]
    return out, bool(names)


def _negated(claim: str) -> str | None:
    """The claim with its one direction verb negated ("reduced" → "did not reduce"), or ``None``."""
    words = _direction_words(claim)
    if words is None or len(words) != 1:
        return None
    match = words[0]
    word, previous, after = match.group(0).lower(), _previous(match), claim[match.end() :].split()
    if word not in _VERB_FORM or not previous[-1:].isalnum():
        return None
    base, kind = _VERB_FORM[word]
    following = after[0].lower() if after else ""
    if (
        previous in _NOT_SUBJECT
        or previous.endswith("ly")
        or following in {"in", "of", "by"}
        or (kind == "base" and word in COMPARATIVES)
    ):
        return None
    return (
        claim[: match.start()]
        + {"s": "does", "ed": "did", "base": "do"}[kind]
        + " not "
        + base
        + claim[match.end() :]
    )


def counterfactual_pairs(pairs: Sequence[NliPair], rate: float, seed: int = 13) -> list[TrainingPair]:
    """Counterfactuals (see the module docstring) of a share ``rate`` of the entailment and
    contradiction ``pairs`` that can be rewritten, each with the label flipped and the original's
    claim group. Neutral pairs are never rewritten: turning a direction round leaves them neutral.
    A premise is turned round only under a claim stating one direction: against a claim of no
    effect, or of an association, the opposite evidence would keep the label."""
    rng = random.Random(seed)
    out: list[TrainingPair] = []
    for pair in pairs:
        if pair.label not in FLIP:
            continue
        rewrites = []
        if flipped := _flip(pair.hypothesis):
            rewrites.append(("counterfactual_claim", pair.premise, flipped[0]))
        claim_words = _direction_words(pair.hypothesis)
        if claim_words is not None and len(claim_words) == 1 and (flipped := _flip(pair.premise)):
            rewrites.append(
                (
                    "counterfactual_ratio"
                    if flipped[1] and not _direction_words(pair.premise)
                    else "counterfactual_premise",
                    flipped[0],
                    pair.hypothesis,
                )
            )
        if negated := _negated(pair.hypothesis):
            rewrites.append(("counterfactual_negated", pair.premise, negated))
        if not rewrites or rng.random() >= rate:
            continue
        out += [
            TrainingPair(
                premise=premise,
                hypothesis=hypothesis,
                label=FLIP[pair.label],
                source=source,
                group=getattr(pair, "group", None),
            )
            for source, premise, hypothesis in rewrites
        ]
    return out
