"""No ``lyra`` command writes over the home's own data: an output path (``export --out``, ``report
--out``, ``verify --out``, ``search --run``, a trainer's ``--out``) inside the store, the Parquet
exports, the Dagster instance, the caches or the home's models is refused in one line, however it
is spelled (relative, through ``..`` or a symlink), and an empty home is refused rather than read
as the current folder. Each call is a real ``lyra`` process without a terminal
(``bench.fuzz_cli.call``: one error line, no traceback, nothing changed)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from bench import fuzz_cli
from bench.fuzz_cli import Case


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A folder holding ``home`` (one completed task) and ``in`` (the fuzz run's input files)."""
    folder = tmp_path_factory.mktemp("home-data")
    fuzz_cli.build_home(folder)
    fuzz_cli.write_inputs(folder)
    (folder / "through").symlink_to(folder / "home")  # a symlink into the home
    return folder


def file_bytes(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` and a digest of its bytes (the databases too; SQLite's own
    journals, which come and go with its readers, left out)."""
    return {
        str(p.relative_to(folder)): hashlib.md5(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))
    }


def refused(scratch: Path, args: list[str], env: dict[str, str] | None = None) -> str:
    """The one error line of ``lyra ARGS`` (run in ``scratch``), which changes no file."""
    before = file_bytes(scratch)
    outcome = fuzz_cli.call(
        Case(" ".join(args), args, env=env or {}), scratch / "home", scratch / "in", scratch, timeout_s=120
    )
    assert outcome.code not in (0, None) and not outcome.problems, (outcome.problems, outcome.stderr)
    assert file_bytes(scratch) == before
    return outcome.stderr.strip()


TASK_PARQUET = f"parquet/claims/task_id={fuzz_cli.TASK}/data.parquet"


@pytest.mark.parametrize(
    ("target", "part"),
    [
        ("{home}/lyra.duckdb", "the store"),
        ("{home}/lyra.duckdb.wal", "the store"),
        ("{home}/" + TASK_PARQUET, "the Parquet exports"),
        ("{home}/dagster/history/runs.db", "the Dagster instance"),
        ("{home}/cache/corpus/new.csv", "the caches"),
        ("{home}/models/new.csv", "the home's models"),
        ("home/lyra.duckdb", "the store"),  # relative to the folder the command runs in
        ("{dir}/../home/./parquet/../lyra.duckdb", "the store"),
        ("through/" + TASK_PARQUET, "the Parquet exports"),  # a symlink to the home
    ],
)
def test_export_out_inside_the_homes_data_is_refused(scratch, target, part):
    line = refused(scratch, ["export", "{task}", "--format", "csv", "--out", target, "--home", "{home}"])
    assert "--out" in line and f"inside the home's own data ({part}" in line, line
    assert (
        fuzz_cli.call(
            Case("list", ["task", "list", "--home", "{home}"], expect="any"),
            scratch / "home",
            scratch / "in",
            scratch,
            timeout_s=120,
        ).code
        == 0
    )  # the home still opens


@pytest.mark.parametrize(
    "args",
    [
        ["report", "{task}", "--out", "{home}/dagster/report.md", "--home", "{home}"],
        ["report", "{task}", "--format", "html", "--out", "{home}/lyra.duckdb", "--home", "{home}"],
        [
            "verify",
            "--corpus",
            "{dir}/corpus.jsonl",
            "--claims",
            "{dir}/good_claims.txt",
            "--out",
            "{home}/" + TASK_PARQUET,
            "--home",
            "{home}",
        ],
        [
            "search",
            "--corpus",
            "{dir}/corpus.jsonl",
            "--queries",
            "{dir}/queries.jsonl",
            "--run",
            "{home}/dagster/history/runs.db",
            "--home",
            "{home}",
        ],
        ["models", "train-claim-roles", "--data", "{dir}", "--out", "{home}/cache/roles", "--home", "{home}"],
        ["models", "train-direction", "--data", "{dir}", "--out", "{home}/parquet", "--home", "{home}"],
    ],
)
def test_every_output_path_inside_the_homes_data_is_refused(scratch, args):
    line = refused(scratch, args)
    assert "inside the home's own data" in line, line


def test_an_output_beside_the_homes_data_is_written(scratch):
    out = scratch / "home" / "claims.csv"  # the home's folder itself holds no data of its own there
    outcome = fuzz_cli.call(
        Case(
            "export",
            ["export", "{task}", "--format", "csv", "--out", str(out), "--home", "{home}"],
            expect="any",
        ),
        scratch / "home",
        scratch / "in",
        scratch,
        timeout_s=120,
    )
    try:
        assert outcome.code == 0, outcome.stderr
        assert fuzz_cli.CLAIM in out.read_text()
    finally:
        out.unlink(missing_ok=True)


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["task", "list", "--home", ""], {}, "'--home': is empty"),
        (
            ["run", "vitamin D and fractures", "--corpus", "{dir}/corpus.jsonl", "--home", ""],
            {},
            "'--home': is empty",
        ),
        (["task", "list"], {"LYRA_HOME": ""}, "$LYRA_HOME is set but empty"),
        (
            ["run", "vitamin D and fractures", "--corpus", "{dir}/corpus.jsonl"],
            {"LYRA_HOME": ""},
            "$LYRA_HOME is set but empty",
        ),
    ],
)
def test_an_empty_home_is_refused_and_nothing_is_made_in_the_current_folder(scratch, args, env, message):
    names = sorted(os.listdir(scratch))
    line = refused(scratch, args, env)
    assert message in line, line
    assert sorted(os.listdir(scratch)) == names  # no lyra.duckdb, dagster/ or .lyra/ where the command ran
