"""The learned judge in ``nli_edges`` (``evidence.judge: learned``): each paper a claim reaches is read
once, by the label model, in the sentences the evidence selector ranks highest (docs/selector.md).

One edge per (claim, paper), on the window that holds the selector's best sentence; its reason names
what was read: the sentences, the selector's probability and the figure reader's note the model saw.
Where the model's folder holds a combiner (``combiner.json``), the rules' edges over the paper's chosen
windows enter it as features beside the model's reading and the edge carries the combiner's
probabilities (lyra_resources.models.judge_combiner); else the model's own.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from lyra_assets.evidence.selection import papers_to_read
from lyra_resources.models.direction_judge import EdgeJudgement
from lyra_resources.models.evidence_selector import window_holding, window_sentences
from lyra_resources.models.judge_combiner import Combiner, combined_judgement
from lyra_resources.models.label_model import LEARNED, LabelModel, PaperReading

RuleJudge = Callable[[list[tuple[int, int, float]]], list[EdgeJudgement]]


def judgement_of(reading: PaperReading) -> EdgeJudgement:
    p = reading.probs
    reason = reading.described()
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
    rules: RuleJudge,
) -> tuple[list[tuple[int, int, float]], list[EdgeJudgement]]:
    """For every (claim, paper) that ``chosen`` reaches, the window holding the selector's best
    sentence as ``(claim, fragment row, cosine)`` and the judgement: the combiner's over the label
    model's reading and ``rules``' edges on the paper's chosen windows, or the model's alone."""
    rows_of, wanted = papers_to_read(chosen, fragments)
    windows = [[fragments["text"].iat[i] for i in rows_of[page]] for _, page, _ in wanted]
    sentences = [window_sentences(ws) for ws in windows]
    readings = model.read([claim_texts[ci] for ci, _, _ in wanted], sentences)
    flat = []
    for (ci, page, sim), ws, sents, r in zip(wanted, windows, sentences, readings, strict=True):
        flat.append((ci, rows_of[page][window_holding(ws, sents[r.best])], sim))
    combiner = Combiner.read(model.path)
    if combiner is None:
        return flat, [judgement_of(r) for r in readings]
    edges_of = paper_rule_edges(chosen, fragments, rules) if combiner.uses_rules() else {}
    return flat, [
        combined_judgement(combiner, r, edges_of.get((ci, page), []), LEARNED)
        for (ci, page, _), r in zip(wanted, readings, strict=True)
    ]


def paper_rule_edges(
    chosen: list[list[tuple[int, float]]], fragments: pd.DataFrame, rules: RuleJudge
) -> dict[tuple[int, str], list[EdgeJudgement]]:
    """The rules' edges on every chosen (claim, window), grouped by claim and paper."""
    flat = [(ci, fi, sim) for ci, pairs in enumerate(chosen) for fi, sim in pairs]
    out: dict[tuple[int, str], list[EdgeJudgement]] = {}
    for (ci, fi, _), edge in zip(flat, rules(flat), strict=True):
        out.setdefault((ci, fragments["page_id"].iat[fi]), []).append(edge)
    return out
