"""Store faults are named as what they are, not as a bug in Lyra: a database file that is empty, cut
short or fails its checksum, a home on a read-only file system and a full disk each give one line
naming the fault, the file and what to do, from a real ``lyra`` process without a terminal. A
read-only home still serves the commands that read it. The read-only and full file systems are
real mounts (a read-only bind mount, a small tmpfs): the tests need root, and are skipped without it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import fuzz_cli
from bench.fuzz_cli import Case
from fixtures.paths import REPO
from lyra_core.claims import claim_id_for

TASK = fuzz_cli.TASK
NOTE = '{"target_id": "%s", "note": "checked"}' % TASK


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A folder holding ``home``, a home with one completed task."""
    folder = tmp_path_factory.mktemp("faults")
    fuzz_cli.build_home(folder)
    return folder


def copy_of(built: Path, to: Path) -> Path:
    """``to`` holding a copy of the built home (and an empty ``in``: no command here reads an input)."""
    shutil.copytree(built / "home", to / "home", symlinks=True)
    (to / "in").mkdir()
    return to


def lyra(scratch: Path, *args: str):
    """``lyra ARGS`` as a real process in ``scratch`` (bench.fuzz_cli.call: a refusal is one line and
    changes nothing in the store or the files beside it): its outcome."""
    return fuzz_cli.call(
        Case(" ".join(args), list(args), expect="any"),
        scratch / "home",
        scratch / "in",
        scratch,
        timeout_s=180,
    )


def damaged_lyra(scratch: Path, *args: str) -> tuple[int, str]:
    """``lyra ARGS`` as a real process in ``scratch`` whose database no one can open (so the
    snapshot ``lyra`` takes cannot be taken): exit code and stderr; the file's bytes are unchanged."""
    database = scratch / "home" / "lyra.duckdb"
    before = database.read_bytes()
    env = {k: v for k, v in os.environ.items() if k not in ("LYRA_HOME", "LYRA_DEBUG")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", *args],
        cwd=scratch,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert database.read_bytes() == before
    return result.returncode, result.stderr


def mount(*args: str) -> None:
    result = subprocess.run(["mount", *args], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount here: {result.stderr.strip()}")


@pytest.fixture
def mounted(tmp_path) -> Iterator[list[Path]]:
    """The mount points to take down after the test, innermost last."""
    points: list[Path] = []
    yield points
    for point in reversed(points):
        subprocess.run(["umount", str(point)], check=False)


def damage(database: Path, how: str) -> None:
    size = database.stat().st_size
    if how == "empty":
        database.write_bytes(b"")
    elif how == "truncated":
        os.truncate(database, size // 2)
    else:  # one bit flipped in every block past the headers: each fails its checksum
        with database.open("r+b") as fh:
            for offset in range(3 * 4096 + 8, size, 256 * 1024):
                fh.seek(offset)
                byte = fh.read(1)[0]
                fh.seek(offset)
                fh.write(bytes([byte ^ 0xFF]))


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("empty", "is not a DuckDB database"),
        ("truncated", "is cut short"),
        ("checksum", "is corrupt (a block fails its checksum)"),
    ],
)
def test_a_damaged_database_file_is_named_with_what_to_do(built, tmp_path, how, said):
    scratch = copy_of(built, tmp_path)
    database = scratch / "home" / "lyra.duckdb"
    damage(database, how)
    for args in (["task", "list"], ["claims", TASK], ["export", TASK, "--format", "csv"]):
        code, stderr = damaged_lyra(scratch, *args, "--home", str(scratch / "home"))
        lines = stderr.strip().splitlines()
        assert code == 1 and len(lines) == 1 and lines[0].startswith("error: "), stderr  # one line
        line = lines[0]
        assert "a bug in Lyra" not in line and "unexpected" not in line, line
        assert f"the store {database} {said}" in line, line
        assert "restore it from a backup" in line and str(scratch / "home" / "parquet") in line, line


def test_a_read_only_home_serves_reads_and_names_itself_on_a_write(built, tmp_path, mounted):
    scratch = copy_of(built, tmp_path)
    home = scratch / "home"
    mount("--bind", str(home), str(home))
    mounted.append(home)
    mount("-o", "remount,ro,bind", str(home))
    with pytest.raises(OSError):
        (home / "probe").write_text("")
    for args in (
        ["task", "list"],
        ["task", "status", TASK],
        ["claims", TASK],
        ["evidence", claim_id_for(TASK, fuzz_cli.CLAIM)],
        ["export", TASK, "--format", "csv", "--out", str(tmp_path / "claims.csv")],
    ):
        outcome = lyra(scratch, *args, "--home", "{home}")
        assert outcome.code == 0 and not outcome.problems, (args, outcome.problems, outcome.stderr)
    assert fuzz_cli.CLAIM in (tmp_path / "claims.csv").read_text()
    outcome = lyra(scratch, "feedback", "apply", TASK, "add_note", NOTE, "--home", "{home}")
    assert outcome.code == 1 and not outcome.problems, (outcome.problems, outcome.stderr)
    line = outcome.stderr.strip()
    assert f"the home {home} cannot be written (Read-only file system)" in line, line
    assert "commands that only read it" in line, line


def test_a_full_disk_is_named_with_what_to_do(built, tmp_path, mounted):
    disk = tmp_path / "disk"
    disk.mkdir()
    mount("-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk))
    mounted.append(disk)
    scratch = copy_of(built, disk)
    with (disk / "filler").open("wb") as filler, pytest.raises(OSError, match="No space left"):
        while True:  # the rest of the device, taken
            filler.write(b"\0" * 65536)
            filler.flush()
    outcome = lyra(scratch, "feedback", "apply", TASK, "add_note", NOTE, "--home", "{home}")
    # DuckDB leaves its write-ahead log of the failed commit beside the file; the tables are unchanged
    problems = [p for p in outcome.problems if p != "files changed: [('home/lyra.duckdb.wal', 'file')]"]
    assert outcome.code == 1 and not problems, (outcome.problems, outcome.stderr)
    line = outcome.stderr.strip()
    assert line == (
        f"error: no space left on the device holding {scratch / 'home'}; free space there and run "
        "the command again"
    ), line
    (disk / "filler").unlink()  # space freed: the home opens as it was, the note never written
    listed = lyra(scratch, "task", "list", "--home", "{home}")
    assert listed.code == 0 and not listed.problems, (listed.problems, listed.stderr)
