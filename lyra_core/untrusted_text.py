"""Text from outside Lyra (a question, a corpus record, an API answer) made safe to show.

Such text is data, never formatting: what a terminal, a tab-separated line, a Markdown line or an
XML document would read as an instruction is shown as a visible escape instead (``\\x1b``,
``\\u202e``). Lyra's own text never holds these characters, so an escape always marks something
the source held. See docs/security.md for what each view promises.
"""

from __future__ import annotations

import re

# Bidirectional formatting characters: they reorder the text around them on screen, so a line can
# read differently from what it holds (ALM, LRM, RLM, embeddings and overrides, isolates).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines splits at

# C0 controls (ESC starts every CSI and OSC sequence), DEL, C1 controls (U+009B is a one-character
# CSI), the line and paragraph separators, bidi controls and lone surrogates (no encoder takes them).
_TERMINAL_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}\ud800-\udfff]")
_MARKDOWN_BREAK = re.compile(f"[{LINE_BREAKS}]+")
# Everything XML 1.0 forbids in a document (not even as a character reference), plus the bidi
# controls, which reorder a label the way they reorder a terminal line.
_XML_UNSAFE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff{BIDI_CONTROLS}]")


def visible_escape(char: str) -> str:
    """``\\x1b`` for ESC, ``\\u202e`` for RIGHT-TO-LEFT OVERRIDE: the character's code as text."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _escaped(match: re.Match[str]) -> str:
    return visible_escape(match.group())


def terminal_text(text: str) -> str:
    """``text`` as one terminal line: every control character, line break, tab, bidi control and
    lone surrogate shown as a visible escape, so no escape sequence reaches the terminal (no
    clearing the screen, OSC 52 clipboard writes, OSC 8 links) and no line is forged."""
    return _TERMINAL_UNSAFE.sub(_escaped, text)


def tsv_cell(text: str) -> str:
    """``text`` as one cell of a tab-separated line: a tab or newline it holds shows as ``\\t`` or
    ``\\n`` and cannot start another column or row; other controls are escaped as on a terminal."""
    return terminal_text(text)


def markdown_line(text: str) -> str:
    """``text`` kept on one Markdown line: each run of line breaks becomes one space (a title with
    ``"\\n# …"`` stays inside its line, never a heading), other controls are visible escapes.
    Markdown's own markup characters are escaped by the report's writer."""
    return terminal_text(_MARKDOWN_BREAK.sub(" ", text))


_JSON_RAW = re.compile(f"[\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}]")  # what JSON may leave raw, a terminal obeys


def json_line(json_text: str) -> str:
    """A JSON text to print on a terminal: DEL, the C1 controls, the line separators and the bidi
    controls that JSON allows raw inside a string are written as ``\\u`` escapes instead (the
    same value to any JSON reader; C0 controls are escaped by every JSON writer already)."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids (NUL and the other C0 controls but tab,
    newline and carriage return; U+FFFE, U+FFFF; lone surrogates) and every bidi control shown as
    a visible escape: a document holding it still parses."""
    return _XML_UNSAFE.sub(_escaped, text)
