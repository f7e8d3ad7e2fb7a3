"""Claim verification on SciFact train claims, 5-fold cross-validated by claim group.

Each claim is judged as Lyra judges a user's claim: its fragments (two-sentence windows of
abstracts) are judged by the NLI model, each source paper casts one vote (its strongest edge),
and the Beta update gives a verdict (supported / well_supported → SUPPORT, likely_false →
CONTRADICT, anything else → NEI). Two evidence settings:
- *retrieved*: the ``--papers`` best BM25 papers of the 5,183-abstract corpus for the claim (10
  unless told; `lyra verify` takes 5), and the claim's 8 most similar fragments among them (by
  embedding), as `lyra verify` judges them;
- *oracle*: every fragment of the papers the claim cites.

Printed side by side, in one run, on the same claims:
- today's model (``--baseline``, default the SNLI-trained MiniLM) with the per-edge rule (docs/scoring.md);
- the verifier of ``lyra models train-nli``, scored out of fold: fold k's claims are judged by the
  model trained without them, and its temperature and scoring rule (vote weight, minimum vote
  probability) are fitted on the other folds'
  out-of-fold predictions (never on fold k);
- the same with the evidence gates of ``nli_edges`` (settings ``min_finding``, ``min_similarity``):
  fragments the sentence-role model reads as background, aims or methods are dropped (here they
  are not replaced by the next most similar ones, as the pipeline does) and edges whose fragment
  is far from the claim are NEUTRAL;
- Lyra's judge (``lyra_resources.models.direction_judge``): a claim about the direction of an effect is
  judged by its direction read explicitly (the direction reader, never trained on SciFact), every
  other pair by the out-of-fold verifier above, with its temperature and scoring rule fitted on
  the other folds as for the verifier alone.
Claims that cite a common paper share a fold (``lyra_core.splits.claim_folds``). Gold labels are read
only to score, and to fit the temperature and choose the scoring rule on the other folds.

    .venv/bin/python -m bench.verification --work DIR [--papers 10] [--threads 2]

``--work`` holds the recipe's models (``lyra models train-nli --data … --work DIR`` trains them;
where a fold model is missing the bench stops and names that command).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np

from bench.common import require_data
from lyra_core.fragments import make_fragments
from lyra_core.scoring import Evidence, ScoringRule, score_claim
from lyra_core.splits import claim_folds
from lyra_resources.home import resolve_home
from lyra_resources.models.content_cache import cached_embeddings
from lyra_resources.models.inference import embedder, set_threads, softmax
from lyra_resources.models.model_files import DEFAULT_SNLI_DIR, PACKAGED_EMBEDDER, read_temperature
from lyra_resources.settings.loading import load_settings
from lyra_resources.store.lyra_store import LyraStore
from lyra_training.verifier import VerifierRecipe, fit_temperature, pair_logits
from lyra_training.verifier_data import gold_label, transfer_sets

LABELS = ("SUPPORT", "CONTRADICT", "NEI")
VERDICT_TO_LABEL = {"supported": "SUPPORT", "well_supported": "SUPPORT", "likely_false": "CONTRADICT"}
NLI_IDS = {"contradiction": 0, "entailment": 1, "neutral": 2}  # LABEL2ID of the NLI models
RELATION_OF_ID = {0: "REFUTES", 1: "SUPPORTS", 2: "NEUTRAL"}
GOLD_ID = {"SUPPORT": 1, "CONTRADICT": 0}
EVERY_EDGE_VOTES = ScoringRule(
    aggregation="edges"
)  # the "seed rule" of the tables: the per-edge rule of docs/scoring.md
RULES = [
    ScoringRule(vote_weight=w, min_vote=t)
    for w in (1.0, 2.0, 3.0, 4.0)
    for t in (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)
]


def macro_f1(gold: list[str], predicted: list[str]) -> tuple[float, dict[str, tuple[float, float, float]]]:
    per = {}
    for label in LABELS:
        tp = sum(g == p == label for g, p in zip(gold, predicted, strict=True))
        fp = sum(p == label != g for g, p in zip(gold, predicted, strict=True))
        fn = sum(g == label != p for g, p in zip(gold, predicted, strict=True))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        per[label] = (
            precision,
            recall,
            2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        )
    return float(np.mean([v[2] for v in per.values()])), per


def expected_calibration_error(probs: np.ndarray, labels: np.ndarray, bins: int = 10) -> float:
    """ECE of the predicted class's probability (equal-width bins)."""
    confidence, predicted = probs.max(axis=1), probs.argmax(axis=1)
    edges = np.linspace(0, 1, bins + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        inside = (confidence > lo) & (confidence <= hi)
        if inside.any():
            total += inside.mean() * abs(
                confidence[inside].mean() - (predicted[inside] == labels[inside]).mean()
            )
    return float(total)


class ClaimEvidence:
    """The two evidence settings of one SciFact claim: the ``fragments`` fragments most similar to
    the claim (by embedding) among its ``papers`` best BM25 papers, and every fragment of the papers
    it cites; each fragment with its gold label (entailment / contradiction where it holds a
    rationale sentence, else neutral), which only scoring reads."""

    def __init__(self, data: Path, home: Path, papers: int = 10, fragments: int = 8):
        from lyra_resources.corpus.local_corpus import LocalCorpus
        from lyra_training.verifier_data import read_jsonl

        self.papers, self.fragments = papers, fragments
        self.corpus = LocalCorpus.open(data / "corpus.jsonl", cache_dir=home / "cache" / "corpus")
        self.raw = {r["doc_id"]: r for r in read_jsonl(data / "corpus.jsonl")}
        self.index_of = {r.source_id: i for i, r in enumerate(self.corpus.records)}
        self.store = LyraStore.at(home)
        self.model = embedder(PACKAGED_EMBEDDER)
        self.windows: dict[str, list[str]] = {}

    def encode(self, texts: list[str]) -> np.ndarray:
        return cached_embeddings(self.store, PACKAGED_EMBEDDER, texts, self.model.encode)

    def fragments_of(self, doc: str) -> list[str]:
        if doc not in self.windows:
            record = self.corpus.records[self.index_of[doc]]
            self.windows[doc] = [f.text for f in make_fragments(record.source_id, record.abstract or "")]
        return self.windows[doc]

    def label_of(self, claim: dict, doc: str, text: str) -> int:
        for rset in claim["evidence"].get(doc, []):
            if any(
                " ".join(self.raw[int(doc)]["abstract"][i].split())[:60] in text for i in rset["sentences"]
            ):
                return GOLD_ID[rset["label"]]
        return NLI_IDS["neutral"]

    def of(self, claim: dict) -> dict:
        """Gold label, cited papers, and the retrieved and oracle fragments of ``claim``."""
        docs = [h.source_id for h in self.corpus.search(claim["claim"], limit=self.papers)]
        texts = [(d, t) for d in docs for t in self.fragments_of(d)]
        sims = self.encode([t for _, t in texts]) @ self.encode([claim["claim"]])[0] if texts else np.zeros(0)
        cited = [str(d) for d in claim["cited_doc_ids"] if str(d) in self.index_of]
        return {
            "id": claim["id"],
            "claim": claim["claim"],
            "gold": gold_label(claim),
            "cited": cited,
            "hard_negative": next((d for d in docs if d not in cited), None),
            "retrieved": [
                {"doc": texts[j][0], "text": texts[j][1], "label": self.label_of(claim, *texts[j])}
                for j in np.argsort(-sims)[: self.fragments]
            ],
            "oracle": [
                {"doc": d, "text": t, "label": self.label_of(claim, d, t)}
                for d in cited
                for t in self.fragments_of(d)
            ],
        }


def build_eval_set(data: Path, home: Path, papers: int = 10, fragments: int = 8) -> list[dict]:
    """``ClaimEvidence`` of every SciFact train claim, cached in ``home`` (the BM25 search and the
    embeddings are the slow part)."""
    from lyra_training.verifier_data import read_jsonl

    cache = home / "bench" / f"verification_eval_{papers}_{fragments}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    evidence = ClaimEvidence(data, home, papers, fragments)
    out = [evidence.of(claim) for claim in read_jsonl(data / "claims_train.jsonl")]
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(out))
    return out


def model_key(model_dir: Path) -> str:
    """A cache name for a trained model folder: its name and a digest of its path and training
    record, so that two recipes' ``fold0`` never share cached logits."""
    record = (model_dir / "stage.json").read_bytes() if (model_dir / "stage.json").exists() else b""
    digest = hashlib.sha1(str(model_dir.resolve()).encode() + record).hexdigest()[:10]
    return f"{model_dir.name}_{digest}"


def logits_for(
    model_dir: Path, items: list[dict], claims: dict[int, str], cache: Path, max_length: int
) -> np.ndarray:
    """The model's logits on (fragment, claim) items, cached per model folder and item list
    (``cache`` names the file; a digest of the pairs is added to its name)."""
    from lyra_training.nli_data import NliPair

    listed = json.dumps([[i["claim_id"], i["text"]] for i in items]).encode()
    cache = cache.with_name(f"{cache.stem}_{hashlib.sha1(listed).hexdigest()[:10]}.npy")
    if cache.exists():
        return np.load(cache)
    pairs = [NliPair(premise=i["text"], hypothesis=claims[i["claim_id"]], label="neutral") for i in items]
    logits = pair_logits(model_dir, pairs, max_length)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, logits)
    return logits


def evidence_gates(
    items: list[dict], claims: dict[int, str], data: Path, home: Path
) -> tuple[np.ndarray, np.ndarray]:
    """Per item: cosine between claim and fragment, and the fragment's finding probability (the
    sentence-role model, with the fragment's place in its abstract), as ``nli_edges`` computes them."""
    from lyra_resources.corpus.local_corpus import LocalCorpus
    from lyra_resources.models.claim_roles import claim_role_model

    store = LyraStore.at(home)
    model = embedder(PACKAGED_EMBEDDER)

    def encode(texts):
        return cached_embeddings(store, PACKAGED_EMBEDDER, texts, model.encode)

    fragment_vectors = encode([i["text"] for i in items])
    similarity = (fragment_vectors * encode([claims[i["claim_id"]] for i in items])).sum(axis=1)
    corpus = LocalCorpus.open(data / "corpus.jsonl", cache_dir=home / "cache" / "corpus")
    record = {r.source_id: r for r in corpus.records}
    places = []
    for item in items:
        windows = [f.text for f in make_fragments(item["doc"], record[item["doc"]].abstract or "")]
        places.append((windows.index(item["text"]) + 0.5) / len(windows) if item["text"] in windows else None)
    return similarity, claim_role_model().probabilities([i["text"] for i in items], fragment_vectors, places)


def verdicts(
    items: list[dict],
    probs: np.ndarray,
    claim_ids: list[int],
    rule: ScoringRule,
    gates: tuple[np.ndarray, np.ndarray, float, float] | None = None,
) -> dict[int, str]:
    """Verdict per claim; with ``gates`` (similarity, finding probability, their minimums) a
    fragment that is no finding is not evidence and a far one is NEUTRAL, as in ``nli_edges``."""
    by_claim: dict[int, list[Evidence]] = {c: [] for c in claim_ids}
    for n, (item, p) in enumerate(zip(items, probs, strict=True)):
        if item["claim_id"] in by_claim:
            if gates is not None and gates[1][n] < gates[3]:
                continue
            best = int(p.argmax())
            relation = RELATION_OF_ID[best] if gates is None or gates[0][n] >= gates[2] else "NEUTRAL"
            by_claim[item["claim_id"]].append(
                Evidence(relation=relation, nli_confidence=float(p[best]), page_id=item["doc"])
            )
    return {c: VERDICT_TO_LABEL.get(score_claim(ev, True, rule).verdict, "NEI") for c, ev in by_claim.items()}


def report(name: str, gold: dict[int, str], predicted: dict[int, str]) -> float:
    ids = sorted(predicted)
    f1, per = macro_f1([gold[i] for i in ids], [predicted[i] for i in ids])
    cells = "  ".join(f"{lab[:4]} P {per[lab][0]:.2f} R {per[lab][1]:.2f}" for lab in LABELS)
    print(f"  {name:<52} macro-F1 {f1:.3f}   {cells}")
    return f1


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--work",
        type=Path,
        required=True,
        action="append",
        help="the recipe's work folder (general, cv/fold0…, final); repeat it to compare recipes side by side",
    )
    parser.add_argument(
        "--baseline", type=Path, default=DEFAULT_SNLI_DIR, help="today's model, for comparison"
    )
    parser.add_argument("--transfer", type=int, default=500, help="pairs per transfer set (0: skip)")
    parser.add_argument(
        "--papers",
        type=int,
        default=10,
        help="retrieved evidence: the best BM25 papers per claim, as `lyra verify --papers-per-claim`",
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--home", default=None)
    args = parser.parse_args()
    set_threads(args.threads)
    data, home = require_data("scifact"), resolve_home(args.home)
    recipe = VerifierRecipe()
    started = time.perf_counter()
    claims = build_eval_set(data, home, papers=args.papers)
    fold_of = claim_folds(
        [{"id": c["id"], "cited_doc_ids": c["cited"]} for c in claims], recipe.folds, recipe.seed
    )
    gold = {c["id"]: c["gold"] for c in claims}
    text = {c["id"]: c["claim"] for c in claims}
    items = {
        mode: [{**f, "claim_id": c["id"]} for c in claims for f in c[mode]]
        for mode in ("retrieved", "oracle")
    }
    cache = home / "bench" / "verification_logits"
    print(
        f"SciFact train: {len(claims)} claims "
        f"({', '.join(f'{lab} {sum(g == lab for g in gold.values())}' for lab in LABELS)}); "
        f"{recipe.folds} folds by claim group; {len(items['retrieved'])} retrieved (the 8 most similar fragments "
        f"of the {args.papers} best BM25 papers) and {len(items['oracle'])} oracle fragment pairs"
    )

    base_version = args.baseline.name
    rows: dict[str, dict[str, dict[int, str]]] = {"retrieved": {}, "oracle": {}}
    ece: dict[str, float] = {}
    for mode in ("retrieved", "oracle"):
        logits = logits_for(
            args.baseline, items[mode], text, cache / f"{base_version}_{mode}.npy", recipe.max_length
        )
        probs = softmax(logits)
        rows[mode]["today's model, seed rule (every edge votes)"] = verdicts(
            items[mode], probs, list(gold), EVERY_EDGE_VOTES
        )
        rows[mode]["today's model, one vote per paper (w=1)"] = verdicts(
            items[mode], probs, list(gold), ScoringRule()
        )
        if mode == "retrieved":
            labels = np.array([i["label"] for i in items[mode]])
            ece["today's model"] = expected_calibration_error(probs, labels)

    cfg = load_settings().evidence
    similarity, finding = evidence_gates(items["retrieved"], text, data, home)
    gates = (similarity, finding, cfg.min_similarity, cfg.min_finding)
    chosen = {}
    for work in args.work:
        tag = f" [{work.name}]" if len(args.work) > 1 else ""
        chosen[work], work_rows, work_ece = recipe_rows(
            work, items, text, gold, fold_of, recipe, cache, gates, data
        )
        for mode in items:
            rows[mode].update({name + tag: verdict for name, verdict in work_rows[mode].items()})
        ece.update({name + tag: value for name, value in work_ece.items()})
    for mode in ("retrieved", "oracle"):
        print(f"\n{mode} evidence — all {len(gold)} claims")
        for name, predicted in rows[mode].items():
            report(name, gold, predicted)
    for work, folds in chosen.items():
        print(
            f"\nper fold of {work.name}, fitted on the other folds: temperature, vote weight, minimum vote "
            "probability: "
            + "; ".join(
                f"{k}: {t:.2f}, {r.vote_weight:g}, {r.min_vote:g}" for k, (t, r) in sorted(folds.items())
            )
        )
    print(
        "expected calibration error of edge probabilities (retrieved fragments, 10 bins): "
        + ", ".join(f"{name} {value:.3f}" for name, value in ece.items())
    )
    if args.transfer:
        transfer(args, recipe, cache)
    print(f"\n{time.perf_counter() - started:.0f} s in all")


def recipe_rows(
    work: Path,
    items: dict[str, list[dict]],
    text: dict[int, str],
    gold: dict[int, str],
    fold_of: dict[int, int],
    recipe: VerifierRecipe,
    cache: Path,
    gates: tuple,
    data: Path,
):
    """The rows of one recipe's fold models (``work/cv/fold{k}``), out of fold: the verifier alone,
    with the evidence gates, and Lyra's judge over it. Returns the per-fold (temperature, rule)
    fitted on the other folds, the rows per evidence mode, and the calibration errors."""
    similarity, finding, min_similarity, min_finding = gates
    rows: dict[str, dict[str, dict[int, str]]] = {mode: {} for mode in items}
    ece: dict[str, float] = {}
    # Out-of-fold logits of the recipe's fold models.
    oof = {mode: np.zeros((len(items[mode]), 3), dtype=np.float32) for mode in items}
    for k in range(recipe.folds):
        model_dir = work / "cv" / f"fold{k}"
        if not (model_dir / "stage.json").exists():
            raise SystemExit(
                f"{model_dir} is missing: run `lyra models train-nli --data … --work {work}` first"
            )
        for mode in items:
            mine = [i for i, it in enumerate(items[mode]) if fold_of[it["claim_id"]] == k]
            logits = logits_for(
                model_dir,
                [items[mode][i] for i in mine],
                text,
                cache / f"{model_key(model_dir)}_{mode}.npy",
                recipe.max_length,
            )
            oof[mode][mine] = logits

    # Per fold: temperature and scoring rule fitted on the OTHER folds (retrieved evidence), applied to this one.
    chosen = {}
    for k in range(recipe.folds):
        others = [i for i, it in enumerate(items["retrieved"]) if fold_of[it["claim_id"]] != k]
        temperature = fit_temperature(
            oof["retrieved"][others], [items["retrieved"][i]["label"] for i in others]
        )
        probs_other = softmax(oof["retrieved"], temperature)
        other_claims = [c for c in gold if fold_of[c] != k]
        chosen[k] = (
            temperature,
            max(
                RULES,
                key=lambda r: report_silent(gold, verdicts(items["retrieved"], probs_other, other_claims, r)),
            ),
        )
    gated_rules = {}
    for k, (temperature, _) in chosen.items():  # the rule re-chosen on the other folds, with the gates on
        probs_other = softmax(oof["retrieved"], temperature)
        other_claims = [c for c in gold if fold_of[c] != k]
        gated_rules[k] = max(
            RULES,
            key=lambda r: report_silent(
                gold, verdicts(items["retrieved"], probs_other, other_claims, r, gates)
            ),
        )
    gated = {}
    for k, (temperature, _) in chosen.items():
        mine = [i for i, it in enumerate(items["retrieved"]) if fold_of[it["claim_id"]] == k]
        subset_gates = (similarity[mine], finding[mine], min_similarity, min_finding)
        gated.update(
            verdicts(
                [items["retrieved"][i] for i in mine],
                softmax(oof["retrieved"][mine], temperature),
                [c for c in gold if fold_of[c] == k],
                gated_rules[k],
                subset_gates,
            )
        )
    for mode in items:
        out_edges, out_paper = {}, {}
        calibrated = np.zeros_like(oof[mode])
        for k, (temperature, rule) in chosen.items():
            mine = [i for i, it in enumerate(items[mode]) if fold_of[it["claim_id"]] == k]
            probs = softmax(oof[mode][mine], temperature)
            calibrated[mine] = probs
            fold_claims = [c for c in gold if fold_of[c] == k]
            subset = [items[mode][i] for i in mine]
            out_paper.update(verdicts(subset, probs, fold_claims, rule))
            out_edges.update(verdicts(subset, probs, fold_claims, EVERY_EDGE_VOTES))
        rows[mode]["verifier (out of fold), seed rule (every edge votes)"] = out_edges
        rows[mode]["verifier (out of fold), one vote per paper, tuned rule"] = out_paper
        if mode == "retrieved":
            rows[mode][f"  + evidence gates (findings ≥ {min_finding:g}, cosine ≥ {min_similarity:g})"] = (
                gated
            )
        if mode == "retrieved":
            labels = np.array([i["label"] for i in items[mode]])
            ece["verifier, uncalibrated"] = expected_calibration_error(softmax(oof[mode]), labels)
            ece["verifier, temperature from other folds"] = expected_calibration_error(calibrated, labels)

    judged = direction_judge_rows(items, text, oof, chosen, fold_of, gold, data, cache, gates)
    for mode in items:
        rows[mode].update(judged[mode])
    return chosen, rows, ece


def direction_judge_rows(
    items: dict[str, list[dict]],
    text: dict[int, str],
    oof: dict[str, np.ndarray],
    chosen: dict,
    fold_of: dict[int, int],
    gold: dict[int, str],
    data: Path,
    cache: Path,
    gates: tuple,
) -> dict[str, dict[str, dict[int, str]]]:
    """Verdicts of Lyra's judge per evidence mode: the direction reader's results are cached per
    reader version; pairs the judge hands to the cross-encoder get the out-of-fold verifier's
    probabilities at the fold's own temperature. Its scoring rule is chosen on the other folds;
    on retrieved evidence also with the evidence ``gates`` of ``nli_edges``, as Lyra runs it."""
    from lyra_core.direction.claim_frame import read_claim
    from lyra_resources.models.direction_judge import direction_reader, judge_triples
    from lyra_training.verifier_data import read_jsonl

    papers = {
        str(r["doc_id"]): f"{r['title']} {' '.join(r['abstract'])}" for r in read_jsonl(data / "corpus.jsonl")
    }
    reader = direction_reader()
    effect_claims = sum(read_claim(text[c]).directional for c in gold)
    print(
        f"Lyra's judge: {effect_claims} of {len(gold)} claims state the direction of an effect "
        f"(direction reader {reader.version})"
    )
    out: dict[str, dict[str, dict[int, str]]] = {}
    for mode, mode_items in items.items():
        calibrated = np.zeros_like(oof[mode])
        for k, (temperature, _) in chosen.items():
            mine = [i for i, it in enumerate(mode_items) if fold_of[it["claim_id"]] == k]
            calibrated[mine] = softmax(oof[mode][mine], temperature)
        verifier_of = {
            (it["text"], text[it["claim_id"]]): row for it, row in zip(mode_items, calibrated, strict=True)
        }

        def nli(pairs: list[tuple[str, str]], verifier_of: dict = verifier_of) -> list[dict]:
            rows = [verifier_of[pair] for pair in pairs]
            return [
                {
                    "label": max(NLI_IDS, key=lambda name: r[NLI_IDS[name]]),
                    "probs": {name: float(r[NLI_IDS[name]]) for name in NLI_IDS},
                }
                for r in rows
            ]

        reader_cache = cache / f"reader_{reader.version}_{mode}.json"
        known = json.loads(reader_cache.read_text()) if reader_cache.exists() else {}

        def read(
            pairs: list[tuple[str, str]], known: dict = known, reader_cache: Path = reader_cache
        ) -> list[dict]:
            missing = sorted({f"{p}\x1f{q}" for p, q in pairs} - known.keys())
            if missing:
                predicted = reader.predict([tuple(m.split("\x1f")) for m in missing])
                known.update({m: r.model_dump() for m, r in zip(missing, predicted, strict=True)})
                reader_cache.parent.mkdir(parents=True, exist_ok=True)
                reader_cache.write_text(json.dumps(known))
            return [known[f"{p}\x1f{q}"] for p, q in pairs]

        edges = judge_triples(
            [(text[it["claim_id"]], it["text"], papers.get(it["doc"], "")) for it in mode_items], read, nli
        )
        probs = np.array([[e.p_refutes, e.p_supports, e.p_neutral] for e in edges])  # NLI_IDS order
        out[mode] = {
            "Lyra's judge: direction read, verifier (out of fold) for the rest": _per_fold(
                mode_items, probs, chosen, fold_of, gold
            )
        }
        if mode == "retrieved":
            out[mode]["  + evidence gates, as Lyra runs it"] = _per_fold(
                mode_items, probs, chosen, fold_of, gold, gates
            )
    return out


def _per_fold(
    items: list[dict],
    probs: np.ndarray,
    folds: dict,
    fold_of: dict[int, int],
    gold: dict[int, str],
    gates: tuple | None = None,
) -> dict[int, str]:
    """Each fold's verdicts under the scoring rule that scores best on the other folds."""
    out = {}
    for k in folds:
        other_claims = [c for c in gold if fold_of[c] != k]
        rule = max(RULES, key=lambda r: report_silent(gold, verdicts(items, probs, other_claims, r, gates)))
        mine = [i for i, it in enumerate(items) if fold_of[it["claim_id"]] == k]
        subset_gates = None if gates is None else (gates[0][mine], gates[1][mine], gates[2], gates[3])
        out.update(
            verdicts(
                [items[i] for i in mine],
                probs[mine],
                [c for c in gold if fold_of[c] == k],
                rule,
                subset_gates,
            )
        )
    return out


def report_silent(gold: dict[int, str], predicted: dict[int, str]) -> float:
    ids = sorted(predicted)
    return macro_f1([gold[i] for i in ids], [predicted[i] for i in ids])[0]


def transfer(args, recipe: VerifierRecipe, cache: Path) -> None:
    """Accuracy on claim/evidence sets of other kinds of text that no stage trains on."""
    data = require_data("nli_training")
    final = args.work[0] / "final"
    print(f"\ntransfer (never trained on; {args.transfer} pairs each): accuracy today's model → verifier")
    for name, pairs in transfer_sets(data).items():
        pairs = pairs[: args.transfer]
        gold = np.array([NLI_IDS[p.label] for p in pairs])
        line = []
        for tag, model_dir in (("base", args.baseline), ("final", final)):
            if not (model_dir / "config.json").exists():
                line.append("—")
                continue
            items = [{"text": p.premise, "claim_id": i} for i, p in enumerate(pairs)]
            claims = {i: p.hypothesis for i, p in enumerate(pairs)}
            logits = logits_for(
                model_dir, items, claims, cache / f"transfer_{name}_{tag}_{len(pairs)}.npy", recipe.max_length
            )
            line.append(f"{(softmax(logits, read_temperature(model_dir)).argmax(axis=1) == gold).mean():.3f}")
        print(f"  {name:<28} {' → '.join(line)}   ({', '.join(sorted({p.label for p in pairs}))})")


if __name__ == "__main__":
    main()
