"""Pydantic validation errors rewritten for people: one line, in the words the user typed.

``describe(exc, labels)`` turns ``papers_per_source: Input should be greater than or equal to 1``
into ``--papers must be at least 1 (got -1)``; ``labels`` maps a field to how the caller spells
it (a CLI flag, an MCP option, a settings path), and unknown names get a "did you mean".

``question_hint`` says, in one line, when a research question is not in English or too vague to
judge (it is still accepted). ``text_problem`` / ``storable_text`` refuse text no store can hold (NUL, bytes that are
not
UTF-8) and ``load_json`` reads JSON from outside with every failure as one line, so the CLI and the
MCP server check such input the same way.
"""

from __future__ import annotations

import difflib
import json
import sys
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from lyra_core.text import tokenize


def _shown(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(str(value)):,} characters)"


def _label(loc: Sequence[str | int], labels: Mapping[str, str]) -> str:
    """How the user spells the field at ``loc`` (list positions left out)."""
    names = [str(p) for p in loc if not isinstance(p, int)]
    dotted = ".".join(names)
    if dotted in labels:
        return labels[dotted]
    if names and names[0] in labels:
        return ".".join([labels[names[0]], *names[1:]])
    return dotted or "value"


def _field_names(model: type[BaseModel] | None, loc: Sequence[str | int]) -> list[str]:
    """The fields of the (nested) model that ``loc`` points into, for suggestions."""
    for part in loc:
        if model is None or isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field else None
        model = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    return list(model.model_fields) if model is not None else []


def _problem(error: Mapping[str, Any], known: list[str]) -> str:
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    got = f" (got {_shown(value)})"
    bounds = {
        "greater_than_equal": ("at least", "ge"),
        "less_than_equal": ("at most", "le"),
        "greater_than": ("more than", "gt"),
        "less_than": ("less than", "lt"),
    }
    if kind in bounds:
        words, key = bounds[kind]
        return f"must be {words} {ctx.get(key)}{got}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return f"must be a whole number{got}"
    if kind in ("float_parsing", "float_type"):
        return f"must be a number{got}"
    if kind in ("bool_parsing", "bool_type"):
        return f"must be true or false{got}"
    if kind == "string_too_long":
        return f"is {len(str(value)):,} characters long; at most {ctx.get('max_length'):,} are allowed"
    if kind == "string_too_short":
        return (
            "must not be empty"
            if ctx.get("min_length") == 1
            else f"needs {ctx.get('min_length')} characters at least"
        )
    if kind == "too_long":
        return f"has {ctx.get('actual_length'):,} items; at most {ctx.get('max_length'):,} are allowed"
    if kind == "too_short":
        return f"needs {ctx.get('min_length')} item(s) at least"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}{got}"
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(str(error["loc"][-1]), known, n=1)
        hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(known)}" if known else ""
        return "is not a known name" + (f" ({hint})" if hint else "")
    if kind in ("list_type", "tuple_type", "set_type"):
        return f"must be a list{got}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"must be a mapping of names to values{got}"
    if kind == "string_type":
        return f"must be text{got}"
    if kind == "missing":
        return "is required"
    if kind == "string_pattern_mismatch":
        return f"must match {ctx.get('pattern')}{got}"
    if kind in ("value_error", "assertion_error"):
        return str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return f"{error['msg']}{got}"


def describe(
    exc: ValidationError,
    labels: Mapping[str, str] | None = None,
    model: type[BaseModel] | None = None,
    limit: int = 3,
) -> str:
    """Every problem of ``exc`` (the first ``limit``) on one line, ``; ``-separated."""
    labels = labels or {}
    parts = []
    for error in exc.errors()[:limit]:
        loc = error["loc"]
        known = _field_names(model, loc[:-1]) if error["type"] == "extra_forbidden" else []
        # our own validators' messages name their subject already: "--claim: claim 'x' is too short"
        sep = ": " if error["type"] in ("value_error", "assertion_error") else " "
        parts.append(f"{_label(loc, labels)}{sep}{_problem(error, known)}")
    more = exc.error_count() - limit
    return "; ".join(parts) + (f"; and {more} more problem(s)" if more > 0 else "")


# -- a research question too vague to judge --------------------------------------------------------

QUESTION_EXAMPLE = "Does vitamin D supplementation reduce fracture risk in older adults?"


def _mostly_other_script(question: str) -> bool:
    """More than half the question's letters are not Latin (Chinese, Cyrillic, Arabic, …)."""
    letters = [ch for ch in question if ch.isalpha()]
    latin = sum(unicodedata.name(ch, "").startswith("LATIN") for ch in letters)
    return bool(letters) and latin * 2 < len(letters)


def question_hint(question: str) -> str | None:
    """One line for a question Lyra cannot judge well, None otherwise. A question written mostly
    in another script than English's: its words are not split as English ones are and match
    English papers poorly, so the line says that Lyra reads English questions. A question with
    fewer than two content words ("cancer", "What is it?"): Lyra runs it, but it names no
    relation to judge, so the answer can only list claims."""
    if _mostly_other_script(question):
        return (
            "Lyra reads English questions, and this one is written in another script: it is run, but its "
            f"words hardly match English papers; ask it in English, e.g. {QUESTION_EXAMPLE!r}"
        )
    words = tokenize(question)
    if len(words) >= 2:
        return None
    what = f"one content word ({words[0]!r})" if words else "no content word"
    return (
        f"the question has {what}, too vague to judge: it is run, but only a question naming a relation, "
        f"e.g. {QUESTION_EXAMPLE!r}, gets a yes/no answer with the papers for and against"
    )


# -- text and JSON from outside: what can be stored, what can be parsed -----------------------------


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored as text, else None: a NUL character (Postgres text refuses it,
    C strings end at it), or a byte that was not UTF-8 (Python keeps such a byte of a command-line
    argument or file name as a lone surrogate, which no database or JSON encoder accepts)."""
    if "\x00" in text:
        return f"holds a NUL character (position {text.index(chr(0)):,})"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raw = bad.encode("utf-8", "surrogateescape") if 0xDC80 <= ord(bad) <= 0xDCFF else None
        what = f"byte 0x{raw[0]:02x}" if raw else f"character U+{ord(bad):04X}"
        return f"is not valid UTF-8 text ({what} at position {exc.start:,})"
    return None


def storable_text(text: str) -> str:
    """``text`` unchanged when it can be stored (:func:`text_problem`), else ``ValueError``; as a
    Pydantic ``AfterValidator`` it refuses such text in any model field."""
    problem = text_problem(text)
    if problem:
        raise ValueError(problem)
    return text


class JsonTextError(ValueError):
    """Text that is not a JSON value Lyra can read; the message is one line."""


def load_json(text: str) -> Any:
    """``json.loads(text)``, with its failures as one-line :class:`JsonTextError`: invalid JSON,
    and arrays or objects nested so deep that the decoder runs out of recursion."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonTextError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise JsonTextError(
            "JSON nested too deeply to read (arrays or objects inside each other "
            f"more than ~{sys.getrecursionlimit():,} levels)"
        ) from None
