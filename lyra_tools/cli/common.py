"""What every ``lyra`` command shares: the ``--home`` option and the checked home it names, the
store it opens, the consoles, the one-line error that ends a command with a non-zero exit code,
and the checks of the files a command reads or writes."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from lyra_core.untrusted_text import terminal_text
from lyra_resources.environment import HOME_ENV, read_environment
from lyra_resources.home import HomeError, HomeLayout, resolve_home
from lyra_resources.settings.loading import LyraSettings, effective_cluster_settings, load_settings
from lyra_resources.settings.services import ClusterSettings
from lyra_resources.store.faults import store_fault, store_file_fault
from lyra_resources.store.lyra_store import LyraStore, StoreError, TaskRecord

# no ":name:" emoji codes: a text from outside holding one is printed as it is
console = Console(emoji=False)
err = Console(stderr=True, emoji=False)


def _home_path(value: str) -> Path:
    """``--home``'s value as a path; an empty one is refused (as a path it would be the current folder)."""
    if not value.strip():
        raise typer.BadParameter("is empty; name the home's folder (default: $LYRA_HOME or ./.lyra)")
    return Path(value)


HomeOption = Annotated[
    Path | None,
    typer.Option(
        "--home",
        help="Lyra home directory (default: $LYRA_HOME or ./.lyra)",
        show_default=False,
        parser=_home_path,
    ),
]
MAX_INPUT_FILE_BYTES = 50 * 1024 * 1024  # a claims or queries file; a corpus has limits of its own


_said = {
    "error": False
}  # whether this process printed its error line (``lyra_tools.cli.main`` adds none then)


# The settings of the command being run: read once, when first needed, and handed to what it opens
# (the store, the Dagster instance, a run); ``lyra_tools.cli.main`` forgets them when a command ends.
_command: dict[str, LyraSettings] = {}


def command_settings() -> LyraSettings:
    """This command's settings (``$LYRA_SETTINGS`` or config/settings.yaml), read on first use; a bad
    file raises SettingsError, which the entry point says in one line."""
    if "settings" not in _command:
        _command["settings"] = load_settings()
    return _command["settings"]


def command_cluster() -> ClusterSettings:
    """This command's effective cluster settings: where its store and its runs are. A settings file
    that cannot be read leaves them to the environment, so commands that only read still work."""
    return effective_cluster_settings(command_settings)


def forget_command_settings() -> None:
    _command.clear()


def error_printed() -> bool:
    return _said["error"]


def reset_error_printed() -> None:
    _said["error"] = False


def untrusted(value: object) -> str:
    """``value`` as text for a Rich console, table cell or markup string: never read as markup, and
    its control characters shown as visible escapes (lyra_core.untrusted_text.terminal_text). The
    one way text that Lyra did not write itself (questions, options, titles, claims, error texts
    quoting them) reaches the terminal."""
    return escape(terminal_text(str(value)))


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``message`` as one error line on stderr; the caller raises the returned Exit."""
    _said["error"] = True
    # soft_wrap: one line stays one line whatever the terminal's width; no highlighting of paths and numbers
    err.print(
        f"[bold red]error:[/] {untrusted(' '.join(message.splitlines()))}", soft_wrap=True, highlight=False
    )
    return typer.Exit(code)


def write_stdout(text: str) -> None:
    """``text`` to standard output, flushed: a full disk behind it is the command's error line
    (a reader that has gone, ``lyra export … | head``, is the caller's BrokenPipeError)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        with contextlib.suppress(OSError, ValueError):  # what is left in the buffer: no second error at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise fail(f"standard output cannot be written: {exc.strerror or exc}") from None


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def home_root(home: Path | None, *, create: bool = True) -> Path:
    """The Lyra home (``--home``, else $LYRA_HOME, else ./.lyra) as an absolute path, checked before
    anything is written: a folder that can hold the store's files, or a path where one can be made.
    ``create`` makes a missing home (parents too); without it a missing home stays missing. Any
    problem is one error line and exit code 1."""
    env_home = read_environment().home
    named = "--home" if home else f"${HOME_ENV}" if env_home else "the home ./.lyra"
    try:
        root = resolve_home(home, create=False)
    except HomeError as exc:
        raise fail(str(exc)) from None
    try:
        existing = next(p for p in (root, *root.parents) if p.exists())
    except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop
        reason = _reason(exc) if isinstance(exc, OSError) else str(exc)
        raise fail(f"{named} {home or env_home or '.lyra'}: cannot be used: {reason}") from None
    if not existing.is_dir():
        kind = "a file" if existing.is_file() else "not a folder"
        where = "" if existing == root else f"{existing} "
        raise fail(f"{named} {root}: {where}is {kind}; a Lyra home is a folder") from None
    try:
        if existing == root and not (root / "lyra.duckdb").exists():
            with tempfile.TemporaryFile(dir=root):  # can the store's file be made here (not /proc, /sys)?
                pass
        if create:
            root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"{named} {root}: cannot hold a Lyra home: {_reason(exc)}") from None
    return root


def writable_home(home: Path | None) -> Path:
    """The home (``home_root``, not made yet where it is missing) of a command that writes it, checked
    to take a new file and its store to be written: a home that cannot be written (a read-only file
    system, no permission, an immutable folder or store: EROFS, EACCES, EPERM) is the command's one
    error line before any input is read or cached."""
    root = home_root(home, create=False)
    database = HomeLayout(root=root).database
    if (fault := store_file_fault(database)) is not None:  # a folder, a pipe: never opened
        raise fail(str(fault))
    try:
        if root.is_dir():
            with tempfile.TemporaryFile(dir=root):
                pass
        if database.exists():  # opened for writing and closed at once: no byte of it is written
            os.close(os.open(database, os.O_WRONLY))
    except OSError as exc:
        fault = store_fault(exc, database, _reason(exc))
        raise fail(str(fault) if fault else f"the home {root} cannot be written: {_reason(exc)}") from None
    return root


def open_store(home: Path | None, *, create: bool = True) -> LyraStore:
    """The store of the Lyra home ``home`` (default: $LYRA_HOME or ./.lyra). ``create=False``
    for a command about something the home must already hold (a task, a claim): a missing home is
    then its error line, and is not made."""
    root = home_root(home, create=create)
    if not root.is_dir():
        raise fail(f"no Lyra home at {root} (`lyra run` makes one; check --home or ${HOME_ENV})")
    return LyraStore.for_settings(root, command_cluster())


def require_task(home: Path | None, task_id: str) -> TaskRecord:
    """The task ``task_id`` of the home, or its one-line error and exit code 1."""
    try:
        return open_store(home, create=False).require_task(task_id)
    except StoreError as exc:
        raise fail(str(exc)) from exc


def check_input_file(path: Path, flag: str, what: str = "the file") -> None:
    """A file a command reads must be a regular file of at most ``MAX_INPUT_FILE_BYTES``: a
    folder, a device such as /dev/zero or a pipe is refused, not read forever. Any problem is one
    error line naming ``flag``."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise fail(f"{flag}: path not found: {path}") from None
    except OSError as exc:
        raise fail(f"{flag}: cannot read {what} {path}: {_reason(exc)}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device or a pipe)"
        raise fail(f"{flag} {path}: is {kind}; name {what} to read")
    if info.st_size > MAX_INPUT_FILE_BYTES:
        raise fail(f"{flag} {path}: is {info.st_size:,} bytes; at most {MAX_INPUT_FILE_BYTES:,} are read")


def read_text_input(path: Path, flag: str, what: str = "the file") -> str:
    """The text of a file a command reads (UTF-8, a BOM allowed), checked by :func:`check_input_file`;
    any problem is one error line naming ``flag``."""
    check_input_file(path, flag, what)
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = _reason(exc) if isinstance(exc, OSError) else str(exc)
        raise fail(f"{flag}: cannot read {what} {path} as UTF-8 text: {reason}") from None


def output_problem(path: Path, flag: str, home: Path | None) -> str | None:
    """Why ``path`` cannot be the file a command writes (the home's own data, a folder, a folder
    that does not exist: nothing is created on the way), else None. A device or pipe is allowed:
    writing to it says. ``home`` is the command's ``--home``."""
    if problem := home_data_problem(path, flag, home):
        return problem
    try:
        if path.is_dir():
            return f"{flag} {path}: is a folder; name the file to write, e.g. {path / 'out.txt'}"
        if not path.parent.is_dir():
            return f"{flag} {path}: folder {path.parent} does not exist; create it or write elsewhere"
    except OSError as exc:
        return f"{flag} {path}: cannot be used: {_reason(exc)}"
    return None


def home_data_problem(
    path: Path, flag: str, home: Path | None, *, allowed: tuple[str, ...] = ()
) -> str | None:
    """Why ``path`` cannot be written: it is, or lies inside, the home's own data (``HomeLayout.data``;
    symlinks and relative paths resolved), other than the parts named in ``allowed``. Else None."""
    layout = HomeLayout(root=home_root(home, create=False))
    try:
        what = layout.data_holding(path)
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
        reason = _reason(exc) if isinstance(exc, OSError) else str(exc)
        return f"{flag} {path}: cannot be used: {reason}"
    if what is None or what in allowed:
        return None
    return (
        f"{flag} {path}: is inside the home's own data ({what}, under {layout.root}); "
        "Lyra does not write over it: name a file outside"
    )


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_output(path: Path, text: str, flag: str, home: Path | None) -> None:
    """Write ``text`` to ``path`` whole or not at all: through a temporary file beside it renamed
    into place (a device or pipe is written directly). A failure is one error line, no file left;
    ``path`` inside the home's own data is refused (``output_problem``)."""
    if problem := output_problem(path, flag, home):
        raise fail(problem)
    data = text.encode("utf-8")
    tmp: str | None = None
    try:
        if path.exists() and not path.is_file():
            with path.open("wb") as fh:
                fh.write(data)
            return
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.chmod(
            tmp, path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
        )  # not mkstemp's 0600
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise fail(f"{flag} {path}: cannot be written: {_reason(exc)}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
