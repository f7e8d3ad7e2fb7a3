"""The claims a ``lyra verify`` batch checks: one ``ClaimInput`` per line of a claims file, and
which papers each claim is judged against (its evidence scope)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lyra_core.claims import claim_id_for
from lyra_core.papers import CanonicalPaper, PaperRecord, canonicalize
from lyra_core.validation import JsonTextError, load_json, text_problem

MIN_CLAIM_CHARS = 10
MAX_CLAIM_CHARS = 1000


def clean_claim(text: str) -> str:
    """One spelling of a claim (whitespace collapsed); too short, too long or text no store holds
    (a NUL, bytes that are not UTF-8) raises ``ValueError``."""
    claim = " ".join(str(text).split())
    if problem := text_problem(claim):
        raise ValueError(f"claim {claim[:40]!r} {problem}")
    if not claim:
        raise ValueError("the claim is empty")
    if len(claim) < MIN_CLAIM_CHARS:
        raise ValueError(f"claim {claim!r} is too short to verify ({MIN_CLAIM_CHARS} characters at least)")
    if len(claim) > MAX_CLAIM_CHARS:
        raise ValueError(f"claim {claim[:40]!r}… is longer than {MAX_CLAIM_CHARS:,} characters")
    return claim


class ClaimInput(BaseModel):
    """One claim to verify: the user's id for it, its text, and (optionally) the only papers it
    may be judged against, named as the corpus names them (SciFact ``doc_id``, BEIR ``_id``,
    BibTeX key, DOI, PMID, arXiv id). ``papers`` absent: the corpus is searched with the claim."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=200, description="the caller's id for the claim")
    claim: str = Field(description="the claim's text")
    papers: list[str] | None = Field(
        None,
        description="the only corpus papers to judge it against (ids as the "
        "corpus names them); absent: the corpus is searched with the claim",
    )

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: object) -> str:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValueError("id must be a string or a whole number")
        return str(value).strip()

    @field_validator("claim")
    @classmethod
    def _claim(cls, value: str) -> str:
        return clean_claim(value)

    @field_validator("papers", mode="before")
    @classmethod
    def _papers(cls, value: object) -> list[str] | None:
        if value is None:
            return None
        if not isinstance(value, list) or not all(
            isinstance(p, str | int) and not isinstance(p, bool) for p in value
        ):
            raise ValueError("papers must be a list of paper ids")
        ids = list(dict.fromkeys(str(p).strip() for p in value if str(p).strip()))
        if not ids:
            raise ValueError("papers is empty: leave it out to search the corpus for the claim")
        return ids


class ClaimsFileError(ValueError):
    """A claims file that cannot be read as claims; the message names the line."""


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def parse_claims(text: str) -> list[ClaimInput]:
    """Claims of a file: JSON Lines (``{"id": …, "claim": "…", "papers": [ids]}``, ``id``
    defaulting to the line number) when its first claim line starts with ``{``, else plain text
    with one claim a line. Blank lines and ``#`` comments are skipped. Raises ``ClaimsFileError``
    naming the first bad line, a repeated id or claim, or a file with no claim."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
    if not lines:
        raise ClaimsFileError(
            'the claims file holds no claim (one claim a line, or JSON Lines with a "claim" key)'
        )
    as_json = lines[0][1].startswith("{")
    claims: list[ClaimInput] = []
    seen_ids: dict[str, int] = {}
    seen_texts: dict[str, int] = {}
    for number, line in lines:
        if as_json:
            try:
                item = load_json(line)
            except JsonTextError as exc:
                raise ClaimsFileError(f"line {number} is {exc}") from None
            if not isinstance(item, dict):
                raise ClaimsFileError(f'line {number} is not a JSON object like {{"claim": "…"}}')
            if "claim" not in item:
                raise ClaimsFileError(f'line {number} has no "claim" key')
            item = {"id": number, **item} if item.get("id") is None else item
        else:
            item = {"id": number, "claim": line}
        try:
            claim = ClaimInput.model_validate(item)
        except ValidationError as exc:
            raise ClaimsFileError(f"line {number}: {_first_error(exc)}") from None
        if claim.id in seen_ids:
            raise ClaimsFileError(
                f"line {number}: id {claim.id!r} is already used on line {seen_ids[claim.id]}"
            )
        key = claim_id_for("", claim.claim)  # the claims table keys claims by their text
        if key in seen_texts:
            raise ClaimsFileError(
                f"line {number} repeats the claim of line {seen_texts[key]}; "
                "give it once, with the papers of both in one list"
            )
        seen_ids[claim.id], seen_texts[key] = number, number
        claims.append(claim)
    return claims


class ScopeRow(BaseModel):
    """One paper in one claim's evidence scope, ``rank`` 1 for the claim's first paper."""

    claim_id: str
    input_id: str
    paper_id: str
    rank: int


def scope_claims(
    task_id: str, claims: Sequence[ClaimInput], records: Sequence[Sequence[PaperRecord]]
) -> tuple[list[CanonicalPaper], list[ScopeRow]]:
    """The papers of a verify task and each claim's scope. ``records[i]`` are claim ``i``'s
    papers, best first (the ones it names, or its search hits). Papers are merged across claims
    as any task's are; a claim keeps, in its order, the canonical papers its records became."""
    flat = [r for per_claim in records for r in per_claim]
    papers = canonicalize(flat)
    paper_of = {source: p.paper_id for p in papers for source in p.sources}
    scope: list[ScopeRow] = []
    for claim, per_claim in zip(claims, records, strict=True):
        ids = dict.fromkeys(
            paper_of[f"{r.source}:{r.source_id}"]
            for r in per_claim
            if f"{r.source}:{r.source_id}" in paper_of
        )
        cid = claim_id_for(task_id, claim.claim)
        scope += [
            ScopeRow(claim_id=cid, input_id=claim.id, paper_id=pid, rank=rank)
            for rank, pid in enumerate(ids, start=1)
        ]
    return papers, scope
