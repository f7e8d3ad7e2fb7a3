"""The predicate patterns an effect claim is read by (``claim_frame.read_claim``), tried in order.

Each pattern is ``(name, regex)``. Groups: x (exposure), y (outcome), v (verb), c (comparative), n
(change noun), neg (a negation), inv (inverse association), eff (effective or ineffective), a and b
(the two things "there is a correlation between a and b" names). docs/direction.md lists them.
Below them, the words a frame trims from what a pattern caught (the lead of a comparator, "than that
of B"; the group of "the incidence of X among A") and the verb that shows "associated with" qualifies
a subject.
"""

from __future__ import annotations

import re

from lyra_core.direction.lexicon import CHANGE_NOUNS, CHANGE_VERBS, COMPARATIVES, DIRECTION_VERBS

_VERB_LIST = "|".join(sorted((re.escape(w) for w in DIRECTION_VERBS), key=len, reverse=True))
_COMP_LIST = "|".join(sorted((re.escape(w) for w in COMPARATIVES), key=len, reverse=True))
_NOUN_LIST = "|".join(sorted((re.escape(w) for w in CHANGE_NOUNS), key=len, reverse=True))
_GERUND_LIST = "|".join(
    sorted((re.escape(w) for w in DIRECTION_VERBS if w.endswith("ing")), key=len, reverse=True)
)
_CHANGE_LIST = "|".join(sorted((re.escape(w) for w in CHANGE_VERBS), key=len, reverse=True))
# adverbs between a subject and its verb ("X significantly reduces Y"); a subject never ends in one
ADVERBS = (
    "significantly substantially markedly strongly greatly further dramatically modestly slightly independently "
    "consistently effectively directly partially partly also only severely quickly rapidly highly profoundly "
    "sharply considerably potently robustly selectively specifically primarily largely mainly often frequently "
    "drastically progressively gradually transiently persistently reliably efficiently even still thereby"
).split()
_ADV = rf"(?:(?:{'|'.join(ADVERBS)}|in\s+part|not\s+only)\s+)*"
# "X may help (to) prevent Y": the help belongs to the claim's direction, not to the exposure; a
# verb in the base form follows it ("social help improves" is a noun)
_AUX = (
    r"(?:(?:may|might|can|could|will|would|should|does|do|did|to|must)\s+)?"
    r"(?:help(?:s|ed)?\s+(?:to\s+)?(?=[a-z]+\b(?<![^s]s)(?<!ed)))?"
)
_NEG_AUX = (
    r"(?:(?:does|do|did|will|would|may|might|can|could|should|must)\s*(?:not|n't)|cannot|never|"
    r"fails?\s+to|failed\s+to|(?:is|are|was|were)\s+(?:not\s+able|unable)\s+to)\s+"
)
_BE = r"(?:is|are|was|were|be|been|being|can\s+be|may\s+be|might\s+be|will\s+be|could\s+be)\s+"
_ART = r"(?:(?:an?|the|any)\s+)?"
_ASSOC = r"(?:associated|correlated|linked|related|connected)\s+(?:with|to)"
# "changes in cancer cells", "altered by": the word is not a verb with the outcome as its object
_NOT_AN_OBJECT = r"(?:in|of|by|with|to|for|on|at|from|over|between|is|are|was|were|be|been)\b"
_AFFECT = (
    r"(?:affects?|affected|influences?|influenced|alters?|altered|modif(?:y|ies|ied)|modulates?|modulated|"
    r"impacts?|impacted|changes?|changed|determines?|determined|regulates?|regulated)"
)

# what a measure is named ("incidence of A is higher than B"); a person or a thing is not one
_MEASURE = (
    r"(?:incidence|prevalence|rates?|risks?|levels?|concentrations?|expression|frequency|numbers?|"
    r"proportions?|mortality|activity|amounts?|abundance|sensitivity|specificity|survival|density|"
    r"odds|hazards?|counts?|scores?|duration|yield|efficiency|accuracy|uptake|production|secretion)"
)
# "1.4-2.7 times higher", "two-fold lower", "significantly more"
_TIMES = (
    r"(?:(?:\d+(?:[.·]\d+)?(?:\s*[-–]\s*\d+(?:[.·]\d+)?)?|two|three|four|five|ten|several)\s*"
    r"(?:-?\s*fold|times)\s+)?"
)

# Each pattern: (name, regex). Groups: x (exposure), y (outcome), v (verb), c (comparative),
# n (change noun), neg (a negation), inv (inverse association). Compiled on the first claim read
# (tens of milliseconds), not when a command that never reads a claim imports this module.
PATTERN_SOURCES: list[tuple[str, str]] = [
    (
        "no_effect",
        r"^(?P<x>.+?)\s+(?:has|have|had|shows?|showed|exerts?|exerted|produces?|produced|"
        r"demonstrates?|demonstrated|makes?|made)\s+no\s+"
        r"(?:\w+\s+){0,2}?(?:effects?|impact|influence|benefit|role|association|relationship|difference)\s+"
        r"(?:on|in|upon|with|for|to)\s+(?P<y>.+)$",
    ),
    (
        "no_effect",
        rf"^(?P<x>.+?)\s+(?:does|do|did|will|would|may|might|can|could)\s*(?:not|n't)\s+{_ADV}"
        r"(?:affect|alter|change|influence|impact|modify|modulate)\s+(?P<y>.+)$",
    ),
    # "X does not have a large impact on Y", "X did not exert a significant effect on Y"
    (
        "no_effect",
        r"^(?P<x>.+?)\s+(?:does|do|did)\s*(?:not|n't)\s+(?:have|has|exert|show|produce)\s+(?:an?\s+|any\s+)?"
        r"(?:(?:large|significant|major|measurable|meaningful|substantial|clinically\s+significant|"
        r"statistically\s+significant|important|detectable)\s+)?(?:effects?|impact|influence)\s+(?:on|upon)\s+"
        r"(?P<y>.+)$",
    ),
    (
        "no_effect",
        rf"^(?P<x>.+?)\s+{_BE}(?:un(?:related|associated|correlated)\s+(?:to|with)|independent\s+of|"
        r"not\s+(?:a\s+)?(?:significant\s+|independent\s+)?(?:predictor|determinant|cause|risk\s+factor)\s+(?:of|for))"
        r"\s+(?P<y>.+)$",
    ),
    (
        "protective",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?:protects?|protected|protecting)\s+"
        r"(?:\w+\s+)?against\s+(?P<y>.+)$",
    ),
    (
        "protective",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?:a\s+)?protective\s+(?:factor\s+)?(?:against|for)\s+"
        r"(?P<y>.+)$",
    ),
    # "X is an effective treatment for Y", "X is ineffective at tackling Y", "X are ineffective as Y
    # treatments": a treatment's claim is that it lowers what it treats, or (ineffective) that it does not
    (
        "treats",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?:an?\s+)?(?:\w+\s+)?(?P<eff>effective|ineffective|"
        r"efficacious)\s+(?:treatments?|therap(?:y|ies)|interventions?|drugs?|options?|strateg(?:y|ies))\s+"
        r"(?:for|of|against)\s+(?P<y>.+)$",
    ),
    (
        "treats",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<eff>effective|ineffective|efficacious)\s+"
        r"(?:(?:at|in|for)\s+(?:treating|tackling|preventing|reducing|managing|controlling|lowering)|for)\s+"
        r"(?P<y>.+)$",
    ),
    # "X is effective at decreasing Y", "X is not effective at improving Y": the gerund says which way
    (
        "effective_at",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<eff>effective|ineffective|efficacious)\s+(?:at|in)\s+"
        rf"(?P<v>{_GERUND_LIST})\s+(?P<y>.+)$",
    ),
    (
        "treats",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<eff>effective|ineffective|efficacious)\s+as\s+(?:an?\s+)?"
        r"(?P<y>.+?)\s+(?:treatments?|therap(?:y|ies))$",
    ),
    # "there is a positive correlation between A and B", "there is no association between A and B"
    (
        "between",
        r"^there\s+(?:is|are|was|were|exists?)\s+(?P<neg>no\s+)?(?:an?\s+)?(?:(?:significant|strong|clear|"
        r"weak|direct|statistically\s+significant)\s+)?(?P<inv>positive\s+|negative\s+|inverse\s+)?"
        r"(?:correlation|association|relationship|relation|link)\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$",
    ),
    # "there is no increased risk of hypospadias with clomiphene": no effect of X on Y
    (
        "no_risk",
        r"^there\s+(?:is|are|was|were)\s+no\s+(?:(?:significantly|statistically\s+significant)\s+)?"
        r"(?:(?:increased|higher|greater|elevated|excess|added|additional|reduced|lower|decreased)\s+)?"
        r"(?:risks?|incidence|rates?)\s+(?:of|for)\s+(?P<y>.+?)\s+(?:with|after|following|from|among\s+users\s+of|"
        r"in\s+users\s+of)\s+(?P<x>.+)$",
    ),
    (
        "risk_factor",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?:an?\s+)?(?:\w+\s+)?(?:risk\s+factors?|causes?|"
        r"predictors?|determinants?|drivers?|contributors?)\s+(?:of|for|to)\s+(?P<y>.+)$",
    ),
    (
        "association",
        rf"^(?P<x>.+?)\s+(?:{_BE})?(?P<neg>not\s+)?{_ADV}(?P<inv>inversely\s+|negatively\s+|positively\s+)?"
        rf"{_ASSOC}\s+{_ART}(?:(?P<c>{_COMP_LIST})\s+|(?:\w+\s+)?(?P<n>{_NOUN_LIST})\s+(?:in|of)\s+)?"
        r"(?P<y>.+)$",
    ),
    (
        "association",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?P<inv>inversely\s+|negatively\s+|positively\s+)?"
        rf"(?:correlates?|associates?|predicts?|predicted)\s+(?:with\s+)?{_ART}(?:(?P<c>{_COMP_LIST})\s+)?"
        r"(?P<y>.+)$",
    ),
    (
        "leads_to",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?:leads?\s+to|led\s+to|results?\s+in|resulted\s+in|"
        r"contributes?\s+to|contributed\s+to|is\s+responsible\s+for|gives?\s+rise\s+to|brings?\s+about)\s+"
        rf"{_ART}(?:(?:(?P<c>{_COMP_LIST})\s+)|(?:(?P<n>{_NOUN_LIST})\s+(?:in|of)\s+))?(?P<y>.+)$",
    ),
    (
        "has_more",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX})(?:have|has|had|show|shows|showed|exhibit|exhibits|"
        r"exhibited|display|displays|displayed|experience|experiences|experienced|develop|develops|developed|"
        r"carry|carries|face|faces|achieve|achieves|achieved|produce|produces|produced|secrete|secretes|"
        r"secreted|release|releases|released|accumulate|accumulates|accumulated|contain|contains|contained|"
        rf"generate|generates|generated|(?:is|are|was|were|be)\s+at)\s+{_ART}{_ADV}(?:(?P<c>{_COMP_LIST})|"
        rf"(?P<n>{_NOUN_LIST})\s+(?:in|of))\s+(?P<y>.+)$",
    ),
    (
        "passive",
        rf"^(?P<y>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<v>{_VERB_LIST})\s+(?:by|with|after|following|upon|"
        r"in\s+response\s+to|through|via|when|in|among|during)\s+(?P<x>.+)$",
    ),
    (
        "comparative",
        rf"^(?P<y>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}{_TIMES}(?P<c>{_COMP_LIST})\s+(?:in|among|with|after|following|"
        r"for|during|when|under)\s+(?P<x>.+)$",
    ),
    # "incidence of A is 1.4-2.7 times higher than that of B": a measure of one thing against another
    (
        "measure_than",
        rf"^(?P<y>(?:\w+\s+){{0,2}}?{_MEASURE})\s+(?:of|in|among)\s+(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}"
        rf"{_TIMES}(?P<c>{_COMP_LIST})\s+than\s+(?P<comp>.+)$",
    ),
    # "Y occurs less in A than in B", "Y is more common among A than among B"
    (
        "occurs_more",
        r"^(?P<y>.+?)\s+(?:occurs?|occurred|happens?|happened|is|are|was|were)\s+(?P<neg>not\s+)?"
        rf"{_TIMES}(?P<c>more|less)\s+(?:(?:common(?:ly)?|frequent(?:ly)?|often|prevalent)\s+)?"
        r"(?:in|among|after|following|with|during|under)\s+"
        r"(?P<x>.+?)\s+than\s+(?P<comp>.+)$",
    ),
    (
        "superior",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<c>superior|inferior|better|worse|more\s+effective|"
        r"less\s+effective|more\s+efficacious|less\s+efficacious)\s+(?:to|than)\s+(?P<comp>.+?)"
        r"(?:\s+(?:in|for|at|on)\s+(?P<y>.+))?$",
    ),
    (
        "more_likely",
        rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?P<c>more|less)\s+(?:(?:likely|prone)\s+to\s+"
        r"(?:develop|have|experience|suffer\s+from|get|die\s+(?:of|from)|be\s+diagnosed\s+with)|"
        r"(?:susceptible|vulnerable|predisposed)\s+to)\s+(?P<y>.+)$",
    ),
    (
        "changes_with",
        rf"^(?P<y>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?P<v>{_CHANGE_LIST})\s+(?:with|after|following|"
        r"upon|in\s+response\s+to|during)\s+(?P<x>.+)$",
    ),
    # a gerund before a preposition names the exposure ("PD-1 triggering on monocytes reduces …")
    (
        "verb",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}"
        rf"(?P<v>(?!\w+ing\s+(?:on|in|of|by|at|with|from|among|for)\b)(?:{_VERB_LIST}))\s+(?!(?:in|among|by|with)\s|(?:themselves|itself|himself|herself)\b)(?P<y>.+)$",
    ),
    # an effect of no stated direction: "X affects Y", "Y is influenced by X", "Y changed after X",
    # "X plays a role in Y", "there is a role for X in Y", "X is involved in Y"
    ("affected_by", rf"^(?P<y>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}{_AFFECT}\s+by\s+(?P<x>.+)$"),
    (
        "affects",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}{_AFFECT}\s+(?!{_NOT_AN_OBJECT})(?P<y>.+)$",
    ),
    (
        "changed_after",
        rf"^(?P<y>.+?)\s+(?:(?:has|have|had)\s+)?(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}"
        r"(?:changed?|changes|altered|differs?|differed|varie[sd]|vary)\s+(?:with|after|following|upon|"
        r"in\s+response\s+to|during|since|according\s+to)\s+(?P<x>.+)$",
    ),
    (
        "role",
        rf"^(?P<x>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?:plays?|played|has|have|had)\s+"
        r"(?:an?\s+|the\s+)?(?:(?P<adj>\w+)\s+)?(?:role|part)\s+in\s+(?P<y>.+)$",
    ),
    (
        "role",
        r"^there\s+(?:is|are|was|exists?)\s+(?P<neg>no\s+)?(?:an?\s+)?(?:\w+\s+)?role\s+for\s+(?P<x>.+?)\s+"
        r"in\s+(?P<y>.+)$",
    ),
    ("role", rf"^(?P<x>.+?)\s+{_BE}(?P<neg>not\s+)?{_ADV}(?:involved|implicated)\s+in\s+(?P<y>.+)$"),
    # a change in a state, said of a group ("autophagy declines in aged organisms"): last, so that
    # "X reduces falls in older adults" stays X's effect on falls and "X affects falls in …" one of no direction
    (
        "changes_with",
        rf"^(?P<y>.+?)\s+(?:(?P<neg>{_NEG_AUX})|{_AUX}){_ADV}(?P<v>{_CHANGE_LIST})\s+(?:in|among)\s+(?P<x>.+)$",
    ),
]

# what stands before the comparator's arm itself: "than in high-income countries", "than that of
# placebo", "than the incidence of DSM-IV dementia"
COMPARATOR_LEAD = re.compile(
    rf"^(?:in|among|for|with|after|following|under|during|(?:that|those)\s+(?:of|in|among|for|with)|"
    rf"the\s+(?:\w+\s+)?{_MEASURE}\s+(?:of|in|among))\s+",
    re.IGNORECASE,
)
AMONG = re.compile(r"^(?P<what>.+?)\s+(?:among|in)\s+(?P<who>.+)$", re.IGNORECASE)
# a finite verb of its own, or a "that" clause: the text after "associated with" is not an outcome
OWN_VERB = re.compile(
    r"^that\b|\b(?:do|does|did)\s+not\b|\b(?:is|are|was|were)\s+(?:not\s+)?(?:(?:more|less)\s+\w+|\w+er)\s+than\b|"
    r"\b(?:increases|reduces|decreases|represents|causes|leads|promotes|inhibits|improves|worsens|have|has)\b",
    re.IGNORECASE,
)

# what ends no subject: a function word, a preposition, a negation ("… are at", "… is effective at", "… after"),
# or an adverb of manner ("peptides that selectively …"); "only" may ("lightwand only")
NOT_SUBJECT_END = frozenset(
    (
        "the a an of with and or in to for by on is are was were be been that which its their has have had "
        "than as until unless when if because while once where at after before from into upon during "
        "without against between through via under not no"
    ).split()
) | {w for w in ADVERBS if w.endswith("ly") and w != "only"}
