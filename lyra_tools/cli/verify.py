"""``lyra verify``: a claims file checked, before any task exists, and a verify task's results
read back from its tables as one JSON line per claim."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from lyra_core.claim_inputs import ClaimsFileError, parse_claims
from lyra_core.claims import claim_id_for
from lyra_core.tasks import TaskOptions
from lyra_resources.corpus.local_corpus import CorpusError
from lyra_resources.home import HomeLayout
from lyra_resources.settings.pipeline import EvidenceSettings
from lyra_resources.sources.literature import LiteratureSources, UnknownPapersError
from lyra_resources.store import verify_rows
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli.common import command_settings

CORPUS_SOURCE = "local:"  # how papers.sources names a local corpus record: local:<its id in the file>
# Recorded costs on a 2-core CPU with other work beside it (docs/running.md): the NLI cross-encoder
# judged 11 pairs/s (the direction reader of effect claims is faster, ~70/s: the estimate is an upper
# bound) and MiniLM embedded 17 claims/s. A corpus not yet embedded for the home adds its own time.
SECONDS_PER_PAIR = 1 / 11
SECONDS_PER_CLAIM = 1 / 17


class VerifyInputError(ValueError):
    """A claims file or corpus a verify task cannot be made from; one line for the user."""


def verify_options(
    corpus: list[Path],
    claims_file: Path,
    text: str,
    papers_per_claim: int,
    layout: HomeLayout,
    max_claims: int | None = None,
) -> tuple[TaskOptions, VerifyPlan]:
    """The options of a verify task and its plan, once ``text`` (the claims file's) reads as at most
    ``max_claims`` claims and every paper id it names is in the corpus. Raises ``VerifyInputError``
    otherwise; creates no task, and a batch too large is refused before the corpus is read."""
    missing = [str(p) for p in corpus if not p.exists()]
    if missing:
        raise VerifyInputError(f"path not found: {', '.join(missing)}")
    try:
        claims = parse_claims(text)
    except ClaimsFileError as exc:
        raise VerifyInputError(f"{claims_file}: {exc}") from None
    paths = [str(p.resolve()) for p in corpus]
    settings = command_settings()
    options = TaskOptions(corpus=paths, verify_claims=claims, papers_per_claim=papers_per_claim)
    plan = verify_plan(options, settings.evidence)
    if max_claims is not None and (refusal := too_many_claims(plan, claims_file, max_claims)):
        raise VerifyInputError(refusal)
    literature = LiteratureSources.configured(layout.cache, settings)  # the cache the task's run reads too
    try:  # only the claims that name papers: the others are searched when the task runs
        literature.claim_papers(paths, [c for c in claims if c.papers is not None], papers_per_claim)
    except (UnknownPapersError, CorpusError) as exc:
        raise VerifyInputError(
            f"{claims_file}: {exc}" if isinstance(exc, UnknownPapersError) else str(exc)
        ) from None
    return options, plan


class VerifyPlan(BaseModel):
    """How much a verify task will judge, known before any model runs: its claims, the NLI pairs it
    judges at most (each claim's fragment limit, ``scoped_pairs`` in lyra_assets.evidence.judging) and the
    time those take at the recorded costs."""

    claims: int
    max_pairs: int
    seconds: float

    def line(self, what: str = "verify") -> str:
        return (
            f"{what}: {self.claims:,} claims, at most {self.max_pairs:,} NLI pairs; estimated {duration(self.seconds)} "
            f"(recorded {1 / SECONDS_PER_PAIR:.0f} pairs/s and {1 / SECONDS_PER_CLAIM:.0f} claims/s embedded on a "
            "2-core CPU; an unembedded corpus adds its own)"
        )


def verify_plan(options: TaskOptions, cfg: EvidenceSettings) -> VerifyPlan:
    """The plan of a verify task with ``options``: a claim naming papers meets up to
    ``verify_max_fragments`` fragments of them, one searched for up to ``verify_top_k``."""
    pairs = sum(cfg.verify_max_fragments if c.papers else cfg.verify_top_k for c in options.verify_claims)
    claims = len(options.verify_claims)
    return VerifyPlan(
        claims=claims, max_pairs=pairs, seconds=pairs * SECONDS_PER_PAIR + claims * SECONDS_PER_CLAIM
    )


def duration(seconds: float) -> str:
    """``seconds`` as a person reads a duration: ``under a minute``, ``12 min``, ``3 h 20 min``."""
    minutes = round(seconds / 60)
    if minutes < 1:
        return "under a minute"
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def claims_plan(claims: int, pairs_per_claim: int) -> VerifyPlan:
    """The plan of ``claims`` claims each judged against up to ``pairs_per_claim`` fragments (a
    ``lyra run``'s own claims: ``evidence.nli_top_k`` each), at the recorded costs."""
    pairs = claims * pairs_per_claim
    return VerifyPlan(
        claims=claims, max_pairs=pairs, seconds=pairs * SECONDS_PER_PAIR + claims * SECONDS_PER_CLAIM
    )


def too_many_claims(plan: VerifyPlan, source: Path | str, max_claims: int) -> str | None:
    """The refusal of a batch larger than ``max_claims`` from ``source`` (the claims file), in one
    line; None when it fits. ``lyra verify`` and ``lyra run`` bound their claims with it."""
    if plan.claims <= max_claims:
        return None
    return (
        f"{source} holds {plan.claims:,} claims, more than --max-claims {max_claims:,} (at most "
        f"{plan.max_pairs:,} NLI pairs, estimated {duration(plan.seconds)}); pass --max-claims {plan.claims} "
        "to verify them in one task, or split the file"
    )


def corpus_id(paper_id: str | None, sources) -> str | None:
    """The paper's id in the corpus file (SciFact doc_id, BEIR _id, BibTeX key), else Lyra's."""
    local = [
        s.removeprefix(CORPUS_SOURCE)
        for s in (list(sources) if sources is not None else [])
        if s.startswith(CORPUS_SOURCE)
    ]
    return local[0] if local else paper_id


def verify_results(store: LyraStore, task_id: str) -> list[dict]:
    """One result per claim of a verify task, in the claims file's order, from its tables alone."""
    options = TaskOptions.model_validate(store.require_task(task_id).options)
    if not options.is_verify:
        raise VerifyInputError(f"task {task_id} is not a verify task (made by `lyra verify`)")
    scores = verify_rows.claim_scores(store, task_id)
    scope = verify_rows.scope_sizes(store, task_id)
    best = {
        (r.claim_id, r.relation): {
            "paper": corpus_id(r.paper_id, r.sources),
            "paper_id": r.paper_id,
            "title": r.title,
            "text": r.text,
            "probability": round(float(r.probability), 4),
            "edge_id": r.edge_id,
            "reason": r.reason,
        }
        for r in verify_rows.strongest_edges(store, task_id).itertuples(index=False)
    }
    results = []
    for claim in options.verify_claims:
        cid = claim_id_for(task_id, claim.claim)
        score = scores.loc[cid] if cid in scores.index else None
        results.append(
            {
                "id": claim.id,
                "claim": claim.claim,
                "claim_id": cid,
                "verdict": score["verdict"] if score is not None else None,
                **{
                    k: (round(float(score[k]), 4) if score is not None else None)
                    for k in ("confidence", "uncertainty", "controversy")
                },
                "evidence_count": int(score["evidence_count"]) if score is not None else 0,
                "papers_judged": int(scope.get(cid, 0)),
                "supporting": best.get((cid, "SUPPORTS")),
                "refuting": best.get((cid, "REFUTES")),
            }
        )
    return results


def write_results(store: LyraStore, task_id: str, path: Path) -> Counter:
    """Write the task's results as JSON Lines to ``path``; returns the count of each verdict."""
    results = verify_results(store, task_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in results), encoding="utf-8")
    return Counter(r["verdict"] for r in results)
