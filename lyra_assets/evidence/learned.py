"""The learned judge in ``nli_edges`` (``evidence.judge: learned``): each paper a claim reaches is read
once, by the label model, in the sentences the evidence selector ranks highest (docs/selector.md).

One edge per (claim, paper), on the window that holds the selector's best sentence; its
probabilities are the label model's, its reason names what was read: the sentences, the selector's
probability and the figure reader's note the model saw.
"""

from __future__ import annotations

import pandas as pd

from lyra_assets.evidence.selection import papers_to_read
from lyra_resources.models.direction_judge import EdgeJudgement
from lyra_resources.models.evidence_selector import window_holding, window_sentences
from lyra_resources.models.label_model import LEARNED, LabelModel, PaperReading


def judgement_of(reading: PaperReading) -> EdgeJudgement:
    p = reading.probs
    read = ", ".join(str(i + 1) for i in reading.sentences)
    reason = (
        f"the label model reads {reading.relation.lower()} ({reading.confidence:.2f}) in the paper's "
        f"sentence{'s' if len(reading.sentences) > 1 else ''} {read}, where the evidence selector finds "
        f"the finding (p {reading.selector_probability:.2f})"
    )
    return EdgeJudgement(
        relation=reading.relation,
        p_supports=p["entailment"],
        p_refutes=p["contradiction"],
        p_neutral=p["neutral"],
        judged_by=LEARNED,
        effect_figures=reading.figures.removeprefix("[figures: ").removesuffix("]"),
        reason=reason,
    )


def learned_judgements(
    model: LabelModel,
    claim_texts: list[str],
    chosen: list[list[tuple[int, float]]],
    fragments: pd.DataFrame,
) -> tuple[list[tuple[int, int, float]], list[EdgeJudgement]]:
    """For every (claim, paper) that ``chosen`` reaches, the window holding the selector's best
    sentence as ``(claim, fragment row, cosine)`` and the label model's judgement."""
    rows_of, wanted = papers_to_read(chosen, fragments)
    windows = [[fragments["text"].iat[i] for i in rows_of[page]] for _, page, _ in wanted]
    sentences = [window_sentences(ws) for ws in windows]
    readings = model.read([claim_texts[ci] for ci, _, _ in wanted], sentences)
    flat = []
    for (ci, page, sim), ws, sents, r in zip(wanted, windows, sentences, readings, strict=True):
        flat.append((ci, rows_of[page][window_holding(ws, sents[r.best])], sim))
    return flat, [judgement_of(r) for r in readings]
