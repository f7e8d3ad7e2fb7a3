"""Topics: claims grouped by embedding similarity communities, labelled by their distinctive terms."""

from __future__ import annotations

import hashlib
import math
from collections import Counter

import networkx as nx
import numpy as np
from pydantic import BaseModel

from lyra_core.text import tokenize


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
    graph.add_weighted_edges_from((int(i), int(j), float(sims[i, j])) for i, j in zip(rows, cols, strict=True))
    found = nx.community.louvain_communities(graph, weight="weight", seed=seed)
    groups = sorted((sorted(c) for c in found if len(c) > 1), key=lambda c: (-len(c), c[0]))
    loners = sorted(i for c in found if len(c) == 1 for i in c)
    return groups + ([loners] if loners else [])


def distinctive_terms(texts_by_group: list[list[str]], k: int = 3) -> list[list[str]]:
    """Class-based TF-IDF: terms frequent in a group and rare in the others."""
    # numbers ("14", "55.9") are no topic's name
    counts = [Counter(tok for text in texts for tok in tokenize(text) if any(ch.isalpha() for ch in tok))
              for texts in texts_by_group]
    doc_freq = Counter(term for c in counts for term in c)
    n = len(counts)
    out = []
    for c in counts:
        total = sum(c.values()) or 1
        scored = sorted(c, key=lambda t: (-(c[t] / total) * math.log(1 + n / doc_freq[t]), t))
        out.append(scored[:k])
    return out


def build_topics(task_id: str, claim_ids: list[str], texts: list[str], vectors: np.ndarray, threshold: float) -> list[Topic]:
    groups = communities(vectors, threshold)
    terms = distinctive_terms([[texts[i] for i in g] for g in groups])
    topics = []
    for group, group_terms in zip(groups, terms, strict=True):
        key = "\x1f".join(sorted(claim_ids[i] for i in group))
        topics.append(Topic(
            topic_id="t_" + hashlib.sha1(f"{task_id}\x1f{key}".encode()).hexdigest()[:12],
            members=group, terms=group_terms, label=", ".join(group_terms) or "claims",
        ))
    return topics
