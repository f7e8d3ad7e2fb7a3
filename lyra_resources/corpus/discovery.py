"""Which files a corpus path may read, and how their bytes become text.

A corpus folder pulls in only files with a corpus extension (JSONL, JSON, BibTeX), at most
``corpus_files.max_files`` of them, none over ``corpus_files.max_file_mb``; hidden files and
folders are left out, symlinked folders are not followed, and a symlinked file is read only when
it points inside the folder, and a file whose name is not UTF-8 is left out (no log, table or report
could name it). What is left out for a reason is reported, never dropped silently.

Text is UTF-8 (with or without a BOM) or UTF-16 with a BOM. Lines that are not UTF-8 are read as
Windows-1252 (Latin-1 for the five bytes it leaves undefined) and reported as repaired; UTF-16
without a BOM and binary files are refused with a reason, not turned into garbage.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lyra_resources.settings.services import CorpusFileSettings

JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
BIBTEX_SUFFIXES = (".bib",)
SUPPORTED_SUFFIXES = JSON_SUFFIXES + BIBTEX_SUFFIXES
WANTED = ", ".join(f"*{s}" for s in SUPPORTED_SUFFIXES)
# A walk may look at this many entries per allowed corpus file before it gives up: naming / must
# not mean minutes of scanning.
_ENTRIES_PER_FILE = 100
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


class CorpusError(ValueError):
    """The corpus path cannot be used at all (missing, too big, or holds no supported file)."""


@dataclass(frozen=True)
class Skipped:
    path: Path
    reason: str


@dataclass
class Discovery:
    """The files a corpus path names, and what was left out of them and why."""

    root: Path
    files: list[Path]
    skipped: list[Skipped] = field(default_factory=list)
    other_files: int = (
        0  # files of other types (README.md, *.csv …): not corpus content, not reported one by one
    )


def _size_text(size: int) -> str:
    return f"{size / 1024**2:,.1f} MB"


def _oversize(path: Path, limits: CorpusFileSettings) -> str | None:
    size = path.stat().st_size
    if size <= limits.max_file_mb * 1024**2:
        return None
    return (
        f"{_size_text(size)}, over the {limits.max_file_mb:g} MB limit "
        "(raise corpus_files.max_file_mb in the settings to read it)"
    )


def discover(path: str | Path, limits: CorpusFileSettings | None = None) -> Discovery:
    """The corpus files ``path`` names (resolved, sorted), within ``limits`` (default: the default limits).

    Raises CorpusError when the path is missing or unusable, or a folder holds more corpus files
    than allowed; a folder with no corpus file at all is the caller's to judge (``files`` empty).
    """
    limits = limits or CorpusFileSettings()
    root = Path(path).expanduser()
    try:
        if not root.exists():
            raise CorpusError(f"corpus path does not exist: {root}")
        root = root.resolve()
    except OSError as err:  # e.g. a name longer than the OS allows
        raise CorpusError(f"corpus path cannot be used: {err.strerror or err} ({str(root)[:80]}…)") from None
    if _not_utf8(root):
        raise CorpusError(f"corpus path {_shown(root)} has a name that is not UTF-8 text; rename it")
    if root.is_file():
        if root.suffix.lower() not in SUPPORTED_SUFFIXES:
            raise CorpusError(f"unsupported corpus file {root}: expected one of {WANTED}")
        if too_big := _oversize(root, limits):
            raise CorpusError(f"corpus file {root} is {too_big}")
        return Discovery(root=root, files=[root])
    if not root.is_dir():
        raise CorpusError(f"corpus path {root} is neither a file nor a folder")
    return _walk(root, limits)


def _walk(root: Path, limits: CorpusFileSettings) -> Discovery:
    found = Discovery(root=root, files=[])
    seen: set[Path] = set()
    entries = 0

    def unreadable(err: OSError) -> None:
        found.skipped.append(Skipped(Path(err.filename or root), f"cannot be read: {err.strerror or err}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))  # .git, a cache beside the corpus
        for name in dirnames:
            if (here / name).is_symlink():
                found.skipped.append(Skipped(here / name, "symlinked folder, not followed"))
        entries += len(dirnames) + len(filenames)
        if entries > limits.max_files * _ENTRIES_PER_FILE:
            raise CorpusError(
                f"corpus folder {root} holds more than {entries:,} files and folders; "
                "name the folder that holds the corpus files"
            )
        for name in sorted(filenames):
            candidate = here / name
            if name.startswith("."):
                continue
            if candidate.suffix.lower() not in SUPPORTED_SUFFIXES:
                found.other_files += 1
                continue
            file = _admit(candidate, root, limits, found)
            if file is None or file in seen:
                continue
            seen.add(file)
            found.files.append(file)
            if len(found.files) > limits.max_files:
                raise CorpusError(
                    f"corpus folder {root} holds more than {limits.max_files:,} corpus files ({WANTED}); "
                    "name a narrower folder, or raise corpus_files.max_files in the settings"
                )
    found.files.sort()
    return found


def _not_utf8(path: Path) -> bool:
    """True for a name holding bytes that are not UTF-8 (Python keeps each as a lone surrogate)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _shown(path: Path) -> str:
    """``path`` as printable text, each byte that is not UTF-8 written as ``\\udcXX``."""
    return str(path).encode("utf-8", "backslashreplace").decode("utf-8")


def _admit(candidate: Path, root: Path, limits: CorpusFileSettings, found: Discovery) -> Path | None:
    """The file to read for ``candidate``, or None (and a Skipped entry) when it may not be read."""
    file = candidate.resolve()
    if _not_utf8(candidate) or _not_utf8(file):  # no log, table or report could name it
        found.skipped.append(Skipped(Path(_shown(candidate)), "its name is not UTF-8 text; rename it"))
        return None
    if candidate.is_symlink() and not file.is_relative_to(root):
        found.skipped.append(
            Skipped(candidate, f"symlink to {file}, outside the corpus folder; not followed")
        )
        return None
    if not file.is_file():  # a broken link, a FIFO, a device: reading it could block or never end
        found.skipped.append(Skipped(candidate, "not a regular file"))
        return None
    if too_big := _oversize(file, limits):
        found.skipped.append(Skipped(candidate, too_big))
        return None
    return file


# --------------------------------------------------------------------------- decoding


@dataclass
class Decoded:
    """A file's text, or why it is not text (``problem``, at ``problem_line``)."""

    text: str | None = None
    problem: str | None = None
    problem_line: int = 1
    repaired: list[int] = field(default_factory=list)  # 1-based lines read as Windows-1252/Latin-1


def _line_of(data: bytes, offset: int) -> int:
    return data[:offset].count(b"\n") + 1


def _utf16_without_bom(data: bytes) -> bool:
    """NUL bytes on every other position: ASCII text saved as UTF-16 without a byte-order mark."""
    head = data[:4096]
    even, odd = head[0::2].count(0), head[1::2].count(0)
    return max(even, odd) > 0.3 * (len(head) / 2) and min(even, odd) < 0.05 * (len(head) / 2)


def _legacy(line: bytes) -> str:
    try:
        return line.decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8d, 0x8f, 0x90, 0x9d: undefined in cp1252, kept as Latin-1
        return line.decode("latin-1")


def decode(data: bytes) -> Decoded:
    """The text of a corpus file's bytes: UTF-8 (BOM or not), UTF-16 with a BOM, and lines that
    are not UTF-8 read as Windows-1252; NUL bytes or many control characters mean binary."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return Decoded(text=data.decode("utf-16"))
        except UnicodeDecodeError as err:
            return Decoded(
                problem=f"file starts with a UTF-16 byte-order mark but is not UTF-16 ({err.reason})"
            )
    data = data.removeprefix(codecs.BOM_UTF8)
    if (nul := data.find(b"\0")) >= 0:
        if _utf16_without_bom(data):
            return Decoded(problem="file looks like UTF-16 without a byte-order mark; save it as UTF-8")
        return Decoded(
            problem="file is binary, not text (it holds NUL bytes)", problem_line=_line_of(data, nul)
        )
    try:
        decoded = Decoded(text=data.decode("utf-8"))
    except UnicodeDecodeError:
        lines: list[str] = []
        decoded = Decoded()
        for number, line in enumerate(data.split(b"\n"), start=1):
            try:
                lines.append(line.decode("utf-8"))
            except UnicodeDecodeError:
                lines.append(_legacy(line))
                decoded.repaired.append(number)
        decoded.text = "\n".join(lines)
    controls = len(_CONTROL.findall(decoded.text))
    if controls > 0.02 * len(decoded.text):
        return Decoded(problem=f"file is binary, not text ({controls:,} control characters)")
    return decoded
