"""What a task asks for: the options recorded with it when it is created."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from lyra_core.claim_inputs import ClaimInput, clean_claim
from lyra_core.claims import claim_id_for

# Linux's PATH_MAX: a longer "path" is no path, and the OS answers it with an OSError, not "not found"
CorpusPath = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4096)]

MIN_WATCH_INTERVAL = timedelta(minutes=15)
MAX_WATCH_INTERVAL = timedelta(days=366)
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_INTERVAL = re.compile(r"(\d+)\s*([mhdw])")
_MAX_DIGITS = 6  # 999,999 minutes is over a year already: a longer number is over the maximum, not read


def parse_interval(text: str) -> timedelta:
    """``30m``, ``12h``, ``1d`` or ``2w`` as a ``timedelta``; anything else, or an interval under
    15 minutes or over a year, raises ``ValueError`` with a message meant for the user."""
    match = _INTERVAL.fullmatch(str(text).strip().lower())
    text = str(text)
    shown = repr(text) if len(text) <= 40 else f"{text[:30]!r}… ({len(text):,} characters)"
    if match is None:
        raise ValueError(
            f"watch interval {shown} is not a whole number followed by m, h, d or w "
            "(minutes, hours, days, weeks), e.g. 30m, 12h, 1d, 2w"
        )
    number = match.group(1).lstrip("0") or "0"
    if len(number) > _MAX_DIGITS:  # not made a timedelta: days past 999,999,999 overflow it
        raise ValueError(f"watch interval {shown} is longer than the maximum of one year (366d)")
    interval = timedelta(**{_UNITS[match.group(2)]: int(number)})
    if interval < MIN_WATCH_INTERVAL:
        raise ValueError(f"watch interval {shown} is shorter than the minimum of 15 minutes (15m)")
    if interval > MAX_WATCH_INTERVAL:
        raise ValueError(f"watch interval {shown} is longer than the maximum of one year (366d)")
    return interval


class TaskOptions(BaseModel):
    """Options stored in ``tasks.options``; every later run of the task reads them."""

    model_config = ConfigDict(extra="forbid")
    corpus: list[CorpusPath] = Field(
        default_factory=list,
        max_length=50,
        description="local corpus files or folders (JSON Lines, BibTeX) on the machine "
        "that runs Lyra, searched instead of (or besides) the live APIs",
    )
    papers_per_source: int | None = Field(
        None,
        ge=1,
        le=1000,
        description="papers asked of each source (corpus, "
        "Semantic Scholar, OpenAlex); default: the settings' value",
    )
    claims: list[str] = Field(
        default_factory=list,
        description="claims to verify against the literature besides "
        "those Lyra extracts (10 to 1,000 characters each)",
    )
    watch_every: str | None = Field(
        None,
        description="re-run the task this often, e.g. 30m, 12h, 1d, 2w (at least "
        "15m, at most 366d; feedback is kept): the Dagster schedule "
        "`watched_tasks_schedule` does",
    )
    verify_claims: list[ClaimInput] = Field(
        default_factory=list,
        description="a verify task (`lyra verify`): these claims, each judged only against its "
        "own papers (those it names, else its own search of the corpus); nothing is extracted",
    )
    # 5, not 10: on SciFact train claims the verdicts held (docs/benchmarks.md) with half the fragments to embed
    papers_per_claim: int = Field(
        5, ge=1, le=100, description="corpus hits per claim of a verify task that names no papers"
    )

    @property
    def is_verify(self) -> bool:
        return bool(self.verify_claims)

    @field_validator("verify_claims")
    @classmethod
    def _distinct_inputs(cls, claims: list[ClaimInput]) -> list[ClaimInput]:
        ids, texts = set(), set()
        for claim in claims:
            key = claim_id_for("", claim.claim)
            if claim.id in ids:
                raise ValueError(f"claim id {claim.id!r} is given twice")
            if key in texts:
                raise ValueError(f"claim {claim.claim[:60]!r} is given twice")
            ids.add(claim.id)
            texts.add(key)
        return claims

    @model_validator(mode="after")
    def _one_kind_of_claims(self) -> TaskOptions:
        if self.verify_claims and self.claims:
            raise ValueError("a verify task takes its claims from verify_claims only, not claims")
        return self

    @field_validator("watch_every")
    @classmethod
    def _check_interval(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parse_interval(value)
        return "".join(value.split()).lower()  # one spelling: "1d", not " 1 D"

    @field_validator("claims")
    @classmethod
    def _clean_claims(cls, claims: list[str]) -> list[str]:
        return list(dict.fromkeys(clean_claim(c) for c in claims))
