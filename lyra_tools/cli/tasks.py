"""``lyra task``: list, inspect, re-run, watch, stop and delete tasks."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from lyra_core.cells import cell_list
from lyra_resources.home import HomeLayout
from lyra_resources.store import task_lock
from lyra_resources.store.generations import graph_note
from lyra_resources.store.lyra_store import LyraStore, TaskRecord
from lyra_resources.store.reviewed_graph.counts import verification_blocks
from lyra_tools.cli.common import (
    HomeOption,
    command_cluster,
    command_settings,
    console,
    fail,
    home_root,
    open_store,
    require_task,
    untrusted,
)

# Dagster (the instance, lyra_assets.execution.run_control) is imported by what needs it: a task whose row reads
# running or queued, its recent runs, a re-run. Listing tasks reads the store alone.

app = typer.Typer(help="List, inspect, re-run, watch, stop and delete tasks.", no_args_is_help=True)


@app.command("list")
def task_list(home: HomeOption = None) -> None:
    """Every task with its status."""
    tasks = synced_tasks(home)
    if not tasks:
        console.print('no tasks yet: start one with `lyra run "your question"`')
        return
    table = Table("id", "status", "created", "watch", "query")
    for t in tasks:
        every = t.options.get("watch_every")
        table.add_row(
            untrusted(t.id),
            t.status,
            t.created_at.strftime("%Y-%m-%d %H:%M"),
            f"every {untrusted(every)}" if every else "",
            untrusted(t.query),
        )
    console.print(table)


def synced_tasks(home: Path | None, only: str | None = None) -> list[TaskRecord]:
    """Tasks whose row reads running or queued take their Dagster run's outcome (a killed run reads failed).
    Reading makes no home: a missing one is the command's error line."""
    store = open_store(home, create=False)
    tasks = [store.require_task(only)] if only else store.list_tasks()
    # a task a process of this machine is running reads running, and that process records the end:
    # Dagster (seconds to load on a busy machine) is consulted only for the others
    unsure = {t.id for t in tasks if t.status in ("running", "queued") and not _run_here(store, t)}
    if unsure:
        from lyra_assets.execution import run_control
        from lyra_assets.execution.runs import open_instance

        with open_instance(home, command_cluster()) as instance:
            tasks = [
                run_control.sync_task_status(store, instance, t.id) if t.id in unsure else t for t in tasks
            ]
    return tasks


def _run_here(store: LyraStore, task: TaskRecord) -> bool:
    """Whether the task's row reads running and a process of this machine is running it now."""
    return task.status == "running" and task_lock.run_in_progress(store.layout, task.id)


@app.command("status")
def task_status(task_id: str, home: HomeOption = None) -> None:
    """A task's status, row counts and recent runs (from the store: Dagster is consulted only for a
    run the row says is still queued or running, and for a watched task's next check)."""
    from lyra_resources.store.reviewed_graph import answer as reviewed_answer

    require_task(home, task_id)
    task = synced_tasks(home, task_id)[0]
    store = open_store(home)  # one store for every read below: its backend is settled once
    console.print(f"[bold]{untrusted(task.id)}[/]  {untrusted(task.query)}", soft_wrap=True)
    console.print(
        f"status: {task.status}   created: {task.created_at:%Y-%m-%d %H:%M:%S}   "
        f"options: {untrusted(options_text(task.options))}",
        soft_wrap=True,
    )
    for line in reviewed_answer.answer_lines(store, task.id):  # what a queued run found, once it has
        console.print(untrusted(line), soft_wrap=True)
    if task.options.get("watch_every"):
        from lyra_assets.execution.runs import open_instance
        from lyra_assets.execution.schedules import watch_decision

        with open_instance(home, command_cluster()) as instance:
            decision = watch_decision(task, instance, datetime.now(UTC))
        console.print(
            f"watch: every {task.options['watch_every']}: "
            f"{'due at the next hourly check' if decision.due else decision.reason}"
        )
    if task.error:
        console.print(f"[red]last error: {untrusted(task.error)}[/]", soft_wrap=True)
    note = graph_note(store, task.id)
    if note:
        console.print(f"[yellow]{untrusted(note)}[/]", soft_wrap=True)
    counts = Table("table", "rows")
    for name, count in store.row_counts(task.id).items():
        counts.add_row(name, str(count))
    console.print(counts)
    with store.connect() as conn:
        blocked = verification_blocks(conn, task.id)
    if blocked:
        table = Table(
            "blocked domain", "since", "was", "reason", "causes", "restore via", title="blocked domains"
        )
        for b in blocked:
            causes = cell_list(b["cause_ids"])
            table.add_row(
                untrusted(b["domain"]),
                f"{b['blocked_at']:%Y-%m-%d %H:%M}",
                b["original_trust_level"],
                untrusted(b["reason"]),
                untrusted(", ".join(causes[:3]) + (" …" if len(causes) > 3 else "")),
                untrusted(b["restore_via"]),
            )
        console.print(table)
    console.print(runs_table(store, task))


_OPTION_CHARS = 200  # an option shown longer than this is summarised on the status line


def options_text(options: dict) -> str:
    """The task's options on one line: an option that would take more than ``_OPTION_CHARS``
    characters (10,000 claims, a long corpus list) is summarised as its count and its first item."""

    def shown(value: object) -> str:
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "…"

    parts = []
    for key, value in options.items():
        if len(repr(value)) <= _OPTION_CHARS:
            parts.append(f"{key!r}: {value!r}")
        elif isinstance(value, list):
            what = key.split("_")[-1] if key.endswith("s") else "entries"
            parts.append(f"{key!r}: {len(value):,} {what} (first: {shown(value[0])})")
        else:
            parts.append(f"{key!r}: {shown(value)} ({len(str(value)):,} characters)")
    return "{" + ", ".join(parts) + "}"


def runs_table(store: LyraStore, task: TaskRecord) -> Table:
    """The task's latest runs: the one the row names (its status is the task's) and those that
    staged a graph, with what became of it."""
    from rich import box
    from rich.table import Column

    from lyra_resources.store.generations import recent_generations

    # fits 80 columns with the run ids whole: they are what `lyra task stop` and Dagster's UI take
    table = Table(
        Column("run", no_wrap=True, min_width=36),
        "status",
        "graph",
        Column("started UTC", no_wrap=True),
        box=box.SIMPLE_HEAD,
        show_edge=False,
        collapse_padding=True,
        pad_edge=False,
    )
    generations = recent_generations(store, task.id)
    if task.last_run_id and task.last_run_id not in {
        g.run_id for g in generations
    }:  # queued, or ended before staging
        table.add_row(task.last_run_id, task.status, "", "")
    for g in generations:
        status = task.status if g.run_id == task.last_run_id else ""
        table.add_row(g.run_id, status, g.state, f"{g.started_at:%Y-%m-%d %H:%M}" if g.started_at else "")
    return table


@app.command("run")
def task_run(
    task_id: str,
    home: HomeOption = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="run even when nothing the task reads has changed since its graph was built"
        ),
    ] = False,
) -> None:
    """Re-materialize an existing task (its rows are replaced, feedback is kept); in the cluster
    profile, queue its run and return at once. A task that reads only local files and whose question,
    options, corpus files, settings, code, models and feedback are as they were when its graph was
    built is not run again (`--force` runs it, every asset computing its rows again). In a run, an
    asset whose code and input tables are as they were when its rows were built keeps its rows."""
    from lyra_assets.execution.runs import is_cluster
    from lyra_core.tasks import TaskOptions
    from lyra_resources.store.run_inputs import unchanged_since
    from lyra_resources.task_input import STORED_LABELS
    from lyra_tools.cli.run import (
        check_input,
        print_notes,
        print_summary,
        queue_and_exit,
        run_with_progress,
        write_verify_results,
    )

    task = require_task(home, task_id)
    print_notes(
        check_input(task.query, task.options, home, STORED_LABELS)
    )  # a corpus may be gone, the network down
    if not force and (
        same := unchanged_since(open_store(home), task.id, command_settings(), home_root(home))
    ):
        from lyra_resources.store.reviewed_graph import answer as reviewed_answer

        for line in reviewed_answer.answer_lines(open_store(home), task.id):
            console.print(untrusted(line), soft_wrap=True)
        console.print(
            f"task {untrusted(task.id)}: unchanged since run {same.run_id} ({same.covers} as they were); its graph "
            "stands. `--force` runs it again.",
            soft_wrap=True,
            highlight=False,
        )
        if TaskOptions.model_validate(task.options).is_verify:
            write_verify_results(task.id, None, home)
        raise typer.Exit(0)
    if is_cluster(command_cluster()):
        raise queue_and_exit(task, home)
    with task_lock.running(HomeLayout(root=home_root(home)), task.id):  # a delete waits for the summary too
        outcome = run_with_progress(task, home, rebuild=force)
        print_summary(outcome, home)
        if outcome.success and TaskOptions.model_validate(task.options).is_verify:
            write_verify_results(task.id, None, home)
    raise typer.Exit(0 if outcome.success else 1)


def _set_watch(home: Path | None, task: TaskRecord, every: str | None) -> None:
    from lyra_core.tasks import TaskOptions

    options = TaskOptions.model_validate({**task.options, "watch_every": every})
    open_store(home).update_task(
        task.id, options=options.model_dump(exclude_none=True, exclude_defaults=True)
    )


@app.command("watch")
def task_watch(
    task_id: str,
    every: Annotated[str, typer.Option("--every", help="how often: 30m, 12h, 1d, 2w (at least 15m)")] = "1d",
    home: HomeOption = None,
) -> None:
    """Re-run a task on a schedule, so new papers enter its graph (feedback is kept)."""
    from lyra_assets.execution.runs import open_instance, register_partition
    from lyra_core.tasks import TaskOptions, parse_interval

    task = require_task(home, task_id)
    try:
        parse_interval(every)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    _set_watch(home, task, every)
    with open_instance(home, command_cluster()) as instance:  # the schedule requests runs of this partition
        register_partition(instance, task_id)
    console.print(
        f"{task_id} is re-run every {TaskOptions(watch_every=every).watch_every} by the Dagster schedule "
        "`watched_tasks_schedule` (checked hourly while `lyra ui` or a Dagster daemon runs on this home)"
    )


@app.command("unwatch")
def task_unwatch(task_id: str, home: HomeOption = None) -> None:
    """Stop re-running a task on a schedule."""
    task = require_task(home, task_id)
    if not task.options.get("watch_every"):
        console.print(f"{task_id} was not watched")
        return
    _set_watch(home, task, None)
    console.print(f"{task_id} is no longer re-run on a schedule")


@app.command("stop")
def task_stop(task_id: str, home: HomeOption = None) -> None:
    """Stop a task's run in progress."""
    from lyra_assets.execution import run_control

    require_task(home, task_id)
    synced_tasks(home, task_id)
    stopped = run_control.stop_task(task_id, home, cluster=command_cluster())
    if stopped:
        console.print(f"stopped {len(stopped)} run(s) of {task_id}; the graph readers see is unchanged")
    else:  # none in progress, or one that finished as it was stopped: the status says which
        status = require_task(home, task_id).status
        console.print(f"nothing to stop: {task_id} has no run in progress (status {status}, left unchanged)")


@app.command("delete")
def task_delete(
    task_id: str,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask for confirmation")] = False,
    home: HomeOption = None,
) -> None:
    """Delete a task: its rows, Parquet files, reports, verify results, run log, Dagster runs and
    partition. Feedback is kept."""
    from lyra_assets.execution import run_control

    task = require_task(home, task_id)
    if not yes and not typer.confirm(f"delete {task.id} ({task.query!r}) with its rows, files and runs?"):
        raise typer.Exit(1)
    try:
        deleted = run_control.delete_task(task_id, home, command_cluster())
    except RuntimeError as exc:
        raise fail(str(exc)) from exc
    rows = ", ".join(f"{n} {t}" for t, n in deleted.rows.items() if n) or "none"
    console.print(
        f"deleted {task_id}: {sum(deleted.rows.values())} rows ({rows}), {len(deleted.runs)} Dagster "
        f"run(s), {len(deleted.files)} file(s) and folder(s); feedback is kept",
        soft_wrap=True,
    )
    for path in deleted.files:
        console.print(untrusted(f"  removed {path}"), soft_wrap=True)
