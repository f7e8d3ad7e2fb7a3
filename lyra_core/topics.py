"""Topics: claims grouped by embedding similarity communities, labelled by their distinctive terms."""

from __future__ import annotations

import hashlib
import math
from collections import Counter

import networkx as nx
import numpy as np
from pydantic import BaseModel

from lyra_core.scoring import votes_on_both_sides
from lyra_core.text import tokenize

# Words that name no topic: adverbs and connectives the stop list leaves in, and the vocabulary
# every abstract shares ("patients", "study", "results", "increased").
GENERAL_TERMS: frozenset[str] = frozenset(
    """
    finally however also additionally moreover furthermore therefore thus hence overall together
    respectively significantly markedly highly strongly largely mainly mostly partly only even still yet
    whereas although though whether either neither both among across via per using used use
    patients patient subjects participants individuals people cases controls group groups cohort
    study studies trial trials analysis analyses results result data findings finding evidence
    effect effects role level levels activity associated association associations increased decreased
    reduced higher lower increase decrease risk compared versus significant significance non
    model models method methods approach number total years year day days time times mean
    observed showed show shows found suggest suggests suggesting indicate indicates demonstrated
    including related based different various new novel well may might could can one two three
""".split()
)
# Nouns and adjectives that end in -ly; every other word ending in -ly is an adverb.
_LY_WORDS = frozenset(
    {
        "family",
        "assembly",
        "anomaly",
        "supply",
        "elderly",
        "italy",
        "fly",
        "butterfly",
        "belly",
        "jelly",
        "lily",
        "ally",
        "rally",
        "reply",
        "monopoly",
        "july",
        "holly",
    }
)


def label_term(term: str) -> bool:
    """Whether a token may name a topic: a word with letters, neither a general term nor an adverb."""
    return (
        any(ch.isalpha() for ch in term)
        and term not in GENERAL_TERMS
        and not (term.endswith("ly") and len(term) > 4 and term not in _LY_WORDS)
    )


class Topic(BaseModel):
    topic_id: str
    members: list[int]  # indices into the claims given
    terms: list[str]
    label: str


def communities(vectors: np.ndarray, threshold: float, seed: int = 13) -> list[list[int]]:
    """Louvain communities of the graph linking claims whose cosine is at least ``threshold``.
    Claims linked to nothing are gathered into one last group, so no topic is a lone claim."""
    n = len(vectors)
    if n == 0:
        return []
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    sims = vectors @ vectors.T
    rows, cols = np.nonzero(np.triu(sims >= threshold, k=1))
    graph.add_weighted_edges_from(
        (int(i), int(j), float(sims[i, j])) for i, j in zip(rows, cols, strict=True)
    )
    found = nx.community.louvain_communities(graph, weight="weight", seed=seed)
    groups = sorted((sorted(c) for c in found if len(c) > 1), key=lambda c: (-len(c), c[0]))
    loners = sorted(i for c in found if len(c) == 1 for i in c)
    return groups + ([loners] if loners else [])


def distinctive_terms(texts_by_group: list[list[str]], k: int = 3) -> list[list[str]]:
    """Class-based TF-IDF: terms frequent in a group and rare in the others."""
    # numbers ("14", "55.9"), adverbs and general terms are no topic's name
    counts = [
        Counter(tok for text in texts for tok in tokenize(text) if label_term(tok))
        for texts in texts_by_group
    ]
    doc_freq = Counter(term for c in counts for term in c)
    n = len(counts)
    out = []
    for c in counts:
        total = sum(c.values()) or 1
        scored = sorted(c, key=lambda t: (-(c[t] / total) * math.log(1 + n / doc_freq[t]), t))
        out.append(scored[:k])
    return out


def contradicted(members: list[int], alphas: np.ndarray, betas: np.ndarray) -> bool:
    """A topic has contradicting evidence when one of its claims has strong votes on both sides
    (:func:`lyra_core.scoring.votes_on_both_sides`), not whenever some claim has a REFUTES edge."""
    return any(votes_on_both_sides(float(alphas[i]), float(betas[i])) for i in members)


def build_topics(
    task_id: str, claim_ids: list[str], texts: list[str], vectors: np.ndarray, threshold: float
) -> list[Topic]:
    groups = communities(vectors, threshold)
    terms = distinctive_terms([[texts[i] for i in g] for g in groups])
    topics = []
    for group, group_terms in zip(groups, terms, strict=True):
        key = "\x1f".join(sorted(claim_ids[i] for i in group))
        topics.append(
            Topic(
                topic_id="t_" + hashlib.sha1(f"{task_id}\x1f{key}".encode()).hexdigest()[:12],
                members=group,
                terms=group_terms,
                label=", ".join(group_terms) or "claims",
            )
        )
    return topics
