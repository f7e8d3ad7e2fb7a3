"""The rules as features of a learned judge: a small logistic model over what today's judge (the
direction judge and the verifier on every two-sentence window) and the label model each say of one
paper, side by side with each alone and with each half of the features left out, in one run.

Per claim and paper the features are the label model's three probabilities and the selector's
probability for its best sentence (``label``), and from the rules' edges the strongest SUPPORTS and
REFUTES probability over the paper's windows, the share of windows voting each way, and whether a
read figure carried a vote each way (``rules``). The combiner is fit on Evidence Inference v2
validation prompts (two folds by article for its own validation figure, then all of them) and scores
the test prompts once and SciFact train claims against their cited papers (the verifier was trained on
those claims: in-sample for the rules' features, so a figure to read with care).

A claim's verdict is Lyra's: one vote per paper, the Beta update, the verdict words.

    .venv/bin/python -m bench.judge_stack [--prompts 200] [--scifact 200] [--cache FILE] [--save DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from bench.common import SHARED_DATA, require_data, scifact_claim_label
from bench.judge_abstracts import Run, build_claims
from bench.rule_ablation import ModelAnswers
from bench.scifact_official import format_scores, official_scores
from bench.verification import VERDICT_TO_LABEL, report
from lyra_core.fragments import make_fragments
from lyra_core.scoring import Evidence, ScoringRule, score_claim
from lyra_core.sentences import split_sentences
from lyra_resources.models.direction_judge import EdgeJudgement, judge_triples
from lyra_resources.models.inference import set_threads
from lyra_resources.models.judge_combiner import COMBINER_FILE, RELATIONS, label_features, rule_features
from lyra_resources.models.label_model import DEFAULT_LABEL_DIR, LabelModel, PaperReading
from lyra_training.selector_data import read_ei_v2

TARGET = {"SUPPORT": 0, "CONTRADICT": 1, "NEI": 2}
LABEL_FEATURES = ("label_entail", "label_contra", "label_neutral", "selector")
RULE_FEATURES = (
    "rule_sup",
    "rule_ref",
    "share_sup",
    "share_ref",
    "figure_sup",
    "figure_ref",
    "on_topic",
    "off_topic",
)
TOPIC_FEATURES = ("on_topic", "off_topic")


def paper_row(claim: int, paper: str, gold: str, edges: list[EdgeJudgement], reading: PaperReading, **extra):
    return {
        "claim": claim,
        "paper": paper,
        "gold": gold,  # the paper's own label for the claim
        "rules_relation": _paper_relation(edges),
        "rule_edges": [e.model_dump(exclude={"reason"}) for e in edges],  # features can be read again
        "label_relation": reading.relation,
        "label_confidence": reading.confidence,
        **rule_features(edges),
        **label_features(reading),
        **extra,
    }


def _paper_relation(edges: list[EdgeJudgement]) -> list[list]:
    return [[e.relation, e.confidence] for e in edges]


def evidence_inference(folder: Path, split: str, prompts: int, seed: int, model: LabelModel) -> list[dict]:
    claims = build_claims(folder, split, prompts, seed)
    inside = {q.source.split(":", 1)[1] for q in read_ei_v2(folder, split) if q.gold}
    run = Run(folder, claims)
    run.read, run.nli = ANSWERS.serve("reader"), ANSWERS.serve("nli")
    edges = run.edges("reader", 0.0)
    readings = model.read(
        [c["claim"] for c in claims], [split_sentences(run.papers[c["article"]][1]) for c in claims]
    )
    return [
        paper_row(
            i,
            c["article"],
            c["gold"],
            edges[i],
            readings[i],
            claim_gold=c["gold"],
            split=split,
            inside=c["prompt"] in inside,
        )
        for i, c in enumerate(claims)
    ]


def scifact(count: int, seed: int, model: LabelModel, fit: int = 0) -> list[dict]:
    """SciFact train claims against their cited papers: ``count`` drawn by seed (the scored claims), or
    with ``fit`` the next ``fit`` drawn from the rest (the claims the combiner may be fit on)."""
    data = SHARED_DATA / "scifact"
    with (data / "corpus.jsonl").open() as fh:
        corpus = {str(d["doc_id"]): d for d in map(json.loads, fh)}
    with (data / "claims_train.jsonl").open() as fh:
        every_claim = [json.loads(line) for line in fh]
    claims = random.Random(seed).sample(every_claim, min(count, len(every_claim)))
    if fit:
        scored = {c["id"] for c in claims}
        rest = [c for c in every_claim if c["id"] not in scored]
        claims = random.Random(seed + 1).sample(rest, min(fit, len(rest)))
    triples, owner, keys = [], [], []
    windows: dict[tuple[int, str], list[list[int]]] = {}
    for i, c in enumerate(claims):
        for d in map(str, c["cited_doc_ids"]):
            if d in corpus:
                keys.append((i, d))
                text = " ".join(corpus[d]["abstract"])
                for f in make_fragments(d, text):
                    triples.append((c["claim"], f.text, f"{corpus[d]['title']} {text}"))
                    owner.append((i, d))
                    windows.setdefault((i, d), []).append(_sentences_in(f.text, corpus[d]["abstract"]))
    edges = judge_triples(
        triples,
        ANSWERS.serve("reader"),
        ANSWERS.serve("nli"),
        "reader",
        0.0,
    )
    by_key: dict[tuple[int, str], list[EdgeJudgement]] = {k: [] for k in keys}
    for key, edge in zip(owner, edges, strict=True):
        by_key[key].append(edge)
    readings = model.read([claims[i]["claim"] for i, _ in keys], [corpus[d]["abstract"] for _, d in keys])
    rows = []
    for (i, d), reading in zip(keys, readings, strict=True):
        c = claims[i]
        claim_gold = scifact_claim_label(c)
        paper_gold = c["evidence"][d][0]["label"] if d in c["evidence"] else "NEI"
        rows.append(
            paper_row(
                i,
                d,
                paper_gold,
                by_key[(i, d)],
                reading,
                claim_gold=claim_gold,
                split="scifact",
                # what SciFact's own measures need: the gold evidence sets and the sentences each read
                gold_sets=[s["sentences"] for s in c["evidence"].get(d, [])],
                label_sentences=reading.sentences,
                rule_windows=windows[(i, d)],
            )
        )
    return rows


def _sentences_in(window: str, abstract: list[str]) -> list[int]:
    """The abstract's sentences a window holds (ends compared: a section label may open a sentence)."""
    return [j for j, s in enumerate(abstract) if s.strip() and s.strip()[-40:] in window]


def claim_verdicts(rows: list[dict], relation_of) -> dict[int, str]:
    """Lyra's verdict per claim from each paper's (relation, confidence)."""
    evidence: dict[int, list[Evidence]] = {}
    for r in rows:
        relation, confidence = relation_of(r)
        evidence.setdefault(r["claim"], []).append(
            Evidence(relation=relation, nli_confidence=confidence, page_id=r["paper"])
        )
    rule = ScoringRule()
    return {c: VERDICT_TO_LABEL.get(score_claim(ev, True, rule).verdict, "NEI") for c, ev in evidence.items()}


def rules_verdicts(rows: list[dict]) -> dict[int, str]:
    """Today's judge: every window's edge votes (one vote per paper, as the run counts them)."""
    evidence: dict[int, list[Evidence]] = {}
    for r in rows:
        for rel, conf in r["rules_relation"]:
            evidence.setdefault(r["claim"], []).append(
                Evidence(relation=rel, nli_confidence=conf, page_id=r["paper"])
            )
        evidence.setdefault(r["claim"], [])
    rule = ScoringRule()
    return {c: VERDICT_TO_LABEL.get(score_claim(ev, True, rule).verdict, "NEI") for c, ev in evidence.items()}


def matrix(rows: list[dict], names: tuple[str, ...]) -> np.ndarray:
    return np.array([[r[n] for n in names] for r in rows], dtype=float)


def fit(rows: list[dict], names: tuple[str, ...], c: float, weight: str | None = None) -> LogisticRegression:
    # weight "balanced": each verdict weighs as much as the others, whatever its share of the rows
    model = LogisticRegression(C=c, max_iter=2000, class_weight=weight)
    model.fit(matrix(rows, names), [TARGET[r["gold"]] for r in rows])
    return model


def paper_relations(
    rows: list[dict], model: LogisticRegression, names: tuple[str, ...]
) -> dict[int, tuple[str, float]]:
    """The combiner's (relation, confidence) per row, keyed by the row's id()."""
    probs = model.predict_proba(matrix(rows, names))
    return {id(r): (RELATIONS[int(np.argmax(p))], float(np.max(p))) for r, p in zip(rows, probs, strict=True)}


def combined(rows: list[dict], model: LogisticRegression, names: tuple[str, ...]) -> dict[int, str]:
    pairs = paper_relations(rows, model, names)
    return claim_verdicts(rows, lambda r: pairs[id(r)])


SCIFACT_LABEL = {"SUPPORTS": "SUPPORT", "REFUTES": "CONTRADICT"}


def official(rows: list[dict], methods: dict[str, dict[int, tuple[str, list[int]]]]) -> None:
    """SciFact's abstract- and sentence-level figures of each method's per-paper label and sentences."""
    gold: dict[int, dict[str, tuple[str, list[list[int]]]]] = {r["claim"]: {} for r in rows}
    for r in rows:
        if r["gold_sets"]:
            gold[r["claim"]][r["paper"]] = (r["gold"], r["gold_sets"])
    print(f"SciFact's own measures, {len(gold)} claims against their cited papers")
    for name, per_row in methods.items():
        predicted: dict[int, dict[str, tuple[str, list[int]]]] = {}
        for r in rows:
            predicted.setdefault(r["claim"], {})[r["paper"]] = per_row[id(r)]
        print(format_scores(name, official_scores(predicted, gold)))


def rules_reading(r: dict) -> tuple[str, list[int]]:
    """The rules' paper label and rationale: the strongest voting window, as a report shows it."""
    votes = [(conf, rel, k) for k, (rel, conf) in enumerate(r["rules_relation"]) if rel in SCIFACT_LABEL]
    if not votes:
        return "NEI", []
    _, relation, k = max(votes)
    return SCIFACT_LABEL[relation], r["rule_windows"][k]


def group(r: dict) -> str:
    # Evidence Inference by article; SciFact by claim, as its own splits are drawn
    return f"claim {r['claim']}" if r["split"].startswith("scifact") else f"paper {r['paper']}"


def folds(rows: list[dict]) -> list[list[dict]]:
    """Two folds by article (Evidence Inference) or claim (SciFact), never one on both sides."""
    groups = sorted({group(r) for r in rows})
    random.Random(7).shuffle(groups)
    first = set(groups[: len(groups) // 2])
    return [[r for r in rows if group(r) in first], [r for r in rows if group(r) not in first]]


def fit_rows(rows: list[dict], inside_only: bool) -> list[dict]:
    # prompts whose annotated evidence lies outside the abstract carry a label the abstract may not state
    return [r for r in rows if not inside_only or r.get("inside") is not False or r["gold"] == "NEI"]


def cross_fit(
    rows: list[dict], names: tuple[str, ...], c: float, inside_only: bool, weight: str | None = None
) -> dict[int, str]:
    out: dict[int, str] = {}
    a, b = folds(rows)
    for train, held in ((a, b), (b, a)):
        out.update(combined(held, fit(fit_rows(train, inside_only), names, c, weight), names))
    return out


def macro(gold: dict[int, str], predicted: dict[int, str], ids: list[int]) -> float:
    from bench.verification import macro_f1

    return macro_f1([gold[i] for i in ids], [predicted[i] for i in ids])[0]


def parts(rows: list[dict]) -> list[tuple[str, list[int]]]:
    inside = sorted({r["claim"] for r in rows if r.get("inside")})
    outside = sorted({r["claim"] for r in rows if r.get("inside") is False})
    every = sorted({r["claim"] for r in rows})
    return [
        p
        for p in (("evidence in the abstract", inside), ("evidence elsewhere", outside), ("all", every))
        if p[1]
    ]


def show(title: str, rows: list[dict], methods: dict[str, dict[int, str]]) -> None:
    gold = {r["claim"]: r["claim_gold"] for r in rows}
    for part, ids in parts(rows):
        print(f"{title}, {part} ({len(ids)} claims)")
        for name, verdicts in methods.items():
            report(f"  {name}", gold, {i: verdicts.get(i, "NEI") for i in ids})


def write_figures(path: Path, rows: list[dict], verdicts: dict[int, str]) -> None:
    """The shipped judge's end-to-end figures on the test prompts, into ``judge_figures.json``."""
    gold = {r["claim"]: r["claim_gold"] for r in rows}
    by_part = dict(parts(rows))
    figures = json.loads(path.read_text())
    for key, part in (
        ("judge_whole_abstracts", "all"),
        ("judge_whole_abstracts_stated", "evidence in the abstract"),
    ):
        figures[key]["value"] = round(macro(gold, verdicts, by_part[part]), 3)
        figures[key]["date"] = time.strftime("%Y-%m-%d")
    path.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {path}")


ANSWERS: ModelAnswers  # set by main()

VARIANTS = {
    "label features": LABEL_FEATURES,
    "rule features": RULE_FEATURES,
    "both": LABEL_FEATURES + RULE_FEATURES,
    "both, without topicality": LABEL_FEATURES + tuple(f for f in RULE_FEATURES if f not in TOPIC_FEATURES),
    "both, classes balanced": LABEL_FEATURES + RULE_FEATURES,
}
# class weights: by each verdict's share of the rows (None), or "balanced", each verdict weighing alike
WEIGHTS: dict[str, tuple[str | None, ...]] = {"both, classes balanced": ("balanced",)}
# a variant replaces "both" only where validation says it helps by more than noise
MARGIN = 0.005


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", type=int, default=200, help="validation prompts (test: half as many)")
    parser.add_argument("--scifact", type=int, default=200)
    parser.add_argument(
        "--scifact-fit", type=int, default=0, help="other SciFact train claims the combiner is also fit on"
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--label-model", type=Path, default=DEFAULT_LABEL_DIR)
    parser.add_argument(
        "--answers",
        type=Path,
        default=Path("/tmp/lyra-judge-answers.pkl"),
        help="the two rule models' answers, kept on disk (bench.rule_ablation's --cache)",
    )
    parser.add_argument("--cache", type=Path, help="the features, kept here and read back when present")
    parser.add_argument("--save", type=Path, help="write the chosen combiner's weights here (combiner.json)")
    parser.add_argument(
        "--figures",
        type=Path,
        help="rewrite the Evidence Inference figures of the shipped judge (the rules) in this "
        "judge_figures.json, which the report's trust line quotes",
    )
    args = parser.parse_args()
    set_threads(args.threads)
    global ANSWERS
    ANSWERS = ModelAnswers(args.answers, args.threads)
    started = time.perf_counter()
    rows = json.loads(args.cache.read_text()) if args.cache and args.cache.exists() else {}
    model = (
        None
        if {"validation", "test", "scifact", "scifact_fit"} <= set(rows)
        else LabelModel(args.label_model)
    )
    if "validation" not in rows:
        folder = require_data("nli_training", "evidence_inference")
        rows["validation"] = evidence_inference(folder, "validation", args.prompts, args.seed, model)
        rows["test"] = evidence_inference(folder, "test", args.prompts // 2, args.seed, model)
    if "scifact" not in rows:
        rows["scifact"] = scifact(args.scifact, args.seed, model) if args.scifact else []
    if "scifact_fit" not in rows:
        rows["scifact_fit"] = (
            scifact(args.scifact, args.seed, model, args.scifact_fit) if args.scifact_fit else []
        )
        for r in rows["scifact_fit"]:
            r["split"], r["claim"] = "scifact_fit", r["claim"] + 100_000  # apart from the prompts' claims
    if args.cache:
        args.cache.write_text(json.dumps(rows))
    valid = rows["validation"]
    fitted = valid + rows["scifact_fit"]
    gold = {r["claim"]: r["claim_gold"] for r in fitted}
    inside = [i for name, ids in parts(valid) if name == "evidence in the abstract" for i in ids]
    hard = sorted({r["claim"] for r in rows["scifact_fit"]})
    chosen, best = {}, {}
    for name, names in VARIANTS.items():
        scores = {}
        for c, only, weight in itertools.product((0.1, 1.0, 10.0), (False, True), WEIGHTS.get(name, (None,))):
            verdicts = cross_fit(fitted, names, c, only, weight)
            scores[c, only, weight] = sum(macro(gold, verdicts, ids) for ids in (inside, hard) if ids) / (
                2 if hard else 1
            )
        chosen[name] = max(scores, key=scores.get)
        best[name] = scores[chosen[name]]
        print(
            f"{name}: C={chosen[name][0]}, classes weighted {chosen[name][2] or 'by their share'}, "
            f"fit on {'in-abstract' if chosen[name][1] else 'all'} prompts"
            f"{' and SciFact claims' if hard else ''} (validation macro-F1 {scores[chosen[name]]:.3f}: "
            "in-abstract prompts" + (", mean with the SciFact claims fit on)" if hard else ")")
        )
    label_alone = lambda rs: claim_verdicts(rs, lambda r: (r["label_relation"], r["label_confidence"]))  # noqa: E731
    methods = {"today's judge (rules)": rules_verdicts(fitted), "label model": label_alone(fitted)}
    for name, names in VARIANTS.items():
        methods[f"combiner, {name}"] = cross_fit(fitted, names, *chosen[name])
    show("Evidence Inference v2 validation (combiners cross-fit, two folds)", valid, methods)
    if hard:
        show(
            "SciFact train claims the combiner is fit on (cross-fit, two folds)", rows["scifact_fit"], methods
        )
    final = {
        name: fit(fit_rows(fitted, chosen[name][1]), names, chosen[name][0], chosen[name][2])
        for name, names in VARIANTS.items()
    }
    for split, title in (("test", "Evidence Inference v2 test"), ("scifact", "SciFact train, cited papers")):
        if not rows[split]:
            continue
        held = rows[split]
        methods = {"today's judge (rules)": rules_verdicts(held), "label model": label_alone(held)}
        for name, names in VARIANTS.items():
            methods[f"combiner, {name}"] = combined(held, final[name], names)
        show(title, held, methods)
        if split == "test" and args.figures:
            write_figures(args.figures, held, methods["today's judge (rules)"])
    # the combiner kept: the richer set only where validation says its extra features help
    rivals = ("both, without topicality", "both, classes balanced")
    kept = max(rivals, key=lambda name: best[name])
    kept = kept if best[kept] >= best["both"] + MARGIN else "both"
    both = final[kept]
    print(f"kept: {kept}")
    if rows["scifact"] and "gold_sets" in rows["scifact"][0]:
        held = rows["scifact"]
        readings = {
            "today's judge (rules)": {id(r): rules_reading(r) for r in held},
            "label model": {
                id(r): (SCIFACT_LABEL.get(r["label_relation"], "NEI"), r["label_sentences"]) for r in held
            },
        }
        for name in ("both", *rivals):
            pairs = paper_relations(held, final[name], VARIANTS[name])
            readings[f"combiner, {name}"] = {
                id(r): (SCIFACT_LABEL.get(pairs[id(r)][0], "NEI"), r["label_sentences"]) for r in held
            }
        official(held, readings)
    print("combiner (both) weights, rows SUPPORTS / REFUTES / NEUTRAL:")
    for cls, coefs, bias in zip(RELATIONS, both.coef_, both.intercept_, strict=True):
        cells = " ".join(f"{n} {w:+.2f}" for n, w in zip(VARIANTS[kept], coefs, strict=True))
        print(f"  {cls:<9} bias {bias:+.2f} {cells}")
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        (args.save / COMBINER_FILE).write_text(
            json.dumps(
                {
                    "features": list(VARIANTS[kept]),
                    "relations": list(RELATIONS),
                    "C": chosen[kept][0],
                    "class_weight": chosen[kept][2],
                    "coef": both.coef_.tolist(),
                    "intercept": both.intercept_.tolist(),
                },
                indent=1,
            )
        )
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
