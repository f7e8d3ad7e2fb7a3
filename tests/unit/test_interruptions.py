"""A Ctrl-C that lands while a step reads the store stops the run as any Ctrl-C does: DuckDB's
"Query interrupted", under Dagster's "Error occurred while loading input", is an interruption.
One that lands after the run is recorded and before Dagster's handler is in place is passed on to it."""

import os
import signal
import threading

import pytest
from dagster_shared.error import SerializableErrorInfo

from lyra_assets.execution.interrupts import deferred_interrupts, is_interruption


def error(cls_name: str, message: str, cause: SerializableErrorInfo | None = None) -> SerializableErrorInfo:
    return SerializableErrorInfo(message=message, stack=[], cls_name=cls_name, cause=cause)


def test_an_interrupted_query_under_a_failed_input_load_is_an_interruption():
    query = error("RuntimeError", "RuntimeError: Query interrupted\\n")
    load = error(
        "DagsterExecutionLoadInputError",
        'Error occurred while loading input "pages" of step "fragment_ranking"::',
        cause=query,
    )
    assert is_interruption(load)
    assert is_interruption(error("DagsterExecutionInterruptedError", "interrupted"))


def test_other_failures_are_not_interruptions():
    assert not is_interruption(error("RuntimeError", "RuntimeError: the model file is missing"))
    assert not is_interruption(
        error(
            "DagsterExecutionLoadInputError",
            "Error occurred while loading input",
            cause=error("OSError", "disk"),
        )
    )
    assert not is_interruption(None)


@pytest.fixture
def python_sigint():
    """SIGINT as a Python process has it (a test worker may have inherited it ignored); put back after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_an_interrupt_before_dagster_takes_over_reaches_dagster_s_handler_once(python_sigint):
    reached: list[int] = []
    ended = threading.Event()
    before = signal.getsignal(signal.SIGINT)
    with deferred_interrupts() as deferred:
        forwarder = deferred.forward_until(ended)
        os.kill(os.getpid(), signal.SIGINT)  # the run is recorded; no KeyboardInterrupt here
        assert deferred.received.wait(5)
        signal.signal(signal.SIGINT, lambda signo, _frame: reached.append(signo))  # Dagster's, in place
        forwarder.join(timeout=5)
        ended.set()
        signal.signal(signal.SIGINT, deferred.handler)  # Dagster puts the deferring handler back
    assert reached == [signal.SIGINT] and not forwarder.is_alive()
    assert signal.getsignal(signal.SIGINT) is before


def test_nothing_is_forwarded_without_an_interrupt_or_after_the_run(python_sigint):
    ended = threading.Event()
    with deferred_interrupts() as deferred:
        forwarder = deferred.forward_until(ended)
        reached: list[int] = []
        signal.signal(signal.SIGINT, lambda signo, _frame: reached.append(signo))
        ended.wait(0.3)
        ended.set()
        forwarder.join(timeout=5)
        signal.signal(signal.SIGINT, deferred.handler)
    assert reached == [] and not forwarder.is_alive()


def test_a_process_that_ignores_sigint_keeps_ignoring_it():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # started in the background of a shell
    try:
        with deferred_interrupts() as deferred:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN and not deferred.active
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
