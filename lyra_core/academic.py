"""Is a research question academic? The gate of phase 2 (live academic search) and nothing else.

As docs/pipeline.md says, ``is_academic_query()`` only decides whether the academic APIs are
searched first; identifier completion, citation tracking and the evidence graph (phases 3–7)
run for every question. So a false negative costs little, and the rule leans towards "academic".

Two signals, cheapest first:
1. a scholarly identifier (DOI, PMID, arXiv id) or an academic keyword (English or Japanese);
2. otherwise, the embedding of the question against a few academic and everyday exemplar
   questions: academic when the nearest academic exemplar is closer, by ``margin``, than the
   nearest everyday one. A margin rather than an absolute threshold, because MiniLM's cosine
   between two different questions is low whatever their kind (0.2–0.35 for a scholarly question
   and its nearest academic exemplar, 0.1 to the everyday ones; "best pizza in Rome" is 0.74 from
   an everyday exemplar and 0.16 from an academic one). Pass ``embed`` (texts → L2-normalised
   vectors); without it only the keyword rule applies.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

import numpy as np
from pydantic import BaseModel

from lyra_core.identifiers import find_arxiv_ids, find_dois, find_pmids

Embed = Callable[[list[str]], np.ndarray]

_EN_TERMS = (
    r"stud(?:y|ies)|trials?|randomi[sz]ed|placebo|meta-?analys[ie]s|systematic reviews?|cohort|case-control"
    r"|evidence|efficacy|effectiveness|effects? of|side effects?|risks?|associat(?:ed|ion)|mechanisms?"
    r"|hypothes[ie]s|clinical|patients?|dos(?:e|es|age)|therap(?:y|ies)|treatments?|diseases?|disorders?"
    r"|syndromes?|symptoms?|diagnos[ie]s|prognosis|incidence|prevalence|mortality|morbidity|genes?|genetic"
    r"|genom(?:e|ic)|proteins?|cells?|cellular|molecular|enzymes?|receptors?|inhibitors?|vaccines?|viral|virus"
    r"|bacteri(?:a|al)|infections?|cancers?|tumou?rs?|algorithms?|neural networks?|deep learning"
    r"|machine learning|theorems?|experiments?|experimental|statistical(?:ly)?|regression|correlat(?:ed|ion)"
    r"|causal|papers?|journals?|peer[- ]reviewed|doi|pubmed|arxiv|literature|research|scientific|physics"
    r"|chemistry|biology|ecology|climate|quantum|epidemiolog(?:y|ical)|pharmacolog(?:y|ical)|neuro\w*"
)
_EN_RE = re.compile(rf"\b(?:{_EN_TERMS})\b", re.IGNORECASE)
# Japanese has no word boundaries: plain substrings (治療法, 動向, 量子 … were an older rule's false negatives)
_JA_TERMS = (
    "論文",
    "研究",
    "学術",
    "学会",
    "臨床",
    "治験",
    "試験",
    "治療",
    "効果",
    "有効性",
    "副作用",
    "疾患",
    "症状",
    "病",
    "薬",
    "医学",
    "医療",
    "科学",
    "理論",
    "実験",
    "解析",
    "分析",
    "統計",
    "仮説",
    "メカニズム",
    "機序",
    "動向",
    "影響",
    "関連",
    "因果",
    "リスク",
    "遺伝",
    "細胞",
    "量子",
    "機械学習",
    "深層学習",
    "人工知能",
    "アルゴリズム",
    "実用化",
    "エビデンス",
    "メタ分析",
    "システマティックレビュー",
)

ACADEMIC_EXEMPLARS = (
    "Does vitamin D supplementation reduce the risk of fractures?",
    "Do DPP-4 inhibitors raise the risk of heart failure?",
    "What is the efficacy of cognitive behavioural therapy for insomnia?",
    "How do black holes form and evaporate?",
    "What causes antibiotic resistance in bacteria?",
    "Is air pollution linked to childhood asthma?",
    "How does CRISPR gene editing work?",
    "Transformer models for machine translation",
    "Why did the Bronze Age civilisations collapse?",
    "Effect of minimum wage increases on employment",
    "How does sleep deprivation affect memory?",
    "Can intermittent fasting slow ageing?",
    "What drives coral reef bleaching?",
    "Origins of the universe and cosmic inflation",
    "How do children acquire language?",
    "What were the economic causes of the French Revolution?",
    "Does remote work change productivity?",
    "Why do some animals hibernate?",
)
EVERYDAY_EXEMPLARS = (
    "best pizza restaurant near me",
    "weather forecast for tomorrow",
    "cheap flights to Paris in May",
    "iPhone price and release date",
    "movie showtimes tonight",
    "how to reset my router password",
    "football scores today",
    "lyrics of a popular song",
    "buy running shoes online",
    "opening hours of the post office",
    "how to bake chocolate chip cookies",
    "download a free PDF reader",
    "hotel booking in Kyoto",
    "celebrity gossip news",
    "translate hello into Spanish",
    "how to change a flat tyre",
    "install an app on my phone",
    "concert tickets this weekend",
    "used cars for sale",
)
# below this cosine to every exemplar a question is too unlike all of them to judge
MIN_SIMILARITY = 0.15


class AcademicDecision(BaseModel):
    """The gate's answer and why, recorded in the ``papers`` asset's metadata."""

    academic: bool
    method: Literal["identifier", "keyword", "embedding", "none"]
    reason: str
    similarity: float | None = None  # cosine to the nearest academic exemplar, when embedded


def academic_terms(query: str) -> list[str]:
    """Academic keywords in ``query`` (English words, Japanese substrings), in order found."""
    found = [m.group(0).lower() for m in _EN_RE.finditer(query)]
    found += [t for t in _JA_TERMS if t in query]
    return list(dict.fromkeys(found))


def classify_query(query: str, embed: Embed | None = None, margin: float = 0.05) -> AcademicDecision:
    """Whether phase 2 should search the academic APIs for ``query``, and why."""
    text = " ".join((query or "").split())
    ids = find_dois(text) + find_pmids(text) + find_arxiv_ids(text)
    if ids:
        return AcademicDecision(academic=True, method="identifier", reason=f"names {ids[0]}")
    terms = academic_terms(text)
    if terms:
        return AcademicDecision(
            academic=True, method="keyword", reason="academic terms: " + ", ".join(terms[:5])
        )
    if embed is None or not text:
        return AcademicDecision(academic=False, method="none", reason="no academic identifier or term")
    vectors = np.asarray(embed([text, *ACADEMIC_EXEMPLARS, *EVERYDAY_EXEMPLARS]), dtype=np.float32)
    sims = vectors[1:] @ vectors[0]
    n = len(ACADEMIC_EXEMPLARS)
    academic, everyday = float(sims[:n].max()), float(sims[n:].max())
    closest = ACADEMIC_EXEMPLARS[int(sims[:n].argmax())]
    is_academic = academic >= MIN_SIMILARITY and academic - everyday >= margin
    reason = (
        f"cosine {academic:.2f} to academic exemplar {closest!r} vs {everyday:.2f} to everyday ones "
        f"(margin {margin:.2f})"
    )
    return AcademicDecision(
        academic=is_academic, method="embedding", reason=reason, similarity=round(academic, 4)
    )


def is_academic_query(query: str, embed: Embed | None = None, margin: float = 0.05) -> bool:
    """True when phase 2 (live academic search) should run for ``query``."""
    return classify_query(query, embed, margin).academic
