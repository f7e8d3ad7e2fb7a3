"""Handing a task's graph on: ``lyra mcp`` (agents), ``lyra ui`` (the Dagster UI) and
``lyra export`` (files); and ``lyra daemon``, which starts the runs queued on a cluster."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from lyra_assets.runs import cluster_settings, open_instance
from lyra_resources.settings import REPO_ROOT, HomeLayout
from lyra_tools.cli_common import (
    HomeOption,
    console,
    fail,
    home_root,
    open_store,
    output_problem,
    require_task,
    write_output,
    write_stdout,
)

app = typer.Typer()


@app.command()
def mcp(
    transport: Annotated[str, typer.Option(help="stdio (default) or http (streamable HTTP on 127.0.0.1)")] = "stdio",
    port: Annotated[int, typer.Option(min=1, max=65535, help="port for --transport http")] = 8765,
    home: HomeOption = None,
) -> None:
    """Serve Lyra's evidence graph to AI agents over MCP (exploration and feedback tools)."""
    from lyra_tools import mcp_server

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
    layout = HomeLayout(root=home_root(home))
    with open_instance(layout.root):  # prepared (shipped models recorded) before dagster dev opens it
        pass
    dagster = shutil.which("dagster") or str(Path(sys.executable).with_name("dagster"))
    env = {**os.environ, "DAGSTER_HOME": str(layout.dagster_home), "LYRA_HOME": str(layout.root)}
    os.chdir(REPO_ROOT)
    os.execvpe(dagster, [dagster, "dev", "-w", str(REPO_ROOT / "workspace.yaml"), "-p", str(port)], env)


@app.command()
def daemon(home: HomeOption = None) -> None:
    """Start Dagster's daemon (`dagster-daemon run`) on this Lyra home's instance: it starts the runs
    queued in the cluster profile (one per task, cluster.max_concurrent_runs in all), the schedule
    and the sensors."""
    layout = HomeLayout(root=home_root(home))
    cluster = cluster_settings()
    with open_instance(layout.root, cluster):  # dagster.yaml written for the profile, the storage ready
        pass
    if cluster.profile != "cluster":
        console.print("[yellow]note:[/] profile local: runs execute in the command that starts them; the "
                      "daemon runs the schedule and the sensors only", soft_wrap=True, highlight=False)
    executable = shutil.which("dagster-daemon") or str(Path(sys.executable).with_name("dagster-daemon"))
    env = {**os.environ, "DAGSTER_HOME": str(layout.dagster_home), "LYRA_HOME": str(layout.root)}
    os.chdir(REPO_ROOT)
    os.execvpe(executable, [executable, "run", "-w", str(REPO_ROOT / "workspace.yaml")], env)


@app.command("export")
def export_task(
    task_id: str,
    format: Annotated[str, typer.Option("--format", help="bibtex, ris, csl-json (papers); csv, jsonl (claims "
                                        "with verdicts and evidence); html (the report)")],
    out: Annotated[Path | None, typer.Option("--out", help="file to write (default: standard output)")] = None,
    only_evidence: Annotated[bool, typer.Option(
        "--only-evidence", help="bibtex, ris, csl-json: only the papers that vote for or against a claim of the "
        "task (default: every paper the task retrieved)")] = False,
    home: HomeOption = None,
) -> None:
    """Export a task's papers, claims or report (human feedback applied). References carry Lyra's
    paper id and PMID (BibTeX lyra_paper / pmid, RIS ID / AN, CSL-JSON id / PMID)."""
    from lyra_tools import export

    if format not in export.FORMATS:
        raise fail(f"unknown --format {format!r}: use one of {', '.join(export.FORMATS)}")
    if only_evidence and format not in export.REFERENCE_FORMATS:
        raise fail(f"--only-evidence selects papers: use it with --format {', '.join(export.REFERENCE_FORMATS)}")
    if out is not None and (problem := output_problem(out, "--out")):  # before the export is built
        raise fail(problem)
    require_task(home, task_id)
    text = export.export(open_store(home, create=False), task_id, format, only_evidence)
    if out is None:
        write_stdout(text)
        return
    write_output(out, text, "--out")
    console.print(f"{format} export of {task_id}: {out}")
