"""``is_academic_query``: the keyword/identifier rule, and the exemplar embedding rule."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from lyra_core.academic import ACADEMIC_EXEMPLARS, EVERYDAY_EXEMPLARS, classify_query, is_academic_query


def test_identifiers_and_keywords_decide_without_embeddings():
    def never(texts):  # the embedder must not even be loaded when a keyword decides
        raise AssertionError("embedder called")

    assert classify_query("What does 10.1056/NEJMoa2034577 report?", never).method == "identifier"
    assert classify_query("arXiv:1706.03762 follow-ups", never).method == "identifier"
    decision = classify_query("Do DPP-4 inhibitors raise the risk of heart failure?", never)
    assert decision.academic and decision.method == "keyword" and "inhibitors" in decision.reason
    # false negatives of the old keyword rule
    for query in ("機械学習の最新動向", "COVID-19 治療法", "量子コンピュータ 実用化"):
        assert is_academic_query(query, never), query
    assert not is_academic_query("best pizza near me")  # no embedder: the keyword rule alone


def _bag_of_words(texts: list[str]) -> np.ndarray:
    """A stand-in embedder: hashed word counts, L2-normalised (deterministic, no model)."""
    out = np.zeros((len(texts), 512), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in text.lower().replace("?", " ").split():
            out[i, zlib.crc32(word.encode()) % 512] += 1.0
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def test_the_embedding_rule_compares_academic_and_everyday_exemplars():
    academic = classify_query("How do black holes form?", _bag_of_words)
    assert academic.method == "embedding" and academic.academic and academic.similarity > 0
    assert "black holes" in academic.reason
    everyday = classify_query("weather forecast for tomorrow in Osaka", _bag_of_words)
    assert everyday.method == "embedding" and not everyday.academic
    assert len(ACADEMIC_EXEMPLARS) >= 10 and len(EVERYDAY_EXEMPLARS) >= 10


@pytest.mark.slow
def test_with_the_real_embedder():
    from lyra_resources.models.inference import embedder

    encode = embedder().encode
    for query in (
        "How do black holes form?",
        "Is remote work more productive?",
        "Can plants feel pain?",
        "How did the Roman empire fall?",
        "Do bilingual children have cognitive advantages?",
    ):
        assert is_academic_query(query, encode), query
    for query in (
        "best pizza in Rome",
        "taylor swift concert tickets",
        "nearest gas station",
        "kobe beef price",
        "How to install python on windows",
        "anything",
    ):
        assert not is_academic_query(query, encode), query
