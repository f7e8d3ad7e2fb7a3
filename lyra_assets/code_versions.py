"""Each asset's ``code_version``: a digest of its module's source and of every Lyra module it
imports, directly or through others, so the version changes whenever the logic it runs changes.

Dagster reads a changed code version as a stale asset (the UI marks it), and a run re-uses an
asset's rows only while its code version and inputs are those the rows were built from
(``lyra_assets.reuse``). Imports are read from the source text, not executed; a module named
in a function body counts as imported (the asset may call it). Shipped model weights are not
source: the models digest of ``lyra_resources.store.run_inputs`` covers them.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

PACKAGES = ("lyra_core", "lyra_resources", "lyra_training", "lyra_assets")
_ROOT = Path(__file__).resolve().parents[1]
# `from lyra_x import a, b` on one line, or a parenthesised list over several (comments dropped)
_IMPORT = re.compile(
    r"^\s*(?:from\s+(lyra_\w+(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n#]+)"
    r"|import\s+(lyra_\w+(?:\.\w+)*))",
    re.M,
)
_COMMENT = re.compile(r"#[^\n]*")


def _source_file(module: str, root: Path) -> Path | None:
    """The file of a dotted module name under ``root`` (a package's ``__init__.py``), or None."""
    base = root.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _stamp(path: Path) -> tuple[Path, int, int]:
    """The file with its size and modification time: what the caches below are keyed by."""
    stat = path.stat()
    return path, stat.st_size, stat.st_mtime_ns


def _direct_imports(path: Path) -> tuple[str, ...]:
    return _imports_of(*_stamp(path))


@functools.cache
def _imports_of(path: Path, size: int, mtime_ns: int) -> tuple[str, ...]:
    """The Lyra modules a source file names in its imports (``from package import module`` names
    the module too: it may be one, not only a function)."""
    names: list[str] = []
    for found_from, imported, found_import in _IMPORT.findall(path.read_text(encoding="utf-8")):
        if found_import:
            names.append(found_import)
            continue
        names.append(found_from)
        listed = _COMMENT.sub("", imported).replace("\n", " ")
        names += [
            f"{found_from}.{n.split(' as ')[0].strip(' ()')}" for n in listed.split(",") if n.strip(" ()")
        ]
    return tuple(names)


def imported_modules(module: str, root: Path = _ROOT) -> list[str]:
    """``module`` and every Lyra module it imports, directly or through others, sorted."""
    seen: set[str] = set()
    pending = [module]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        path = _source_file(name, root)
        if path is None:
            continue
        seen.add(name)
        parts = name.split(".")
        pending += [".".join(parts[:i]) for i in range(1, len(parts))]  # its packages' __init__ run first
        pending += _direct_imports(path)
    return sorted(m for m in seen if m.split(".")[0] in PACKAGES)


@functools.cache
def code_version(module: str, root: Path = _ROOT) -> str:
    """A 16-hex digest of the source of ``module`` and of every Lyra module it imports."""
    digest = hashlib.sha256()
    for name in imported_modules(module, root):
        digest.update(f"{name}\n{_file_digest(_source_file(name, root))}\n".encode())
    return digest.hexdigest()[:16]


def _file_digest(path: Path) -> str:
    return _digest_of(*_stamp(path))


@functools.cache
def _digest_of(path: Path, size: int, mtime_ns: int) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
