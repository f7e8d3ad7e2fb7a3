"""Stage 2: ``papers`` — search the task's sources and merge what they return into canonical papers."""


import asyncio

import pandas as pd
from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from lyra_assets.metadata import table_metadata
from lyra_assets.partitions import task_partitions
from lyra_core.papers import CanonicalPaper, PaperRecord, canonicalize
from lyra_core.tasks import TaskOptions
from lyra_resources.literature import LiteratureSources
from lyra_resources.providers import PaperProvider
from lyra_resources.settings import settings
from lyra_resources.store import LyraStore


async def search_all(providers: list[PaperProvider], query: str, limit: int) -> list[list[PaperRecord]]:
    """Ask every source at once; each answer stays best-first."""
    return list(await asyncio.gather(*(p.search(query, limit) for p in providers)))


def interleave(result_lists: list[list[PaperRecord]]) -> list[PaperRecord]:
    """Round-robin merge, so a paper's merged rank reflects its best rank in any source."""
    merged: list[PaperRecord] = []
    for depth in range(max((len(r) for r in result_lists), default=0)):
        merged.extend(r[depth] for r in result_lists if depth < len(r))
    return merged


def papers_frame(papers: list[CanonicalPaper]) -> pd.DataFrame:
    rows = [
        {
            "paper_id": p.paper_id, "doi": p.doi, "pmid": p.pmid, "arxiv_id": p.arxiv_id,
            "title": p.title, "abstract": p.abstract, "year": p.year, "venue": p.venue, "url": p.url,
            "sources": p.sources, "search_rank": rank,
        }
        for rank, p in enumerate(papers, start=1)
    ]
    columns = ["paper_id", "doi", "pmid", "arxiv_id", "title", "abstract", "year", "venue", "url",
               "sources", "search_rank"]
    return pd.DataFrame(rows, columns=columns).astype({"year": "Int64"})


@asset(partitions_def=task_partitions, group_name="sources", kinds={"duckdb", "parquet"})
def papers(context: AssetExecutionContext, store: LyraStore, literature: LiteratureSources) -> MaterializeResult:
    """Canonical papers for the task's question: every source's results, deduplicated by DOI,
    PMID, arXiv id and normalised title; ``sources`` lists each record merged into a row."""
    task = store.require_task(context.partition_key)
    options = TaskOptions.model_validate(task.options)
    providers = literature.providers(options.corpus)
    if not providers:
        raise ValueError(
            f"task {task.id} has no literature source: pass --corpus PATH or set `corpus` in config/settings.yaml"
        )
    limit = options.papers_per_source or settings().search.papers_per_source
    results = asyncio.run(search_all(providers, task.query, limit))
    merged = canonicalize(interleave(results))
    frame = papers_frame(merged)
    store.replace_partition("papers", task.id, frame)

    issues = [issue for p in providers for issue in getattr(p, "issues", [])]
    for issue in issues[:20]:
        context.log.warning(f"corpus issue at {issue.location}: {issue.reason}")
    per_source = {p.name: len(r) for p, r in zip(providers, results, strict=True)}
    context.log.info(f"{len(frame)} papers from {sum(per_source.values())} records ({per_source})")
    return MaterializeResult(
        metadata=table_metadata(
            frame, ["search_rank", "title", "year", "doi", "sources"],
            records_per_source=MetadataValue.json(per_source),
            source_issues=MetadataValue.int(len(issues)),
        )
    )
