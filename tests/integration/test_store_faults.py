"""Store faults are named as what they are, not as a bug in Lyra: a database file that is empty, cut
short or fails its checksum, a home on a read-only file system and a full disk each give one line
naming the fault, the file and what to do, from a real ``lyra`` process without a terminal. A
read-only home still serves the commands that read it. The read-only and full file systems are
real mounts (a read-only bind mount, a small tmpfs): the tests need root, and are skipped without it."""

from __future__ import annotations

import errno
import json
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


def assert_every_read_answers(scratch, tmp_path) -> None:
    """The commands that only read the home answer as usual: list, status, claims, evidence, export."""
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
    assert_every_read_answers(scratch, tmp_path)
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


# -- odd homes: immutable (EPERM), a store that is no file, a symlink loop, a home that does not exist ---


@pytest.fixture
def frozen() -> Iterator[list[Path]]:
    """The paths made immutable by the test, made mutable again after it (else it cannot be removed)."""
    paths: list[Path] = []
    yield paths
    for path in reversed(paths):
        fuzz_cli.chattr("-i", path)


def make_immutable(frozen: list[Path], path: Path) -> None:
    """``chattr +i path``: writes to it (or, for a folder, new files in it) fail with EPERM, root's too."""
    if not fuzz_cli.chattr("+i", path):
        pytest.skip(
            "cannot make a file immutable here (chattr +i needs root and a file system that keeps it)"
        )
    frozen.append(path)


@pytest.mark.parametrize("what", ["store", "home"])
def test_an_immutable_store_or_home_serves_reads_and_refuses_a_write_at_once(built, tmp_path, frozen, what):
    scratch = copy_of(built, tmp_path)
    home = scratch / "home"
    (scratch / "in" / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in fuzz_cli.CORPUS))
    make_immutable(frozen, home / "lyra.duckdb" if what == "store" else home)
    with pytest.raises(PermissionError) as refused:  # EPERM, not EACCES: root may not write it either
        (home / "lyra.duckdb").open("ab").close() if what == "store" else (home / "new").write_text("")
    assert refused.value.errno == errno.EPERM
    assert_every_read_answers(scratch, tmp_path)
    for args in (
        ["feedback", "apply", TASK, "add_note", NOTE],
        ["task", "run", TASK],
        ["run", "Does vitamin D reduce fracture risk?", "--corpus", str(scratch / "in" / "corpus.jsonl")],
    ):
        outcome = lyra(scratch, *args, "--home", "{home}")
        assert outcome.code == 1 and not outcome.problems, (args, outcome.problems, outcome.stderr)
        assert outcome.seconds < 30, outcome.seconds  # said at once, not after the 120 s lock wait
        line = outcome.stderr.strip()
        assert f"the home {home} cannot be written (" in line and "Operation not permitted" in line, line
        assert "commands that only read it" in line and "another process" not in line, line


def plain_lyra(cwd: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, list[str]]:
    """``lyra ARGS`` as a real process in ``cwd`` (a home no snapshot can open): exit code, stderr lines."""
    base = {k: v for k, v in os.environ.items() if k not in ("LYRA_HOME", "LYRA_DEBUG")}
    base["PYTHONPATH"] = os.pathsep.join([str(REPO), base.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", *args],
        cwd=cwd,
        env=base | (env or {}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result.returncode, result.stderr.strip().splitlines()


@pytest.mark.parametrize("kind", ["folder", "pipe"])
def test_a_store_that_is_no_file_is_named_in_one_line(tmp_path, kind):
    home = tmp_path / "home"
    home.mkdir()
    if kind == "folder":
        (home / "lyra.duckdb").mkdir()
    else:
        os.mkfifo(home / "lyra.duckdb")  # DuckDB would wait on it for ever
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in fuzz_cli.CORPUS))
    said = "is a folder" if kind == "folder" else "is not a regular file (a pipe or a device)"
    for args in (
        ["task", "list"],
        ["claims", TASK],
        ["run", "Does vitamin D reduce fracture risk?", "--corpus", str(corpus)],
    ):
        code, lines = plain_lyra(tmp_path, *args, "--home", str(home))
        assert code == 1 and len(lines) == 1, (args, lines)
        assert lines[0].startswith(
            f"error: the store {home / 'lyra.duckdb'} {said}, not a DuckDB database file"
        ), lines
        assert "unexpected" not in lines[0], lines
    assert sorted(p.name for p in home.iterdir()) == ["lyra.duckdb"]  # nothing written beside it


def test_a_home_that_is_a_loop_of_symbolic_links_is_one_line(tmp_path):
    (tmp_path / "loop").symlink_to(tmp_path / "back")
    (tmp_path / "back").symlink_to(tmp_path / "loop")
    for args, env in (
        (["task", "list", "--home", "loop"], None),
        (["task", "list", "--home", "loop/below"], None),
        (["claims", TASK], {"LYRA_HOME": str(tmp_path / "loop")}),
        (["run", "Does vitamin D reduce fracture risk?", "--home", "loop"], None),
    ):
        code, lines = plain_lyra(tmp_path, *args, env=env)
        assert code == 1 and len(lines) == 1, (args, lines)
        assert "cannot be used: a loop of symbolic links" in lines[0] and "unexpected" not in lines[0], lines


def test_a_command_that_reads_makes_no_home(tmp_path):
    missing = tmp_path / "not" / "yet" / "home"
    for args in (
        ["task", "list"],
        ["task", "status", TASK],
        ["claims", TASK],
        ["export", TASK, "--format", "csv"],
        ["feedback", "apply", TASK, "add_note", NOTE],
    ):
        code, lines = plain_lyra(tmp_path, *args, "--home", str(missing))
        assert code == 1 and lines == [
            f"error: no Lyra home at {missing} (`lyra run` makes one; check --home or $LYRA_HOME)"
        ], (args, lines)
        assert not (tmp_path / "not").exists(), args
