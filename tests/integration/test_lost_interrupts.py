"""SIGTERM or SIGINT always stops a run, even when it lands inside a weakref callback or a ``__del__``
(SQLAlchemy's ``_collection_gced`` once swallowed one there): Python ignores an exception raised
there, so Dagster's interruption would be lost and the run go on to success.

Each test runs a real Dagster job in a fresh process, under the guard ``run_task`` (or ``run_job``)
puts around it; its first step sends the process the signal from inside a weakref callback or a
``__del__``, so the interrupt is raised there every time, then works on for seconds. The run must
fail as interrupted and its second step never run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import json, os, signal, sys, threading, time, weakref

    from dagster import DagsterInstance, job, op

    from lyra_assets.execution.interrupts import (
        deferred_interrupts, interrupts_never_swallowed, is_interruption,
    )

    where, signo, guard, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as `lyra` has it started from a shell


    def send_and_go_on():
        os.kill(os.getpid(), signo)
        for _ in range(10_000):  # the handler runs here, inside the callback, and raises
            pass


    class Collected:
        def __del__(self):
            send_and_go_on()


    @op
    def interrupted_in_a_callback():
        held = Collected()
        if where == "weakref":  # as SQLAlchemy's _collection_gced
            ref = weakref.ref(held, lambda _ref: send_and_go_on())
        del held  # the callback, or __del__, runs now
        deadline = time.monotonic() + 8  # a step's work, where the run should have stopped
        while time.monotonic() < deadline:
            time.sleep(0.01)
        return 1


    @op
    def next_step(_value):
        open(marker, "w").write("ran")


    @job
    def two_steps():
        next_step(interrupted_in_a_callback())


    def execute():
        return two_steps.execute_in_process(instance=DagsterInstance.ephemeral(), raise_on_error=False)


    started = time.monotonic()
    if guard == "run_task":  # as run_control.run_task: interrupts deferred, then passed on to Dagster
        with deferred_interrupts() as interrupt:
            ended = threading.Event()
            forwarder = interrupt.forward_until(ended)
            try:
                result = execute()
            finally:
                ended.set()
                forwarder.join(timeout=5)
    else:  # as run_control.run_job
        with interrupts_never_swallowed():
            result = execute()
    failures = result.get_step_failure_events()
    print(json.dumps({
        "success": result.success,
        "seconds": time.monotonic() - started,
        "interrupted": [is_interruption(f.event_specific_data.error) for f in failures],
    }))
    """
)


@pytest.mark.parametrize(
    ("where", "signo", "guard"),
    [
        ("weakref", signal.SIGTERM, "run_task"),
        ("__del__", signal.SIGINT, "run_task"),
        ("weakref", signal.SIGINT, "run_job"),
    ],
)
def test_an_interrupt_raised_inside_a_callback_still_stops_the_run(tmp_path, where, signo, guard):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    marker = tmp_path / "next_step_ran"
    done = subprocess.run(
        [sys.executable, str(script), where, str(int(signo)), guard, str(marker)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert not outcome["success"], "the interrupt was lost: the run went on to success"
    assert outcome["interrupted"] == [True]  # the step failed as interrupted, not as an error
    assert not marker.exists()  # no step after it ran
    assert outcome["seconds"] < 8  # stopped at once, not after the step's work
    assert "Exception ignored" not in done.stderr  # the swallowed interrupt is not left as noise
