"""Runs interrupted with Ctrl-C (SIGINT) or SIGTERM: how to tell them from failures, a console logger
that leaves their tracebacks out, and interrupts that are never lost.

Dagster turns a SIGINT during an in-process run into ``DagsterExecutionInterruptedError`` inside
the step it reaches, fails the step and the run, and logs both with their stack traces. The user
who pressed Ctrl-C asked for the run to stop: the CLI says so in one line (``lyra_assets.execution.run_control``),
and the run's event log keeps the traceback for the Dagster UI.

Dagster's handler raises its error wherever the step's code is when the signal lands. Where that is a
weakref callback, a ``__del__`` or the garbage collector (SQLAlchemy's ``_collection_gced``), Python
cannot propagate it: it prints "Exception ignored in …" and the step goes on as if nothing came.
``interrupts_never_swallowed`` sees such an interrupt and sends it again, so the run stops.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from dagster import (
    DagsterEventType,
    DagsterExecutionInterruptedError,
    DagsterInstance,
    Field,
    InitLoggerContext,
    colored_console_logger,
    logger,
)

if TYPE_CHECKING:
    from dagster_shared.error import SerializableErrorInfo

INTERRUPTED_ERROR = "DagsterExecutionInterruptedError"
# A SIGINT that lands while a step reads the store interrupts DuckDB's query instead: the step fails
# "while loading input" from DuckDB's "Query interrupted" (raised as RuntimeError or InterruptException)
_INTERRUPTED_QUERY = "Query interrupted"


def is_interruption(error: SerializableErrorInfo | None) -> bool:
    """Whether ``error``, or an error it was raised from, is Dagster's interruption of a step or
    DuckDB's interruption of the query a step was running."""
    while error is not None:
        if error.cls_name == INTERRUPTED_ERROR:
            return True
        if error.cls_name in ("RuntimeError", "InterruptException") and _INTERRUPTED_QUERY in error.message:
            return True
        error = error.cause or error.context
    return False


def run_interrupted(instance: DagsterInstance, run_id: str) -> bool:
    """Whether a step or the run itself failed because the process was interrupted (SIGINT)."""
    for kind in (DagsterEventType.STEP_FAILURE, DagsterEventType.RUN_FAILURE):
        for entry in instance.all_logs(run_id, of_type=kind):
            event = entry.dagster_event
            if event is not None and is_interruption(getattr(event.event_specific_data, "error", None)):
                return True
    return False


class _NotInterruptions(logging.Filter):
    """Drops the log records of a step or run failed by an interruption (their traceback is noise
    to the user who pressed Ctrl-C); every other record passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        event = getattr(record, "dagster_event", None)
        if event is None:
            event = (getattr(record, "dagster_meta", None) or {}).get("dagster_event")
        error = (
            getattr(getattr(event, "event_specific_data", None), "error", None) if event is not None else None
        )
        return not is_interruption(error)


@logger(
    {
        "log_level": Field(
            str, is_required=False, default_value="INFO", description="The logger's threshold."
        ),
        "name": Field(str, is_required=False, default_value="dagster", description="The logger's name."),
    },
    description="Dagster's colored console logger, without the tracebacks of interrupted steps and runs.",
)
def console_without_interruptions(init_context: InitLoggerContext) -> logging.Logger:
    console = colored_console_logger.logger_fn(init_context)  # Dagster's default, as it builds it
    for (
        handler
    ) in console.handlers:  # on the handlers: a record Dagster hands to them skips the logger's filters
        handler.addFilter(_NotInterruptions())
    console.addFilter(_NotInterruptions())
    return console


class DeferredInterrupts:
    """SIGINT (and SIGTERM, which Dagster maps to it during a run) received while a run is prepared
    and recorded: an interrupt raised inside the store's or Dagster's bookkeeping would be swallowed
    there with a traceback of its own, so the handler only sets ``received``.

    Dagster installs its own handler while the job executes and puts this one back after. An
    interrupt that lands in between (the run recorded, Dagster's handler not yet in place) would
    otherwise be lost and the run go on to the end: ``forward_until`` sends it again once Dagster's
    handler is in place, which stops the run at its next step."""

    def __init__(self, active: bool) -> None:
        self.received = threading.Event()
        self.active = active

    def handler(self, _signo: int, _frame: object) -> None:
        self.received.set()

    def forward_until(self, ended: threading.Event) -> threading.Thread:
        """A started thread that, until ``ended`` is set, passes an interrupt received here on to the
        handler Dagster has put in place, once."""

        def forward() -> None:
            while not ended.wait(0.05):
                if self._taken_over():
                    os.kill(os.getpid(), signal.SIGINT)
                    return

        thread = threading.Thread(target=forward, name="lyra-interrupt-forward", daemon=True)
        thread.start()
        return thread

    def _taken_over(self) -> bool:
        """Whether an interrupt was received and another handler (Dagster's) now has SIGINT."""
        return self.active and self.received.is_set() and signal.getsignal(signal.SIGINT) != self.handler


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[DeferredInterrupts]:
    """``DeferredInterrupts`` installed for SIGINT and SIGTERM, the previous handlers put back after.
    Off the main thread signals cannot be handled, and a process started in the background of a
    shell ignores SIGINT: there nothing changes."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    ):
        yield DeferredInterrupts(active=False)
        return
    deferred = DeferredInterrupts(active=True)
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, deferred.handler)
    try:
        with interrupts_never_swallowed():
            yield deferred
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


_INTERRUPTS = (KeyboardInterrupt, DagsterExecutionInterruptedError)
RESEND_POLL_S = 0.02  # how soon a swallowed interrupt is sent again


@contextlib.contextmanager
def interrupts_never_swallowed() -> Iterator[threading.Event]:
    """For the block, an interrupt that a signal handler raised where Python can only ignore it (a
    weakref callback, a ``__del__``, the garbage collector: ``sys.unraisablehook`` hears of it) is
    sent again as SIGINT from another thread a moment later, when the main thread is past it, as
    often as it is swallowed; its "Exception ignored" traceback is not printed. Yields the event set
    while one waits to be sent again. Off the main thread nothing changes."""
    swallowed = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield swallowed
        return
    done = threading.Event()
    previous_hook = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, _INTERRUPTS):
            swallowed.set()  # raising here would be lost too: the other thread sends it again
            return
        previous_hook(unraisable)

    def resend() -> None:
        while not done.wait(RESEND_POLL_S):
            if swallowed.is_set():
                swallowed.clear()
                os.kill(os.getpid(), signal.SIGINT)  # Dagster maps SIGTERM to SIGINT's handler

    sys.unraisablehook = hook
    thread = threading.Thread(target=resend, name="lyra-interrupt-resend", daemon=True)
    thread.start()
    try:
        yield swallowed
    finally:
        done.set()
        thread.join(timeout=1)
        if sys.unraisablehook is hook:
            sys.unraisablehook = previous_hook
