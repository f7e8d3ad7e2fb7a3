"""What the label model learns from: a claim with the evidence sentences of one abstract → SUPPORTS,
REFUTES or NEUTRAL (docs/selector.md).

- Evidence Inference findings (v1+v2, abstract level): the annotated evidence sentence, sometimes with
  another sentence of the abstract beside it in reading order (the selector hands the label model its
  best two), against claims about the finding in each direction — "I increases / reduces / has no
  effect on O compared with C", the comparator swapped into the subject, the comparator unnamed —
  labelled by the direction the annotators found; NEUTRAL: the claim against another trial's finding,
  or against its own abstract's opening sentence.
- Check-COVID claims with their evidence sentences, as labelled (its NEI claims point to the sentence
  that falls short, the hard case).
- Generated findings in the forms abstracts state them (``finding_forms``: ratios with intervals,
  events per arm with Fisher's p, means per arm, sentences with no comparison), their topics drawn from
  the training side's prompts only.
"""

from __future__ import annotations

import random

from lyra_core.figure_notes import with_figures_note
from lyra_training.finding_forms import ClaimDirection, Topic, claim_label, claim_of, generated_pairs
from lyra_training.nli_data import NliPair
from lyra_training.selector_data import EvidenceQuery

RELATION_TO_NLI = {"SUPPORTS": "entailment", "REFUTES": "contradiction", "NEUTRAL": "neutral"}
_TRUTH = {
    "significantly increased": "increased",
    "significantly decreased": "decreased",
    "no significant difference": "no_difference",
}
_CHECK_COVID = {"SUPPORT": "entailment", "REFUTE": "contradiction", "NOTENOUGHINFO": "neutral"}


def evidence_text(sentences: list[str], chosen: list[int]) -> str:
    """The chosen sentences in the abstract's own order, as the label model reads them."""
    return " ".join(sentences[i] for i in sorted(set(chosen)))


def noted(passage: str, figures: bool) -> str:
    """The passage as the label model reads it: with the figure reader's note where ``figures``."""
    return with_figures_note(passage) if figures else passage


def topic_of(q: EvidenceQuery) -> Topic:
    return Topic(intervention=q.intervention, comparator=q.comparator, outcome=q.outcome)


_PHRASES = {
    "increase": ("increases", "raises", "leads to higher", "increased"),
    "decrease": ("reduces", "lowers", "leads to lower", "decreased"),
    "no_effect": ("has no effect on", "does not change", "does not affect", "did not change"),
}


def varied_claim(rng: random.Random, t: Topic, direction: ClaimDirection, swapped: bool, named: bool) -> str:
    """A claim about the finding in one of several wordings, so the model learns the direction a
    claim states and not one template's verbs (``claim_of`` is the bench's wording)."""
    if rng.random() < 0.5:
        return claim_of(t, direction, swapped, named)
    subject, other = (t.comparator, t.intervention) if swapped else (t.intervention, t.comparator)
    if direction != "no_effect" and rng.random() < 0.3:
        level = "higher" if direction == "increase" else "lower"
        tail = f" than {other}" if named else ""
        return f"{subject} is associated with {level} {t.outcome}{tail}."
    verb = rng.choice(_PHRASES[direction])
    tail = (
        rng.choice([f" compared with {other}", f" versus {other}", f" relative to {other}"]) if named else ""
    )
    return f"{subject} {verb} {t.outcome}{tail}."


def finding_pairs(
    queries: list[EvidenceQuery], seed: int = 13, neutral_rate: float = 0.8, figures: bool = False
) -> list[NliPair]:
    """Each finding's evidence against a claim in every direction (the same passage, labels that
    differ only by what the claim says: the model must read the claim's direction against the
    passage's), one of them with the comparator swapped into the subject; and at ``neutral_rate`` a
    NEUTRAL pair: the claim against another sentence of its own abstract that is not its finding
    (often another outcome's finding: the hard case) or against another trial's finding."""
    rng = random.Random(seed)
    findings = [q for q in queries if q.intervention and q.label in _TRUTH]
    pairs = []

    def passage(text: str, q: EvidenceQuery) -> str:
        return noted(text, figures)

    for q in findings:
        chosen = list(q.gold[:2])
        others = [i for i in range(len(q.sentences)) if i not in q.gold]
        if others and len(chosen) == 1 and rng.random() < 0.4:
            chosen.append(rng.choice(others))
        premise = passage(evidence_text(q.sentences, chosen), q)
        topic = topic_of(q)
        truth = _TRUTH[q.label]
        swapped_one = rng.choice(["increase", "decrease", "no_effect"])
        for direction in ("increase", "decrease", "no_effect"):
            swapped = direction == swapped_one and rng.random() < 0.4
            named = swapped or rng.random() < 0.75
            label = claim_label(direction, truth, swapped)
            pairs.append(
                NliPair(
                    premise=premise,
                    hypothesis=varied_claim(rng, topic, direction, swapped, named),
                    label=RELATION_TO_NLI[label],
                )
            )
        if rng.random() >= neutral_rate:
            continue
        claim = varied_claim(
            rng, topic, rng.choice(["increase", "decrease", "no_effect"]), False, rng.random() < 0.75
        )
        if others and rng.random() < 0.65:
            pairs.append(
                NliPair(
                    premise=passage(q.sentences[rng.choice(others)], q), hypothesis=claim, label="neutral"
                )
            )
        else:
            other = rng.choice(findings)
            if other.article != q.article:
                pairs.append(
                    NliPair(
                        premise=passage(evidence_text(other.sentences, other.gold[:2]), other),
                        hypothesis=claim,
                        label="neutral",
                    )
                )
    return pairs


def check_covid_pairs(queries: list[EvidenceQuery], figures: bool = False) -> list[NliPair]:
    return [
        NliPair(
            premise=noted(evidence_text(q.sentences, q.gold[:3]), figures),
            hypothesis=q.query,
            label=_CHECK_COVID[q.label],
        )
        for q in queries
        if q.label in _CHECK_COVID
    ]


def form_pairs(
    queries: list[EvidenceQuery], per_topic: int = 2, seed: int = 13, figures: bool = False
) -> list[NliPair]:
    """Generated result sentences on the topics of ``queries`` (one topic per prompt)."""
    topics = {(q.intervention, q.comparator, q.outcome): topic_of(q) for q in queries if q.intervention}
    return [
        NliPair(
            premise=noted(p.passage, figures),
            hypothesis=p.claim,
            label=RELATION_TO_NLI[p.label],
        )
        for p in generated_pairs(list(topics.values()), per_topic, seed)
    ]
