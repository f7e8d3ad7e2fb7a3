"""The sentence-role model: does a sentence report a finding, or describe background, aims or methods?

A logistic regression over the sentence's embedding (the task embedder, all-MiniLM-L6-v2) and the
local extractor's cue features (:func:`lyra_core.claims.claim_features`). It is trained on the
section labels of PubMedQA's labelled abstracts (``lyra models train-claim-roles``,
:mod:`lyra_training.claim_roles`): sentences of
RESULTS sections and of the conclusion are findings; BACKGROUND, OBJECTIVE, METHODS and the like
are not. The weights ship in ``model_weights/lyra-claim-roles/weights.json`` (a few kB, with a model
card); the claims asset keeps a candidate only when its finding probability clears the threshold
stored beside them.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from lyra_core.claims import claim_features, finding_probability, strip_label

WEIGHTS_DIR = Path(__file__).resolve().parents[1] / "model_weights" / "lyra-claim-roles"


class ClaimRoleWeights(BaseModel):
    """What ``weights.json`` holds."""

    embedder: str
    features: list[str]  # names of the cue features after the embedding, in order
    coef: list[float]
    intercept: float
    threshold: float  # finding probability a claim needs
    trained_on: str
    sentences: int


def cue_matrix(texts: list[str], positions: list[float | None], names: list[str]) -> np.ndarray:
    """One row per text: 1.0 for each named cue feature that fires, the extractor's score, and
    where the sentence sits in its text (an unknown position counts as the middle)."""
    rows = []
    for text, position in zip(texts, positions, strict=True):
        body, label = strip_label(text)
        score, fired = claim_features(body, label)
        place = 0.5 if position is None else float(position)
        rows.append([float(n in fired) for n in names[:-3]] + [score, place, place * place])
    return np.asarray(rows, dtype=np.float32).reshape(len(texts), len(names))


CUE_SCORE = 1.0  # the extractor's candidates: sentences with at least one finding cue; the model decides
RULE_SCORE = 2.0  # what the extractor's rules alone ask where the model cannot read the embeddings
CUES = [
    "effect",
    "null-result",
    "statistic",
    "comparison",
    "hedge",
    "conclusion",
    "methods",
    "background",
    "question",
    "score",
    "position",
    "position^2",
]
SCORE = CUES.index("score")


class ClaimRoleModel:
    """The shipped weights, ready to score candidate claims."""

    def __init__(self, weights: ClaimRoleWeights) -> None:
        self.weights = weights
        self._coef = np.asarray(weights.coef, dtype=np.float32)

    @classmethod
    def load(cls, folder: Path = WEIGHTS_DIR) -> ClaimRoleModel:
        return cls(
            ClaimRoleWeights.model_validate_json((folder / "weights.json").read_text(encoding="utf-8"))
        )

    def reads(self, vectors: np.ndarray) -> bool:
        """Whether ``vectors`` come from an embedder of the model's width (another embedder's
        cannot be read; the callers then fall back to the extractor's rules)."""
        return vectors.ndim == 2 and vectors.shape[1] == len(self.weights.coef) - len(self.weights.features)

    def probabilities(
        self, texts: list[str], vectors: np.ndarray, positions: list[float | None]
    ) -> np.ndarray:
        """Finding probability of each text, from its embedding row and its position in its source."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        features = np.hstack(
            [vectors.astype(np.float32), cue_matrix(texts, positions, self.weights.features)]
        )
        return finding_probability(features, self._coef, self.weights.intercept)


@functools.cache
def claim_role_model() -> ClaimRoleModel:
    """The shipped model, loaded once per process."""
    return ClaimRoleModel.load()
