"""Training the sentence-role model (``lyra models train-claim-roles``): a logistic regression on
the task embedder's sentence vectors and the extractor's cue features, fitted on the section labels
of PubMedQA's labelled abstracts. Scoring with the trained weights is
:mod:`lyra_resources.models.claim_roles`."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from lyra_core.fragments import split_sentences
from lyra_resources.models.claim_roles import (
    CUE_SCORE,
    CUES,
    SCORE,
    WEIGHTS_DIR,
    ClaimRoleWeights,
    cue_matrix,
)

FINDING_SECTIONS = {"RESULTS", "RESULT", "FINDINGS", "CONCLUSION", "CONCLUSIONS"}
OTHER_SECTIONS = {
    "BACKGROUND",
    "INTRODUCTION",
    "CONTEXT",
    "OBJECTIVE",
    "OBJECTIVES",
    "AIM",
    "AIMS",
    "PURPOSE",
    "METHODS",
    "METHOD",
    "MATERIALS AND METHODS",
    "PATIENTS AND METHODS",
    "MATERIAL AND METHODS",
    "DESIGN",
    "STUDY DESIGN",
    "SETTING",
    "PATIENTS",
    "PARTICIPANTS",
    "SUBJECTS",
    "INTERVENTION",
    "INTERVENTIONS",
    "MAIN OUTCOME MEASURES",
    "MEASUREMENTS",
    "STUDY OBJECTIVE",
    "BACKGROUND AND PURPOSE",
    "BACKGROUND AND OBJECTIVES",
    "BACKGROUND AND AIMS",
    "METHODS AND MATERIALS",
}


class LabelledSentence(BaseModel):
    text: str
    finding: bool
    abstract: str  # the PMID: splits are drawn by abstract
    position: float  # 0 for the abstract's first sentence … 1 for its last


def pubmedqa_sentences(folder: Path, pmids: set[str] | None = None) -> list[LabelledSentence]:
    """Sentences of PubMedQA's labelled abstracts with their section's role; sections whose label
    mixes roles ("METHODS AND RESULTS") or says neither are left out."""
    records = json.loads((folder / "ori_pqal.json").read_text(encoding="utf-8"))
    out: list[LabelledSentence] = []
    for pmid, record in sorted(records.items()):
        if pmids is not None and pmid not in pmids:
            continue
        sections = list(zip(record["LABELS"], record["CONTEXTS"], strict=False)) + [
            ("CONCLUSIONS", record["LONG_ANSWER"])
        ]
        sentences = [(label, s) for label, text in sections for s in split_sentences(text)]
        last = max(len(sentences) - 1, 1)
        for i, (label, sentence) in enumerate(sentences):
            role = (
                True
                if label.upper() in FINDING_SECTIONS
                else False
                if label.upper() in OTHER_SECTIONS
                else None
            )
            if role is not None and len(sentence) >= 20:
                out.append(LabelledSentence(text=sentence, finding=role, abstract=pmid, position=i / last))
    return out


def train_claim_roles(
    folder: Path,
    encode: Callable[[list[str]], np.ndarray],
    embedder: str,
    out: Path = WEIGHTS_DIR,
    seed: int = 13,
    log: Callable[[str], None] = print,
) -> dict:
    """Fit on PubMedQA's train side (the abstracts outside ``test_ground_truth.json``), choose the
    threshold on a fifth of those abstracts held out, score both the shipped model and the local
    extractor's rule on the test side, and write ``weights.json``. Returns the figures."""
    from sklearn.linear_model import LogisticRegression

    test_side = set(json.loads((folder / "test_ground_truth.json").read_text()))
    records = json.loads((folder / "ori_pqal.json").read_text())
    train_side = sorted(set(records) - test_side)
    random.Random(seed).shuffle(train_side)
    tune = set(train_side[: len(train_side) // 5])

    def matrix(sentences: list[LabelledSentence]) -> tuple[np.ndarray, np.ndarray]:
        texts = [s.text for s in sentences]
        cues = cue_matrix(texts, [s.position for s in sentences], CUES)
        return (
            np.hstack([encode(texts).astype(np.float32), cues]),
            np.asarray([s.finding for s in sentences], dtype=np.int64),
        )

    def fit(x: np.ndarray, y: np.ndarray) -> LogisticRegression:
        return LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced").fit(x, y)

    fit_x, fit_y = matrix(pubmedqa_sentences(folder, set(train_side) - tune))
    tune_x, tune_y = matrix(pubmedqa_sentences(folder, tune))
    log(f"claim roles: fitting on {len(fit_y)} sentences, tuning on {len(tune_y)}")
    probe = fit(fit_x, fit_y)
    p_tune = probe.predict_proba(tune_x)[:, 1]
    # the threshold that keeps findings precise: best F0.5 on the tuning abstracts
    grid = np.linspace(0.2, 0.9, 71)
    threshold = float(max(grid, key=lambda t: _f_beta(tune_y, p_tune >= t, 0.5)))
    model = fit(np.vstack([fit_x, tune_x]), np.concatenate([fit_y, tune_y]))
    test = pubmedqa_sentences(folder, test_side)
    test_x, test_y = matrix(test)
    p_test = model.predict_proba(test_x)[:, 1]
    score = test_x[:, test_x.shape[1] - len(CUES) + SCORE]
    rule = score >= 2.0  # the local extractor alone keeps a sentence at score ≥ 2
    figures = {
        "threshold": round(threshold, 3),
        "test_sentences": len(test_y),
        "test_findings": int(test_y.sum()),
        "rules": _scores(test_y, rule),
        "model": _scores(test_y, p_test >= threshold),
        "rules_and_model": _scores(test_y, rule & (p_test >= threshold)),
        "cue_and_model": _scores(test_y, (score >= CUE_SCORE) & (p_test >= threshold)),
    }
    weights = ClaimRoleWeights(
        embedder=embedder,
        features=CUES,
        coef=[round(float(c), 6) for c in model.coef_[0]],
        intercept=float(model.intercept_[0]),
        threshold=threshold,
        trained_on=f"PubMedQA PQA-L train side ({len(train_side)} abstracts)",
        sentences=len(fit_y) + len(tune_y),
    )
    out.mkdir(parents=True, exist_ok=True)
    (out / "weights.json").write_text(weights.model_dump_json(indent=1))
    (out / "figures.json").write_text(json.dumps(figures, indent=1))
    return figures


def _f_beta(y: np.ndarray, predicted: np.ndarray, beta: float) -> float:
    tp = float((predicted & (y == 1)).sum())
    precision = tp / max(predicted.sum(), 1)
    recall = tp / max((y == 1).sum(), 1)
    return 0.0 if tp == 0 else (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


def _scores(y: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    tp = float((predicted & (y == 1)).sum())
    return {
        "precision": round(tp / max(predicted.sum(), 1), 3),
        "recall": round(tp / max((y == 1).sum(), 1), 3),
        "f1": round(_f_beta(y, predicted, 1.0), 3),
        "kept": int(predicted.sum()),
    }
