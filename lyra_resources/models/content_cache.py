"""Values computed from content (a text's embedding, a text pair's NLI judgement), kept in the
store under the content's hash and the model that computed them, so no content is computed twice.
The rows are read and written by ``lyra_resources.store.content_cache_rows``.

Reading the known values and writing the new ones are each one short transaction; the model work
runs between them with no connection open, since it is slow and an open connection holds the
DuckDB lock against every other process.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from lyra_core.evidence import text_hash
from lyra_resources.schema import EMBEDDING_CACHE, NLI_CACHE, TableSpec
from lyra_resources.store.content_cache_rows import insert_new, read_cached
from lyra_resources.store.lyra_store import LyraStore

if TYPE_CHECKING:
    from lyra_resources.models.inference import NliPrediction

Item = TypeVar("Item")
Computed = TypeVar("Computed")
Value = TypeVar("Value")
Key = tuple[str, ...]


@dataclass(frozen=True)
class ContentCache(Generic[Computed, Value]):
    """A cache table of the registry: ``key_columns`` (content hashes and the model or version that
    computed the value) identify a row, the table's other columns hold the value."""

    table: TableSpec
    key_columns: tuple[str, ...]
    to_row: Callable[[Computed], dict[str, Any]]  # a computed value as the table's value columns
    from_row: Callable[[dict[str, Any]], Value]  # a stored row (every column) as what callers get

    def __post_init__(self) -> None:
        unknown = set(self.key_columns) - set(self.table.column_names)
        if unknown:
            raise ValueError(f"{self.table.name} has no columns {sorted(unknown)}")


def cached_values(
    store: LyraStore,
    cache: ContentCache[Computed, Value],
    keys: Sequence[Key],
    items: Sequence[Item],
    compute: Callable[[list[Item]], Sequence[Computed]],
    *,
    on_lookup: Callable[[int], None] | None = None,
) -> list[Value]:
    """The value of each of ``items`` (``keys[i]`` is the key of ``items[i]``, in the order of
    ``cache.key_columns``), in input order. Known values are read in one short connection; the
    items of the keys not found, each distinct key once and in the order first met, go to
    ``compute`` with no connection open; its values are stored unless a concurrent writer stored
    the same key first. ``on_lookup(missing)`` hears how many distinct keys are to be computed,
    before ``compute`` runs (and also when there are none)."""
    if len(keys) != len(items):
        raise ValueError(f"{len(keys)} keys for {len(items)} items")
    unique = list(dict.fromkeys(keys))
    known = _read(store, cache, unique)
    missing = [k for k in unique if k not in known]
    if on_lookup:
        on_lookup(len(missing))
    if missing:
        first_index: dict[Key, int] = {}
        for i, key in enumerate(keys):
            first_index.setdefault(key, i)
        computed = compute([items[first_index[k]] for k in missing])
        rows = [
            dict(zip(cache.key_columns, key, strict=True)) | cache.to_row(value)
            for key, value in zip(missing, computed, strict=True)
        ]
        _insert(store, cache, rows)
        known.update({key: cache.from_row(row) for key, row in zip(missing, rows, strict=True)})
    return [known[k] for k in keys]


def _read(store: LyraStore, cache: ContentCache[Any, Value], keys: list[Key]) -> dict[Key, Value]:
    return {
        tuple(record[k] for k in cache.key_columns): cache.from_row(record)
        for record in read_cached(store, cache.table, cache.key_columns, keys)
    }


def _insert(store: LyraStore, cache: ContentCache[Any, Any], rows: list[dict[str, Any]]) -> None:
    insert_new(store, cache.table, cache.key_columns, rows)


# -- the two caches --------------------------------------------------------------------------------

EMBEDDINGS: ContentCache[np.ndarray, np.ndarray] = ContentCache(
    table=EMBEDDING_CACHE,
    key_columns=("model", "text_hash"),
    to_row=lambda vector: {"vector": np.asarray(vector, dtype=np.float32).tolist()},
    from_row=lambda row: np.asarray(row["vector"], dtype=np.float32),
)

NLI_JUDGEMENTS: ContentCache[NliPrediction, dict[str, Any]] = ContentCache(
    table=NLI_CACHE,
    key_columns=("premise_hash", "hypothesis_hash", "model_version"),
    to_row=lambda p: {"label": p.label, "confidence": p.confidence, "probs": json.dumps(p.probs)},
    from_row=lambda row: {
        "label": row["label"],
        "confidence": row["confidence"],
        "probs": json.loads(row["probs"]),
    },
)


def cached_embeddings(
    store: LyraStore,
    model: str,
    texts: Sequence[str],
    compute: Callable[[list[str]], Sequence[np.ndarray]],
    *,
    on_lookup: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Embeddings of ``texts`` by ``model``, one row per text: cached ones read back, the rest
    computed by ``compute(texts)`` and stored for next time; ``on_lookup(n)`` hears how many
    distinct texts are to be computed, before they are."""
    vectors = cached_values(
        store, EMBEDDINGS, [(model, text_hash(t)) for t in texts], list(texts), compute, on_lookup=on_lookup
    )
    return np.stack(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)


def store_embeddings(store: LyraStore, model: str, texts: Sequence[str], vectors: np.ndarray) -> None:
    """Store embeddings by ``model`` computed apart (the background embedder's, a batch at a time)
    in one short transaction: each text once, and a text another process stored first keeps its row."""
    rows: dict[Key, np.ndarray] = {}
    for text, vector in zip(texts, vectors, strict=True):
        rows.setdefault((model, text_hash(text)), vector)
    if rows:
        _insert(
            store,
            EMBEDDINGS,
            [
                dict(zip(EMBEDDINGS.key_columns, key, strict=True)) | EMBEDDINGS.to_row(vector)
                for key, vector in rows.items()
            ],
        )


def cached_embedding_rows(
    store: LyraStore, model: str, texts: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """The cached embeddings by ``model`` among ``texts``, computing none: the indices of the texts
    found and their vectors, one row each."""
    keys = [(model, text_hash(t)) for t in texts]
    known = _read(store, EMBEDDINGS, list(dict.fromkeys(keys)))
    found = [i for i, key in enumerate(keys) if key in known]
    if not found:
        return np.zeros(0, dtype=int), np.zeros((0, 0), dtype=np.float32)
    return np.asarray(found), np.stack([known[keys[i]] for i in found])


def cached_judgements(
    store: LyraStore,
    model_version: str,
    pairs: Sequence[tuple[str, str]],
    judge: Callable[[list[tuple[str, str]]], Sequence[NliPrediction]],
    *,
    on_lookup: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """NLI results (``label``, ``confidence``, ``probs``) for (premise, hypothesis) pairs judged
    by ``model_version``: cached ones read back, the rest judged by ``judge(pairs)`` and stored."""
    keys = [(text_hash(p), text_hash(h), model_version) for p, h in pairs]
    return cached_values(store, NLI_JUDGEMENTS, keys, list(pairs), judge, on_lookup=on_lookup)
