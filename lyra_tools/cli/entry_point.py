"""``lyra``: create research tasks, run them through Dagster, inspect and manage them.

Each command group lives in its own module; this one builds the app from them, in the order
``lyra --help`` lists the commands, and :func:`main` runs it so that every failure ends as one
line on stderr and a non-zero exit code: arguments that are not UTF-8 text, usage errors, and as a
last net any unexpected exception (its traceback goes to a file the line names, or to the terminal
with ``LYRA_DEBUG=1``)."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path

try:  # Ctrl-C while the command's modules load (seconds on a busy machine): one line, not a traceback
    import typer

    from lyra_core.validation import text_problem
    from lyra_resources.environment import DEBUG_ENV, read_environment
    from lyra_resources.settings.pipeline import SettingsError
    from lyra_resources.store.faults import is_no_space, no_space_message
    from lyra_resources.store.locks import notify_waits
    from lyra_resources.store.lyra_store import StoreError
    from lyra_tools.cli import browse, corpus, feedback, models, run, search, serve, store, tasks, worker
    from lyra_tools.cli.common import (
        err,
        error_printed,
        fail,
        forget_command_settings,
        reset_error_printed,
        untrusted,
        write_stdout,
    )
except KeyboardInterrupt:
    os.write(2, b"error: interrupted\n")
    sys.exit(130)

app = typer.Typer(help="Lyra: turn a research question into an evidence graph.", no_args_is_help=True)


@app.callback()
def _each_command() -> None:
    # each command reads the settings anew, once (a later command in this process too: a test's)
    forget_command_settings()
    notify_waits(_say_wait)  # a read or write that waits for another process's lock says why


def _say_wait(line: str) -> None:
    err.print(untrusted(line), highlight=False, soft_wrap=True)


app.add_typer(run.app)  # `lyra run`, `lyra verify`
app.add_typer(serve.app)  # `lyra mcp`, `lyra ui`, `lyra export`
app.add_typer(tasks.app, name="task")
app.add_typer(models.app, name="models")
app.add_typer(browse.app)  # `lyra claims`, `lyra evidence`
app.add_typer(search.app)  # `lyra search`
app.add_typer(corpus.app, name="corpus")  # `lyra corpus embed`
app.add_typer(feedback.app, name="feedback")
app.add_typer(worker.app)  # `lyra worker` (cluster profile)
app.add_typer(store.app, name="store")  # `lyra store copy` (moving a home to the cluster profile)


def _argument_problem(args: Sequence[str]) -> str | None:
    """The first argument no store or file name Lyra writes can hold (a NUL, bytes that are not UTF-8)."""
    for number, arg in enumerate(args, start=1):
        if problem := text_problem(arg):
            shown = (
                arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                if "\x00" not in arg
                else arg
            )
            return f"argument {number} ({shown[:60]!r}) {problem}; Lyra reads its arguments as UTF-8 text"
    return None


def _usage_line(exc: typer.TyperException) -> str:
    """A usage error (unknown command or option, a value of the wrong type) as one line."""
    ctx = getattr(exc, "ctx", None)
    hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    return " ".join(message.split()) + hint


def _unexpected(exc: BaseException) -> int:
    """The last net: one line naming the exception and where its traceback went; exit code 1."""
    kind = type(exc).__name__
    summary = " ".join(str(exc).split())[:200]
    try:
        fd, log = tempfile.mkstemp(prefix="lyra-error-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(f"lyra {' '.join(sys.argv[1:])!r}\n")
            traceback.print_exception(exc, file=fh)
        where = f"traceback in {log}"
    except OSError:
        where = "no traceback file could be written"
    fail(f"unexpected {kind}: {summary} (a bug in Lyra; {where}; {DEBUG_ENV}=1 shows it here)")
    return 1


def _stdout_failed(exc: Exception) -> int:
    """Exit code 1 with its line when ``exc`` was writing standard output (a table printed to a full
    disk): what is still buffered cannot be flushed either. Else 0: the exception is not about it."""
    if not isinstance(exc, OSError) or isinstance(exc, BrokenPipeError):
        return 0
    try:
        write_stdout("")
    except typer.Exit as exit_:
        return exit_.exit_code
    return 0


def _file_system_fault(exc: Exception) -> int:
    """Exit code 1 with its line when ``exc`` is a write the file system refused (a full disk, a
    read-only file system) outside the store, which names its own: not a bug in Lyra. Else 0."""
    if not isinstance(exc, OSError):
        return 0
    where = exc.filename or "the file being written"
    if is_no_space(exc):
        fail(no_space_message(Path(where).parent if exc.filename else where))
    elif exc.errno == errno.EROFS:
        fail(
            f"{where}: the file system is read-only ({exc.strerror}); commands that only read the home still work"
        )
    else:
        return 0
    return 1


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``lyra`` with ``argv`` (default: the command line) and exit with its code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if problem := _argument_problem(args):
        fail(problem)
        sys.exit(1)
    with _recording_interrupts() as interrupted:
        code = _run(args, interrupted)
    if code == 130 and not error_printed():  # typer turns KeyboardInterrupt into exit code 130, silently
        fail("interrupted")
    sys.exit(code)


def _run(args: list[str], interrupted: threading.Event) -> int:
    """The command's exit code, every failure said in one line (an interrupt: code 130, said by ``main``)."""
    try:
        result = app(args=args, prog_name="lyra", standalone_mode=False)
        code = result if isinstance(result, int) else 0
        write_stdout("")  # what the command printed, flushed now: a full disk is its error too
    except BrokenPipeError:  # `lyra export … | head`: the reader has gone, nothing to say to it
        with contextlib.suppress(OSError, ValueError):  # no second error when Python flushes at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    except typer.TyperException as exc:  # usage errors: an unknown command or option, a bad value
        if type(exc).__name__ != "NoArgsIsHelpError":  # that one has printed the help already
            fail(_usage_line(exc))
        code = exc.exit_code
    except typer.Abort:  # a confirmation answered with end of input
        fail("aborted")
        code = 1
    except (SettingsError, StoreError) as exc:  # a broken settings file, a store that cannot be reached
        fail(str(exc))
        code = 1
    except KeyboardInterrupt:
        code = 130
    except typer.Exit as exc:  # raised where standalone_mode does not catch it: writing standard output
        code = exc.exit_code
    except Exception as exc:
        if read_environment().debugging:
            raise
        # an interrupt inside a library that reports it as its own error (DuckDB: "Query interrupted")
        code = (
            130
            if interrupted.is_set()
            else _stdout_failed(exc) or _file_system_fault(exc) or _unexpected(exc)
        )
    return code


@contextlib.contextmanager
def _recording_interrupts() -> Iterator[threading.Event]:
    """An event set when SIGINT arrives, which then interrupts as Python's own handler does (where
    SIGINT is Python's default: not in a process started to ignore it); the handler goes after."""
    interrupted = threading.Event()
    reset_error_printed()
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield interrupted
        return

    def on_sigint(signo: int, frame: object) -> None:
        interrupted.set()
        signal.default_int_handler(signo, frame)

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


if __name__ == "__main__":
    main()
