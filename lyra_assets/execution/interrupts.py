"""Runs interrupted with Ctrl-C (SIGINT): how to tell them from failures, and a console logger that
leaves their tracebacks out.

Dagster turns a SIGINT during an in-process run into ``DagsterExecutionInterruptedError`` inside
the step it reaches, fails the step and the run, and logs both with their stack traces. The user
who pressed Ctrl-C asked for the run to stop: the CLI says so in one line (``lyra_assets.execution.run_control``),
and the run's event log keeps the traceback for the Dagster UI.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from dagster import (
    DagsterEventType,
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
