"""How the suite is shared out among pytest-xdist's workers (tests/fixtures/scheduling.py): each file
is one unit, and every file whose tests start servers or `lyra worker` processes is in the one unit
that runs one test at a time."""

from __future__ import annotations

import re

from fixtures.paths import REPO
from fixtures.scheduling import ONE_AT_A_TIME, ONE_AT_A_TIME_FILES, work_unit

INTEGRATION = REPO / "tests" / "integration"
# What a test file names when its tests start lyra workers or Dagster's daemon beside themselves.
STARTS_WORKERS = re.compile(r"\blyra_workers\b|\bcluster_daemon\b|QueuedRunCoordinatorDaemon")


def test_each_file_is_a_unit_and_the_server_files_share_one():
    assert (
        work_unit("tests/integration/test_cli.py::test_run_then_manage_the_task")
        == "tests/integration/test_cli.py"
    )
    assert work_unit("tests/unit/test_corpus.py::test_x[a::b]") == "tests/unit/test_corpus.py"
    for name in ONE_AT_A_TIME_FILES:
        assert work_unit(f"tests/integration/{name}::test_any") == ONE_AT_A_TIME


def test_every_file_that_starts_workers_runs_one_test_at_a_time():
    assert all((INTEGRATION / name).is_file() for name in ONE_AT_A_TIME_FILES)  # none renamed away
    starting = {
        path.name for path in INTEGRATION.glob("test_*.py") if STARTS_WORKERS.search(path.read_text())
    }
    assert starting and starting <= ONE_AT_A_TIME_FILES, starting - ONE_AT_A_TIME_FILES
