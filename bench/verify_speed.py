"""`lyra verify` on a batch of SciFact train claims against the 5,183-abstract corpus: wall time
of the whole command (task, Dagster run, results file) and of each asset, on a home whose
embedding cache already holds the corpus's fragments (the corpus is embedded once, e.g. by
``bench.verification`` or a first run; ``--cold`` measures that first run instead).

``--judges rules learned`` runs the same claims once per judge (``evidence.judge``) on the same home,
one after the other, and prints each run's time beside the others' with its verdicts' macro-F1
against the claims' SciFact labels (SciFact train claims: the verifier was trained on them, and the
learned judge's combiner on some, so the F1 is a check that nothing broke, not a held-out figure).
The first run of a cold home also embeds the corpus; compare ``nli_edges``, the judge's own step.

    .venv/bin/python -m bench.verify_speed [--claims 300] [--home DIR] [--cold] [--judges rules learned]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from bench.answers import settings_file
from bench.common import read_jsonl, require_data, scifact_claim_label
from bench.verification import VERDICT_TO_LABEL, macro_f1
from lyra_assets.execution.runs import open_instance, task_runs
from lyra_resources.home import resolve_home
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app


def step_seconds(home: Path, task_id: str) -> dict[str, float]:
    """Seconds from each step's start to its success in the task's latest Dagster run."""
    from dagster import DagsterEventType

    with open_instance(home) as instance:
        run = task_runs(instance, task_id, limit=1)[0].dagster_run
        started: dict[str, float] = {}
        out: dict[str, float] = {}
        for entry in instance.all_logs(run.run_id):
            event = entry.dagster_event
            if event is None or event.step_key is None:
                continue
            if event.event_type == DagsterEventType.STEP_START:
                started[event.step_key] = entry.timestamp
            elif event.event_type == DagsterEventType.STEP_SUCCESS and event.step_key in started:
                out[event.step_key] = entry.timestamp - started[event.step_key]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--claims", type=int, default=300, help="seeded sample of SciFact train claims")
    parser.add_argument("--home", default=None)
    parser.add_argument(
        "--cold",
        action="store_true",
        help="a fresh home under --home (or a temporary folder): the corpus is embedded in this run",
    )
    parser.add_argument(
        "--judges",
        nargs="+",
        choices=("rules", "learned"),
        help="run once per judge (evidence.judge), in this order, on the same home",
    )
    args = parser.parse_args()
    data = require_data("scifact")
    home = resolve_home(args.home)
    if args.cold:
        home = Path(tempfile.mkdtemp(prefix="verify_cold_", dir=home if args.home else None))
        print(f"cold run in {home} (no embedding cache)")
    unique = {c["claim"]: c for c in read_jsonl(data / "claims_train.jsonl")}  # a few claims repeat
    claims = random.Random(7).sample(sorted(unique.values(), key=lambda c: c["id"]), args.claims)
    claims_file = home / "bench" / f"verify_{args.claims}.jsonl"
    claims_file.parent.mkdir(parents=True, exist_ok=True)
    claims_file.write_text("".join(json.dumps({"id": c["id"], "claim": c["claim"]}) + "\n" for c in claims))
    gold = {str(c["id"]): scifact_claim_label(c) for c in claims}
    for judge in args.judges or [""]:
        verify_once(home, claims_file, args.claims, judge, gold)


def verify_once(home: Path, claims_file: Path, count: int, judge: str, gold: dict) -> None:
    """One `lyra verify` of the claims file, with ``evidence.judge`` set to ``judge`` ("" as shipped)."""
    data = require_data("scifact")
    out = home / "bench" / f"verify_{count}_{judge or 'shipped'}_results.jsonl"
    previous = os.environ.get("LYRA_SETTINGS")
    if judge:
        path = settings_file(home / "bench", f"verify_{judge}", None, gates=True, judge=judge)
        os.environ["LYRA_SETTINGS"] = str(path)
    started = time.perf_counter()
    try:
        result = CliRunner().invoke(
            app,
            [
                "verify",
                "--corpus",
                str(data / "corpus.jsonl"),
                "--claims",
                str(claims_file),
                "--out",
                str(out),
                "--home",
                str(home),
            ],
        )
    finally:
        if previous is None:
            os.environ.pop("LYRA_SETTINGS", None)
        else:
            os.environ["LYRA_SETTINGS"] = previous
    seconds = time.perf_counter() - started
    if result.exit_code != 0:
        raise SystemExit(f"lyra verify failed ({result.exit_code}):\n{result.output[-2000:]}")
    task = LyraStore.at(home).list_tasks()[-1]
    steps = step_seconds(home, task.id)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    pairs = LyraStore.at(home).fetch_df("SELECT count(*) AS n FROM nli_edges WHERE task_id = ?", [task.id])[
        "n"
    ][0]
    f1, per = macro_f1(
        [gold[str(r["id"])] for r in lines], [VERDICT_TO_LABEL.get(r["verdict"] or "", "NEI") for r in lines]
    )
    recalls = " / ".join(f"{per[k][1]:.2f}" for k in ("SUPPORT", "CONTRADICT", "NEI"))
    print(
        f"lyra verify, judge {judge or 'as shipped'}: {len(lines)} claims in {seconds:.0f} s "
        f"({seconds / len(lines):.2f} s per claim) on {pairs} NLI pairs; the goal: 150 s for 300 claims, "
        f"cold; verdict macro-F1 {f1:.3f} (recall SUPPORT / CONTRADICT / NEI {recalls})"
    )
    for asset, secs in steps.items():
        print(f"  {asset:<22} {secs:6.1f} s")


if __name__ == "__main__":
    main()
