"""Which of the direction judge's rules earn their place: today's judge (``judge_triples``) run once as
it ships and once per variant that leaves one rule out, on the same claims and the same model answers.

A variant neutralises a rule by replacing its functions (a predicate answers False, an extractor finds
nothing, a rewriting returns its text unchanged) in every module of ``lyra_core.direction`` and in
``lyra_resources.models.direction_judge`` that holds them, and restores them afterwards. The two models'
answers (the direction reader's, the cross-encoder's) are kept on disk (``--cache``), keyed by model and
input pair: computed once; a variant whose rules ask the reader another question (the outcome named from
its other end, other sentences) computes only those.

Sets (one vote per paper, the Beta update, the verdict words, as ``bench.judge_abstracts``):

- Evidence Inference v2 validation prompts (``--validation`` drawn by ``--seed``) and test prompts
  (``--test``), ``bench.judge_abstracts``' claims against every window of the trial's abstract; "in
  abstract": the prompts whose annotated evidence lies in the abstract (``read_ei_v2``).
- SciFact train claims (``--scifact``) against the papers they cite (``bench.selected_windows``).
- The generated real-form pairs (``bench.generated_forms``, ``--per-topic`` on Evidence Inference test
  topics, seed 7): accuracy of the relation.

Validation decides; test and SciFact confirm.

    .venv/bin/python -m bench.rule_ablation [--validation 200] [--test 100] [--scifact 200] [--seed 13]
        [--cache /tmp/rule_ablation.pkl] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import importlib
import json
import pickle
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import SHARED_DATA, require_data, scifact_claim_label
from bench.judge_abstracts import build_claims
from bench.verification import VERDICT_TO_LABEL, macro_f1
from lyra_core.fragments import make_fragments
from lyra_core.scoring import Evidence, ScoringRule, score_claim
from lyra_resources.models.direction_judge import EdgeJudgement, judge_triples
from lyra_training.selector_data import read_ei_abstract, read_ei_v2

READER_MIN = 0.0  # evidence.reader_alone_min as config/settings.yaml ships it
NEVER = re.compile(r"(?!x)x")  # a pattern that matches nothing


def _false(*_: Any, **__: Any) -> bool:
    return False


def _none(*_: Any, **__: Any) -> None:
    return None


def _empty(*_: Any, **__: Any) -> str:
    return ""


def _nothing(*_: Any, **__: Any) -> list:
    return []


def _text(text: str, *_: Any, **__: Any) -> str:
    return text


def _as_is(phrase: str, *_: Any, **__: Any) -> tuple[str, bool]:
    return phrase, False


def _outcome_text(outcome: str, passage: str, *_: Any, **__: Any) -> str:
    return passage


Patch = tuple[str, str, Any]  # module, name, replacement
D = "lyra_core.direction."

# Each variant: the rules it leaves out. Module-wide variants first, then parts of the larger modules.
VARIANTS: dict[str, list[Patch]] = {
    "another_thing": [
        (D + "another_thing", "said_of_another_thing", _false),
        (D + "another_thing", "subject_is_another_thing", _false),
    ],
    "other_kinds": [
        (D + "other_kinds", "another_kind", _false),
        (D + "other_kinds", "another_site", _false),
        (D + "other_kinds", "named_as_other", _false),
    ],
    "covariates": [(D + "covariates", "without_covariates", _text)],
    "population": [(D + "population", "only_as_population", _false)],
    "loss_of_function": [
        (D + "loss_of_function", "named_as_lost", _none),
        (D + "loss_of_function", "named_as_comparator", _false),
    ],
    "other_end": [
        (D + "other_end", "as_named_in", _as_is),
        (D + "other_end", "exposure_as_named_in", _as_is),
        (D + "other_end", "status_for_intervention", _none),
    ],
    "other_end.as_named_in": [(D + "other_end", "as_named_in", _as_is)],
    "other_end.exposure_as_named_in": [(D + "other_end", "exposure_as_named_in", _as_is)],
    "other_end.status_for_intervention": [(D + "other_end", "status_for_intervention", _none)],
    "contrast": [
        (D + "contrast", "named_at_other_level", _empty),
        (D + "contrast", "exposure_named_after_than", _empty),
    ],
    "arms": [(D + "arms", "names_arm", _false), (D + "arms", "named_order", _none)],
    "fisher": [(D + "fisher", "fisher_exact_p", _none)],
    "abbreviations": [
        (D + "abbreviations", "spelled_out", _text),
        (D + "abbreviations", "phrase_spelled_out", _text),
    ],
    "terms.same_thing": [(D + "terms", "_concept", _text)],
    "figures": [(D + "figures", "effect_figures", _nothing), (D + "figures", "p_values", _nothing)],
    "figures.ratios": [(D + "figures", "ratios", _nothing)],
    "figures.differences": [(D + "figures", "differences", _nothing)],
    "figures.arms": [(D + "figures", "arms", _nothing)],
    "figures.compared_not_significant": [(D + "figures", "compared_not_significant", _nothing)],
    "figures.significance_stated": [(D + "figures", "significance_stated", _nothing)],
    "figures._mention_order": [(D + "figures", "_mention_order", _none)],
    "passage.no_finding": [(D + "passage", "states_no_finding", _false)],
    "passage.open_question": [(D + "passage", "states_open_question", _false)],
    "passage.survival_events": [(D + "passage", "counts_events_of_survival", _false)],
    "passage.reductions": [(D + "passage", "counts_reductions", _false)],
    "passage.words": [(D + "passage", "_worded_direction", _none)],
    "passage.null_phrase": [(D + "passage", "NULL_FINDING", NEVER)],
    "passage.not_significant": [(D + "passage", "NOT_SIGNIFICANT", NEVER)],
    "passage._comparator_named_first": [(D + "passage", "_comparator_named_first", _false)],
    "passage._listed_beside": [(D + "passage", "_listed_beside", _false)],
    "passage._nearer_the_outcome": [(D + "passage", "_nearer_the_outcome", _false)],
    "passage._names_a_cause": [(D + "passage", "_names_a_cause", _false)],
    "passage._bounded_count": [(D + "passage", "_BOUNDED_COUNT", NEVER)],
    "passage.read_passage": [(D + "passage", "read_passage", lambda *a, **k: _reading())],
    "relevance.outcome_sentences": [(D + "relevance", "outcome_sentences", _outcome_text)],
    "relevance.side_by_side": [(D + "relevance", "side_by_side", _false)],
    "relevance.names_by_acronym": [(D + "relevance", "names_by_acronym", _false)],
    "relevance._names_all": [(D + "relevance", "_names_all", lambda *a, **k: True)],
    "relevance (all about both)": [(D + "relevance", "relevance", lambda *a, **k: _about_both())],
    "verdict.null_weight": [(D + "verdict", "null_weight", lambda *a, **k: 1.0)],
}


def _reading() -> Any:
    from lyra_core.direction.passage import PassageReading

    return PassageReading()


def _about_both() -> Any:
    from lyra_core.direction.relevance import Relevance

    return Relevance(exposure_matched=True, outcome_matched=True)


def _scopes() -> list[Any]:
    return [
        module
        for name, module in list(sys.modules.items())
        if module is not None
        and (name.startswith("lyra_core.direction") or name == "lyra_resources.models.direction_judge")
    ]


def _clear_caches() -> None:
    for module in _scopes():
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


@contextmanager
def without(patches: list[Patch]) -> Iterator[int]:
    """The rules with ``patches`` applied wherever a module holds the original (under any name);
    yields how many attributes were replaced."""
    saved: list[tuple[Any, str, Any]] = []
    for module_name, name, replacement in patches:
        try:
            original = getattr(importlib.import_module(module_name), name)
        except (ImportError, AttributeError):  # a rule since retired: nothing to leave out
            continue
        for module in _scopes():
            for attr, value in list(vars(module).items()):
                if value is original:
                    saved.append((module, attr, value))
                    setattr(module, attr, replacement)
    _clear_caches()
    try:
        yield len(saved)
    finally:
        for module, attr, value in reversed(saved):
            setattr(module, attr, value)
        _clear_caches()


class ModelAnswers:
    """The two models' answers by (model, first text, second text), on disk at ``path``; a missing
    answer is computed (the models loaded on first need)."""

    def __init__(self, path: Path, threads: int):
        self.path, self.threads = path, threads
        self.answers: dict[tuple[str, str, str], dict] = {}
        if path.exists():
            with path.open("rb") as handle:
                self.answers = pickle.load(handle)
        self.computed = 0
        self._models: dict[str, Any] = {}

    def _model(self, kind: str) -> Any:
        if kind not in self._models:
            from lyra_resources.models.direction_judge import direction_reader
            from lyra_resources.models.inference import nli_model, set_threads

            set_threads(self.threads)
            self._models[kind] = direction_reader() if kind == "reader" else nli_model()
        return self._models[kind]

    def serve(self, kind: str) -> Callable[[list[tuple[str, str]]], list[dict]]:
        def predict(pairs: list[tuple[str, str]]) -> list[dict]:
            missing = sorted({p for p in pairs if (kind, *p) not in self.answers})
            if missing:
                for pair, result in zip(missing, self._model(kind).predict(missing), strict=True):
                    self.answers[(kind, *pair)] = result.model_dump()
                self.computed += len(missing)
                self.save()
            return [self.answers[(kind, *p)] for p in pairs]

        return predict

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        part = self.path.with_suffix(".part")
        with part.open("wb") as handle:
            pickle.dump(self.answers, handle)
        part.replace(self.path)


@dataclass
class ClaimSet:
    """Claims each judged against windows of one or more papers, and the subsets scored."""

    name: str
    triples: list[tuple[str, str, str]] = field(default_factory=list)
    owner: list[tuple[int, str]] = field(default_factory=list)  # (claim, paper) of each triple
    gold: dict[int, str] = field(default_factory=dict)
    subsets: dict[str, list[int]] = field(default_factory=dict)

    def add(self, claim_id: int, claim: str, paper: str, title: str, text: str) -> None:
        for fragment in make_fragments(paper, text):
            self.triples.append((claim, fragment.text, f"{title} {text}"))
            self.owner.append((claim_id, paper))

    def scores(self, edges: list[EdgeJudgement]) -> dict[str, float]:
        evidence: dict[int, list[Evidence]] = {i: [] for i in self.gold}
        for (i, paper), e in zip(self.owner, edges, strict=True):
            evidence[i].append(Evidence(relation=e.relation, nli_confidence=e.confidence, page_id=paper))
        rule = ScoringRule()
        verdicts = {
            i: VERDICT_TO_LABEL.get(score_claim(ev, True, rule).verdict, "NEI") for i, ev in evidence.items()
        }
        return {
            name: macro_f1([self.gold[i] for i in ids], [verdicts[i] for i in ids])[0]
            for name, ids in self.subsets.items()
        }


def evidence_inference(folder: Path, split: str, prompts: int, seed: int) -> ClaimSet:
    claims = build_claims(folder, split, prompts, seed)
    inside = {q.source.split(":", 1)[1] for q in read_ei_v2(folder, split) if q.gold}
    out = ClaimSet(f"EI {split}")
    papers: dict[str, tuple[str, str]] = {}
    for i, c in enumerate(claims):
        if c["article"] not in papers:
            papers[c["article"]] = read_ei_abstract(folder / "abstracts" / f"PMC{c['article']}.abst")
        out.add(i, c["claim"], c["article"], *papers[c["article"]])
        out.gold[i] = c["gold"]
    out.subsets = {
        "in abstract": [i for i, c in enumerate(claims) if c["prompt"] in inside],
        "all": list(range(len(claims))),
    }
    return out


def scifact(count: int, seed: int) -> ClaimSet:
    data = SHARED_DATA / "scifact"
    with (data / "corpus.jsonl").open() as fh:
        corpus = {str(d["doc_id"]): d for d in map(json.loads, fh)}
    with (data / "claims_train.jsonl").open() as fh:  # train only: dev and test are held out
        every_claim = [json.loads(line) for line in fh]
    claims = random.Random(seed).sample(every_claim, min(count, len(every_claim)))
    out = ClaimSet("SciFact train, cited")
    for i, c in enumerate(claims):
        out.gold[i] = scifact_claim_label(c)
        for d in map(str, c["cited_doc_ids"]):
            if d in corpus:
                out.add(i, c["claim"], d, corpus[d]["title"], " ".join(corpus[d]["abstract"]))
    out.subsets = {"cited": list(range(len(claims)))}
    return out


@dataclass
class FormPairs:
    """The generated real-form pairs: accuracy of the relation."""

    triples: list[tuple[str, str, str]]
    labels: list[str]

    def scores(self, edges: list[EdgeJudgement]) -> dict[str, float]:
        right = sum(e.relation == label for e, label in zip(edges, self.labels, strict=True))
        return {"accuracy": right / max(len(self.labels), 1)}


def generated_forms(per_topic: int) -> FormPairs:
    from lyra_training.finding_forms import Topic, generated_pairs
    from lyra_training.selector_data import read_linearized

    path = require_data("nli_training", "evidence_inference_linearized", "test_wlabels.csv")
    topics = {
        (q.intervention, q.comparator, q.outcome): Topic(
            intervention=q.intervention, comparator=q.comparator, outcome=q.outcome
        )
        for q in read_linearized(path)
    }
    pairs = generated_pairs(list(topics.values()), per_topic, 7)
    return FormPairs([(p.claim, p.passage, p.passage) for p in pairs], [p.label for p in pairs])


COLUMNS = (
    ("EI val in", "EI validation", "in abstract"),
    ("EI val all", "EI validation", "all"),
    ("EI test in", "EI test", "in abstract"),
    ("EI test all", "EI test", "all"),
    ("SciFact", "SciFact train, cited", "cited"),
    ("forms", "forms", "accuracy"),
)


def run_all(sets: dict[str, ClaimSet | FormPairs], answers: ModelAnswers) -> dict[str, float]:
    read, nli = answers.serve("reader"), answers.serve("nli")
    out = {}
    for name, claim_set in sets.items():
        edges = judge_triples(claim_set.triples, read, nli, "reader", READER_MIN)
        for subset, score in claim_set.scores(edges).items():
            out[f"{name}|{subset}"] = score
    return {label: out[f"{name}|{subset}"] for label, name, subset in COLUMNS if f"{name}|{subset}" in out}


def line(name: str, scores: dict[str, float], full: dict[str, float] | None) -> str:
    cells = []
    for label, _, _ in COLUMNS:
        if label not in scores:
            continue
        cell = f"{scores[label]:.3f}"
        if full is not None:
            cell += f" ({scores[label] - full[label]:+.3f})"
        cells.append(f"{cell:>16}")
    return f"  {name:<36}" + "".join(cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--validation", type=int, default=200, help="EI v2 validation prompts")
    parser.add_argument("--test", type=int, default=100, help="EI v2 test prompts")
    parser.add_argument("--scifact", type=int, default=200, help="SciFact train claims")
    parser.add_argument(
        "--per-topic", type=int, default=1, help="generated pairs per EI test topic (0: none)"
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lyra_rule_ablation.pkl"))
    parser.add_argument("--only", action="append", default=[], help="only these variants (repeatable)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    started = time.perf_counter()
    folder = require_data("nli_training", "evidence_inference")
    sets: dict[str, ClaimSet | FormPairs] = {
        "EI validation": evidence_inference(folder, "validation", args.validation, args.seed),
        "EI test": evidence_inference(folder, "test", args.test, args.seed),
    }
    if args.scifact:
        sets["SciFact train, cited"] = scifact(args.scifact, args.seed)
    if args.per_topic:
        sets["forms"] = generated_forms(args.per_topic)
    for name, claim_set in sets.items():
        size = len(claim_set.gold) if isinstance(claim_set, ClaimSet) else len(claim_set.labels)
        print(f"{name}: {size} claims or pairs, {len(claim_set.triples)} judged pairs")
    answers = ModelAnswers(args.cache, args.threads)
    full = run_all(sets, answers)
    print(
        f"model answers: {len(answers.answers)} cached, {answers.computed} computed "
        f"({time.perf_counter() - started:.0f} s)"
    )
    print(f"  {'variant':<36}" + "".join(f"{label:>16}" for label, _, _ in COLUMNS if label in full))
    print(line("full rules", full, None), flush=True)
    figures = {"full rules": full}
    for name, patches in VARIANTS.items():
        if args.only and name not in args.only:
            continue
        before = answers.computed
        with without(patches) as replaced:
            if not replaced:
                print(f"  without {name}: nothing to replace (retired)")
                continue
            scores = run_all(sets, answers)
        figures[f"without {name}"] = scores
        extra = answers.computed - before
        print(
            line(f"without {name}", scores, full) + (f"  [{extra} new model answers]" if extra else ""),
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
