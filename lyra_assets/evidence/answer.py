"""The `task_answer` asset: the answer to the task's question, read from the judged graph."""

from typing import Any

import pandas as pd
from dagster import AssetExecutionContext, MetadataValue, Output, ResourceParam

from lyra_assets import documents, sources
from lyra_assets.evidence import judging, topics
from lyra_assets.evidence.claims import claims as claims_asset
from lyra_assets.metadata import table_metadata
from lyra_assets.page_text import page_papers, page_texts
from lyra_assets.task_assets import TASK, task_table
from lyra_core.addressed import TaskPassage, no_claim_line, not_addressed_line
from lyra_core.answer import (
    AnswerPaper,
    CandidateClaim,
    HypothesisScore,
    answer_text,
    compose_answer,
    shown_title,
)
from lyra_core.hypothesis import HYPOTHESIS, OPEN_QUESTION
from lyra_core.question_parts import read_question
from lyra_core.tasks import TaskOptions
from lyra_resources.schema import TASK_ANSWER
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.store.lyra_store import TaskRecord

PREVIEW_COLUMNS = [
    "hypothesis",
    "verdict",
    "confidence",
    "uncertainty",
    "supporting_papers",
    "refuting_papers",
    "papers_judged",
]


def _paper_of(pages: pd.DataFrame) -> dict[str, str]:
    """The paper behind each page; a page that is no paper stands for itself."""
    return {
        page: paper if isinstance(paper, str) else page
        for page, paper in zip(pages["page_id"], pages["paper_id"], strict=True)
    }


def paper_edges(edges: pd.DataFrame, pages: pd.DataFrame, claim_id: str) -> list[dict]:
    """The model's edges of ``claim_id`` with the paper behind each (``paper``) and its study design."""
    paper_of = _paper_of(pages)
    mine = edges.loc[
        edges["claim_id"] == claim_id, ["edge_id", "relation", "nli_confidence", "page_id", "study_design"]
    ]
    return mine.assign(paper=[paper_of.get(p, p) for p in mine["page_id"]]).to_dict("records")


def _number(value: Any) -> float | None:
    return float(value) if pd.notna(value) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def candidate_claims(claims: pd.DataFrame, scores: pd.DataFrame) -> list[CandidateClaim]:
    """The adopted claims an open question's answer may list, with the model's scores."""
    kept = claims[
        (claims["adoption_status"] == "adopted") & claims["origin"].notna() & (claims["origin"] != HYPOTHESIS)
    ]
    joined = kept[["claim_id", "text", "relevance"]].merge(
        scores[["claim_id", "verdict", "confidence", "supporting_count", "refuting_count"]],
        on="claim_id",
        how="left",
    )
    votes = (joined["supporting_count"] + joined["refuting_count"]).fillna(0)
    return [
        CandidateClaim(
            claim_id=c.claim_id,
            text=c.text,
            relevance=_number(c.relevance),
            votes=int(v),
            verdict=_text(c.verdict),
            confidence=_number(c.confidence),
        )
        for c, v in zip(joined.itertuples(index=False), votes, strict=True)
    ]


def answer_papers(papers: pd.DataFrame, pages: pd.DataFrame) -> dict[str, AnswerPaper]:
    """Each paper of the task, and each page that is no paper, as the answer names it."""
    out = {
        str(p.page_id): AnswerPaper(paper_id=str(p.page_id), title=_text(p.title))
        for p in pages[pages["paper_id"].isna()].itertuples(index=False)
    }
    for p in papers.itertuples(index=False):
        year = _number(p.year)
        out[str(p.paper_id)] = AnswerPaper(
            paper_id=str(p.paper_id),
            title=shown_title(p.title, p.abstract),
            year=None if year is None else int(year),
            doi=_text(p.doi),
        )
    return out


def task_passages(
    fragments: pd.DataFrame, pages: pd.DataFrame, papers: pd.DataFrame, edges: pd.DataFrame, claim_id: str
) -> tuple[list[TaskPassage], dict[str, str]]:
    """Every fragment of the task with whether the hypothesis ``claim_id`` judged it and whether it
    voted, and every paper's (or paperless page's) title, best search rank first."""
    mine = edges[edges["claim_id"] == claim_id]
    judged = set(mine["fragment_id"])
    voted = set(mine.loc[mine["relation"].isin(["SUPPORTS", "REFUTES"]), "fragment_id"])
    paper_of = _paper_of(pages)
    ordered = fragments.sort_values(["page_id", "position"], kind="stable")
    texts = page_texts(page_papers(pages, ordered))
    passages = [
        TaskPassage(
            paper_id=paper_of.get(f.page_id, f.page_id),
            text=f.text,
            paper_text=texts.get(f.page_id, ""),
            judged=f.fragment_id in judged,
            voted=f.fragment_id in voted,
        )
        for f in ordered.itertuples(index=False)
    ]
    ranked = papers.sort_values("search_rank", kind="stable")
    paperless = pages[pages["paper_id"].isna()].sort_values("page_id", kind="stable")
    titles = [
        *zip(ranked["paper_id"], ranked["title"], strict=True),
        *zip(paperless["page_id"], paperless["title"], strict=True),
    ]
    return passages, {str(k): str(v or "") for k, v in titles}


@task_table(
    ins={
        "task": TASK,
        "claim_scores": judging.claim_scores,
        "claims": claims_asset,
        "nli_edges": judging.nli_edges,
        "pages": documents.pages,
        "fragments": documents.fragments,
        "papers": sources.papers_spec,
    },
    deps=[topics.claim_topics],
)
def task_answer(
    context: AssetExecutionContext,
    task: TaskRecord,
    claim_scores: pd.DataFrame,
    claims: pd.DataFrame,
    nli_edges: pd.DataFrame,
    pages: pd.DataFrame,
    fragments: pd.DataFrame,
    papers: pd.DataFrame,
    settings: ResourceParam[LyraSettings],
) -> Output[pd.DataFrame]:
    """The answer to the task's question: one row, or none for a verify task.

    A yes/no question is judged as its declarative hypothesis (the `claims` row of origin
    `hypothesis`): its verdict, confidence ± uncertainty and controversy come from `claim_scores`,
    and its papers for and against from its edges, one vote per paper (its strongest edge);
    `unverified` or `contested` say the evidence does not decide. When no passage that voted (or,
    with no vote, none judged) speaks of both the hypothesis's exposure and its outcome,
    `not_addressed` says so in one line and names the closest papers. An open question gets origin
    `open_question` and no verdict: its answer is the most relevant adopted claims; when it names an
    exposure and an outcome and no claim about both was adopted, `not_addressed` says that instead.
    """
    if TaskOptions.model_validate(task.options).is_verify:
        empty = pd.DataFrame(columns=TASK_ANSWER.data_columns)
        return Output(
            empty,
            metadata={
                **table_metadata(empty, PREVIEW_COLUMNS),
                "answer": MetadataValue.text("no question: a verify task"),
            },
        )
    hypothesis = (
        claims.loc[claims["origin"] == HYPOTHESIS, ["claim_id", "text"]]
        .head(1)
        .merge(
            claim_scores[
                [
                    "claim_id",
                    "verdict",
                    "confidence",
                    "uncertainty",
                    "controversy",
                    "alpha",
                    "beta",
                    "certainty",
                    "certainty_reasons",
                ]
            ],
            on="claim_id",
            how="left",
        )
    )
    reading = read_question(task.query)  # its hypothesis and parts: one parse, shared by the steps
    if hypothesis.empty:
        candidates = candidate_claims(claims, claim_scores)
        parts = reading.parts
        not_addressed = None
        if not candidates and parts is not None:  # its claims were about other things
            not_addressed = no_claim_line(
                parts.exposure, parts.outcome, *task_passages(fragments, pages, papers, nli_edges, "")
            )
        answer = compose_answer(
            None,
            [],
            settings.evidence.min_vote,
            {},
            candidates,
            question_reading=OPEN_QUESTION,
            not_addressed=not_addressed,
        )
    else:
        h = hypothesis.iloc[0]
        score = HypothesisScore(
            claim_id=h["claim_id"],
            text=h["text"],
            verdict=_text(h["verdict"]),
            **{k: _number(h[k]) for k in ("confidence", "uncertainty", "controversy", "alpha", "beta")},
            **{k: _text(h[k]) for k in ("certainty", "certainty_reasons")},
        )
        not_addressed = not_addressed_line(
            h["text"], *task_passages(fragments, pages, papers, nli_edges, h["claim_id"])
        )
        answer = compose_answer(
            score,
            paper_edges(nli_edges, pages, h["claim_id"]),
            settings.evidence.min_vote,
            answer_papers(papers, pages),
            question_reading=reading.parsed.reading,
            not_addressed=not_addressed,
        )
    row = answer.model_dump(include=set(TASK_ANSWER.data_columns))
    lines = answer_text(answer, task.id, markdown=True)
    frame = pd.DataFrame([row], columns=TASK_ANSWER.data_columns)
    context.log.info(lines[0])
    return Output(
        frame,
        metadata={
            **table_metadata(frame, PREVIEW_COLUMNS),
            "answer": MetadataValue.md("\n".join(lines)),  # the first line is the answer, as everywhere
            "origin": MetadataValue.text(row["origin"]),
            "question_reads_as": MetadataValue.text(reading.parsed.hypothesis or "(open question)"),
            "question_reading": MetadataValue.text(row["question_reading"]),
        },
    )
