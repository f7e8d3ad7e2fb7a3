"""Training cross-encoder rerankers: from judged queries (``train_labelled_reranker``: a query's
relevant papers against the papers stage 2 ranks highest that are not), or adapted to a user's own
corpus with no labelled data and no download (``train_reranker``).

Without labels, each paper's title is a query whose relevant passage is that paper's abstract; BM25's best other
papers for the same title are hard negatives (close in words, wrong paper), plus one random paper.
A cross-encoder (one relevance logit) learns to tell them apart, starting from the weights of
Lyra's NLI cross-encoder (already trained on sentence pairs) or from MiniLM.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from lyra_core.identifiers import normalize_title
from lyra_resources.corpus.local_corpus import LocalCorpus
from lyra_resources.corpus.search import CorpusSearch
from lyra_training.loop import LoopState, OptimiserSettings, shuffled_epochs, train_loop

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)

# Titles that name a section or a document type, not a paper (seen in real corpora).
_PLACEHOLDER_TITLES = {
    "summary",
    "article",
    "review article",
    "original article",
    "table of contents",
    "editorial",
    "abstract",
    "introduction",
    "letter",
    "correspondence",
    "erratum",
}


class RerankerPair(BaseModel):
    query: str
    passage: str
    label: float


class RerankerReport(BaseModel):
    corpus: str
    fingerprint: str
    base_model: str
    out_dir: str
    queries: int
    pairs: int
    negatives_per_query: int
    epochs: int
    steps: int
    seconds: float
    pairs_per_s: float
    final_loss: float


def build_pairs(
    corpus: LocalCorpus,
    max_queries: int,
    hard_negatives: int = 3,
    seed: int = 13,
    min_abstract_chars: int = 200,
) -> list[RerankerPair]:
    """(title, abstract) positives and BM25 hard negatives from the corpus itself."""
    rng = random.Random(seed)
    usable = [
        i
        for i, r in enumerate(corpus.records)
        if r.abstract
        and len(r.abstract) >= min_abstract_chars
        and len(r.title) >= 20
        and normalize_title(r.title) not in _PLACEHOLDER_TITLES
    ]
    chosen = rng.sample(usable, min(max_queries, len(usable)))
    pairs: list[RerankerPair] = []
    for i in chosen:
        record = corpus.records[i]
        hits = [
            h
            for h in corpus.search(record.title, limit=hard_negatives * 4 + 1)
            if h.source_id != record.source_id and h.abstract
        ]
        negatives = hits[: hard_negatives * 2]
        rng.shuffle(negatives)
        negatives = negatives[:hard_negatives]
        random_other = corpus.records[rng.choice(usable)]
        if random_other.source_id != record.source_id:
            negatives.append(random_other)
        pairs.append(RerankerPair(query=record.title, passage=record.abstract, label=1.0))
        pairs.extend(RerankerPair(query=record.title, passage=n.abstract, label=0.0) for n in negatives)
    rng.shuffle(pairs)
    return pairs


def labelled_pairs(
    queries: dict[str, str],
    relevant: dict[str, set[str]],
    candidates: dict[str, list[str]],
    passages: dict[str, str],
    hard_negatives: int = 7,
) -> list[RerankerPair]:
    """Pairs from judged queries: each relevant paper a positive, and the ``hard_negatives`` best-ranked
    unjudged papers among ``candidates[qid]`` (what the earlier stages put near the top) negatives.
    In query order: ``fit_reranker`` shuffles."""
    pairs: list[RerankerPair] = []
    for qid, text in queries.items():
        good = relevant.get(qid, set())
        pairs.extend(
            RerankerPair(query=text, passage=passages[d], label=1.0) for d in sorted(good) if d in passages
        )
        negatives = [d for d in candidates.get(qid, []) if d not in good and d in passages][:hard_negatives]
        pairs.extend(RerankerPair(query=text, passage=passages[d], label=0.0) for d in negatives)
    return pairs


class FitReport(BaseModel):
    base_model: str
    out_dir: str
    pairs: int
    epochs: int
    steps: int
    seconds: float
    pairs_per_s: float
    final_loss: float


def fit_reranker(
    pairs: list[RerankerPair],
    out_dir: str | Path,
    base_model_dir: str | Path,
    *,
    epochs: int = 1,
    batch_size: int = 16,
    lr: float = 3e-5,
    warmup_ratio: float = 0.1,
    max_length: int = 256,
    seed: int = 13,
    num_threads: int = 2,
    frozen_layers: int = 0,
    progress: Callable[[str], None] | None = None,
) -> FitReport:
    """Train a one-logit cross-encoder on ``pairs`` (binary cross-entropy) and save it to ``out_dir``.

    ``frozen_layers`` > 0 keeps the embeddings and that many lower encoder layers as the base has them:
    on 2 CPU cores the backward pass through them is most of a step's time, and a pair task this close
    to the base's (sentence pairs) needs the upper layers most."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(seed)
    torch.set_num_threads(num_threads)
    tokenizer = AutoTokenizer.from_pretrained(base_model_dir)
    # A one-logit head replaces whatever head the base had (NLI's three classes, or none).
    model = AutoModelForSequenceClassification.from_pretrained(
        base_model_dir,
        num_labels=1,
        ignore_mismatched_sizes=True,
        dtype=torch.float32,
        id2label={0: "relevant"},
        label2id={"relevant": 0},
    )
    # an NLI base says single_label_classification, which a one-logit model cannot be loaded with
    model.config.problem_type = None
    if frozen_layers:
        encoder = model.base_model
        for module in [encoder.embeddings, *encoder.encoder.layer[:frozen_layers]]:
            module.requires_grad_(False)
    total = (len(pairs) + batch_size - 1) // batch_size * epochs
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def batch_loss(batch: list[RerankerPair]) -> torch.Tensor:
        enc = tokenizer(
            [p.query for p in batch],
            [p.passage for p in batch],
            padding="longest",
            truncation="longest_first",  # a long query must not stop training
            max_length=max_length,
            return_tensors="pt",
        )
        return loss_fn(model(**enc).logits.squeeze(-1), torch.tensor([p.label for p in batch]))

    def report(state: LoopState) -> None:
        if progress and (state.step % 25 == 0 or state.step == total):
            progress(
                f"step {state.step}/{total} loss={state.running_loss:.4f} "
                f"{state.step * batch_size / state.elapsed():.1f} pairs/s"
            )

    settings = OptimiserSettings(
        lr=lr, weight_decay=0.01, warmup_steps=int(total * warmup_ratio), schedule="linear"
    )
    fitted = train_loop(
        model,
        shuffled_epochs(pairs, batch_size, epochs, seed),
        batch_loss,
        settings,
        total_steps=total,
        on_step=report,
    )
    seconds, step, running = fitted.seconds, fitted.steps, fitted.running_loss
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    return FitReport(
        base_model=str(base_model_dir),
        out_dir=str(out),
        pairs=len(pairs),
        epochs=epochs,
        steps=step,
        seconds=round(seconds, 1),
        pairs_per_s=round(len(pairs) * epochs / max(seconds, 1e-9), 2),
        final_loss=round(running, 4),
    )


class LabelledReport(BaseModel):
    corpus: str
    fingerprint: str
    queries: int
    pairs: int
    negatives_per_query: int
    fit: FitReport


def read_qrels(path: Path) -> dict[str, set[str]]:
    """Relevant documents per query from a BEIR qrels TSV (``query-id corpus-id score``, header
    line) or a TREC qrels file (``qid 0 docid relevance``); judgements of 0 are not relevance."""
    relevant: dict[str, set[str]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        cells = line.split()
        if not cells or (number == 1 and not cells[-1].lstrip("-").isdigit()):
            continue  # blank, or BEIR's header
        if len(cells) not in (3, 4) or not cells[-1].lstrip("-").isdigit():
            raise ValueError(f"{path} line {number}: expected 'query doc score' or 'query 0 doc relevance'")
        qid, doc, score = cells[0], cells[-2], int(cells[-1])
        if score > 0:
            relevant.setdefault(qid, set()).add(doc)
    if not relevant:
        raise ValueError(f"{path}: holds no positive judgement")
    return relevant


def train_labelled_reranker(
    search: CorpusSearch,
    queries: list[tuple[str, str]],
    relevant: dict[str, set[str]],
    out_dir: str | Path,
    base_model_dir: str | Path,
    *,
    epochs: int = 1,
    hard_negatives: int = 7,
    num_threads: int = 2,
    progress=None,
) -> LabelledReport:
    """A reranker from judged queries over ``search``'s corpus: each query's relevant papers are
    positives, its best-ranked unjudged papers by stage 2 (``search``, with no reranker) negatives."""
    judged = [(qid, text) for qid, text in queries if relevant.get(qid)]
    if not judged:
        raise ValueError("no query has a judgement: the queries' ids must match the qrels' query ids")
    doc_ids = [r.source_id for r in search.corpus.records]
    candidates = {qid: [h.doc_id for h in search.search(text, hard_negatives * 4)] for qid, text in judged}
    pairs = labelled_pairs(
        dict(judged),
        relevant,
        candidates,
        dict(zip(doc_ids, search.texts, strict=True)),
        hard_negatives=hard_negatives,
    )
    if not any(p.label for p in pairs):
        raise ValueError("no judged paper is in the corpus: the qrels' document ids must be the corpus's ids")
    fit = fit_reranker(
        pairs, out_dir, base_model_dir, epochs=epochs, num_threads=num_threads, progress=progress
    )
    report = LabelledReport(
        corpus=str(search.corpus.path),
        fingerprint=search.corpus.fingerprint,
        queries=len(judged),
        pairs=len(pairs),
        negatives_per_query=hard_negatives,
        fit=fit,
    )
    (Path(out_dir) / "training.json").write_text(report.model_dump_json(indent=2))
    return report


def train_reranker(
    corpus: LocalCorpus,
    out_dir: str | Path,
    base_model_dir: str | Path,
    *,
    max_queries: int = 2000,
    hard_negatives: int = 3,
    epochs: int = 1,
    batch_size: int = 16,
    lr: float = 3e-5,
    warmup_ratio: float = 0.1,
    max_length: int = 256,
    seed: int = 13,
    num_threads: int = 2,
    min_abstract_chars: int = 200,
    progress=None,
) -> RerankerReport:
    """A reranker adapted to ``corpus`` from its own title → abstract pairs (no labels needed)."""
    pairs = build_pairs(corpus, max_queries, hard_negatives, seed, min_abstract_chars)
    if not pairs:
        raise ValueError(f"corpus {corpus.path} has no paper with a title and an abstract to learn from")
    fit = fit_reranker(
        pairs,
        out_dir,
        base_model_dir,
        epochs=epochs,
        batch_size=batch_size,
        lr=lr,
        warmup_ratio=warmup_ratio,
        max_length=max_length,
        seed=seed,
        num_threads=num_threads,
        progress=progress,
    )
    report = RerankerReport(
        corpus=str(corpus.path),
        fingerprint=corpus.fingerprint,
        base_model=fit.base_model,
        out_dir=fit.out_dir,
        queries=len(pairs) // (hard_negatives + 2) if pairs else 0,
        pairs=len(pairs),
        negatives_per_query=hard_negatives + 1,
        epochs=epochs,
        steps=fit.steps,
        seconds=fit.seconds,
        pairs_per_s=fit.pairs_per_s,
        final_loss=fit.final_loss,
    )
    (Path(out_dir) / "training.json").write_text(report.model_dump_json(indent=2))
    return report
