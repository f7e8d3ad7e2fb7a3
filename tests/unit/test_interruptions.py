"""A Ctrl-C that lands while a step reads the store stops the run as any Ctrl-C does: DuckDB's
"Query interrupted", under Dagster's "Error occurred while loading input", is an interruption."""

from dagster_shared.error import SerializableErrorInfo

from lyra_assets.execution.interrupts import is_interruption


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
