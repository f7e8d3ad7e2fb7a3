"""``LocalModels``: the models a run uses, as a Dagster resource configured from
``settings.models``: the embedder (through the store's embedding cache), the NLI model with an
optional LoRA adapter, the direction reader, and the stage-3 reranker a task asks for.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from dagster import ConfigurableResource
from pydantic import Field

from lyra_resources.models.content_cache import cached_embeddings
from lyra_resources.models.direction_judge import DirectionReader, direction_reader
from lyra_resources.models.evidence_selector import EvidenceSelector, evidence_selector
from lyra_resources.models.inference import (
    Embedder,
    NliModel,
    Reranker,
    embedder,
    nli_model,
    reranker,
    set_threads,
)
from lyra_resources.models.label_model import LabelModel, label_model
from lyra_resources.models.model_files import (
    DEFAULT_DIRECTION_DIR,
    DEFAULT_NLI_DIR,
    PACKAGED_EMBEDDER,
    EmbeddingEncoding,
)
from lyra_resources.settings.loading import LyraSettings

if TYPE_CHECKING:
    from lyra_resources.store.lyra_store import LyraStore


class LocalModels(ConfigurableResource):
    """The models a run uses, as a Dagster resource (configured from ``settings.models``)."""

    embedder_name: str = PACKAGED_EMBEDDER
    embedder_precision: str = "fp32"
    embedder_max_tokens: int = Field(
        0, description="tokens of a text the embedder reads; 0: the model's own limit"
    )
    nli_path: str = ""
    direction_path: str = "off"
    selector: bool = Field(False, description="the evidence selector chooses where each paper is read")
    judge: str = Field("rules", description="'learned': the label model reads each paper (evidence.judge)")
    reranker_choice: str = "none"
    threads: int = 2
    reranker_dir: str = Field("", description="where corpus-adapted rerankers are stored")

    @classmethod
    def configured(cls, home: Path, config: LyraSettings) -> LocalModels:
        """The models ``config.models`` names, with corpus-adapted rerankers under ``home``."""
        return cls(
            embedder_name=config.models.embedder,
            embedder_precision=config.models.embedder_precision,
            embedder_max_tokens=config.models.embedder_max_tokens or 0,
            nli_path=config.models.nli,
            direction_path=config.models.direction,
            selector=config.evidence.selector,
            judge=config.evidence.judge,
            reranker_choice=config.models.reranker,
            threads=config.torch_threads,
            reranker_dir=str(home / "models" / "rerankers"),
        )

    @property
    def encoding(self) -> EmbeddingEncoding:
        return EmbeddingEncoding(
            precision=self.embedder_precision, max_tokens=self.embedder_max_tokens or None
        )

    def embedder(self) -> Embedder:
        set_threads(self.threads)
        return embedder(self.embedder_name, self.encoding)

    @property
    def embedding_key(self) -> str:
        """What the embedding cache keys this embedder's vectors by: its name and its encoding, so
        vectors of two encodings are never read back for one another."""
        return self.encoding.key(self.embedder_name)

    def cached_encoder(self, store: LyraStore) -> Callable[[list[str]], np.ndarray]:
        """``encode(texts)`` through the store's embedding cache: texts embedded before are read
        back, and the model is loaded only when one is new (a re-run loads no model at all)."""
        model = self.embedder()
        return lambda texts: cached_embeddings(store, self.embedding_key, texts, model.encode)

    def nli(self, adapter: str | None = None) -> NliModel:
        """The base NLI model, or with a LoRA adapter (the active version's, see nli_versions)."""
        set_threads(self.threads)
        return nli_model(self.nli_path or DEFAULT_NLI_DIR, adapter)

    def direction_reader(self) -> DirectionReader | None:
        """The direction reader effect claims are judged with; None when ``models.direction`` is 'off'."""
        if self.direction_path.strip().lower() == "off":
            return None
        set_threads(self.threads)
        return direction_reader(self.direction_path or DEFAULT_DIRECTION_DIR)

    def evidence_selector(self) -> EvidenceSelector | None:
        """The evidence selector, where ``evidence.selector`` is on."""
        if not self.selector:
            return None
        set_threads(self.threads)
        return evidence_selector()

    def label_model(self) -> LabelModel | None:
        """The label model, where ``evidence.judge`` is 'learned'."""
        if self.judge != "learned":
            return None
        set_threads(self.threads)
        return label_model()

    @property
    def nli_base_path(self) -> str:
        return self.nli_path or str(DEFAULT_NLI_DIR)

    def reranker_for(self, corpus_key: Callable[[], str | None]) -> tuple[Reranker | None, str]:
        """The stage-3 model for a task and a sentence saying which one (or why none).
        ``corpus_key`` is only called for ``auto``, which looks for the corpus's own reranker."""
        set_threads(self.threads)
        choice = self.reranker_choice.strip()
        if choice.lower() == "none":
            return None, (
                "skipped: models.reranker is 'none' (the default: on BEIR-SciFact the corpus-adapted "
                "reranker did not beat stage 2; see README)"
            )
        if choice.lower() != "auto":
            return reranker(choice), f"cross-encoder {choice}"
        key = corpus_key() if self.reranker_dir else None
        if key:
            candidate = Path(self.reranker_dir) / key
            if (candidate / "config.json").exists():
                return reranker(candidate), f"corpus-adapted cross-encoder {candidate.name}"
        return (
            None,
            "skipped: no reranker trained for this corpus (`lyra models train-reranker --corpus PATH`)",
        )
