"""Claims: the local, model-free extractor and the stable ids claims are keyed by.

The extractor reads a fragment sentence by sentence and keeps the sentences that state a finding:
an effect or association, a comparison, a quantity with a statistic, a hedged conclusion. It drops
methods, aims and background, which describe what was done or known rather than what was found.
Every kept claim carries the features that made it a claim, so the choice can be explained.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
from pydantic import BaseModel, Field

from lyra_core.sections import label_role, labelled_sentences, split_label

# Words that report a finding: effects, associations, changes, comparisons.
_FINDING = re.compile(
    r"\b(reduc\w*|increas\w*|decreas\w*|improv\w*|lower\w*|higher|raise[sd]?|rais\w*|elevat\w*|"
    r"inhibit\w*|induc\w*|promote[sd]?|promoting|prevent\w*|protect\w*|impair\w*|enhanc\w*|suppress\w*|"
    r"attenuat\w*|exacerbat\w*|worsen\w*|accelerat\w*|delay\w*|block\w*|activat\w*|abolish\w*|"
    r"associated|association|correlat\w*|linked|predict\w*|caus\w*|lead[s]? to|led to|"
    r"result(?:s|ed)? in|contribut\w*|depend\w*|requir\w*|mediat\w*|(?:up|down)?regulate[sd]?|"
    r"effective|efficacy|benefi\w*|harm\w*|risk|safe|toxic\w*|outperform\w*|superior|inferior|"
    r"no (?:significant |clear )?(?:difference|effect|association|benefit|change)|"
    r"did not|does not|do not|failed to|unchanged|not (?:associated|significant\w*))\b",
    re.IGNORECASE,
)
_COMPARISON = re.compile(
    r"\b(than|versus|vs\.?|compared (?:with|to)|relative to|whereas|more|less|fewer|between (?:the )?groups)\b",
    re.IGNORECASE,
)
# A null result is a finding too ("X did not differ", "no change in Y").
_NULL_RESULT = re.compile(
    r"\b(?:did|does|do|was|were|is|are) not (?:differ|change|affect|alter|improve|reduce|increase|predict)\w*|"
    r"\bno (?:significant |detectable |measurable )?(?:difference|change|effect|association|benefit|improvement)s?\b",
    re.IGNORECASE,
)
_STATISTIC = re.compile(
    r"(\d+(?:\.\d+)?\s?%|\bp\s?[<=>≤]\s?0?\.\d+|\b(?:OR|RR|HR|CI|SMD|WMD|MD)\b|95%|"
    r"\bodds ratio|\bhazard ratio|\brelative risk|\bsignifican\w*|-fold\b|\bfold\b)",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(may|might|suggest\w*|indicat\w*|appear\w*|likely|possibl\w*|potential\w*|could)\b", re.IGNORECASE
)
_CONCLUSION = re.compile(
    r"\b(we (?:found|show|showed|demonstrate\w*|report|observed|conclude\w*|identif\w*|reveal\w*)|"
    r"(?:these|our) (?:results|findings|data)|results (?:show|showed|indicate|suggest)|"
    r"in conclusion|taken together|here,? we show)\b",
    re.IGNORECASE,
)
# Sentences that describe the study rather than its findings.
_METHODS = re.compile(
    r"\b(we (?:recruited|enrolled|randomi[sz]ed|conducted|performed|used|analy[sz]ed|measured|"
    r"collected|searched|assessed|examined|investigated|evaluated|designed|developed|aimed|sought|"
    r"hypothesi[sz]ed|describe|review|present|propose)|"
    r"(?:were|was) (?:randomi[sz]ed|recruited|enrolled|assigned|collected|measured|obtained|"
    r"included|excluded|followed|interviewed|genotyped|analy[sz]ed|performed|conducted|used)|"
    r"(?:this|the present|our) (?:study|review|trial|paper|article|work) (?:aim\w*|was designed|"
    r"investigat\w*|examin\w*|assess\w*|evaluat\w*|describ\w*|report\w* on|present\w*|explor\w*)|"
    r"(?:the )?(?:aim|objective|purpose|goal)s? (?:of|was|is|were)|data (?:were|was) (?:obtained|extracted)|"
    r"participants (?:were|completed)|patients (?:were|who were) (?:randomi[sz]ed|enrolled|recruited|included))\b",
    re.IGNORECASE,
)
_BACKGROUND = re.compile(
    r"\b(is (?:a|an|the) (?:common|major|leading|important|serious|rare)|remains? (?:unclear|unknown|"
    r"controversial|poorly understood|elusive)|little is known|is not (?:well )?(?:known|understood)|"
    r"has (?:been|become) (?:widely|increasingly)|are (?:widely|commonly) used|is (?:widely|commonly) used)\b",
    re.IGNORECASE,
)


class ExtractorConfig(BaseModel):
    min_chars: int = 40
    max_chars: int = 400
    min_score: float = Field(2.0, description="feature score a sentence needs to be kept as a claim")


class CandidateClaim(BaseModel):
    text: str
    score: float
    features: list[str]


def claim_id_for(task_id: str, text: str) -> str:
    """Stable within a task: the same claim text gets the same id on every run."""
    key = " ".join(text.lower().split())
    return "c_" + hashlib.sha1(f"{task_id}\x1f{key}".encode()).hexdigest()[:16]


def strip_label(sentence: str) -> tuple[str, str | None]:
    """'RESULTS: Mortality fell.' → ('Mortality fell.', 'results'); see :func:`lyra_core.sections.split_label`."""
    return split_label(sentence)


def claim_features(sentence: str, label: str | None = None) -> tuple[float, list[str]]:
    """Score how much a sentence reads like a finding; returns (score, features that fired)."""
    features: list[str] = []
    score = 0.0
    if _FINDING.search(sentence):
        score += 1.5
        features.append("effect")
    if _NULL_RESULT.search(sentence):
        score += 1.0
        features.append("null-result")
    if _STATISTIC.search(sentence):
        score += 1.0
        features.append("statistic")
    if _COMPARISON.search(sentence):
        score += 0.5
        features.append("comparison")
    if _HEDGE.search(sentence):
        score += 0.5
        features.append("hedge")
    if _CONCLUSION.search(sentence):
        score += 1.0
        features.append("conclusion")
    role = label_role(label)
    if role == "finding":
        score += 0.5
        features.append(f"section:{label}")
    if _METHODS.search(sentence):
        score -= 2.5
        features.append("methods")
    if _BACKGROUND.search(sentence):
        score -= 2.0
        features.append("background")
    if role == "other":
        score -= 2.0
        features.append(f"section:{label}")
    if sentence.rstrip().endswith("?"):
        score -= 3.0
        features.append("question")
    return score, features


def clean_claim_text(sentence: str) -> str:
    text = " ".join(sentence.split())
    text = re.sub(
        r"^(?:in conclusion|taken together|overall|together|thus|therefore|hence),?\s+",
        "",
        text,
        flags=re.IGNORECASE,
    )
    return text[:1].upper() + text[1:] if text else text


def extract_claims(
    text: str, config: ExtractorConfig | None = None, sections: list[str] | None = None
) -> list[CandidateClaim]:
    """Finding-like sentences of ``text``, best first; never every sentence.

    Section labels in the text are taken out of the claims and read as cues (a RESULTS sentence
    counts for, a METHODS one against). ``sections`` gives the labels of a text whose labels were
    already taken out (a fragment's ``sections``), one per sentence; where the count differs from
    the sentences found, a single label shared by all still applies.
    """
    config = config or ExtractorConfig()
    claims: list[CandidateClaim] = []
    labelled = labelled_sentences(text)
    given = [s or None for s in sections or []]
    if given and len(given) != len(labelled):
        given = [given[0]] * len(labelled) if len(set(given)) == 1 else []
    for i, (body, found) in enumerate(labelled):
        label = found or (given[i] if given else None)
        if not (config.min_chars <= len(body) <= config.max_chars):
            continue
        if not re.search(r"[a-z]{3}", body):  # headings, tables, reference lists
            continue
        score, features = claim_features(body, label)
        if score >= config.min_score:
            claims.append(CandidateClaim(text=clean_claim_text(body), score=score, features=features))
    return sorted(claims, key=lambda c: -c.score)


def finding_probability(features: np.ndarray, coef: np.ndarray, intercept: float) -> np.ndarray:
    """Logistic score of each row of ``features`` (a sentence's embedding and cue features): the
    probability that the sentence reports a finding rather than background, aims or methods."""
    logits = features @ coef + intercept
    probability: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))
    return probability
