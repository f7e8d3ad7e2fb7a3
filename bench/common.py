"""Shared helpers of the benchmarks: locating the real data, retrieval metrics, timing."""

from __future__ import annotations

import json
import math
import sys
import time
from contextlib import contextmanager
from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def require_data(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        sys.exit(
            f"benchmark data not found: {path} (the benchmarks read ../shared/data beside the repository)"
        )
    return path


def read_jsonl(path: Path) -> list[dict]:
    with path.open() as fh:
        return [json.loads(line) for line in fh if line.strip()]


def scifact_claim_label(claim: dict) -> str:
    """A SciFact claim's label over all its cited papers: NEI without evidence, else its evidence's
    label, SUPPORT where papers disagree (as SciFact's own claim-level label is drawn)."""
    labels = {s["label"] for sets in claim["evidence"].values() for s in sets}
    return "NEI" if not labels else next(iter(labels)) if len(labels) == 1 else "SUPPORT"


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open() as fh:
        next(fh)  # header
        for line in fh:
            qid, doc_id, score = line.rstrip("\n").split("\t")
            qrels.setdefault(qid, {})[doc_id] = int(score)
    return qrels


def ndcg_at_k(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """nDCG@k with graded relevance, as BEIR computes it (pytrec_eval's ndcg_cut)."""
    dcg = sum(relevant.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(rel / math.log2(rank + 2) for rank, rel in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: list[str], relevant: dict[str, int], k: int = 100) -> float:
    hits = sum(1 for doc in ranked[:k] if relevant.get(doc, 0) > 0)
    total = sum(1 for rel in relevant.values() if rel > 0)
    return hits / total if total else 0.0


class Stopwatch:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.items: dict[str, int] = {}

    @contextmanager
    def time(self, stage: str, items: int = 0):
        start = time.perf_counter()
        yield
        self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start
        self.items[stage] = self.items.get(stage, 0) + items

    def rate(self, stage: str) -> float:
        return self.items.get(stage, 0) / self.seconds[stage] if self.seconds.get(stage) else float("nan")
