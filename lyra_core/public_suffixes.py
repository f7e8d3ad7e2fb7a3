"""Public suffixes: names under which independent parties register domains (``com``, ``gouv.fr``,
``com.pl``, ``github.io``, ``s3.amazonaws.com``), from the Public Suffix List.

The list is the copy bundled with the ``publicsuffixlist`` package, ICANN and private sections
both; nothing is fetched. A user's block or unblock rule must never cover one of these names,
since it would decide for every unrelated site registered beneath it.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from publicsuffixlist import PSLFILE, PublicSuffixList, encode_idn

Section = Literal["icann", "private"]


@cache
def suffix_rules() -> dict[Section, tuple[str, ...]]:
    """The list's rules by section, as written there (lower-case; wildcard ``*.`` and exception
    ``!`` rules included; internationalized names in Unicode)."""
    rules: dict[Section, list[str]] = {"icann": [], "private": []}
    section: Section | None = None
    with open(PSLFILE, encoding="utf-8") as lines:
        for line in lines:
            text = line.strip()
            if text.startswith("// ===BEGIN "):
                section = "icann" if "ICANN" in text else "private"
            elif text.startswith("// ===END "):
                section = None
            elif text and not text.startswith("//") and section is not None:
                rules[section].append(text.split()[0].lower())
    return {name: tuple(found) for name, found in rules.items()}


@cache
def _index() -> tuple[PublicSuffixList, dict[str, str]]:
    """The library's matcher, and every name that is or contains a public suffix → one such rule."""
    psl = PublicSuffixList()  # the bundled file: no network
    beneath: dict[str, str] = {}
    for rules in suffix_rules().values():
        for rule in rules:
            if rule.startswith("!"):  # an exception: that name is registrable
                continue
            base = encode_idn(rule.removeprefix("*."))
            named = f"*.{base}" if rule.startswith("*.") else base
            labels = base.split(".")
            for start in range(len(labels)):
                name = ".".join(labels[start:])
                if len(named) < len(beneath.get(name, named + ".")):  # the shortest reads best in a message
                    beneath[name] = named
    return psl, beneath


def public_suffix_covered(host: str) -> str | None:
    """The public suffix that ``host`` (ASCII, lower-case, IDNA-encoded) is, or one that lies
    beneath it (``amazonaws.com`` holds ``s3.amazonaws.com``), or None for a name that belongs
    to one registrant only."""
    psl, beneath = _index()
    if psl.is_public(host):
        return host
    return beneath.get(host)
