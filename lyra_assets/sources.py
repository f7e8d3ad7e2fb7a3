"""Paper search: the `paper_search` multi-asset writes `papers` and `claim_scope` together.

It searches the task's sources, merges what they return into canonical papers and completes
papers lacking an abstract or a DOI by their identifiers; a verify task takes each claim's own
papers instead, and `claim_scope` records which are whose."""

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from dagster import (
    AssetExecutionContext,
    MetadataValue,
    Output,
    ResourceParam,
)
from pydantic import BaseModel, Field

from lyra_assets.metadata import table_metadata
from lyra_assets.task_assets import TASK, task_table_spec, task_tables
from lyra_core.academic import AcademicDecision, classify_query
from lyra_core.claim_inputs import ClaimInput, ScopeRow, scope_claims
from lyra_core.papers import CanonicalPaper, PaperRecord, canonicalize
from lyra_core.tasks import TaskOptions
from lyra_resources.corpus.corpus_vectors import EmbeddingStep
from lyra_resources.corpus.local_corpus import LocalCorpus, LocalCorpusProvider
from lyra_resources.corpus.paper_rows import papers_frame
from lyra_resources.corpus.search import ranked_providers
from lyra_resources.models.local_models import LocalModels
from lyra_resources.schema import CLAIM_SCOPE
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.sources.academic import AcademicApiError
from lyra_resources.sources.academic.gather import (
    complete_identifiers,
    no_network_line,
    reachable_sources,
    search_live,
    unreachable_sources,
)
from lyra_resources.sources.literature import OFFLINE_HINT, LiteratureSources, SourcePlan
from lyra_resources.sources.providers import PaperProvider, SourceIssue
from lyra_resources.store.generations import record_run_inputs
from lyra_resources.store.lyra_store import LyraStore, TaskRecord
from lyra_resources.store.run_inputs import run_inputs

PAPER_PREVIEW = ["search_rank", "title", "year", "doi", "sources"]


class SourcesUnavailableError(RuntimeError):
    """No source could give the task any paper; the message says why and what to do, in one line."""


async def search_all(providers: Sequence[PaperProvider], query: str, limit: int) -> list[list[PaperRecord]]:
    """Ask every source at once; each answer stays best-first."""
    return list(await asyncio.gather(*(p.search(query, limit) for p in providers)))


def interleave(result_lists: list[list[PaperRecord]]) -> list[PaperRecord]:
    """Round-robin merge, so a paper's merged rank reflects its best rank in any source."""
    merged: list[PaperRecord] = []
    for depth in range(max((len(r) for r in result_lists), default=0)):
        merged.extend(r[depth] for r in result_lists if depth < len(r))
    return merged


class Collected(BaseModel):
    """What the search and the identifier completion found for a task, and what they could not do."""

    papers: list[CanonicalPaper]
    records_per_source: dict[str, int]
    decision: AcademicDecision | None = None
    api_errors: list[SourceIssue] = Field(default_factory=list)
    unreachable: dict[str, str] = Field(
        default_factory=dict, description="live APIs no connection could be made to"
    )
    live_apis: int = 0
    answered: list[str] = Field(default_factory=list, description="live APIs that answered the search")
    completed: int = 0


async def collect(
    query: str,
    local: Sequence[PaperProvider],
    plan: SourcePlan,
    literature: LiteratureSources,
    limit: int,
    decide: Callable[[str], AcademicDecision],
) -> Collected:
    """The search (local corpus always; live APIs when the plan allows and `decide` says the
    question is academic), then identifier completion whenever live APIs are allowed."""
    local_results = await search_all(local, query, limit)
    counts = {p.name: len(r) for p, r in zip(local, local_results, strict=True)}
    if not plan.live:
        return Collected(papers=canonicalize(interleave(local_results)), records_per_source=counts)
    decision: AcademicDecision = decide(query)
    async with literature.academic() as live:
        errors: list[AcademicApiError] = []
        answered: list[str] = []
        results = list(local_results)
        if decision.academic:
            found = await search_live(live, query, limit)
            errors += found.errors
            answered = sorted(found.answered)
            for source in live:
                results.append(found.records.get(source.name, []))
                counts[source.name] = len(found.records.get(source.name, []))
        merged = canonicalize(interleave(results))
        completed = 0
        reachable = reachable_sources(live)
        if literature.sources.complete_identifiers and merged and reachable:
            completion = await complete_identifiers(merged, reachable)
            errors += completion.errors
            if completion.records:  # appended last: they join their papers, never outrank them
                merged = canonicalize(interleave(results) + completion.records)
                counts["identifier completion"] = len(completion.records)
            completed = len(completion.resolved)
        unreachable = unreachable_sources(live)
    issues = [SourceIssue(source=e.api, location=e.endpoint, reason=e.reason) for e in errors]
    return Collected(
        papers=merged,
        records_per_source=counts,
        decision=decision,
        api_errors=issues,
        unreachable=unreachable,
        live_apis=len(live),
        answered=answered,
        completed=completed,
    )


def check_outcome(task_id: str, plan: SourcePlan, has_local: bool, got: Collected) -> str | None:
    """Raise when the task got no usable source; else a warning to log (or None)."""
    if not plan.live:
        return None
    if got.unreachable and len(got.unreachable) == got.live_apis:
        line = no_network_line(got.unreachable)
        if not has_local:
            raise SourcesUnavailableError(f"{line}; {OFFLINE_HINT}")
        return f"{line}; continuing with the local corpus only"
    if got.decision is not None and not got.decision.academic and not has_local:
        raise SourcesUnavailableError(
            f"task {task_id}: the question does not look academic ({got.decision.reason}), so the academic APIs "
            f"were not searched, and the task has no other source; {OFFLINE_HINT}, or rephrase it"
        )
    if got.api_errors and not got.answered and not has_local:
        detail = "; ".join(f"{i.source} {i.location}: {i.reason}" for i in got.api_errors[:3])
        raise SourcesUnavailableError(f"no literature source answered: {detail}")
    if got.api_errors:
        return (
            f"{len(got.api_errors)} live API call(s) failed; the task goes on with the sources that answered"
        )
    return None


papers_spec = task_table_spec(
    "papers",
    module=__name__,
    description="""Canonical papers found for the task's question, best first.

The local corpus is ranked as `lyra search` ranks it (BM25's candidates and the papers nearest
the question by embedding, fused, then each best one's best sentence). A question embeds only
its BM25 best `ranking.first_question_papers` at once; the rest of the corpus is embedded once
per home after the task (`lyra corpus embed`, in the background), and then every paper can be
found by meaning alone. When live sources are on and the question is academic,
Semantic Scholar and OpenAlex are searched too; their records are merged by DOI, PMID, arXiv id and
normalised title, and papers lacking an abstract or a DOI are looked up by identifier in the
APIs they did not come from. `sources` lists every record merged into a row. A live API that
fails is recorded in the metadata, not fatal. A verify task takes its claims' own papers.""",
)

claim_scope_spec = task_table_spec(
    "claim_scope",
    module=__name__,
    description="""The papers each claim of a verify task is judged against, one row per claim and paper.

A claim's papers are those it names, else the top `--papers-per-claim` of its own corpus search,
in order (`rank` 1 first); `input_id` is the id the claims file gave the claim. Empty for other
tasks, whose claims meet their most similar fragments.""",
)


@task_tables(
    [papers_spec, claim_scope_spec], ins={"task": TASK}, reuse_rows=False
)  # records what the run reads
def paper_search(
    context: AssetExecutionContext,
    task: TaskRecord,
    store: ResourceParam[LyraStore],
    literature: LiteratureSources,
    models: LocalModels,
    settings: ResourceParam[LyraSettings],
) -> tuple[Output, Output]:
    """Search the task's sources for its papers (a verify task: each claim's own papers); both
    tables are written in one transaction."""
    # what this run reads, kept with its graph: an unchanged re-run is skipped (`lyra task run`)
    record_run_inputs(store, context.run.run_id, run_inputs(store, task, settings, Path(store.home)).digest)
    options = TaskOptions.model_validate(task.options)
    plan = literature.plan(options.corpus)
    local = literature.providers(options.corpus)  # a --corpus that is gone fails here, by name
    if options.is_verify:
        return verify_papers(context, literature, options)

    def embedding_note(corpus: LocalCorpus, step: EmbeddingStep) -> None:
        context.log.info(step.line(str(corpus.path)) + " …")

    local = ranked_providers(
        local, store=store, models=models, settings=settings, on_embedding=embedding_note
    )
    if not local and not plan.live:
        raise ValueError(
            f"task {task.id} has no literature source: pass --corpus PATH or set `corpus` in config/settings.yaml "
            f"({plan.reason})"
        )
    limit = options.papers_per_source or settings.search.papers_per_source
    margin = literature.sources.academic_margin

    def decide(query: str) -> AcademicDecision:  # the embedder loads only when no keyword decides
        return classify_query(query, lambda texts: models.embedder().encode(texts), margin)

    got = asyncio.run(collect(task.query, local, plan, literature, limit, decide))
    warning = check_outcome(task.id, plan, bool(local), got)
    frame = papers_frame(got.papers)
    scope = scope_frame([])  # only a verify task scopes its claims

    corpus_issues = [issue for p in local for issue in getattr(p, "issues", [])]
    for issue in corpus_issues[:20]:
        context.log.warning(f"corpus issue at {issue.location}: {issue.reason}")
    corpora = [p.corpus for p in local if isinstance(p, LocalCorpusProvider)]
    for note in filter(None, (c.repair_note() for c in corpora)):
        context.log.info(note)
    for issue in got.api_errors[:20]:
        context.log.warning(f"{issue.source} {issue.location}: {issue.reason}")
    if warning:
        context.log.warning(warning)
    decision = got.decision
    context.log.info(
        f"{len(frame)} papers from {sum(got.records_per_source.values())} records "
        f"({got.records_per_source}); live sources: {plan.reason}"
        + (f"; academic question: {decision.academic} ({decision.reason})" if decision else "")
    )
    papers_result = Output(
        frame,
        metadata=table_metadata(
            frame,
            PAPER_PREVIEW,
            records_per_source=MetadataValue.json(got.records_per_source),
            source_issues=MetadataValue.int(len(corpus_issues) + len(got.api_errors)),
            live_sources=MetadataValue.text(plan.reason + (f"; {warning}" if warning else "")),
            academic_query=MetadataValue.text(
                f"{decision.academic} by {decision.method}: {decision.reason}"
                if decision
                else "not asked (live sources not used)"
            ),
            api_errors=MetadataValue.json([i.model_dump() for i in got.api_errors[:20]]),
            completed_by_identifier=MetadataValue.int(got.completed),
            corpus_lines_repaired=MetadataValue.int(sum(c.repaired_lines() for c in corpora)),
        ),
    )
    return papers_result, scope_result(
        scope, frame, [], scoped=MetadataValue.text("no: only a verify task scopes its claims")
    )


def scope_frame(rows: list[ScopeRow]) -> pd.DataFrame:
    return pd.DataFrame([r.model_dump() for r in rows], columns=CLAIM_SCOPE.data_columns)


def scope_result(
    scope: pd.DataFrame, papers: pd.DataFrame, claim_inputs: Sequence[ClaimInput], **extra: Any
) -> Output:
    """``claim_scope``'s materialization; its preview shows each claim's text and each paper's title."""
    text = {c.id: c.claim for c in claim_inputs}
    titles = dict(zip(papers["paper_id"], papers["title"], strict=True))
    shown = scope.assign(claim=scope["input_id"].map(text), title=scope["paper_id"].map(titles))
    return Output(scope, metadata=table_metadata(shown, ["input_id", "claim", "rank", "title"], **extra))


def verify_papers(
    context: AssetExecutionContext, literature: LiteratureSources, options: TaskOptions
) -> tuple[Output, Output]:
    """A verify task's papers: the union of every claim's own papers (those it names, else its
    corpus search), only from the task's corpora; ``claim_scope`` records which are whose."""
    records = literature.claim_papers(options.corpus, options.verify_claims, options.papers_per_claim)
    found, scope = scope_claims(context.partition_key, options.verify_claims, records)
    frame = papers_frame(found)
    scoped = scope_frame(scope)
    named = sum(c.papers is not None for c in options.verify_claims)
    context.log.info(
        f"{len(frame)} papers for {len(options.verify_claims)} claims ({named} name their papers, "
        f"the others take the corpus's top {options.papers_per_claim})"
    )
    papers_result = Output(
        frame,
        metadata=table_metadata(
            frame,
            PAPER_PREVIEW,
            live_sources=MetadataValue.text("not used: a verify task reads only its corpus"),
        ),
    )
    return papers_result, scope_result(
        scoped,
        frame,
        options.verify_claims,
        claims=MetadataValue.int(len(options.verify_claims)),
        claims_naming_papers=MetadataValue.int(named),
    )
