"""The words that carry the direction of an effect in scientific English.

Each entry maps a word form to ``up`` (more of the outcome), ``down`` (less of it), ``better`` or
``worse`` (a change judged by its value: "improves pain" is less pain, "improves survival" more
survival; :func:`resolve` turns them into ``up``/``down`` once the outcome is known). Forms are
listed whole (no stemmer), so a reader can see what is matched. docs/direction.md describes how
claims and passages use them.
"""

from __future__ import annotations

import re

UP, DOWN, BETTER, WORSE = "up", "down", "better", "worse"


def _forms(stems: str, way: str) -> dict[str, str]:
    """Verb forms (base, -s, -ed, -ing) of regular verbs, written as ``stem|s|ed|ing`` groups."""
    out = {}
    for group in stems.split():
        base, *rest = group.split("|")
        out[base] = way
        for form in rest:
            out[form] = way
    return out


# Verbs whose object is the outcome: "aspirin reduces the risk of colorectal cancer".
DIRECTION_VERBS: dict[str, str] = {
    **_forms(
        "increase|increases|increased|increasing raise|raises|raised|raising elevate|elevates|elevated|elevating "
        "enhance|enhances|enhanced|enhancing boost|boosts|boosted|boosting augment|augments|augmented|augmenting "
        "amplify|amplifies|amplified|amplifying promote|promotes|promoted|promoting induce|induces|induced|inducing "
        "stimulate|stimulates|stimulated|stimulating upregulate|upregulates|upregulated|upregulating "
        "up-regulate|up-regulates|up-regulated|up-regulating accelerate|accelerates|accelerated|accelerating "
        "potentiate|potentiates|potentiated|potentiating heighten|heightens|heightened|heightening "
        "intensify|intensifies|intensified|intensifying prolong|prolongs|prolonged|prolonging "
        "lengthen|lengthens|lengthened|lengthening extend|extends|extended|extending "
        "double|doubles|doubled|doubling triple|triples|tripled|tripling activate|activates|activated|activating "
        "cause|causes|caused|causing trigger|triggers|triggered|triggering "
        "facilitate|facilitates|facilitated|facilitating drive|drives|drove|driving "
        "exacerbate|exacerbates|exacerbated|exacerbating aggravate|aggravates|aggravated|aggravating "
        "predispose|predisposes|predisposed|predisposing encourage|encourages|encouraged|encouraging",
        UP,
    ),
    **_forms(
        "reduce|reduces|reduced|reducing decrease|decreases|decreased|decreasing lower|lowers|lowered|lowering "
        "diminish|diminishes|diminished|diminishing attenuate|attenuates|attenuated|attenuating "
        "inhibit|inhibits|inhibited|inhibiting suppress|suppresses|suppressed|suppressing "
        "downregulate|downregulates|downregulated|downregulating "
        "down-regulate|down-regulates|down-regulated|down-regulating "
        "slow|slows|slowed|slowing prevent|prevents|prevented|preventing "
        "alleviate|alleviates|alleviated|alleviating ameliorate|ameliorates|ameliorated|ameliorating "
        "mitigate|mitigates|mitigated|mitigating block|blocks|blocked|blocking abolish|abolishes|abolished|abolishing "
        "shorten|shortens|shortened|shortening lessen|lessens|lessened|lessening halve|halves|halved|halving "
        "relieve|relieves|relieved|relieving eliminate|eliminates|eliminated|eliminating "
        "deplete|depletes|depleted|depleting hinder|hinders|hindered|hindering "
        "counteract|counteracts|counteracted|counteracting reverse|reverses|reversed|reversing "
        "cut|cuts|cutting curb|curbs|curbed|curbing impede|impedes|impeded|impeding "
        "delay|delays|delayed|delaying",
        DOWN,
    ),
    **_forms(
        "improve|improves|improved|improving benefit|benefits|benefited|benefiting "
        "restore|restores|restored|restoring normalize|normalizes|normalized|normalizing "
        "normalise|normalises|normalised|normalising",
        BETTER,
    ),
    **_forms(
        "worsen|worsens|worsened|worsening impair|impairs|impaired|impairing damage|damages|damaged|damaging "
        "harm|harms|harmed|harming compromise|compromises|compromised|compromising "
        "deteriorate|deteriorates|deteriorated|deteriorating",
        WORSE,
    ),
}
# "up regulated", written apart
DIRECTION_VERBS |= {
    f"{side} {form}": way
    for side, way in (("up", UP), ("down", DOWN))
    for form in ("regulate", "regulates", "regulated", "regulating")
}
# Intransitive verbs whose subject is the outcome: "glucose fell", "mortality declined".
CHANGE_VERBS: dict[str, str] = {
    **_forms(
        "rise|rises|rose|risen|rising grow|grows|grew|grown|growing climb|climbs|climbed|climbing "
        "increase|increases|increased|increasing",
        UP,
    ),
    **_forms(
        "fall|falls|fell|fallen|falling decline|declines|declined|declining drop|drops|dropped|dropping "
        "decrease|decreases|decreased|decreasing",
        DOWN,
    ),
}
# Adjectives and participles before or after the outcome: "lower glucose", "risk was higher".
COMPARATIVES: dict[str, str] = {
    **dict.fromkeys(
        "higher greater more larger longer increased elevated raised enhanced heightened excess "
        "excessive bigger augmented accelerated prolonged".split(),
        UP,
    ),
    **dict.fromkeys(
        "lower less fewer smaller shorter reduced decreased diminished lesser attenuated slower "
        "depressed suppressed delayed".split(),
        DOWN,
    ),
    **dict.fromkeys("better improved superior favorable favourable beneficial".split(), BETTER),
    **dict.fromkeys(
        "worse poorer inferior impaired unfavorable unfavourable detrimental harmful".split(), WORSE
    ),
}
# Nouns of change followed by "in"/"of" and the outcome: "a reduction in mortality".
CHANGE_NOUNS: dict[str, str] = {
    **dict.fromkeys(
        "increase increases rise rises elevation elevations gain gains excess surge "
        "upregulation up-regulation enhancement acceleration".split(),
        UP,
    ),
    **dict.fromkeys(
        "reduction reductions decrease decreases decline declines drop drops fall falls loss losses "
        "downregulation down-regulation attenuation suppression inhibition lowering".split(),
        DOWN,
    ),
    **dict.fromkeys("improvement improvements benefit benefits".split(), BETTER),
    **dict.fromkeys("worsening deterioration impairment".split(), WORSE),
}
# Outcomes where more is worse: "improves X" means less X, "worsens X" more X.
UNDESIRABLE = set(
    """
risk risks mortality death deaths morbidity pain symptom symptoms disease diseases disorder disorders
depression depressive anxiety stress inflammation infection infections recurrence relapse relapses
complication complications toxicity toxicities adverse fatigue nausea vomiting obesity overweight hypertension
hyperglycemia fracture fractures injury injuries damage cancer cancers tumor tumour tumors tumours metastasis
metastases progression hospitalization hospitalisation hospitalizations readmission readmissions failure
dysfunction impairment disability burden errors error insomnia itching pruritus bleeding hemorrhage stroke
infarction ulcer ulcers lesions dementia edema swelling craving cravings dependence exacerbations exacerbation
asthma wheezing cough diarrhea diarrhoea constipation apnea apnoea delirium agitation suicide suicidality
resistance
""".split()
)
# Heads that only measure something ("pain intensity", "incidence of fractures"): the value of the
# outcome is read from the words beside them.
MEASURES = set(
    """
level levels intensity score scores rate rates concentration concentrations incidence frequency severity
duration number count counts prevalence amount amounts degree extent magnitude odds likelihood index
""".split()
)
_PREPOSITION = re.compile(r"\b(of|in|among|for|with|after|during|at|on)\b")


def undesirable(outcome: str) -> bool:
    """Whether more of ``outcome`` is worse (pain, mortality, the risk of a disease), read from the
    outcome's head noun, or from the words beside it when the head only measures ("pain scores")."""
    parts = _PREPOSITION.split(outcome.lower(), maxsplit=1)
    head_part, rest = parts[0], parts[2] if len(parts) > 2 else ""
    words = re.findall(r"[a-z][a-z-]*", head_part)
    if not words:
        words = re.findall(r"[a-z][a-z-]*", rest)
    if not words:
        return False
    if words[-1] in MEASURES:
        others = words[:-1] + re.findall(r"[a-z][a-z-]*", rest)
        return any(w in UNDESIRABLE for w in others)
    return words[-1] in UNDESIRABLE or (
        words[-1] in {"events", "effects", "outcomes", "reactions"} and any(w in UNDESIRABLE for w in words)
    )


# Phrases of a null finding: "no significant difference", "did not differ", "was similar".
NULL_FINDING = re.compile(
    r"\b(no|not|nor|without)\s+(a\s+|any\s+|the\s+)?(statistically\s+|clinically\s+)?(significant(ly)?\s+|"
    r"meaningful(ly)?\s+|relevant\s+|measurable\s+|detectable\s+|appreciable\s+|major\s+|important\s+|"
    r"further\s+|additional\s+|overall\s+)*"
    r"(difference|differences|differ|differed|different|effect|effects|change|changes|changed|association|associated|"
    r"relationship|related|correlation|correlated|benefit|improvement|reduction|increase|impact|influence|"
    r"alter|altered|affect|affected|improve|improved|reduce|reduced|increase|increased|decrease|decreased|"
    r"superior|inferior|better|worse|lower|higher|evidence)\b"
    r"|\b(did|does|do|was|were|is|are)\s*(not|n't)\s+((?:appear|seem)\s+to\s+)?(significantly\s+|statistically\s+|substantially\s+)*"
    r"(differ|change|affect|alter|influence|modify|improve|reduce|increase|decrease|lower|raise|vary|predict)\b"
    r"|\b(?:not|no|n't)\s+(?!only\b)(?:[a-z]+\s+){0,2}?(?:more|less|greater|fewer|larger|smaller|longer|shorter|higher|"
    r"lower|better|worse)\b(?=[^.;]{0,60}?\bthan\s+(?!\d))"  # "did not gain more weight than", "no greater than"
    r"|\b(similar|comparable|unchanged|unaffected|equivalent|non-significant|nonsignificant|insignificant)\b"
    r"|\bn\.?s\.?(?=[\s,;).])"
    # "none of these yielded any significant differences", "neither dose changed it significantly"
    r"|\bnone\s+of\s+(?:the|these|them|those)\b[^.;]{0,60}?\b(?:significant(?:ly)?|differ(?:ed|ences?)?|changed)\b"
    r"|\bneither\b[^.;]{0,80}?\b(?:significant(?:ly)?|differ(?:ed)?|changed|affected|reduced|increased|"
    r"decreased|improved|lowered|raised|prevented)\b"
    r"|\bfailed\s+to\s+(show|demonstrate|reach|find|detect|improve|reduce|increase|achieve)\b",
    re.IGNORECASE,
)


def resolve(way: str, outcome: str) -> str:
    """``up``/``down`` for a direction word applied to ``outcome``: ``better`` is ``down`` for an
    outcome where more is worse (pain, mortality, risk …), ``up`` otherwise; ``worse`` the reverse."""
    if way in (UP, DOWN):
        return way
    bad = undesirable(outcome)
    if way == BETTER:
        return DOWN if bad else UP
    return UP if bad else DOWN


def flip(way: str) -> str:
    return {UP: DOWN, DOWN: UP}.get(way, way)
