"""The report as a Dagster asset, kept current: a run through Dagster alone writes
``<home>/reports/<task>.md|.html|.svg`` after it publishes the graph, feedback through ``lyra
feedback`` rewrites them at once, ``lyra report`` writes them on demand, and a verify task's report
says what it checked. Real DuckDB, Dagster in-process materialization, the CLI through typer's runner."""

from __future__ import annotations

import json

import pytest
from dagster import DagsterInstance, materialize
from typer.testing import CliRunner

from fixtures.answers import add_hypothesis
from fixtures.graphs import CLAIMS, write_graph
from fixtures.stores import copy_store, template_store
from fixtures.tables import with_upstream_tables
from lyra_assets.evidence.answer import task_answer
from lyra_assets.graph.publish import TaskStore, publishing_asset
from lyra_assets.graph.report import task_report
from lyra_assets.partitions import TASKS_PARTITION
from lyra_assets.table_io import LYRA_TABLES, lyra_tables
from lyra_core.claim_inputs import ClaimInput
from lyra_core.evidence import edge_id_for
from lyra_core.report.markdown import md
from lyra_core.tasks import TaskOptions
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.store.generations import open_generation, publish_generation
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app

FIRST_ANSWER = (
    "Answer: supported (0.73 ± 0.11) — 3 papers for, 1 against, 4 judged — designs: 1 meta-analysis for; "
    "1 RCT against — low certainty (studies disagree; read by word overlap only)"
)


def run_report(store: LyraStore, task_id: str):
    """``task_answer``, the publishing step and ``task_report`` in one Dagster run, the store staging
    the run's writes as a task run's does; the report's materialization metadata."""
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task_id])
        result = materialize(
            with_upstream_tables(task_answer, publishing_asset([task_answer]), task_report),
            partition_key=task_id,
            instance=instance,
            resources={
                "store": TaskStore(home=str(store.layout.root)),
                "settings": LyraSettings(),
                LYRA_TABLES: lyra_tables,
            },
        )
    assert result.success
    return result.asset_materializations_for_node("task_report")[0].metadata


def report_files(store: LyraStore, task_id: str) -> tuple[str, str, str]:
    path = store.layout.report(task_id)
    return tuple(
        p.read_text(encoding="utf-8") for p in (path, path.with_suffix(".html"), path.with_suffix(".svg"))
    )


def cli(store: LyraStore, *args: str):
    return CliRunner().invoke(app, [*args, "--home", str(store.layout.root)], catch_exceptions=False)


@pytest.fixture(scope="module")
def answered_template(tmp_path_factory, request):
    """The vitamin D graph with its hypothesis, built once per module; the task's answer not yet
    materialized."""
    store = template_store(request, tmp_path_factory.mktemp("answered") / "home")
    graph = write_graph(store)
    return store, graph, add_hypothesis(store, graph)


@pytest.fixture
def answered(answered_template, tmp_path):
    """A copy of the template home for one test to change."""
    store, graph, hypothesis = answered_template
    return copy_store(store, tmp_path / "home"), graph, hypothesis


def test_a_dagster_run_alone_writes_the_report_of_the_graph_it_published(answered):
    store, graph, _ = answered
    assert not store.layout.report(graph.task_id).exists()
    metadata = run_report(store, graph.task_id)
    text, html, svg = report_files(store, graph.task_id)
    # the answer task_answer wrote in this same run, staged, then published before the report read it
    assert FIRST_ANSWER in text.splitlines()[2] and f'<p class="answer">{FIRST_ANSWER}</p>' in html
    assert "No answer yet" not in text and svg.startswith("<svg")
    assert f"]({graph.task_id}.svg)" in text and CLAIMS["hip"][0] in text
    assert metadata["path"].value == str(store.layout.report(graph.task_id))
    assert metadata["answer"].value == FIRST_ANSWER
    # this answer's own weaknesses, in both formats: its votes were read by overlap, its papers disagree
    caveats = text.split("**How far to trust this answer**", 1)[1].split("\n\n", 2)[1]
    assert "- Every vote was read by the cross-encoder" in caveats
    assert "- The papers disagree: 3 papers for, 1 against." in caveats
    assert '<p class="caveats">How far to trust this answer</p>' in html and "The papers disagree" in html


def test_a_step_after_the_publish_reads_the_published_graph(answered):
    """A step process of the run that starts after ``task_graph`` (the report, on a worker) opens the
    run's generation again: it must read the tables the run published, not the emptied stage."""
    store, graph, _ = answered
    open_generation(store, graph.task_id, "run-1")
    publish_generation(store, graph.task_id, "run-1")
    later_step = LyraStore(home=str(store.layout.root))
    open_generation(later_step, graph.task_id, "run-1")
    assert len(later_step.read_partition("claims", graph.task_id)) == len(CLAIMS) + 1
    assert later_step.read_partition("claims", graph.task_id).equals(
        store.read_partition("claims", graph.task_id)
    )


def test_feedback_through_the_cli_rewrites_the_report_files(answered):
    store, graph, hypothesis = answered
    run_report(store, graph.task_id)
    assert CLAIMS["hip"][0] in report_files(store, graph.task_id)[0]

    whi = edge_id_for(graph.task_id, graph.fragments[("whi", 0)], hypothesis)
    result = cli(store, "feedback", "edge-correct", graph.task_id, whi, "supports", "--reason", "it agrees")
    assert result.exit_code == 0, result.output
    text, html, _ = report_files(store, graph.task_id)
    new_answer = (
        "Answer: well supported (0.94 ± 0.06) — 4 papers for, 0 against, 4 judged — designs: "
        "1 meta-analysis and 1 RCT for — high certainty"
    )
    assert f"**{md(new_answer)}**" in text and f'<p class="answer">{new_answer}</p>' in html
    assert FIRST_ANSWER not in text and FIRST_ANSWER not in html

    reject = json.dumps({"claim_id": graph.claims["hip"], "reason": "too vague"})
    result = cli(store, "feedback", "apply", graph.task_id, "claim_reject", reject)
    assert result.exit_code == 0, result.output
    for page in report_files(store, graph.task_id):  # Markdown, HTML and the graph's picture
        assert CLAIMS["hip"][0] not in page
    assert "1 claim rejected and left out" in report_files(store, graph.task_id)[0]


def test_lyra_report_writes_and_prints_the_report(answered, tmp_path):
    store, graph, _ = answered
    run_report(store, graph.task_id)
    store.layout.report(graph.task_id).unlink()

    result = cli(store, "report", graph.task_id)
    assert result.exit_code == 0, result.output
    text = report_files(store, graph.task_id)[0]
    assert text.startswith("# Does vitamin D") and text in result.stdout

    out = tmp_path / "out" / "page.html"
    out.parent.mkdir()
    result = cli(store, "report", graph.task_id, "--format", "html", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_text() == report_files(store, graph.task_id)[1]
    result = cli(store, "report", graph.task_id, "--out", str(out.with_name("page.md")))
    assert result.exit_code == 0 and "](page.svg)" in out.with_name("page.md").read_text()
    assert out.with_name("page.svg").read_text().startswith("<svg")

    for bad, message in (
        (["--format", "pdf"], "unknown --format 'pdf'"),
        (["--out", str(tmp_path / "missing" / "r.md")], "--out"),
    ):
        result = cli(store, "report", graph.task_id, *bad)
        assert (
            result.exit_code == 1
            and message in result.output
            and len(result.output.strip().splitlines()) == 1
        )
    assert not (tmp_path / "missing").exists()
    result = cli(store, "report", "task_unknown")
    assert result.exit_code == 1 and "task_unknown" in result.output


def test_a_verify_task_report_says_what_it_checked(tmp_path):
    store = LyraStore.at(tmp_path / "home")
    options = TaskOptions(verify_claims=[ClaimInput(id="1", claim=CLAIMS["user"][0])])
    task = store.create_task("verify claims", options.model_dump(exclude_defaults=True))
    graph = write_graph(store, task_id=task.id)
    run_report(store, graph.task_id)
    text, html, _ = report_files(store, graph.task_id)
    for page in (text, html):
        assert "No answer yet" not in page and "has not been answered" not in page
        assert "A verify task: 1 claim checked against the literature (1 " in page
        assert CLAIMS["user"][0] in page
