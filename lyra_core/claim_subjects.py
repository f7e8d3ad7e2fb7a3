"""Does a claim say what it is about? A sentence whose subject points to another sentence is no claim.

"When this is altered there is a higher risk of …", "This suggests a role in …", "Its expression was
higher …", "These changes were reversed by …": read alone, nobody can tell what ``this`` is, so such
a sentence cannot be judged against other papers, nor shown as an answer.

What counts as having a referent (decided here, tested on SciFact sentences):

- the paper itself is a referent: "This study shows that X reduces Y", "In this cohort, X …",
  "This randomized trial found no benefit of X" are claims; "we" are the authors and count too;
- a sentence that reports a that-clause is judged by the clause: "These findings suggest that X
  mediates Y", "This suggests that X is a source of Y" and "It is well established that X causes Y" are claims about X
  (whether they are
  findings or background is the sentence-role model's call, not this rule's), while "These findings
  suggest that this pathway …" and "It is likely that they …" are not;
- "These findings/results/data" with no that-clause ("These results support a role for …") lean on
  results stated elsewhere: no claim; nor a bare pronoun or a demonstrative with any other noun
  ("This", "It", "They", "Such", "Its", "These changes", "This effect"; but "Those with X …" says who
  they are), after any opening
  connective ("Thus, this …", "However, it …") or subordinator ("When this is …", "Because they …");
- "There is/was …" is an expletive, not a pronoun: "There was no difference in X" is a claim.
"""

from __future__ import annotations

import re

_CONNECTIVE = re.compile(
    r"^(?:(?:thus|therefore|hence|however|moreover|furthermore|additionally|importantly|notably|interestingly|"
    r"consequently|collectively|together|overall|finally|similarly|conversely|accordingly|indeed|also|"
    r"in (?:addition|conclusion|contrast|summary|sum|particular|turn)|taken together|as such|"
    r"altogether|nevertheless|nonetheless|still|rather|instead|specifically|here|and|but|so)\b,?\s+)+",
    re.IGNORECASE,
)
_SUBORDINATOR = (
    r"(?:when|whenever|if|because|although|though|since|while|whereas|once|as|after|before|unless|upon)"
)
_DEMONSTRATIVE = r"(?:this|these|that|those|such)"
_BARE = r"(?:it|its|they|their|them|he|she|the former|the latter)"
# The paper itself ("this study", "this 10-year prospective cohort study").
_PAPER = re.compile(
    rf"^{_DEMONSTRATIVE}\s+(?:[\w-]+\s+){{0,4}}?(?:study|studies|trial|analysis|analyses|meta-analysis|review|"
    r"cohort|paper|article|work|report|investigation|survey|experiment|experiments|series|sample|population)\b",
    re.IGNORECASE,
)
_RESULTS = re.compile(
    rf"^{_DEMONSTRATIVE}\s+(?:\w+\s+){{0,2}}?(?:findings|results|data|observations|"
    r"experiments|analyses|studies|results)\b",
    re.IGNORECASE,
)
_EXPLETIVE_IT = re.compile(
    r"^it\s+(?:is|was|has been|had been|appears|appeared|seems|seemed|remains|became|"
    r"is now|was also|is also)\b",
    re.IGNORECASE,
)
# The reported clause: a 'that' within the sentence's first words ("These data indicate that, in X, …").
_THAT_CLAUSE = re.compile(r"^(?:\S+\s+){1,9}?that\b,?\s+(?!is\b|was\b|are\b|were\b)", re.IGNORECASE)
# "Those with an epsilon4 allele …", "Those who received X …": the phrase says who they are.
_DEFINED_THOSE = re.compile(
    r"^those\s+(?:with|without|who|whose|in|on|at|aged|receiving|taking|treated|given|"
    r"exposed|assigned|randomi[sz]ed|allocated|having)\b",
    re.IGNORECASE,
)
# "This suggests that X …": a bare pronoun reporting a clause is judged by the clause.
_REPORTING = re.compile(
    rf"^(?:{_DEMONSTRATIVE}|it|they)\s+(?:\w+\s+)?(?:suggest|indicate|show|demonstrate|"
    r"impl|reveal|support|confirm|mean|argue|raise)\w*\s+(?:the possibility\s+)?that\b",
    re.IGNORECASE,
)
_POINTING = re.compile(rf"^(?:{_SUBORDINATOR}\s+)?(?:{_DEMONSTRATIVE}|{_BARE})\b(?!-)", re.IGNORECASE)


def _that_clause(sentence: str) -> str | None:
    """What follows the first 'that' of a reporting sentence ("… suggest that X …" → "X …")."""
    match = _THAT_CLAUSE.match(sentence)
    return sentence[match.end() :] if match else None


def lacks_referent(sentence: str) -> bool:
    """True when the sentence's subject is a pronoun or demonstrative whose referent is in another
    sentence ("When this is altered …", "This suggests …", "It was reduced …", "These changes …")."""
    text = " ".join(sentence.split())
    text = _CONNECTIVE.sub("", text)
    if _PAPER.match(text):  # the paper itself; a that-clause it reports must stand on its own too
        clause = _that_clause(text)
        return clause is not None and lacks_referent(clause)
    if _RESULTS.match(text) or _EXPLETIVE_IT.match(text) or _REPORTING.match(text):
        clause = _that_clause(text)
        return clause is None or lacks_referent(clause)
    if re.match(r"^we\b", text, re.IGNORECASE):  # the authors: "we show that it …" still points away
        clause = _that_clause(text)
        return clause is not None and lacks_referent(clause)
    return bool(_POINTING.match(text)) and not _DEFINED_THOSE.match(text)
