"""Domain patterns and the rules that block or unblock the domains they match: which patterns are
allowed (no catch-all, no IP address, no bare public suffix; docs/feedback.md#domain-patterns), how
a pattern matches a domain, and which rule decides a domain (the most specific)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel

from lyra_core.public_suffixes import public_suffix_covered

# Catch-alls refused verbatim before any other check (docs/feedback.md#domain-patterns).
FORBIDDEN_PATTERNS = frozenset({"*", "**", "*.com", "*.co.jp", "*.org", "*.net", "*.gov", "*.edu"})

_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
_NUMERIC = re.compile(r"^(?:[0-9]+|0x[0-9a-f]*)$")


class DomainPatternError(ValueError):
    pass


def _is_ip_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return False
    return True


def domain_pattern_syntax(pattern: str) -> str:
    """The pattern, lower-cased, when it is written as a domain or ``*.`` + a domain, is no
    catch-all and no IP address; the public suffix check is ``validate_domain_pattern``'s."""
    raw = (pattern or "").strip().lower().rstrip(".")
    if raw in FORBIDDEN_PATTERNS:
        raise DomainPatternError(f"pattern {raw!r} is forbidden: it would cover every domain or a whole TLD")
    host = raw.removeprefix("*.")
    if "*" in host:
        raise DomainPatternError(
            f"pattern {raw!r} is not allowed: a wildcard may only be a leading '*.' label (e.g. '*.example.com')"
        )
    if _is_ip_address(host):
        raise DomainPatternError(f"pattern {raw!r} is an IP address; rules name domains (e.g. 'example.com')")
    labels = host.split(".")
    if not host or not all(_LABEL.match(label) for label in labels):
        raise DomainPatternError(f"pattern {raw!r} is not a domain name (letters, digits, '-' and '.' only)")
    if _NUMERIC.match(labels[-1]):  # 10.1, 0x7f.1: how some resolvers spell an IPv4 address
        raise DomainPatternError(
            f"pattern {raw!r} ends in a numeric label, which no domain has (an IP address?)"
        )
    return raw


def validate_domain_pattern(pattern: str) -> str:
    """The pattern, lower-cased, when it names a registrable domain or subdomains of one:
    ``example.com``, ``sub.example.co.uk``, ``*.example.com``. Refused: catch-alls (``*``, ``**``),
    IP addresses, ``.arpa`` names (``in-addr.arpa``, ``ip6.arpa``), and any pattern that is or
    contains a public suffix of the Public Suffix List (``com``, ``*.gouv.fr``, ``github.io``,
    ``amazonaws.com``, which holds ``s3.amazonaws.com``)."""
    raw = domain_pattern_syntax(pattern)
    host = raw.removeprefix("*.")
    if host == "arpa" or host.endswith(".arpa"):
        raise DomainPatternError(
            f"pattern {raw!r} is a reverse-DNS (in-addr.arpa, ip6.arpa) or other .arpa "
            "name, not a web site; name the site's domain instead"
        )
    if "." not in host:
        raise DomainPatternError(
            f"pattern {raw!r} covers the whole top-level domain {host!r}; name a registrable domain instead"
        )
    if suffix := public_suffix_covered(host):
        what = "is" if suffix == raw else "covers"
        base = suffix.replace("*", "town")
        example = next(
            (e for e in (f"example.{base}", f"example.town.{base}") if not public_suffix_covered(e)),
            f"example.town.{base}",
        )
        raise DomainPatternError(
            f"pattern {raw!r} {what} the public suffix {suffix!r}, under which unrelated "
            f"sites register names; name one site's domain instead (e.g. {example!r})"
        )
    return raw


def pattern_matches(pattern: str, domain: str) -> bool:
    """``example.com`` matches itself and its subdomains; ``*.example.com`` only its subdomains."""
    domain = domain.lower()
    if pattern.startswith("*."):
        return domain.endswith(pattern[1:])
    return domain == pattern or domain.endswith("." + pattern)


def _specificity(pattern: str) -> tuple[int, int]:
    host = pattern.removeprefix("*.")
    return (host.count(".") + (0 if pattern.startswith("*.") else 1), len(host))


class DomainRule(BaseModel):
    id: str
    domain_pattern: str
    decision: Literal["block", "unblock"]
    reason: str = ""
    created_at: Any = None


def rule_for(domain: str, rules: Iterable[DomainRule]) -> DomainRule | None:
    """The active rule deciding ``domain``: the most specific matching pattern wins (an unblock of
    ``good.example.com`` beats a block of ``example.com``); equal patterns cannot both be active."""
    matching = [r for r in rules if pattern_matches(r.domain_pattern, domain)]
    return max(matching, key=lambda r: _specificity(r.domain_pattern), default=None)


def blocked_domains(domains: Iterable[str], rules: Iterable[DomainRule]) -> dict[str, DomainRule]:
    """Each of ``domains`` that a user block rule decides, with that rule."""
    rules = list(rules)
    out = {}
    for domain in domains:
        rule = rule_for(domain, rules) if isinstance(domain, str) else None
        if rule is not None and rule.decision == "block":
            out[domain] = rule
    return out
