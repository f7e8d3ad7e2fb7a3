"""BibTeX field values as text: ``@string`` macros expanded and ``#`` concatenations joined, in one
linear pass per value, with bounds that keep a hostile file from costing more than its size.

``bibtexparser`` splits a file into entries and gives each field's raw value (``{…}``, ``"…"``, a
number, a macro name, or parts joined by ``#``). Its ``ResolveStringReferencesMiddleware`` replaces
only a value that is one macro name, and no middleware of it joins ``#`` parts, so a title written
``ev # " supplementation"`` would reach the papers as that literal text. :class:`BibValues` reads
every raw value the way BibTeX does: each part's braces or quotes removed, each macro name replaced
by its (itself expanded) value, case-insensitively, and the parts joined.

A value whose braces nest deeper than :data:`MAX_BRACE_DEPTH` (real entries nest a handful:
``{{\\"o}}``), whose macros name macros deeper than :data:`MAX_MACRO_DEPTH`, or that is longer than
:data:`MAX_VALUE_CHARS` (a huge field, or macros doubling each other) raises
:class:`BibValueError`; the reader leaves that entry out and reports it, one line.
"""

from __future__ import annotations

import re

MAX_BRACE_DEPTH = 64
MAX_VALUE_CHARS = 100_000  # a long abstract is a few thousand; LaTeX decoding costs ~30 µs a character
MAX_MACRO_DEPTH = 64  # macros naming macros: a chain this long is a hostile file, not a bibliography

_SPECIAL = re.compile(r'[{}"#]')
_NUMBER = re.compile(r"\d+")


class BibValueError(ValueError):
    """A field value that is not read: braces nested too deep, or an expansion too long."""


def _split_parts(raw: str) -> list[str]:
    """``raw``'s parts between top-level ``#`` signs (outside braces and quotes), stripped.

    Raises BibValueError as soon as the braces nest deeper than MAX_BRACE_DEPTH."""
    parts, start, depth, quoted = [], 0, 0, False
    for match in _SPECIAL.finditer(raw):  # only the four characters that matter: linear in len(raw)
        char = match.group()
        if char == "{":
            depth += 1
            if depth > MAX_BRACE_DEPTH:
                raise BibValueError(f"nests braces more than {MAX_BRACE_DEPTH} deep")
        elif char == "}":
            depth = max(depth - 1, 0)
        elif depth == 0 and char == '"':
            quoted = not quoted
        elif depth == 0 and not quoted and char == "#":
            parts.append(raw[start : match.start()].strip())
            start = match.end()
    parts.append(raw[start:].strip())
    return parts


def _encloses(part: str, opening: str, closing: str) -> bool:
    """True when ``part`` is one ``{…}`` or ``"…"`` group (``{a}{b}`` is two groups, not one)."""
    if len(part) < 2 or part[0] != opening or part[-1] != closing:
        return False
    if opening == '"':
        return True
    depth = 0
    for match in re.finditer(r"[{}]", part[:-1]):
        depth += 1 if match.group() == "{" else -1
        if depth == 0:  # the first brace closed before the end
            return False
    return True


class BibValues:
    """Raw BibTeX values to text, with a file's ``@string`` macros (name → raw value)."""

    def __init__(self, macros: dict[str, str]) -> None:
        # BibTeX's macro names are case-insensitive; a later definition wins
        self._raw = {name.lower(): value for name, value in macros.items()}
        self._done: dict[str, str] = {}
        self._open: set[str] = set()  # macros being expanded: a macro naming itself stays a name

    def text(self, raw: str) -> str:
        """The text of one raw field value; BibValueError when it cannot be read within the bounds."""
        pieces, size = [], 0
        for part in _split_parts(raw):
            piece = self._part(part)
            size += len(piece)
            if size > MAX_VALUE_CHARS:
                raise BibValueError(
                    f"is more than {MAX_VALUE_CHARS:,} characters long (with its macros expanded)"
                )
            pieces.append(piece)
        return "".join(pieces)

    def _part(self, part: str) -> str:
        if _encloses(part, "{", "}") or _encloses(part, '"', '"'):
            return part[1:-1]
        if _NUMBER.fullmatch(part):
            return part
        name = part.lower()
        if name in self._done:
            return self._done[name]
        if name not in self._raw or name in self._open:  # an undefined macro is kept as its name
            return part
        if len(self._open) >= MAX_MACRO_DEPTH:
            raise BibValueError(f"uses @string macros that name each other more than {MAX_MACRO_DEPTH} deep")
        self._open.add(name)
        try:
            self._done[name] = self.text(self._raw[name])
        finally:
            self._open.discard(name)
        return self._done[name]
