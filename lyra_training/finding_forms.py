"""Findings written the way abstracts state them, generated with their true direction, so that the
label model learns to read numbers and forms the annotated sets hold too few of (docs/selector.md).

A topic (intervention I, comparator C, outcome O, taken from an Evidence Inference prompt) and a
drawn truth (I raises O, lowers it, or no difference) give one result sentence in one of the forms:
a ratio (OR, RR, HR, IRR, named in words or by its abbreviation) with a 95 % interval on either side
of 1 or across it; events per arm ("a of n … and b of m", "a (x%) … versus b (y%)", arms named first
or last) with the p of Fisher's exact test computed from the counts; means per arm with p; and
sentences that report no comparison at all (aims, baseline balance, enrolment) as NEUTRAL. Each
sentence meets claims about the topic: "I increases / reduces / has no effect on O compared with C",
the comparator swapped into the subject ("C reduces O compared with I" is borne out where I raises
O), and the comparator left unnamed; the label is what the truth makes of the claim.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import BaseModel
from scipy.stats import fisher_exact

Truth = Literal["increased", "decreased", "no_difference"]
ClaimDirection = Literal["increase", "decrease", "no_effect"]
_RATIOS = (
    ("odds ratio", "OR"),
    ("relative risk", "RR"),
    ("risk ratio", "RR"),
    ("hazard ratio", "HR"),
    ("incidence rate ratio", "IRR"),
)
_VERB = {"increase": "increases", "decrease": "reduces", "no_effect": "has no effect on"}


class Topic(BaseModel):
    intervention: str
    comparator: str
    outcome: str


class GeneratedPair(BaseModel):
    passage: str
    claim: str
    label: Literal["SUPPORTS", "REFUTES", "NEUTRAL"]
    form: str
    truth: str
    topic: Topic


def _interval(rng: random.Random, truth: Truth) -> tuple[float, float, float]:
    """A ratio and its 95 % interval: wholly above 1 (raised), below 1 (lowered) or across 1."""
    if truth == "no_difference":
        value = rng.uniform(0.8, 1.25)
        low, high = value * rng.uniform(0.55, 0.9), value * rng.uniform(1.12, 1.8)
        low, high = min(low, 0.97), max(high, 1.03)
    else:
        value = rng.uniform(1.3, 3.5)
        low, high = rng.uniform(1.05, value * 0.92), value * rng.uniform(1.15, 2.2)
        if truth == "decreased":
            value, low, high = 1 / value, 1 / high, 1 / low
    return round(value, 2), round(low, 2), round(high, 2)


def ratio_sentence(rng: random.Random, t: Topic, truth: Truth) -> str:
    value, low, high = _interval(rng, truth)
    name, short = rng.choice(_RATIOS)
    dash = rng.choice([" to ", "–", "-", ", "])
    ci = (
        f"95% CI {low}{dash}{high}"
        if rng.random() < 0.5
        else f"95% confidence interval [CI], {low}{dash}{high}"
    )
    form = rng.randrange(4)
    if form == 0:
        return f"The {name} for {t.outcome} with {t.intervention} versus {t.comparator} was {value} ({ci})."
    if form == 1:
        return f"{t.intervention} was associated with {t.outcome} ({short} {value}; {ci}) compared with {t.comparator}."
    if form == 2:
        return (
            f"Compared with {t.comparator}, {t.intervention} had an {name} of {value} for {t.outcome} ({ci})."
        )
    return (
        f"{t.outcome.capitalize()}: {short} = {value} ({ci}) for {t.intervention} relative to {t.comparator}."
    )


def _counts(rng: random.Random, truth: Truth) -> tuple[int, int, int, int, float]:
    """Events a of n (intervention) and b of m (comparator) whose Fisher p agrees with the truth."""
    for _ in range(200):
        n, m = rng.randint(40, 400), rng.randint(40, 400)
        base = rng.uniform(0.08, 0.5)
        if truth == "no_difference":
            p_i, p_c = base, base * rng.uniform(0.9, 1.1)
        else:
            ratio = rng.uniform(1.6, 3.0)
            p_i, p_c = (
                (min(base * ratio, 0.95), base) if truth == "increased" else (base, min(base * ratio, 0.95))
            )
        a, b = max(round(n * p_i), 1), max(round(m * p_c), 1)
        p = float(fisher_exact([[a, n - a], [b, m - b]])[1])
        if (p < 0.05) == (truth != "no_difference"):
            return a, n, b, m, p
    raise ValueError("no counts drawn for the truth")  # never seen: 200 draws always find one


def _p(p: float) -> str:
    return "P < 0.001" if p < 0.001 else f"P = {p:.3f}" if p < 0.1 else f"P = {p:.2f}"


def counts_sentence(rng: random.Random, t: Topic, truth: Truth) -> str:
    a, n, b, m, p = _counts(rng, truth)
    x, y = round(100 * a / n, 1), round(100 * b / m, 1)
    form = rng.randrange(4)
    if form == 0:
        return (
            f"{t.outcome.capitalize()} occurred in {a} of {n} patients receiving {t.intervention} "
            f"and {b} of {m} receiving {t.comparator} ({_p(p)})."
        )
    if form == 1:
        return (
            f"{a} ({x}%) patients assigned to {t.intervention} and {b} ({y}%) patients receiving "
            f"{t.comparator} had {t.outcome} ({_p(p)})."
        )
    if form == 2:
        return (
            f"{t.outcome.capitalize()} was reported in {y}% ({b}/{m}) of the {t.comparator} group "
            f"versus {x}% ({a}/{n}) of the {t.intervention} group ({_p(p)})."
        )
    return (
        f"In the {t.intervention} group, {a}/{n} ({x}%) had {t.outcome}, "
        f"compared with {b}/{m} ({y}%) in the {t.comparator} group; {_p(p)}."
    )


def means_sentence(rng: random.Random, t: Topic, truth: Truth) -> str:
    mean = rng.uniform(5, 120)
    sd = mean * rng.uniform(0.1, 0.3)
    shift = 0.0 if truth == "no_difference" else mean * rng.uniform(0.15, 0.4)
    x = mean + (
        shift if truth == "increased" else -shift if truth == "decreased" else rng.uniform(-0.03, 0.03) * mean
    )
    p = rng.uniform(0.0001, 0.04) if truth != "no_difference" else rng.uniform(0.12, 0.9)
    x, mean, sd = round(x, 1), round(mean, 1), round(sd, 1)
    if rng.random() < 0.5:
        return f"Mean {t.outcome} was {x} ± {sd} with {t.intervention} and {mean} ± {sd} with {t.comparator} ({_p(p)})."
    return (
        f"{t.outcome.capitalize()} averaged {mean} (SD {sd}) in the {t.comparator} arm "
        f"and {x} (SD {sd}) in the {t.intervention} arm ({_p(p)})."
    )


def neutral_sentence(rng: random.Random, t: Topic) -> str:
    return rng.choice(
        [
            f"This trial aimed to assess the effect of {t.intervention} on {t.outcome} compared with {t.comparator}.",
            f"We hypothesised that {t.intervention} would improve {t.outcome}.",
            f"Baseline characteristics, including {t.outcome}, were similar in the {t.intervention} "
            f"and {t.comparator} groups.",
            f"A total of {rng.randint(60, 900)} patients were randomly assigned to {t.intervention} or {t.comparator}.",
            f"The primary outcome was {t.outcome}, assessed at {rng.choice([6, 12, 24, 52])} weeks.",
        ]
    )


def claim_label(direction: ClaimDirection, truth: Truth, swapped: bool) -> str:
    """What the truth (read from I against C) makes of a claim; a swapped claim reads C against I."""
    if swapped and truth != "no_difference":
        truth = "decreased" if truth == "increased" else "increased"
    wanted = {"increase": "increased", "decrease": "decreased", "no_effect": "no_difference"}[direction]
    return "SUPPORTS" if wanted == truth else "REFUTES"


def claim_of(t: Topic, direction: ClaimDirection, swapped: bool, comparator_named: bool) -> str:
    subject, other = (t.comparator, t.intervention) if swapped else (t.intervention, t.comparator)
    tail = f" compared with {other}" if comparator_named else ""
    return f"{subject} {_VERB[direction]} {t.outcome}{tail}."


def claim_direction(rng: random.Random, truth: str, supported: float = 0.45) -> ClaimDirection:
    """A claim's direction: the one the truth bears out at ``supported``, else one of the others (a
    claim drawn evenly would be refuted two times in three)."""
    found = {"increased": "increase", "decreased": "decrease", "no_difference": "no_effect"}[truth]
    if rng.random() < supported:
        return found
    return rng.choice([d for d in ("increase", "decrease", "no_effect") if d != found])


def generated_pairs(
    topics: list[Topic], per_topic: int = 2, seed: int = 13, neutral_rate: float = 0.5
) -> list[GeneratedPair]:
    """``per_topic`` result sentences per topic, each against one claim, and at ``neutral_rate`` a
    sentence that compares nothing against one."""
    rng = random.Random(seed)
    writers = {"ratio": ratio_sentence, "counts": counts_sentence, "means": means_sentence}
    pairs = []
    for t in topics:
        for _ in range(per_topic):
            form = rng.choice(sorted(writers))
            truth: Truth = rng.choice(["increased", "decreased", "no_difference"])
            direction = claim_direction(rng, truth)
            swapped = rng.random() < 0.3
            named = swapped or rng.random() < 0.7  # a swapped claim must name the other arm
            pairs.append(
                GeneratedPair(
                    passage=writers[form](rng, t, truth),
                    claim=claim_of(t, direction, swapped, named),
                    label=claim_label(direction, truth, swapped),
                    form=f"{form}{' swapped' if swapped else ''}",
                    truth=truth,
                    topic=t,
                )
            )
        if rng.random() >= neutral_rate:
            continue
        direction = rng.choice(["increase", "decrease", "no_effect"])
        pairs.append(
            GeneratedPair(
                passage=neutral_sentence(rng, t),
                claim=claim_of(t, direction, False, True),
                label="NEUTRAL",
                form="no comparison",
                truth="",
                topic=t,
            )
        )
    return pairs
