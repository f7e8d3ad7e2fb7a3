"""The `task_report` asset: the task's report for people, written after the run publishes its graph."""

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, ResourceParam, asset

from lyra_assets.graph.publish import PUBLISH_ASSET
from lyra_assets.metadata import task_metadata
from lyra_assets.partitions import task_partitions
from lyra_assets.task_assets import declared_in
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph.report import write_report


@asset(
    partitions_def=task_partitions,
    deps=[PUBLISH_ASSET],
    kinds={"markdown", "html", "svg"},
    **declared_in(__name__),
)
def task_report(context: AssetExecutionContext, store: ResourceParam[LyraStore]) -> MaterializeResult:
    """The task's report: `<home>/reports/<task>.md`, the same as one standalone `.html` page and
    the evidence graph as `.svg` beside them.

    Read from the published graph with human feedback applied, exactly as MCP and `lyra export`
    read it: the answer (or, for a verify task, the claims it checked and their verdicts), the
    claims by topic with their strongest passages for and against, and the references. Feedback
    that changes the graph rewrites the files at once; `lyra report TASK` writes them on demand.
    """
    path = store.layout.report(context.partition_key)
    report = write_report(store, context.partition_key, path)
    answer = report.answer_lines()[0]
    context.log.info(f"report {path}: {answer}")
    return MaterializeResult(
        metadata={
            "path": MetadataValue.path(str(path)),
            "html": MetadataValue.path(str(path.with_suffix(".html"))),
            "svg": MetadataValue.path(str(path.with_suffix(".svg"))),
            "answer": MetadataValue.text(answer),
            "claims_shown": MetadataValue.int(len(report.claims)),
            "claims_in_force": MetadataValue.int(report.claims_in_force),
            "references": MetadataValue.int(len(report.references)),
            **task_metadata(store, context.partition_key),
        }
    )
