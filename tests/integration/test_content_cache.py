"""The content-keyed cache: values come back in input order, each distinct missing key is computed
once and with no connection open, a concurrent writer never causes a duplicate, and a second call
computes nothing."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from lyra_assets.evidence.judging import judge_pairs
from lyra_resources.models.content_cache import (
    EMBEDDINGS,
    cached_embeddings,
    cached_judgements,
    cached_values,
)
from lyra_resources.models.inference import NliPrediction
from lyra_resources.store.lyra_store import LyraStore


@pytest.fixture
def store(tmp_path) -> LyraStore:
    return LyraStore.at(tmp_path / "home")


class CountingEmbedder:
    """A stand-in embedder: each text's vector is its length and its first letter's code."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([[len(t), ord(t[0])] for t in texts], dtype=np.float32)


def prediction(premise: str, hypothesis: str) -> NliPrediction:
    agree = premise.split()[0] == hypothesis.split()[0]
    probs = {"entailment": 0.8 if agree else 0.1, "neutral": 0.15, "contradiction": 0.05 if agree else 0.75}
    label = max(probs, key=probs.get)
    return NliPrediction(label=label, relation="", confidence=probs[label], probs=probs)


class FakeNli:
    version = "fake-nli@1"

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def load(self) -> None:
        pass

    def predict(self, pairs, on_batch=None) -> list[NliPrediction]:
        self.calls.append(list(pairs))
        if on_batch:
            on_batch(len(pairs))
        return [prediction(p, h) for p, h in pairs]


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def info(self, line: str) -> None:
        self.lines.append(line)


def test_each_distinct_text_is_embedded_once_and_read_back_in_input_order(store):
    model = CountingEmbedder()
    texts = ["bone density", "fracture risk", "bone density", "falls"]
    first = cached_embeddings(store, "m1", texts, model.encode)
    assert model.calls == [["bone density", "fracture risk", "falls"]]  # first-met order, no repeat
    assert first.tolist() == [[12, 98], [13, 102], [12, 98], [5, 102]]

    again = cached_embeddings(store, "m1", list(reversed(texts)), model.encode)
    assert len(model.calls) == 1  # a second call computes nothing
    assert again.tolist() == first[::-1].tolist() and again.dtype == np.float32

    cached_embeddings(store, "m2", ["falls"], model.encode)  # another model is another key
    assert model.calls[-1] == ["falls"]
    rows = store.fetch_df("SELECT model, text_hash FROM embedding_cache ORDER BY model, text_hash")
    assert len(rows) == 4
    # the key is the SHA-1 hex of the text's UTF-8 bytes, so caches written before stay valid
    assert set(rows.loc[rows["model"] == "m1", "text_hash"]) == {
        hashlib.sha1(t.encode()).hexdigest() for t in set(texts)
    }
    assert cached_embeddings(store, "m1", [], model.encode).shape == (0, 0)


@pytest.mark.duckdb_file
def test_compute_runs_with_no_connection_open(store):
    """Compute may take minutes; another process must be able to write the database meanwhile."""
    store.create_task("is vitamin D good for bones?")  # the schema exists before anyone else opens the file
    database = store.layout.database
    writer = textwrap.dedent(f"""
        import duckdb
        con = duckdb.connect({str(database)!r})
        con.execute("INSERT INTO embedding_cache VALUES ('other', 'h', [1.0])")
        con.close()
    """)

    def compute(texts: list[str]) -> np.ndarray:
        done = subprocess.run([sys.executable, "-c", writer], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr  # a connection of ours would hold the file's lock
        return np.ones((len(texts), 2), dtype=np.float32)

    assert cached_embeddings(store, "m1", ["a", "b"], compute).tolist() == [[1, 1], [1, 1]]
    assert store.fetch_df("SELECT count(*) AS n FROM embedding_cache")["n"].iat[0] == 3


def test_a_key_stored_meanwhile_by_another_writer_is_not_duplicated(store):
    key = ("m1", hashlib.sha1(b"a").hexdigest())

    def compute(items: list[str]) -> list[np.ndarray]:
        store.transaction(
            lambda conn: conn.execute("INSERT INTO embedding_cache VALUES (?, ?, ?)", [*key, [9.0, 9.0]])
        )  # a concurrent run won
        return [np.zeros(2, dtype=np.float32) for _ in items]

    values = cached_values(store, EMBEDDINGS, [key], ["a"], compute)
    assert values[0].tolist() == [0.0, 0.0]  # the value computed here is the one returned
    rows = store.fetch_df("SELECT vector FROM embedding_cache")
    assert len(rows) == 1 and list(rows["vector"].iat[0]) == [9.0, 9.0]  # the first writer's row stays


def test_nli_judgements_are_cached_by_text_pair_and_model_version(store):
    pairs = [
        ("Vitamin D helps", "Vitamin D lowers risk"),
        ("Falls rose", "Vitamin D lowers risk"),
        ("Vitamin D helps", "Vitamin D lowers risk"),
    ]
    judged: list[list[tuple[str, str]]] = []
    told: list[int] = []

    def judge(todo):
        judged.append(todo)
        return [prediction(p, h) for p, h in todo]

    first = cached_judgements(store, "v1", pairs, judge, on_lookup=told.append)
    assert judged == [pairs[:2]] and told == [2]
    assert [r["label"] for r in first] == ["entailment", "contradiction", "entailment"]
    assert first[1] == {
        "label": "contradiction",
        "confidence": 0.75,
        "probs": {"entailment": 0.1, "neutral": 0.15, "contradiction": 0.75},
    }

    assert cached_judgements(store, "v1", pairs, judge, on_lookup=told.append) == first
    assert len(judged) == 1 and told == [2, 0]  # told even when nothing is left to judge
    cached_judgements(store, "v2", pairs[:1], judge)  # a new model version judges again
    assert judged[-1] == pairs[:1]
    assert store.fetch_df("SELECT count(*) AS n FROM nli_cache")["n"].iat[0] == 3


def test_judge_pairs_reports_what_came_from_the_cache(store):
    nli, log = FakeNli(), Log()
    pairs = [
        ("Vitamin D helps", "Vitamin D lowers risk"),
        ("Falls rose", "Vitamin D lowers risk"),
        ("Vitamin D helps", "Vitamin D lowers risk"),
    ]
    first = judge_pairs(store, nli, pairs, log)
    assert nli.calls == [pairs[:2]]
    assert log.lines == ["NLI: 3 pairs, 1 from cache, 2 to judge", "NLI progress 2/2"]
    assert judge_pairs(store, nli, pairs, log) == first
    assert len(nli.calls) == 1 and log.lines[-1] == "NLI: 3 pairs, 3 from cache, 0 to judge"
