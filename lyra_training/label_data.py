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

from lyra_training.finding_forms import Topic, claim_direction, claim_label, claim_of, generated_pairs
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


def topic_of(q: EvidenceQuery) -> Topic:
    return Topic(intervention=q.intervention, comparator=q.comparator, outcome=q.outcome)


def finding_pairs(
    queries: list[EvidenceQuery], claims_per_finding: int = 2, seed: int = 13, neutral_rate: float = 0.6
) -> list[NliPair]:
    """Each finding's evidence against ``claims_per_finding`` claims about it, and at ``neutral_rate``
    a NEUTRAL pair (the claim against another trial's finding or its own abstract's opening)."""
    rng = random.Random(seed)
    findings = [q for q in queries if q.intervention and q.label in _TRUTH]
    pairs = []
    for q in findings:
        chosen = list(q.gold[:2])
        others = [i for i in range(len(q.sentences)) if i not in q.gold]
        if others and len(chosen) == 1 and rng.random() < 0.5:
            chosen.append(rng.choice(others))
        premise = evidence_text(q.sentences, chosen)
        topic = topic_of(q)
        for _ in range(claims_per_finding):
            direction = claim_direction(rng, _TRUTH[q.label])
            swapped = rng.random() < 0.25
            named = swapped or rng.random() < 0.7
            label = claim_label(direction, _TRUTH[q.label], swapped)
            pairs.append(
                NliPair(
                    premise=premise,
                    hypothesis=claim_of(topic, direction, swapped, named),
                    label=RELATION_TO_NLI[label],
                )
            )
        if rng.random() >= neutral_rate:
            continue
        claim = claim_of(topic, rng.choice(["increase", "decrease", "no_effect"]), False, rng.random() < 0.7)
        if rng.random() < 0.5:
            other = rng.choice(findings)
            if other.article != q.article:
                pairs.append(
                    NliPair(
                        premise=evidence_text(other.sentences, other.gold[:2]),
                        hypothesis=claim,
                        label="neutral",
                    )
                )
        elif 0 not in q.gold:
            pairs.append(NliPair(premise=q.sentences[0], hypothesis=claim, label="neutral"))
    return pairs


def check_covid_pairs(queries: list[EvidenceQuery]) -> list[NliPair]:
    return [
        NliPair(
            premise=evidence_text(q.sentences, q.gold[:3]), hypothesis=q.query, label=_CHECK_COVID[q.label]
        )
        for q in queries
        if q.label in _CHECK_COVID
    ]


def form_pairs(queries: list[EvidenceQuery], per_topic: int = 2, seed: int = 13) -> list[NliPair]:
    """Generated result sentences on the topics of ``queries`` (one topic per prompt)."""
    topics = {(q.intervention, q.comparator, q.outcome): topic_of(q) for q in queries if q.intervention}
    return [
        NliPair(premise=p.passage, hypothesis=p.claim, label=RELATION_TO_NLI[p.label])
        for p in generated_pairs(list(topics.values()), per_topic, seed)
    ]
