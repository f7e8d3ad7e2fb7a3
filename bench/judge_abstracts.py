"""The judge on real abstracts: Evidence Inference v2 prompts phrased as claims, each judged against
the whole abstract of its trial, end to end as ``lyra verify --claims`` judges a claim whose
``papers`` name that abstract.

Each prompt (intervention I, comparator C, outcome O, the direction its annotators found) gives four
claims — "I increases O compared with C", "I reduces O compared with C", "I has no effect on O
compared with C", and "I is associated with higher (or lower, by the seed) O" — SUPPORT where the
claim's direction is the one found, CONTRADICT where it is not ("reduces" against an increase or no
difference), and one claim (a form chosen by the seed) judged against another trial's abstract: NEI.
Every two-sentence window of the abstract (``lyra_core.fragments``, as ``nli_edges`` cuts a paper)
is judged by Lyra's judge (``lyra_resources.models.direction_judge``, the Python entry ``nli_edges``
uses), and the claim's verdict is Lyra's: one vote per paper, the Beta update, the verdict words
(supported / well_supported → SUPPORT, likely_false → CONTRADICT, else NEI), without the evidence
gates (finding role, similarity) of a task's run.

Two rules for a passage about the claim's exposure and outcome whose words and figures state no
direction, side by side on the same model outputs: the cross-encoder decides (the older rule), or
the direction reader when it reads a direction with at least a probability chosen on the
validation prompts (no vote below it). Validation prompts choose it; test prompts only score.
Also printed: the share of prompts whose finding's figures were read (an edge about the exposure
and the outcome on the trial's own abstract with ``effect_figures``).

    .venv/bin/python -m bench.judge_abstracts [--prompts 100] [--seed 13] [--threads 2]
"""

from __future__ import annotations

import argparse
import csv
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bench.common import require_data
from bench.verification import VERDICT_TO_LABEL, report
from lyra_core.fragments import make_fragments
from lyra_core.scoring import Evidence, ScoringRule, score_claim
from lyra_resources.models.direction_judge import EdgeJudgement, direction_reader, judge_triples
from lyra_resources.models.inference import nli_model, set_threads
from lyra_training.direction_data import read_findings
from lyra_training.selector_data import read_ei_abstract as read_abstract

THRESHOLDS = (0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)  # 1.01: the reader alone never votes
_FORMS = ("increase", "decrease", "no_effect", "association")
_SUPPORTED_BY = {"increase": "increased", "decrease": "decreased", "no_effect": "no_difference"}


def claim_text(form: str, intervention: str, comparator: str, outcome: str, higher: bool) -> str:
    if form == "association":
        return f"{intervention} is associated with {'higher' if higher else 'lower'} {outcome}."
    verb = {"increase": "increases", "decrease": "reduces", "no_effect": "has no effect on"}[form]
    return f"{intervention} {verb} {outcome} compared with {comparator}."


def gold_of(form: str, found: str, higher: bool) -> str:
    wanted = ("increased" if higher else "decreased") if form == "association" else _SUPPORTED_BY[form]
    return "SUPPORT" if wanted == found else "CONTRADICT"


def build_claims(folder: Path, split: str, prompts: int, seed: int) -> list[dict]:
    """``prompts`` prompts of ``split`` (by seed) whose abstract is on disk, each with its claims."""
    findings = read_findings(folder, split)
    votes: dict[str, Counter] = {}
    first = {}
    for f in findings:
        votes.setdefault(f.prompt, Counter())[f.label] += 1
        first.setdefault(f.prompt, f)
    with (folder / "prompts_merged.csv").open(encoding="utf-8") as handle:
        known = {row["PromptID"] for row in csv.DictReader(handle)}
    ids = sorted(
        p for p in votes if p in known and (folder / "abstracts" / f"PMC{first[p].article}.abst").exists()
    )
    rng = random.Random(seed)
    chosen = sorted(rng.sample(ids, min(prompts, len(ids))), key=int)
    articles = sorted({first[p].article for p in ids})
    claims = []
    for prompt in chosen:
        f, found = first[prompt], votes[prompt].most_common(1)[0][0]
        higher = rng.random() < 0.5
        for form in _FORMS:
            text = claim_text(form, f.intervention, f.comparator, f.outcome, higher)
            claims.append(
                {
                    "prompt": prompt,
                    "claim": text,
                    "article": f.article,
                    "gold": gold_of(form, found, higher),
                    "form": form,
                }
            )
        other = rng.choice([a for a in articles if a != f.article])
        form = rng.choice(_FORMS)
        claims.append(
            {
                "prompt": prompt,
                "claim": claim_text(form, f.intervention, f.comparator, f.outcome, higher),
                "article": other,
                "gold": "NEI",
                "form": form,
            }
        )
    return claims


def cached(
    predict: Callable[[list[tuple[str, str]]], list], cache: dict
) -> Callable[[list[tuple[str, str]]], list[dict]]:
    """``predict`` behind a cache of its answers, as ``{"label", "confidence", "probs"}``."""

    def serve(pairs: list[tuple[str, str]]) -> list[dict]:
        missing = sorted({p for p in pairs if p not in cache})
        for pair, result in zip(missing, predict(missing), strict=True):
            cache[pair] = result.model_dump()
        return [cache[p] for p in pairs]

    return serve


def at_threshold(
    voting: list[EdgeJudgement], silent: list[EdgeJudgement], reader_min: float
) -> list[EdgeJudgement]:
    """The edges ``judge_triples`` gives at ``reader_min``, from its edges at 0 (the reader alone always
    decides) and above 1 (never): the model outputs and the rules read once for every threshold."""
    return [
        v if s.reader_probability is None or s.reader_probability >= reader_min else s
        for v, s in zip(voting, silent, strict=True)
    ]


def verdict_of(edges: list[EdgeJudgement], article: str) -> str:
    evidence = [Evidence(relation=e.relation, nli_confidence=e.confidence, page_id=article) for e in edges]
    return VERDICT_TO_LABEL.get(score_claim(evidence, True, ScoringRule()).verdict, "NEI")


class Run:
    """The judge's edges for one split's claims, the models' answers cached across rules."""

    def __init__(self, folder: Path, claims: list[dict]):
        self.claims = claims
        self.papers = {
            a: read_abstract(folder / "abstracts" / f"PMC{a}.abst") for a in {c["article"] for c in claims}
        }
        self.triples, self.owner = [], []
        for i, c in enumerate(claims):
            title, abstract = self.papers[c["article"]]
            for fragment in make_fragments(c["article"], abstract):
                self.triples.append((c["claim"], fragment.text, f"{title} {abstract}"))
                self.owner.append(i)
        reader, nli = direction_reader(), nli_model()
        self.read, self.nli = cached(reader.predict, {}), cached(nli.predict, {})

    def edges(self, unstated: str, reader_min: float = 0.0) -> list[list[EdgeJudgement]]:
        if unstated == "reader":
            # the two extremes judged once; a threshold picks, per edge, between them as judge_triples would
            if not hasattr(self, "_extremes"):
                self._extremes = [
                    judge_triples(self.triples, self.read, self.nli, "reader", t) for t in (0.0, 1.01)
                ]
            judged = at_threshold(*self._extremes, reader_min)
        else:
            judged = judge_triples(self.triples, self.read, self.nli, unstated, reader_min)
        out: list[list[EdgeJudgement]] = [[] for _ in self.claims]
        for i, edge in zip(self.owner, judged, strict=True):
            out[i].append(edge)
        return out

    def verdicts(self, edges: list[list[EdgeJudgement]]) -> dict[int, str]:
        return {
            i: verdict_of(e, c["article"]) for i, (c, e) in enumerate(zip(self.claims, edges, strict=True))
        }

    def gold(self) -> dict[int, str]:
        return {i: c["gold"] for i, c in enumerate(self.claims)}

    def figures_read(self, edges: list[list[EdgeJudgement]]) -> tuple[int, int, int]:
        """Prompts, those with figures read on an edge about both parts on their own abstract, and those
        whose deciding edge there carries figures."""
        on_own: dict[str, list[EdgeJudgement]] = {}
        for c, e in zip(self.claims, edges, strict=True):
            if c["gold"] != "NEI" and c["form"] == "decrease":
                on_own[c["prompt"]] = e
        anywhere = sum(
            any(x.effect_figures and x.exposure_matched and x.outcome_matched for x in e)
            for e in on_own.values()
        )
        deciding = sum(
            bool(max(e, key=lambda x: max(x.p_supports, x.p_refutes)).effect_figures)
            for e in on_own.values()
            if e
        )
        return len(on_own), anywhere, deciding


def describe(claims: list[dict]) -> str:
    counts = Counter(c["gold"] for c in claims)
    return (
        f"{len({c['prompt'] for c in claims})} prompts, {len(claims)} claims "
        f"({counts['SUPPORT']} SUPPORT, {counts['CONTRADICT']} CONTRADICT, {counts['NEI']} NEI)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", type=int, default=100, help="prompts drawn per split (by --seed)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    set_threads(args.threads)
    folder = require_data("nli_training", "evidence_inference")
    started = time.perf_counter()
    validation = Run(folder, build_claims(folder, "validation", args.prompts, args.seed))
    print(f"validation: {describe(validation.claims)}, {len(validation.triples)} (claim, window) pairs")
    gold = validation.gold()
    scores = {}
    for threshold in THRESHOLDS:
        scores[threshold] = report(
            f"the reader alone votes at ≥ {threshold:.2f}",
            gold,
            validation.verdicts(validation.edges("reader", threshold)),
        )
    chosen = max(THRESHOLDS, key=lambda t: (round(scores[t], 3), t))
    report(
        "cross-encoder where no direction is stated (before)",
        gold,
        validation.verdicts(validation.edges("cross-encoder")),
    )
    print(f"chosen on validation: the reader alone votes at ≥ {chosen:.2f}")
    test = Run(folder, build_claims(folder, "test", args.prompts, args.seed))
    print(f"test: {describe(test.claims)}, {len(test.triples)} (claim, window) pairs")
    gold = test.gold()
    before, after = test.edges("cross-encoder"), test.edges("reader", chosen)
    report("before: the cross-encoder where no direction is stated", gold, test.verdicts(before))
    report(f"after: the reader alone at ≥ {chosen:.2f}, else no vote", gold, test.verdicts(after))
    for name, edges in (("before", before), ("after", after)):
        prompts, anywhere, deciding = test.figures_read(edges)
        print(
            f"  figures read ({name}): {anywhere} of {prompts} prompts on an edge about both parts of the "
            f"trial's own abstract ({anywhere / max(prompts, 1):.0%}); on the deciding edge {deciding} "
            f"({deciding / max(prompts, 1):.0%})"
        )
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
