"""``lyra run`` and ``lyra verify``: check the input, create the task, materialize it with live
progress and print its answer and summary. ``lyra task run`` re-runs through the same steps.
In the cluster profile they submit the task's run to the run queue and return at once."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from lyra_resources.home import HomeLayout
from lyra_resources.store import task_lock
from lyra_resources.store.generations import graph_note
from lyra_resources.store.lyra_store import StoreError, TaskRecord
from lyra_tools.cli.common import (
    HomeOption,
    command_cluster,
    command_settings,
    console,
    err,
    fail,
    home_root,
    open_store,
    output_problem,
    read_text_input,
    untrusted,
    writable_home,
)

if (
    TYPE_CHECKING
):  # the run machinery (Dagster, the input checks, the readers) is imported when a command runs
    from lyra_assets.execution import run_control
    from lyra_core.tasks import TaskOptions
    from lyra_resources.task_input import CheckedInput
    from lyra_tools.cli.verify import VerifyPlan

app = typer.Typer()
# 1,000 searched claims: 8,000 pairs, about 13 minutes at the recorded costs (lyra_tools.cli.verify);
# the bound of `lyra verify`'s batch and of `lyra run`'s own claims
MAX_CLAIMS = 1000


def run_with_progress(
    task: TaskRecord, home: Path | None, *, rebuild: bool = False
) -> run_control.RunOutcome:
    from lyra_tools.cli import progress_view

    console.print(f"[bold]{untrusted(task.id)}[/]  {untrusted(task.query)}", soft_wrap=True)
    try:
        outcome = progress_view.run_with_display(task.id, home, console, rebuild=rebuild)
    except RuntimeError as exc:  # the task has a run in progress already
        raise fail(str(exc)) from exc
    if (
        outcome.interrupted
    ):  # Ctrl-C: what stopped, and how to go on, in one line; exit code 130 as for SIGINT
        raise fail(
            f"interrupted: task {task.id} stopped (run {outcome.run_id}); `lyra task run {task.id}` "
            "runs it again",
            code=130,
        )
    return outcome


def queue_and_exit(task: TaskRecord, home: Path | None, then: str = "") -> typer.Exit:
    """Ask the cluster's run queue for the task's run, say so, and return the Exit (0) that ends the command."""
    from lyra_assets.execution import run_control

    try:
        run_control.queue_task(task.id, home, command_cluster())
    except RuntimeError as exc:
        raise fail(str(exc)) from exc
    console.print(f"[bold]{untrusted(task.id)}[/]  {untrusted(task.query)}", soft_wrap=True)
    console.print(
        f"task {task.id} queued: `lyra daemon` starts its run when the run queue allows; "
        f"`lyra task status {task.id}` follows it{then.format(task=task.id)}",
        soft_wrap=True,
        highlight=False,
    )
    return typer.Exit(0)


def print_summary(outcome: run_control.RunOutcome, home: Path | None) -> None:
    from lyra_core.answer import verdict_words, votes_text
    from lyra_resources.store.reviewed_graph import answer as reviewed_answer
    from lyra_resources.store.reviewed_graph.report import top_claims

    layout = HomeLayout(root=home_root(home))
    counts = open_store(home).row_counts(outcome.task_id)
    if outcome.success:  # the answer to the question comes first, then how it was reached
        for line in reviewed_answer.answer_lines(open_store(home), outcome.task_id):
            console.print(untrusted(line), soft_wrap=True)
    if outcome.success:
        console.print(f"[green]task {outcome.task_id} completed[/] (run {outcome.run_id})")
    else:
        console.print(f"[red]task {outcome.task_id} {outcome.status.lower()}[/] (run {outcome.run_id})")
        if outcome.error:
            console.print(f"[red]{untrusted(outcome.error)}[/]", soft_wrap=True)
    if not outcome.success:
        note = graph_note(open_store(home), outcome.task_id)
        if note:
            console.print(f"[yellow]{untrusted(note)}[/]", soft_wrap=True)
    table = Table("table", "rows", title=None)
    for name, count in counts.items():
        table.add_row(name, str(count))
    console.print(table)
    scored = outcome.success and counts.get("claim_scores")
    claims = top_claims(open_store(home), outcome.task_id, limit=8) if scored else None
    if claims is not None and len(claims):  # none but the hypothesis: the answer above says it
        top = Table("verdict", "conf.", "±", "votes", "claim", title="claims with the most evidence")
        for c in claims.itertuples(index=False):
            top.add_row(
                untrusted(verdict_words(c.verdict)),
                f"{c.confidence:.2f}",
                f"{c.uncertainty:.2f}",
                votes_text(c.supporting_votes, c.refuting_votes, c.below_threshold),
                ("★ " if c.origin == "user" else "") + untrusted(c.text),
            )
        console.print(top)
    paths = [
        f"DuckDB:  {layout.database}",
        f"Parquet: {layout.parquet}/<table>/task_id={outcome.task_id}/data.parquet",
    ]
    if outcome.success and layout.report(outcome.task_id).exists():  # written by the run's task_report asset
        paths.insert(0, f"Report:  {layout.report(outcome.task_id)}")
    # each path whole on its line (not folded at the console's width), to be copied or read from a pipe, and
    # shown as untrusted text: a folder named "[bold]" is a name, not markup, and one holding a line break
    # or an escape sequence stays on its line, its control characters shown as escapes
    for line in paths:
        console.print(untrusted(line), soft_wrap=True, highlight=False)


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
        str | None,
        typer.Option(
            "--watch",
            help="re-run the task this often (30m, 12h, 1d, 2w) on the Dagster "
            "schedule `watched_tasks_schedule`; see `lyra task watch`",
        ),
    ] = None,
    max_claims: Annotated[
        int,
        typer.Option(
            "--max-claims",
            min=1,
            help="the most claims of your own (--claim, --claims-file) one task judges; more are refused "
            "unless this is raised",
        ),
    ] = MAX_CLAIMS,
    home: HomeOption = None,
) -> None:
    """Create a task for QUESTION and materialize its assets. With --claims-file, says on stderr how
    many claims and NLI pairs it will judge and the estimated time before any model runs."""
    from lyra_resources.task_input import CLI_LABELS

    user_claims = list(claim or [])
    if claims_file:
        user_claims += read_claims_file(claims_file)
    source = f"--claims-file {claims_file}" + (" with --claim" if claim else "") if claims_file else "--claim"
    plan = bounded_claims(user_claims, source, max_claims)
    try:
        corpus_paths = [str(p.expanduser().resolve()) for p in corpus or []]
    except OSError as exc:
        raise fail(f"--corpus: path cannot be used: {exc.strerror or exc}") from exc
    options = {
        "corpus": corpus_paths,
        "papers_per_source": papers,
        "claims": user_claims,
        "watch_every": watch,
    }
    checked = check_input(question, {k: v for k, v in options.items() if v is not None}, home, CLI_LABELS)
    if claims_file:  # a batch: what it costs, said before it starts (the question's own claims come on top)
        err.print(plan.line("your claims"), markup=False, soft_wrap=True, highlight=False)
    outcome = create_and_run(checked, home)
    raise typer.Exit(0 if outcome.success else 1)


def bounded_claims(claims: list[str], source: str, max_claims: int) -> VerifyPlan:
    """The plan of a run's own ``claims`` (``evidence.nli_top_k`` fragments judged against each),
    refused in one line where they are more than ``max_claims``, as `lyra verify` bounds its batch:
    before the corpus is read or anything exists."""
    from lyra_resources.settings.pipeline import EvidenceSettings, SettingsError
    from lyra_tools.cli import verify

    try:
        per_claim = command_settings().evidence.nli_top_k
    except SettingsError:  # the input check says what is wrong with the file, in its own line
        per_claim = EvidenceSettings().nli_top_k
    plan = verify.claims_plan(len(dict.fromkeys(" ".join(c.split()) for c in claims)), per_claim)
    if refusal := verify.too_many_claims(plan, source, max_claims):
        raise fail(refusal)
    return plan


def create_and_run(checked: CheckedInput, home: Path | None, then: str = "") -> run_control.RunOutcome:
    """Create the checked task, materialize it with live progress, print its summary (in the cluster
    profile: queue its run, say so and end the command, ``then`` closing the message)."""
    from lyra_assets.execution.runs import is_cluster

    try:
        task = open_store(home).create_task(
            checked.query, checked.options.model_dump(exclude_none=True, exclude_defaults=True)
        )
    except StoreError as exc:
        raise fail(str(exc)) from exc
    print_notes(checked)
    if is_cluster(command_cluster()):
        raise queue_and_exit(task, home, then)
    with task_lock.running(HomeLayout(root=home_root(home)), task.id):  # a delete waits for the summary too
        outcome = run_with_progress(task, home)
        print_summary(outcome, home)
    if outcome.success and checked.options.corpus:
        from lyra_tools.cli.corpus import embed_rest_in_background

        embed_rest_in_background(list(checked.options.corpus), home)  # after the answer: it never waits
    return outcome


@app.command("verify")
def verify_claims(
    corpus: Annotated[
        list[Path],
        typer.Option("--corpus", help="the library: a corpus file or folder (JSONL, BibTeX); repeatable"),
    ],
    claims: Annotated[
        Path,
        typer.Option(
            "--claims",
            help='claims file: one claim a line, or JSON Lines {"id": …, "claim": "…", "papers": \\[ids]}',
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="results, one JSON line per claim (default: <home>/verify/<task>.jsonl)"),
    ] = None,
    papers_per_claim: Annotated[
        int,
        typer.Option(
            "--papers-per-claim", min=1, max=100, help="corpus papers searched for a claim that names none"
        ),
    ] = 5,
    max_claims: Annotated[
        int,
        typer.Option(
            "--max-claims",
            min=1,
            help="the most claims one task verifies; a larger file is refused unless this is raised",
        ),
    ] = MAX_CLAIMS,
    home: HomeOption = None,
) -> None:
    """Check a batch of claims against a library: one task, run through Dagster. Says on stderr how
    many claims and NLI pairs it will judge and the estimated time before any model runs."""
    from lyra_resources.task_input import CLI_LABELS
    from lyra_tools.cli import verify

    layout = HomeLayout(root=writable_home(home))  # made with the task, once the input is good
    if out is not None and (problem := output_problem(out, "--out", home)):
        raise fail(problem)
    text = read_text_input(claims, "--claims", "the claims file")
    try:
        options, plan = verify.verify_options(corpus, claims, text, papers_per_claim, layout, max_claims)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    checked = check_input(
        f"verify {len(options.verify_claims)} claims from {claims.name}", options, home, CLI_LABELS
    )
    err.print(plan.line(), markup=False, soft_wrap=True, highlight=False)
    outcome = create_and_run(
        checked,
        home,
        then="; once it completed, `lyra export {task} --format jsonl` "
        "gives each claim's verdict and evidence",
    )
    if not outcome.success:
        raise typer.Exit(1)
    write_verify_results(outcome.task_id, out, home)


def write_verify_results(task_id: str, out: Path | None, home: Path | None) -> None:
    from lyra_tools.cli import verify

    path = out or HomeLayout(root=home_root(home)).verify_results(task_id)
    try:
        verdicts = verify.write_results(open_store(home), task_id, path)
    except OSError as exc:
        raise fail(
            f"--out {path}: the results cannot be written: {exc.strerror or exc} (the task completed: "
            f"`lyra export {task_id} --format jsonl` gives them)"
        ) from None
    console.print(
        untrusted(
            f"Results: {path}  (" + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items(), key=str)) + ")"
        ),
        soft_wrap=True,
        highlight=False,
    )


def read_claims_file(path: Path) -> list[str]:
    """The claims of a ``--claims-file``, read as ``lyra verify`` reads its claims file (one claim a
    line or JSON Lines, ``#`` comments): a file with no claim, or a bad line, is its error line."""
    from lyra_core.claim_inputs import ClaimsFileError, parse_claims

    try:
        claims = parse_claims(read_text_input(path, "--claims-file", "the claims file"))
    except ClaimsFileError as exc:
        raise fail(f"--claims-file {path}: {exc}") from None
    if scoped := next((c for c in claims if c.papers is not None), None):
        raise fail(
            f"--claims-file {path}: claim {scoped.id} names papers; `lyra verify` judges a claim "
            "against the papers it names, `lyra run` searches the literature for every claim"
        )
    return [c.claim for c in claims]


def check_input(
    query: str, options: dict | TaskOptions, home: Path | None, labels: dict[str, str]
) -> CheckedInput:
    """The shared input check (lyra_resources.task_input), its problem as one line and exit code 1."""
    from lyra_resources.task_input import TaskInputError, check_task_input

    try:
        checked = check_task_input(
            query, options, writable_home(home), labels=labels, settings=command_settings
        )
    except TaskInputError as exc:
        raise fail(str(exc)) from None
    return checked


def print_notes(checked: CheckedInput) -> None:
    """The check's notes, once nothing else can refuse the command (a refusal stays one line)."""
    for note in checked.notes:
        err.print(f"[yellow]note:[/] {untrusted(note)}", soft_wrap=True, highlight=False)
