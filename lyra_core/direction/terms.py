"""The terms a phrase or a passage is about, as the relevance gate compares them
(``lyra_core.direction.relevance``): stemmed index terms (``lyra_core.text``), with the words that
name one thing folded into one concept, the people who do a thing folded into the thing they do,
and the words too general to make a passage about anything left aside.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lyra_core.text import index_terms

# Terms that name one thing: a passage about "deaths" is about "mortality".
SAME_THING = [
    "mortality death deaths died die dying survival survive fatal fatality lethal",
    # an adenoma is a benign precursor, not a cancer: a claim about adenomas is not borne out by cancer risk
    "cancer cancers tumor tumors tumour tumours carcinoma carcinomas neoplasm neoplasms malignancy malignancies "
    "oncology",
    "risk risks incidence odds hazard likelihood chance occurrence",
    "glucose glycemia glycaemia glycemic glycaemic hba1c hyperglycemia hyperglycaemia sugar",
    "cardiovascular cardiac heart coronary myocardial",
    "blood pressure hypertension hypertensive systolic diastolic",
    "weight bmi obesity obese adiposity overweight",
    "depression depressive depressed",
    "pain painful analgesia",
    "infection infections infected infectious",
    "fracture fractures fractured",
    "stroke strokes cerebrovascular",
    "diabetes diabetic",
    # vitamin E is a family of tocopherols; trials give it as alpha-tocopherol or its acetate
    "vitamin_e tocopherol tocopherols tocopheryl αtocopherol",
]
GROUP_OF: dict[str, int] = {}
for _i, _words in enumerate(SAME_THING):
    for _term in index_terms(_words.replace("vitamin_e", "vitamin E")):
        if _term != "vitamin":  # "vitamin E" is one thing; "vitamin" alone names every vitamin
            GROUP_OF.setdefault(_term, _i)

# The people who do a thing are about the thing: "current smokers" speak of smoking, "statin users"
# of statin use. A list, not a suffix rule: "liver", "number" and "layer" are no agents of a verb.
_AGENTS = {
    agent: act
    for words in (
        "smokers smoking",
        "users use",
        "drinkers drinking",
        "vapers vaping",
        "abusers abuse",
        "snorers snoring",
        "gamblers gambling",
        "chewers chewing",
        "exercisers exercise",
        "runners running",
        "sleepers sleeping",
        "consumers consumption",
        "eaters eating",
        "walkers walking",
    )
    for agent, act in [index_terms(words)]
}

# Terms too general to make a passage about an outcome or exposure on their own.
# The words of "risk" (incidence, occurrence, odds, hazard …) are as general as it: "incidence of
# stroke" is about stroke, and a passage on the risk of death is not about it. A dose and the salt a
# drug is given as say how much of it, not what it is ("400 mg of alpha-tocopheryl acetate" is vitamin E).
GENERAL = set(
    index_terms(
        "risk effect effects level levels rate rates patient patients group groups "
        "treatment therapy use outcome outcomes increase decrease reduce change "
        "significant study trial human people adult adults "
        "risks incidence odds hazard likelihood chance occurrence "
        "mg mcg µg ug iu ml dose doses dosage daily "
        "acetate succinate hydrochloride sulfate sulphate citrate "
        # how an outcome is measured or summed, not what it is: "distress scale", "total FSH
        # dose", "mean number of packed cells" (Evidence Inference prompts)
        "scale scales score scores total mean number numbers per higher lower greater "
        "prevalence proportion percentage"
    )
)
_DOSE = re.compile(r"\b\d[\d.,]*\s*(?:mg|mcg|µg|ug|g|iu|IU|ml|mL|units?)\b")


def _concept(term: str) -> str:
    term = _AGENTS.get(term, term)
    return f"g{GROUP_OF[term]}" if term in GROUP_OF else term


@lru_cache(maxsize=4096)
def concepts(text: str) -> frozenset[str]:
    """The concepts ``text`` names."""
    # cached: a paper's title and abstract are read once for every fragment and claim that meets it
    return frozenset(_concept(t) for t in index_terms(text))


@lru_cache(maxsize=65536)
def word_concepts(word: str) -> frozenset[str]:
    """One word's concepts, cached apart from the paper texts' (which are few and costly to stem again)."""
    return concepts.__wrapped__(word)


def named_things(text: str) -> set[str]:
    """The phrase's concepts without the general terms and a dose: empty where it names nothing in
    particular ("the risk", "its levels")."""
    return {_concept(t) for t in index_terms(_DOSE.sub(" ", text)) if t not in GENERAL}


def specific(text: str) -> set[str]:
    """The phrase's concepts without the general terms and a dose ("risk of stroke" is about
    stroke, not risk; "400 mg of X" about X)."""
    return named_things(text) or set(concepts(text))
