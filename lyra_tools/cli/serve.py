"""Handing a task's graph on: ``lyra mcp`` (agents), ``lyra ui`` (the Dagster UI), ``lyra export``
(files) and ``lyra report`` (the report, written now); and ``lyra daemon``, which starts the runs queued
on a cluster."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from lyra_resources.environment import child_environment
from lyra_resources.home import REPO_ROOT, HomeLayout
from lyra_tools.cli.common import (
    HomeOption,
    command_cluster,
    console,
    err,
    fail,
    home_root,
    open_store,
    output_problem,
    require_task,
    untrusted,
    write_output,
    write_stdout,
)

app = typer.Typer()


@app.command()
def mcp(
    transport: Annotated[
        str, typer.Option(help="stdio (default) or http (streamable HTTP on 127.0.0.1)")
    ] = "stdio",
    port: Annotated[int, typer.Option(min=1, max=65535, help="port for --transport http")] = 8765,
    home: HomeOption = None,
) -> None:
    """Serve Lyra's evidence graph to AI agents over MCP (exploration and feedback tools)."""
    from lyra_tools.mcp import server as mcp_server

    if transport not in ("stdio", "http"):
        raise fail(f"unknown --transport {transport!r}: use stdio or http")
    args = ["--transport", transport, "--port", str(port), "--home", str(home_root(home))]
    mcp_server.main(args)


@app.command()
def ui(
    port: Annotated[int, typer.Option(min=1, max=65535, help="port of the Dagster UI")] = 3000,
    home: HomeOption = None,
) -> None:
    """Start the Dagster UI (`dagster dev`) on this Lyra home's instance."""
    from lyra_assets.execution.runs import open_instance

    layout = HomeLayout(root=home_root(home))
    with open_instance(
        layout.root, command_cluster()
    ):  # prepared (shipped models recorded) before dagster dev opens it
        pass
    dagster = shutil.which("dagster") or str(Path(sys.executable).with_name("dagster"))
    env = child_environment(DAGSTER_HOME=str(layout.dagster_home), LYRA_HOME=str(layout.root))
    os.chdir(REPO_ROOT)
    os.execvpe(dagster, [dagster, "dev", "-w", str(REPO_ROOT / "workspace.yaml"), "-p", str(port)], env)


@app.command()
def daemon(home: HomeOption = None) -> None:
    """Start Dagster's daemon (`dagster-daemon run`) on this Lyra home's instance: it starts the runs
    queued in the cluster profile (one per task, cluster.max_concurrent_runs in all), the schedule
    and the sensors."""
    from lyra_assets.execution.runs import open_instance

    layout = HomeLayout(root=home_root(home))
    cluster = command_cluster()
    with open_instance(layout.root, cluster):  # dagster.yaml written for the profile, the storage ready
        pass
    if cluster.profile != "cluster":
        console.print(
            "[yellow]note:[/] profile local: runs execute in the command that starts them; the "
            "daemon runs the schedule and the sensors only",
            soft_wrap=True,
            highlight=False,
        )
    executable = shutil.which("dagster-daemon") or str(Path(sys.executable).with_name("dagster-daemon"))
    env = child_environment(DAGSTER_HOME=str(layout.dagster_home), LYRA_HOME=str(layout.root))
    os.chdir(REPO_ROOT)
    os.execvpe(executable, [executable, "run", "-w", str(REPO_ROOT / "workspace.yaml")], env)


@app.command("export")
def export_task(
    task_id: str,
    format: Annotated[
        str,
        typer.Option(
            "--format",
            help="bibtex, ris, csl-json (papers); csv, jsonl (claims "
            "with verdicts and evidence); html (the report)",
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="file to write (default: standard output)")
    ] = None,
    only_evidence: Annotated[
        bool,
        typer.Option(
            "--only-evidence",
            help="bibtex, ris, csl-json: only the papers that vote for or against a claim of the "
            "task (default: every paper the task retrieved)",
        ),
    ] = False,
    home: HomeOption = None,
) -> None:
    """Export a task's papers, claims or report (human feedback applied). References carry Lyra's
    paper id and PMID (BibTeX lyra_paper / pmid, RIS ID / AN, CSL-JSON id / PMID)."""
    from lyra_tools.exports import formats as export

    if format not in export.FORMATS:
        raise fail(f"unknown --format {format!r}: use one of {', '.join(export.FORMATS)}")
    if only_evidence and format not in export.REFERENCE_FORMATS:
        raise fail(
            f"--only-evidence selects papers: use it with --format {', '.join(export.REFERENCE_FORMATS)}"
        )
    if out is not None and (problem := output_problem(out, "--out", home)):  # before the export is built
        raise fail(problem)
    require_task(home, task_id)
    store = open_store(home, create=False)
    exported = export.export_counted(store, task_id, format, only_evidence)
    # an export of no paper or claim is still written whole (the CSV keeps its header); why it is empty goes to stderr
    empty = export.empty_note(store, task_id, format, only_evidence) if exported.items == 0 else None
    if out is None:
        write_stdout(exported.text)
    else:
        write_output(out, exported.text, "--out", home)
        console.print(untrusted(f"{format} export of {task_id}: {out}"), soft_wrap=True, highlight=False)
    if empty:
        err.print(f"note: {untrusted(empty)}", soft_wrap=True, highlight=False)


REPORT_FORMATS = ("md", "html")


@app.command("report")
def report_task(
    task_id: str,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="file to write the report to (md: the graph as "
            "PATH's .svg beside it); default: rewrite the home's "
            "reports/TASK.md|.html|.svg and print the report",
        ),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", help="md (Markdown) or html (one standalone page)")
    ] = "md",
    home: HomeOption = None,
) -> None:
    """Write a task's report now, from its graph as it stands with human feedback applied."""
    from lyra_core.report.html import render_html
    from lyra_core.report.markdown import markdown
    from lyra_resources.store.reviewed_graph.report import read_report, write_report

    if format not in REPORT_FORMATS:
        raise fail(f"unknown --format {format!r}: use one of {', '.join(REPORT_FORMATS)}")
    if out is not None and (problem := output_problem(out, "--out", home)):  # before the report is built
        raise fail(problem)
    if out is not None and format == "md":  # the Markdown's graph is a file beside it
        if out.suffix.lower() == ".svg":
            raise fail(f"--out {out}: the Markdown report links its graph as {out.stem}.svg; name it .md")
        if problem := output_problem(out.with_suffix(".svg"), "--out", home):
            raise fail(problem)
    require_task(home, task_id)
    store = open_store(home, create=False)
    if out is None:
        path = store.layout.report(task_id)
        try:
            report = write_report(store, task_id, path)
        except OSError as exc:
            raise fail(f"{path.parent}: the report cannot be written: {exc.strerror or exc}") from None
        write_stdout(
            markdown(report, path.with_suffix(".svg").name) if format == "md" else render_html(report)
        )
        err.print(
            untrusted(f"report of {task_id}: {path} (.html, .svg beside it)"), soft_wrap=True, highlight=False
        )
        return
    report = read_report(store, task_id)
    if format == "html":
        write_output(out, render_html(report), "--out", home)
    else:
        svg = out.with_suffix(".svg")
        write_output(svg, report.svg() + "\n", "--out", home)
        write_output(out, markdown(report, svg.name), "--out", home)
    console.print(
        untrusted(
            f"report of {task_id}: {out}" + (f" (graph: {out.with_suffix('.svg')})" if format == "md" else "")
        ),
        soft_wrap=True,
        highlight=False,
    )
