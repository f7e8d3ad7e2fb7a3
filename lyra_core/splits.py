"""Seeded, stable splits of labelled data, drawn by group so that no group is on both sides:
corrections by claim text (held out or trained on), SciFact claims into cross-validation folds by
the papers they cite."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar


class ClaimSample(Protocol):
    """Anything labelled for a claim: the claim's text is the hypothesis."""

    hypothesis: str


C = TypeVar("C", bound=ClaimSample)


def claim_key(text: str) -> str:
    """A claim's text as the split sees it: case and spacing do not make another claim."""
    return " ".join(text.lower().split())


def is_held_out(hypothesis: str, fraction: float, seed: int) -> bool:
    """Whether a claim's corrections are held out: a hash of seed and claim text, so the side a
    correction falls on never depends on which other corrections exist."""
    digest = hashlib.sha256(f"{seed}\x1f{claim_key(hypothesis)}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def split_corrections(corrections: Sequence[C], fraction: float, seed: int) -> tuple[list[C], list[C]]:
    """(train, held out): whole claims on one side, so no claim text is both learned and judged."""
    train: list[C] = []
    held: list[C] = []
    for c in corrections:
        (held if is_held_out(c.hypothesis, fraction, seed) else train).append(c)
    return train, held


def claim_groups(claims: list[dict[str, Any]]) -> dict[int, str]:
    """Claim id → group id; claims citing a common document share one group (union-find)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for claim in claims:
        nodes = [f"c{claim['id']}"] + [f"d{d}" for d in claim.get("cited_doc_ids", [])]
        for node in nodes[1:]:
            parent[find(node)] = find(nodes[0])
    return {claim["id"]: find(f"c{claim['id']}") for claim in claims}


def claim_folds(claims: list[dict[str, Any]], folds: int = 5, seed: int = 13) -> dict[int, int]:
    """Claim id → fold in ``range(folds)``, by group, groups shuffled then dealt largest first so
    folds hold about the same number of claims."""
    groups = claim_groups(claims)
    members: dict[str, list[int]] = {}
    for claim_id, group in groups.items():
        members.setdefault(group, []).append(claim_id)
    order = sorted(members)
    random.Random(seed).shuffle(order)
    order.sort(key=lambda g: -len(members[g]))
    sizes = [0] * folds
    fold_of: dict[int, int] = {}
    for group in order:
        fold = sizes.index(min(sizes))
        sizes[fold] += len(members[group])
        for claim_id in members[group]:
            fold_of[claim_id] = fold
    return fold_of
