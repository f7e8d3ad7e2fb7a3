"""The `task_answer` asset: the answer to the task's question, read from the judged graph."""

import pandas as pd
from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, ResourceParam, asset

from lyra_assets import documents, evidence, sources, topics
from lyra_assets.claims import claims as claims_asset
from lyra_assets.metadata import table_metadata
from lyra_assets.page_text import page_papers, page_texts
from lyra_assets.partitions import task_partitions
from lyra_core.addressed import TaskPassage, no_claim_line, not_addressed_line
from lyra_core.answer import answer_line, paper_votes
from lyra_core.hypothesis import HYPOTHESIS, OPEN_QUESTION, reading_note, to_hypothesis
from lyra_core.question_parts import question_parts
from lyra_core.tasks import TaskOptions
from lyra_resources.schema import TASK_ANSWER
from lyra_resources.settings import LyraSettings
from lyra_resources.store.lyra_store import LyraStore

PREVIEW_COLUMNS = ["hypothesis", "verdict", "confidence", "uncertainty", "supporting_papers", "refuting_papers",
                   "papers_judged"]
OPEN_ANSWER_CLAIMS = 8


def hypothesis_edges(store: LyraStore, task_id: str, claim_id: str) -> list[dict]:
    """The hypothesis's edges with the paper behind each (a page that is no paper stands for itself)
    and its study design."""
    frame = store.fetch_df(
        "SELECT e.edge_id, e.relation, e.nli_confidence, e.page_id, e.study_design, "
        "coalesce(p.paper_id, e.page_id) AS paper "
        "FROM nli_edges e LEFT JOIN pages p ON p.task_id = e.task_id AND p.page_id = e.page_id "
        "WHERE e.task_id = ? AND e.claim_id = ? ORDER BY e.edge_id", [task_id, claim_id])
    return frame.to_dict("records")


def relevant_claims(store: LyraStore, task_id: str, limit: int) -> pd.DataFrame:
    """An open question's answer: adopted claims by relevance to the question, then by evidence."""
    return store.fetch_df(
        "SELECT c.claim_id, c.text, s.verdict, s.confidence, s.uncertainty FROM claims c "
        "LEFT JOIN claim_scores s ON s.task_id = c.task_id AND s.claim_id = c.claim_id "
        "WHERE c.task_id = ? AND c.adoption_status = 'adopted' AND c.origin <> ? "
        "ORDER BY c.relevance DESC, coalesce(s.supporting_count + s.refuting_count, 0) DESC, c.claim_id LIMIT ?",
        [task_id, HYPOTHESIS, limit])


def _titles(store: LyraStore, task_id: str, paper_ids: list[str]) -> list[str]:
    if not paper_ids:
        return []
    found = dict(store.fetch_df(
        "SELECT paper_id, title FROM papers WHERE task_id = ? UNION ALL "
        "SELECT page_id, title FROM pages WHERE task_id = ?", [task_id, task_id]).itertuples(index=False, name=None))
    return [str(found.get(p) or p) for p in paper_ids]


def task_passages(store: LyraStore, task_id: str, claim_id: str) -> tuple[list[TaskPassage], dict[str, str]]:
    """Every fragment of the task with whether the hypothesis ``claim_id`` judged it and whether it
    voted, and every paper's (or paperless page's) title, best search rank first."""
    fragments = store.fetch_df(
        "SELECT f.page_id, f.position, f.text, coalesce(p.paper_id, f.page_id) AS paper, "
        "bool_or(e.edge_id IS NOT NULL) AS judged, "
        "coalesce(bool_or(e.relation IN ('SUPPORTS', 'REFUTES')), false) AS voted "
        "FROM fragments f LEFT JOIN pages p ON p.task_id = f.task_id AND p.page_id = f.page_id "
        "LEFT JOIN nli_edges e ON e.task_id = f.task_id AND e.fragment_id = f.fragment_id AND e.claim_id = ? "
        "WHERE f.task_id = ? GROUP BY f.fragment_id, f.page_id, f.position, f.text, p.paper_id "
        "ORDER BY f.page_id, f.position", [claim_id, task_id])
    texts = page_texts(page_papers(store, task_id, fragments))
    passages = [TaskPassage(paper_id=r.paper, text=r.text, paper_text=texts.get(r.page_id, ""), judged=bool(r.judged),
                            voted=bool(r.voted)) for r in fragments.itertuples(index=False)]
    titles = store.fetch_df(
        "SELECT paper_id, title FROM papers WHERE task_id = ? ORDER BY search_rank", [task_id])
    pages = store.fetch_df("SELECT page_id, title FROM pages WHERE task_id = ? AND paper_id IS NULL ORDER BY page_id",
                           [task_id])
    return passages, {str(k): str(v or "") for frame in (titles, pages) for k, v in frame.itertuples(index=False)}


@asset(partitions_def=task_partitions, group_name="evidence", kinds={"duckdb", "parquet"},
       deps=[evidence.claim_scores, topics.claim_topics, claims_asset, evidence.nli_edges, documents.pages,
             sources.papers_spec], code_version="2")
def task_answer(context: AssetExecutionContext, store: ResourceParam[LyraStore], settings: ResourceParam[LyraSettings]) -> MaterializeResult:
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
    task = store.require_task(context.partition_key)
    if TaskOptions.model_validate(task.options).is_verify:
        empty = pd.DataFrame(columns=TASK_ANSWER.data_columns)
        store.replace_partition("task_answer", task.id, empty)
        return MaterializeResult(metadata={
            **table_metadata(empty, PREVIEW_COLUMNS, store=store, task=task, table="task_answer"),
            "answer": MetadataValue.text("no question: a verify task")})
    hypothesis = store.fetch_df(
        "SELECT c.claim_id, c.text, s.verdict, s.confidence, s.uncertainty, s.controversy, s.alpha, s.beta "
        "FROM claims c "
        "LEFT JOIN claim_scores s ON s.task_id = c.task_id AND s.claim_id = c.claim_id "
        "WHERE c.task_id = ? AND c.origin = ? LIMIT 1", [task.id, HYPOTHESIS])
    parsed = to_hypothesis(task.query)
    lines: list[str]
    if hypothesis.empty:
        claims = relevant_claims(store, task.id, OPEN_ANSWER_CLAIMS)
        row = {c: None for c in TASK_ANSWER.data_columns} | {
            "origin": OPEN_QUESTION, "supporting_papers": 0, "refuting_papers": 0, "papers_judged": 0,
            "question_reading": OPEN_QUESTION}
        parts = question_parts(task.query)
        if claims.empty and parts is not None:  # its claims were about other things, and none was adopted
            row["not_addressed"] = no_claim_line(parts.exposure, parts.outcome, *task_passages(store, task.id, ""))
        lines = [answer_line(None, None, None, None, len(claims)),
                 *([row["not_addressed"]] if row["not_addressed"] else [])]
        lines += [f"- {c.text} ({c.verdict or 'unverified'})" for c in claims.itertuples(index=False)]
    else:
        h = hypothesis.iloc[0]
        votes = paper_votes(hypothesis_edges(store, task.id, h["claim_id"]), settings.evidence.min_vote)
        verdict = h["verdict"] if isinstance(h["verdict"], str) else "unverified"
        row = {"hypothesis": h["text"], "origin": HYPOTHESIS, "verdict": verdict, "question_reading": parsed.reading,
               **{k: float(h[k]) if pd.notna(h[k]) else None for k in ("confidence", "uncertainty", "controversy")},
               **votes.model_dump(include={"supporting_papers", "refuting_papers", "papers_judged",
                                           "strongest_support_edge", "strongest_refute_edge"})}
        alpha, beta = (float(h[k]) if pd.notna(h[k]) else None for k in ("alpha", "beta"))
        row["not_addressed"] = not_addressed_line(h["text"], *task_passages(store, task.id, h["claim_id"]))
        lines = [answer_line(verdict, row["confidence"], row["uncertainty"], votes, alpha=alpha, beta=beta),
                 *([row["not_addressed"]] if row["not_addressed"] else []),
                 f"Hypothesis ({reading_note(parsed.reading)}): {h['text']}"]
        lines += [f"- for: {t}" for t in _titles(store, task.id, votes.supporting_paper_ids[:5])]
        lines += [f"- against: {t}" for t in _titles(store, task.id, votes.refuting_paper_ids[:5])]
    frame = pd.DataFrame([row], columns=TASK_ANSWER.data_columns)
    store.replace_partition("task_answer", task.id, frame)
    context.log.info(lines[0])
    return MaterializeResult(metadata={
        **table_metadata(frame, PREVIEW_COLUMNS, store=store, task=task, table="task_answer"),
        "answer": MetadataValue.md("\n".join(lines)),  # the first line is the answer, as everywhere
        "origin": MetadataValue.text(row["origin"]),
        "question_reads_as": MetadataValue.text(parsed.hypothesis or "(open question)"),
        "question_reading": MetadataValue.text(row["question_reading"]),
    })
