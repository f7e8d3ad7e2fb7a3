"""The direction suite: minimal pairs of a claim and a passage whose right relation follows from the
direction each states, over many topics and phrasings.

Each case changes one thing against its neighbours: the claim's direction word (reduces / increases
/ has no effect / does not reduce), the passage's (lower / higher / no significant difference),
how the passage shows it (words, a ratio with and without its interval, two arms' rates, the
comparator's arm named as the one that changed), or what the passage is about (another outcome,
an aim instead of a finding), and for a few topics whether the passage names the claim's outcome
from its other end (deaths for survival: a lower death rate is higher survival), or the exposure
(weight loss for obesity: less diabetes with weight loss is more with obesity). The expected relation is the
scientist's: same direction → SUPPORTS,
opposite or null against a claimed effect → REFUTES, null for a claim of no effect → SUPPORTS,
not about the claim's exposure and outcome, no finding, or a nutrient's deficiency for a claim on its
supplementation (indirect evidence) → NEUTRAL.

    .venv/bin/python -m bench.direction_suite [--cases 400] [--show-errors 20]

prints the share right for Lyra's direction judge and for the cross-encoder alone, side by side.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from pydantic import BaseModel

# (exposure as a claim names it, exposure as a passage names it, outcome in a claim, outcome in a passage)
TOPICS = [
    ("Aspirin", "aspirin", "the risk of colorectal cancer", "colorectal cancer incidence"),
    ("Statins", "statin therapy", "cardiovascular mortality", "cardiovascular deaths"),
    ("Metformin", "metformin", "blood glucose", "fasting glucose levels"),
    ("Cigarette smoking", "smoking", "the risk of lung cancer", "lung cancer risk"),
    ("Aerobic exercise", "aerobic exercise", "depressive symptoms", "depressive symptom scores"),
    ("Vitamin D supplementation", "vitamin D", "hip fracture risk", "hip fractures"),
    ("Sleep deprivation", "sleep deprivation", "memory performance", "memory recall scores"),
    ("Coffee consumption", "coffee intake", "the risk of type 2 diabetes", "type 2 diabetes incidence"),
    ("High salt intake", "salt intake", "systolic blood pressure", "systolic blood pressure"),
    ("Omega-3 fatty acids", "omega-3 supplementation", "serum triglycerides", "triglyceride levels"),
    ("Alcohol consumption", "alcohol use", "the risk of liver cirrhosis", "liver cirrhosis rates"),
    ("Air pollution", "air pollution", "asthma admissions", "hospital admissions for asthma"),
    ("Breastfeeding", "breastfeeding", "childhood obesity", "obesity in childhood"),
    ("Bariatric surgery", "bariatric surgery", "all-cause mortality", "all-cause mortality"),
    ("HPV vaccination", "HPV vaccination", "cervical lesions", "high-grade cervical lesions"),
    ("Physical therapy", "physical therapy", "knee pain", "knee pain scores"),
    ("Iron supplementation", "iron supplements", "anaemia", "anaemia prevalence"),
    (
        "Probiotics",
        "probiotic treatment",
        "antibiotic-associated diarrhoea",
        "antibiotic-associated diarrhoea",
    ),
    ("Mediterranean diet", "the Mediterranean diet", "cardiovascular events", "major cardiovascular events"),
    ("Screen time", "screen time", "sleep duration", "sleep duration"),
    ("Cognitive behavioural therapy", "CBT", "insomnia severity", "insomnia severity index scores"),
    ("Hormone replacement therapy", "hormone therapy", "breast cancer risk", "breast cancer incidence"),
    ("Tai chi", "tai chi", "falls in older adults", "falls"),
    ("Antihypertensive treatment", "antihypertensive drugs", "the risk of stroke", "stroke incidence"),
    ("Green tea", "green tea extract", "body weight", "body weight"),
    ("Nicotine patches", "nicotine replacement", "smoking abstinence", "abstinence rates"),
    ("Zinc supplementation", "zinc", "the duration of the common cold", "cold duration"),
    ("Early mobilisation", "early mobilisation", "length of hospital stay", "length of stay"),
]
# Topics whose passage names the claim's outcome from its other end (lower mortality is higher survival).
OTHER_END = [
    ("Vitamin A supplementation", "vitamin A", "child survival", "child mortality"),
    (
        "Beta blockers",
        "beta blockers",
        "mortality after myocardial infarction",
        "survival after myocardial infarction",
    ),
    ("Adjuvant chemotherapy", "adjuvant chemotherapy", "overall survival", "deaths from any cause"),
    ("Intensive insulin therapy", "intensive insulin therapy", "ICU mortality", "survival to ICU discharge"),
]
TOPICS += OTHER_END
# Topics whose passage names the claim's exposure from its other end (weight loss for obesity).
EXPOSURE_OTHER_END = [
    ("Obesity", "weight loss", "the risk of type 2 diabetes", "type 2 diabetes incidence"),
    (
        "Cigarette smoking",
        "smoking cessation",
        "the risk of myocardial infarction",
        "myocardial infarction risk",
    ),
    (
        "Physical inactivity",
        "physical activity",
        "the risk of coronary heart disease",
        "coronary heart disease risk",
    ),
]
TOPICS += EXPOSURE_OTHER_END
# A nutrient's status and its supplementation: indirect evidence on each other, no vote either way.
INDIRECT = [("Vitamin D deficiency", "vitamin D supplementation", "fracture risk", "fractures")]
TOPICS += INDIRECT
_FLIPPED = {"up": "down", "down": "up"}
# Claim forms by what they assert: (template, direction) — direction is up, down, none, not_down, not_up,
# either (an effect or an association of no stated direction).
CLAIMS = [
    ("{X} reduces {Y}.", "down"),
    ("{X} lowers {Y}.", "down"),
    ("{X} decreases {Y}.", "down"),
    ("{X} is associated with lower {Y}.", "down"),
    ("{X} may reduce {Y}.", "down"),
    ("{X} increases {Y}.", "up"),
    ("{X} raises {Y}.", "up"),
    ("{X} is associated with higher {Y}.", "up"),
    ("{X} leads to an increase in {Y}.", "up"),
    ("{X} has no effect on {Y}.", "none"),
    ("{X} does not affect {Y}.", "none"),
    ("{X} does not reduce {Y}.", "not_down"),
    ("{X} does not increase {Y}.", "not_up"),
    ("{X} affects {Y}.", "either"),
    ("{Y} is influenced by {X}.", "either"),
    ("{X} plays a role in {Y}.", "either"),
]
# Passage forms by what they report: (template, reported) — reported is up, down, none, offtopic, aim.
PASSAGES = [
    ("Compared with placebo, {x} significantly reduced {y} (p < 0.001).", "down"),
    ("{Yc} was lower in participants receiving {x} than in controls (p = 0.01).", "down"),
    ("{x} was associated with a lower risk of {y} (OR 0.69, 95% CI 0.64-0.74).", "down"),
    ("In the {x} group, {y} fell by 18% relative to placebo (RR 0.82; 95% CI 0.71 to 0.94).", "down"),
    ("{Yc} was higher in the placebo group than in the {x} group (p < 0.01).", "down"),
    ("{Yc} was 12% with {x} and 20% with placebo, respectively (p = 0.003).", "down"),
    ("{x} significantly increased {y} compared with placebo (p = 0.002).", "up"),
    ("{Yc} was higher among those given {x} than among controls (p < 0.05).", "up"),
    ("{x} was associated with an increased risk of {y} (HR 1.45, 95% CI 1.10-1.91).", "up"),
    ("{Yc} was lower in the control group than in the {x} group (p = 0.004).", "up"),
    ("There was no significant difference in {y} between {x} and placebo (p = 0.42).", "none"),
    ("{x} did not significantly change {y} (RR 1.02, 95% CI 0.91-1.15).", "none"),
    ("{Yc} was similar with {x} and with placebo.", "none"),
    ("{x} had no effect on {y} at 12 months.", "none"),
    ("{x} does not appear to change {y} when compared with standard care.", "none"),
    ("The rise in blood pressure caused by {x} did not affect {y}.", "none"),
    ("We examined whether {x} reduces {y} in a randomised trial.", "aim"),
    ("{x} significantly reduced {other} (p < 0.001).", "offtopic"),
]
EXPECTED = {  # (claim direction, reported) → relation
    **{(c, r): "SUPPORTS" if c == r else "REFUTES" for c in ("up", "down") for r in ("up", "down")},
    ("up", "none"): "REFUTES",
    ("down", "none"): "REFUTES",
    ("none", "none"): "SUPPORTS",
    ("none", "up"): "REFUTES",
    ("none", "down"): "REFUTES",
    ("not_down", "down"): "REFUTES",
    ("not_down", "none"): "SUPPORTS",
    ("not_down", "up"): "SUPPORTS",
    ("not_up", "up"): "REFUTES",
    ("not_up", "none"): "SUPPORTS",
    ("not_up", "down"): "SUPPORTS",
    ("either", "up"): "SUPPORTS",
    ("either", "down"): "SUPPORTS",
    ("either", "none"): "REFUTES",
}


class DirectionCase(BaseModel):
    claim: str
    passage: str
    expected: str  # SUPPORTS, REFUTES, NEUTRAL
    claim_form: str
    passage_form: str
    topic: str


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:]


def cases(n: int = 400, seed: int = 7) -> list[DirectionCase]:
    """``n`` cases drawn without repetition from topics × claim forms × passage forms, every claim and
    passage form used."""
    rng = random.Random(seed)
    grid = [(t, c, p) for t in range(len(TOPICS)) for c in range(len(CLAIMS)) for p in range(len(PASSAGES))]
    rng.shuffle(grid)
    out = []
    for ti, ci, pi in grid[:n]:
        x_claim, x_text, y_claim, y_text = TOPICS[ti]
        other = TOPICS[(ti + 5) % len(TOPICS)][3]
        claim_form, said = CLAIMS[ci]
        passage_form, reported = PASSAGES[pi]
        claim = claim_form.format(X=x_claim, Y=y_claim)
        passage = _sentence(passage_form.format(x=x_text, y=y_text, Yc=_sentence(y_text), other=other))
        if TOPICS[ti] in OTHER_END or TOPICS[ti] in EXPOSURE_OTHER_END:
            reported = _FLIPPED.get(reported, reported)
        indirect = TOPICS[ti] in INDIRECT and reported != "offtopic"
        expected = "NEUTRAL" if reported in ("aim", "offtopic") or indirect else EXPECTED[(said, reported)]
        out.append(
            DirectionCase(
                claim=claim,
                passage=passage,
                expected=expected,
                claim_form=claim_form,
                passage_form=passage_form,
                topic=x_claim,
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--show-errors", type=int, default=15)
    args = parser.parse_args()
    from lyra_resources.models.direction_judge import DirectionJudge
    from lyra_resources.models.inference import nli_model

    suite = cases(args.cases)
    judge = DirectionJudge()
    judged = judge.judge_pairs([(c.claim, c.passage, "") for c in suite])
    nli = nli_model().predict([(c.passage, c.claim) for c in suite])
    right = Counter()
    errors = []
    for case, mine, theirs in zip(suite, judged, nli, strict=True):
        right["direction judge"] += mine.relation == case.expected
        right["cross-encoder alone"] += theirs.relation == case.expected
        if mine.relation != case.expected:
            errors.append((case, mine))
    print(
        f"direction suite: {len(suite)} cases over {len({c.topic for c in suite})} topics, "
        f"{len(CLAIMS)} claim forms, {len(PASSAGES)} passage forms"
    )
    for name, count in right.items():
        print(f"  {name:22s} {count / len(suite):.3f} right ({count}/{len(suite)})")
    for case, mine in errors[: args.show_errors]:
        print(
            f"  ✗ expected {case.expected}, got {mine.relation}: {case.claim} | {case.passage} | {mine.reason}"
        )


if __name__ == "__main__":
    main()
