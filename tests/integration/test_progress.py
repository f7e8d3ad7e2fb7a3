"""The progress channel (long loops → display) and what `lyra run` prints while a task runs."""

import io
import os
import re
import subprocess
import sys
import tempfile

import pytest
from dagster import (
    AssetExecutionContext,
    AssetSpec,
    DagsterInstance,
    MaterializeResult,
    asset,
    materialize,
    multi_asset,
)
from rich.console import Console

from fixtures.paths import REPO
from lyra_assets.definitions import TASK_RUN_ASSETS, build_resources
from lyra_assets.execution import run_progress
from lyra_assets.execution.run_progress import AssetProgress
from lyra_assets.execution.runs import TASK_TAG, active_runs, open_instance
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.progress import StageProgress, reporting_to, track
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import progress_view
from lyra_tools.explore.status import dagster_state


def test_without_a_sink_tracking_only_counts():
    with track("NLI", 5, "pairs") as tracker:
        tracker.advance(2)
        tracker.advance(9)  # never past the total
    assert tracker.done == 5 and tracker.asset is None


def test_a_sink_sees_start_every_advance_and_the_end():
    seen: list[StageProgress] = []
    with reporting_to(seen.append), track("embedding", 70, "texts") as tracker:
        tracker.advance(32)
        tracker.advance(32)
        tracker.advance(6)
    assert [u.done for u in seen] == [0, 32, 64, 70, 70]
    assert [u.finished for u in seen] == [False, False, False, False, True]
    assert {(u.label, u.unit, u.total, u.id) for u in seen} == {("embedding", "texts", 70, tracker.id)}
    assert re.fullmatch(r"embedding 70 texts in \d+\.\ds( \(\d+ texts/s\))?", seen[-1].summary())
    with track("NLI", 3, "pairs") as after:  # the sink is gone once its block ends
        after.advance(3)
    assert len(seen) == 5


def test_a_failing_loop_still_ends_its_bar_and_a_broken_sink_breaks_nothing():
    seen: list[StageProgress] = []
    with reporting_to(seen.append), pytest.raises(ValueError), track("NLI", 10, "pairs") as tracker:
        tracker.advance(4)
        raise ValueError("model crashed")
    assert seen[-1].finished and seen[-1].done == 4
    assert "4 of 10 pairs" in seen[-1].summary()

    def broken(update):
        raise RuntimeError("display gone")

    with reporting_to(broken), track("NLI", 2, "pairs") as tracker:
        tracker.advance(2)
    assert tracker.done == 2


def test_updates_name_the_asset_dagster_is_materializing():
    seen: list[StageProgress] = []

    @asset
    def judged_pairs(context: AssetExecutionContext) -> None:
        with track("NLI", 2, "pairs") as tracker:
            tracker.advance(2)

    with reporting_to(seen.append):
        assert materialize([judged_pairs]).success
    assert seen and {u.asset for u in seen} == {"judged_pairs"}


@multi_asset(specs=[AssetSpec("found_pages"), AssetSpec("found_papers")])
def found_together(context: AssetExecutionContext):
    with track("embedding", 3, "texts") as tracker:
        tracker.advance(3)
    return (
        MaterializeResult(asset_key="found_pages", metadata={"dagster/row_count": 4}),
        MaterializeResult(asset_key="found_papers", metadata={"dagster/row_count": 2}),
    )


def test_a_multi_asset_step_shows_each_of_its_assets(monkeypatch):
    """One step writes two assets: both lines follow the step, each with its own row count, and a
    long loop inside the step is noted on the first."""
    seen: list[StageProgress] = []
    with DagsterInstance.ephemeral() as instance:
        with reporting_to(seen.append):
            result = materialize([found_together], instance=instance)
        assert result.success
        monkeypatch.setattr(
            run_progress, "step_assets", lambda: {"found_together": ["found_pages", "found_papers"]}
        )
        progress = {name: AssetProgress(asset=name) for name in ("found_pages", "found_papers")}
        watcher = run_progress.ProgressWatcher(instance, result.run_id, progress, None)
        watcher.poll()
    assert {u.asset for u in seen} == {"found_pages"}
    assert [(p.state, p.rows) for p in progress.values()] == [("done", 4), ("done", 2)]
    assert all(p.seconds is not None for p in progress.values())


def _item(name: str, state: str, rows: int | None = None, error: str | None = None) -> AssetProgress:
    return AssetProgress(
        asset=name, state=state, rows=rows, seconds=1.25 if state != "pending" else None, error=error
    )


def test_task_status_gives_each_asset_of_a_multi_asset_step_the_step_state(lyra_home, small_corpus):
    store = LyraStore.at(lyra_home)
    task = store.create_task("vitamin D fracture", {"corpus": [str(small_corpus)]})
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        assert materialize(
            TASK_RUN_ASSETS,
            partition_key=task.id,
            resources=build_resources(lyra_home),
            instance=instance,
            selection=["papers", "claim_scope"],
            tags={TASK_TAG: task.id},
        ).success
        _, assets = dagster_state(store, task.id, instance)
    states = {a.asset: a.state for a in assets}
    assert states["papers"] == states["claim_scope"] == "done"
    assert states["pages"] == "not_run"


def test_piped_display_writes_each_asset_once_as_it_finishes():
    out = io.StringIO()
    lines = progress_view.LineDisplay(Console(file=out, width=200))
    lines.stage(
        StageProgress(
            id=1, label="NLI", unit="pairs", total=8, done=8, elapsed_s=2.0, asset="nli_edges", finished=True
        )
    )
    lines.assets({"claims": _item("claims", "done", 3), "nli_edges": _item("nli_edges", "running")})
    assert out.getvalue().splitlines() == ["✓ claims                3 rows  1.2s"]
    lines.assets(
        {
            "claims": _item("claims", "done", 3),
            "nli_edges": _item("nli_edges", "done", 8),
            "claim_scores": _item("claim_scores", "failed", error="no claims\nmore detail"),
        }
    )
    assert out.getvalue().splitlines()[1:] == [
        "✓ nli_edges             8 rows  1.2s  NLI 8 pairs in 2.0s (4 pairs/s)",
        "✗ claim_scores          1.2s  failed: no claims",
    ]


def test_display_output_survives_dagster_pointing_stdout_at_a_file():
    """Dagster's compute-log capture dup2()s a file over the process's stdout while a run
    executes; the display keeps writing to where stdout was when the run began."""
    read_fd, write_fd = os.pipe()
    with os.fdopen(write_fd, "w") as stdout, tempfile.TemporaryFile() as capture:
        console = Console(file=stdout, width=100)
        saved = os.dup(write_fd)
        with progress_view._display_console(console) as display:
            os.dup2(capture.fileno(), write_fd)  # what dagster's redirect_stream does
            display.print("✓ papers  4 rows", markup=False)
            os.dup2(saved, write_fd)
        os.close(saved)
        capture.seek(0)
        assert capture.read() == b""
    with os.fdopen(read_fd) as pipe:
        assert pipe.read() == "✓ papers  4 rows\n"


@pytest.mark.slow
def test_piped_run_prints_asset_lines_while_running_and_no_library_bars(tmp_path, small_corpus):
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("HF_HUB_DISABLE_PROGRESS_BARS", None)  # Lyra switches the libraries' bars off itself
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lyra_tools.cli",
            "run",
            "Does vitamin D supplementation reduce fracture risk?",
            "--corpus",
            str(small_corpus),
            "--home",
            str(tmp_path / "h"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=tmp_path,
    )
    lines, run_active_at_first_line = [], None
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("✓ ") and run_active_at_first_line is None:
            task_id = re.match(r"task_[0-9a-f]{8}", lines[0]).group(0)
            with open_instance(tmp_path / "h") as instance:  # the run has not ended yet
                run_active_at_first_line = bool(active_runs(instance, task_id)) and proc.poll() is None
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, stderr
    asset_lines = [line for line in lines if re.match(r"[✓✗] \w+", line)]
    assert len(asset_lines) == 19 and run_active_at_first_line, lines
    assert len({line.split()[1] for line in asset_lines}) == 19  # each asset once (task_report included)
    nli = next(line for line in asset_lines if line.split()[1] == "nli_edges")
    assert re.search(r"(NLI|direction) \d+ pairs in \d+\.\ds", nli), nli  # the judge that read the pairs
    everything = "\n".join(lines) + stderr
    for noise in ("Loading weights", "Batches", "it/s]", "LOAD REPORT"):
        assert noise not in everything, everything
