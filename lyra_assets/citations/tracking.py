"""Citation tracking: the ``citation_tracking`` multi-asset writes ``citation_expansions`` and
``citation_papers`` together.

For every paper of the task, the references and citing papers reported by Semantic Scholar and
OpenAlex are merged into candidates and filtered in two rounds (see ``lyra_core.citations``). The
selected candidates become ``citation`` pages in the ``pages`` asset, which reads both tables, so
``pages`` and ``fragments`` stay the single tables of record for every document.
"""

import asyncio
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd
from dagster import (
    AssetExecutionContext,
    MetadataValue,
    Output,
    ResourceParam,
)
from pydantic import BaseModel, Field

from lyra_assets import sources
from lyra_assets.metadata import table_metadata
from lyra_assets.task_assets import TASK, task_table_spec, task_tables
from lyra_core.citations import (
    FALLBACK_METHOD,
    CitationCandidate,
    CitationEdge,
    fallback_relevance,
    final_score,
    merge_candidates,
    stage1_score,
    top_unique,
)
from lyra_core.papers import CanonicalPaper, PaperRecord
from lyra_core.tasks import TaskOptions
from lyra_resources.corpus.paper_rows import papers_frame, papers_from_frame
from lyra_resources.models.llm import LlmError, OllamaLlm, render_prompt
from lyra_resources.models.local_models import LocalModels
from lyra_resources.schema import TABLES
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.settings.services import CitationSettings
from lyra_resources.sources.academic import lookup_id, source_names
from lyra_resources.sources.academic.gather import (
    citation_links,
    complete_identifiers,
    no_network_line,
    unreachable_sources,
)
from lyra_resources.sources.literature import LiteratureSources
from lyra_resources.sources.providers import SourceIssue
from lyra_resources.store.lyra_store import LyraStore, TaskRecord

EXPANSION_COLUMNS = TABLES["citation_expansions"].data_columns
CITATION_PAPER_COLUMNS = TABLES["citation_papers"].data_columns
# after this many LLM failures in a row the server is taken to be gone: the rest use the fallback
MAX_LLM_FAILURES = 3


class RelevanceScore(BaseModel):
    """The LLM's answer to ``relevance_evaluation.j2``."""

    score: int = Field(ge=0, le=10)


class Stage2Scorer:
    """Stage-2 relevance (0–10) of a candidate: the LLM's when one answers, else the fallback."""

    def __init__(self, llm: OllamaLlm, question: str, prompt_chars: int, log) -> None:
        self.llm, self.question, self.chars, self.log = llm, question, prompt_chars, log
        self.use_llm, self.reason = llm.available()
        self.method = f"ollama:{llm.model}" if self.use_llm else FALLBACK_METHOD
        self.failures = 0
        if not self.use_llm:
            log.info(f"citation stage 2: {FALLBACK_METHOD} ({self.reason})")

    def score(self, source_text: str, candidate_text: str, question_similarity: float) -> tuple[float, str]:
        if self.use_llm:
            prompt = render_prompt(
                "relevance_evaluation.j2",
                query=self.question,
                source_abstract=source_text[: self.chars],
                target_abstract=candidate_text[: self.chars],
            )
            try:
                answer = self.llm.generate_json(prompt, RelevanceScore)
                self.failures = 0
                return float(answer.score), self.method
            except LlmError as exc:  # one bad answer costs one candidate's LLM score, not the task
                self.failures += 1
                self.log.warning(f"LLM relevance failed, {FALLBACK_METHOD} used: {exc}")
                if self.failures >= MAX_LLM_FAILURES:
                    self.use_llm = False
                    self.log.warning(
                        f"{MAX_LLM_FAILURES} LLM failures in a row: {FALLBACK_METHOD} for the rest"
                    )
        return fallback_relevance(question_similarity), FALLBACK_METHOD


class Fetched(BaseModel):
    edges: list[CitationEdge] = Field(default_factory=list)
    completions: list[PaperRecord] = Field(default_factory=list)
    errors: list[SourceIssue] = Field(default_factory=list)
    unreachable: dict[str, str] = Field(default_factory=dict)
    live_apis: int = 0


async def fetch_level(
    literature: LiteratureSources, frontier: Sequence[CanonicalPaper], cfg: CitationSettings
) -> Fetched:
    """References and citations of ``frontier`` from both APIs, then abstracts for candidates
    that came without one (identifier completion on the citation graph)."""
    async with literature.academic() as live:
        links = await citation_links(frontier, live, cfg.references_per_paper, cfg.citations_per_paper)
        edges = [
            CitationEdge(
                paper_id=pid, direction=link.direction, is_influential=link.is_influential, record=link.record
            )
            for pid, items in links.links.items()
            for _, link in items
        ]
        errors = links.issues()
        completions: list[PaperRecord] = []
        reachable = [s for s in live if not s.http.unreachable]
        if literature.sources.complete_identifiers and edges and reachable:
            _, papers = merge_candidates(edges, [], frontier)
            missing = [p for p in papers.values() if not p.abstract]
            done = await complete_identifiers(missing, reachable, need=lambda p: not p.abstract)
            completions, errors = done.records, errors + done.issues()
        return Fetched(
            edges=edges,
            completions=completions,
            errors=errors,
            unreachable=unreachable_sources(live),
            live_apis=len(live),
        )


def _cosines(vectors: dict[str, np.ndarray], a: str, b: str) -> float:
    return float(np.dot(vectors[a], vectors[b]))


def score_level(
    question: str,
    sources: Sequence[CanonicalPaper],
    candidates: Sequence[CitationCandidate],
    papers: dict[str, CanonicalPaper],
    embed,
    scorer: Stage2Scorer,
    cfg: CitationSettings,
    depth: int,
) -> list[dict]:
    """Stage 1 and stage 2 for every (paper, candidate, direction) row of one depth."""
    by_source = {p.paper_id: p for p in sources}

    def text_of(paper: CanonicalPaper) -> str:
        return paper.abstract or paper.title

    texts = [question] + [text_of(p) for p in sources] + [p.abstract for p in papers.values() if p.abstract]
    unique = list(dict.fromkeys(t for t in texts if t))
    vectors = dict(zip(unique, embed(unique), strict=True)) if unique else {}
    rows: list[dict] = []
    llm_cache: dict[tuple[str, str], tuple[float, str]] = {}
    grouped: dict[str, list[CitationCandidate]] = {}
    for cand in candidates:
        grouped.setdefault(cand.paper_id, []).append(cand)
    for paper_id, group in grouped.items():
        source = by_source[paper_id]
        paper_rows = []
        for cand in sorted(group, key=lambda c: (c.candidate_id, c.direction)):
            other = papers[cand.candidate_id]
            row = {
                "paper_id": paper_id,
                "candidate_paper_id": cand.candidate_id,
                "direction": cand.direction,
                "is_influential": cand.is_influential,
                "embed_similarity": None,
                "stage1_score": None,
                "llm_score": None,
                "stage2_method": None,
                "final_score": None,
                "selected": False,
                "sources": cand.sources,
                "depth": depth,
                "question_similarity": None,
            }
            if other.abstract:  # a candidate without an abstract cannot be judged
                sim = _cosines(vectors, text_of(source), other.abstract)
                row["embed_similarity"] = round(sim, 6)
                row["stage1_score"] = round(stage1_score(cand.is_influential, sim), 6)
            paper_rows.append(row)
        judged = [r for r in paper_rows if r["stage1_score"] is not None]
        stage2 = top_unique([(r["candidate_paper_id"], r["stage1_score"]) for r in judged], cfg.stage1_top_k)
        for row in judged:
            cid = row["candidate_paper_id"]
            if cid not in stage2:
                continue
            other = papers[cid]
            q_sim = _cosines(vectors, question, other.abstract)
            if (paper_id, cid) not in llm_cache:
                llm_cache[(paper_id, cid)] = scorer.score(text_of(source), other.abstract, q_sim)
            llm, method = llm_cache[(paper_id, cid)]
            row.update(
                question_similarity=round(q_sim, 6),
                llm_score=llm,
                stage2_method=method,
                final_score=round(final_score(llm, row["stage1_score"], row["is_influential"]), 6),
            )
        scored = [r for r in judged if r["final_score"] is not None]
        chosen = top_unique(
            [(r["candidate_paper_id"], r["final_score"]) for r in scored], cfg.selected_per_paper
        )
        for row in scored:
            row["selected"] = row["candidate_paper_id"] in chosen
        rows.extend(paper_rows)
    return rows


def _outputs(
    expansions: pd.DataFrame, cited: pd.DataFrame, expansions_metadata: dict
) -> tuple[Output, Output]:
    """Both tables, each with its materialization's metadata (the IO manager writes them in one transaction)."""
    return (
        Output(expansions, metadata=expansions_metadata),
        Output(
            cited,
            metadata=table_metadata(
                cited,
                ["title", "year", "doi", "sources"],
                with_abstract=MetadataValue.int(int(cited["abstract"].notna().sum()) if len(cited) else 0),
            ),
        ),
    )


def _empty(reason: str) -> tuple[Output, Output]:
    frame = pd.DataFrame(columns=EXPANSION_COLUMNS)
    return _outputs(
        frame,
        pd.DataFrame(columns=CITATION_PAPER_COLUMNS),
        {**table_metadata(frame, ["paper_id", "candidate_paper_id"]), "skipped": MetadataValue.text(reason)},
    )


citation_expansions_spec = task_table_spec(
    "citation_expansions",
    module=__name__,
    description="""Candidate citations of the task's papers, one row per paper, candidate and direction.

References and citing papers come from Semantic Scholar and OpenAlex; each candidate is scored by
abstract similarity and influence, the best ones by an LLM's relevance rating (`stage2_method`
says which), and the top ones per paper are `selected`. Empty, with `skipped` saying why, when
live sources are off or unreachable.""",
)

citation_papers_spec = task_table_spec(
    "citation_papers",
    module=__name__,
    description="""Papers met through citation tracking that are not among the task's papers.

One row per candidate of `citation_expansions`, with the identifiers, title and abstract the APIs
report; `pages` makes a `citation` page of each selected one with an abstract.""",
)


@task_tables(
    [citation_expansions_spec, citation_papers_spec], ins={"task": TASK, "paper_rows": sources.papers_spec}
)
def citation_tracking(
    context: AssetExecutionContext,
    task: TaskRecord,
    paper_rows: pd.DataFrame,
    store: ResourceParam[LyraStore],
    literature: LiteratureSources,
    models: LocalModels,
    llm: OllamaLlm,
    settings: ResourceParam[LyraSettings],
) -> tuple[Output, Output]:
    """Follow the task's papers' references and citations; both tables are written in one transaction."""
    options = TaskOptions.model_validate(task.options)
    cfg = settings.citations
    plan = literature.plan(options.corpus)
    task_papers = papers_from_frame(paper_rows)
    if not cfg.enabled:
        return _empty("citation tracking is off (citations.enabled: false)")
    if options.is_verify:
        return _empty("a verify task reads only its corpus")
    if not plan.live:
        return _empty(f"live sources not used: {plan.reason}")
    if not task_papers:
        return _empty("the task has no papers")
    if not any(
        lookup_id(api, doi=p.doi, pmid=p.pmid, arxiv_id=p.arxiv_id, sources=p.sources)
        for p in task_papers
        for api in source_names()
    ):
        return _empty(
            f"none of the task's {len(task_papers)} papers has a DOI, PMID, arXiv id "
            "or S2/OpenAlex id to follow"
        )

    embed = models.cached_encoder(store)

    scorer: Stage2Scorer | None = None
    known: list[CanonicalPaper] = list(task_papers)
    expanded: set[str] = set()
    frontier = task_papers
    rows: list[dict] = []
    found: dict[str, CanonicalPaper] = {}
    errors: list[SourceIssue] = []
    unreachable: dict[str, str] = {}
    for depth in range(1, cfg.depth + 1):
        if not frontier:
            break
        got = asyncio.run(fetch_level(literature, frontier, cfg))
        errors += got.errors
        if got.unreachable and len(got.unreachable) == got.live_apis:
            unreachable = got.unreachable
            break
        expanded.update(p.paper_id for p in frontier)
        candidates, papers = merge_candidates(got.edges, got.completions, known)
        if candidates and scorer is None:
            scorer = Stage2Scorer(llm, task.query, cfg.prompt_chars, context.log)
        level = (
            score_level(task.query, frontier, candidates, papers, embed, scorer, cfg, depth)
            if candidates
            else []
        )
        rows += level
        task_ids = {p.paper_id for p in known}
        for pid, paper in papers.items():
            if pid not in task_ids:
                found.setdefault(pid, paper)
        context.log.info(
            f"depth {depth}: {len(frontier)} papers, {len(candidates)} candidates, "
            f"{sum(r['selected'] for r in level)} selected"
        )
        selected = {r["candidate_paper_id"] for r in level if r["selected"]}
        frontier = [found[c] for c in sorted(selected) if c in found and c not in expanded]
        known += frontier

    if unreachable and not rows:
        for issue in errors[:5]:
            context.log.warning(f"{issue.source} {issue.location}: {issue.reason}")
        return _empty(no_network_line(unreachable))

    frame = pd.DataFrame(rows, columns=EXPANSION_COLUMNS)
    if len(frame):
        frame = frame.sort_values(
            ["depth", "paper_id", "selected", "final_score", "stage1_score"],
            ascending=[True, True, False, False, False],
            na_position="last",
        )
    cited = papers_frame(list(found.values()), "citation_papers")

    for issue in errors[:20]:
        context.log.warning(f"{issue.source} {issue.location}: {issue.reason}")
    methods = Counter(m for m in frame["stage2_method"] if isinstance(m, str)) if len(frame) else Counter()
    titles = {p.paper_id: p.title for p in [*known, *found.values()]}
    chosen = frame[frame["selected"].astype(bool)].assign(title=lambda f: f["candidate_paper_id"].map(titles))
    extra = (
        {} if len(frame) else {"skipped": MetadataValue.text("the APIs reported no references or citations")}
    )
    return _outputs(
        frame,
        cited,
        {
            **table_metadata(chosen, ["paper_id", "direction", "final_score", "stage2_method", "title"]),
            **extra,
            "dagster/row_count": MetadataValue.int(len(frame)),
            "candidates": MetadataValue.int(int(frame["candidate_paper_id"].nunique()) if len(frame) else 0),
            "with_abstract": MetadataValue.int(int(frame["stage1_score"].notna().sum()) if len(frame) else 0),
            "selected": MetadataValue.int(int(frame["selected"].sum()) if len(frame) else 0),
            "stage2_methods": MetadataValue.json(dict(methods)),
            "directions": MetadataValue.json(dict(Counter(frame["direction"])) if len(frame) else {}),
            "api_errors": MetadataValue.json([i.model_dump() for i in errors[:20]]),
            "unreachable": MetadataValue.json(unreachable),
        },
    )
