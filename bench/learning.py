"""Learning from corrections on SciFact train claims: does a LoRA adapter trained on people's
corrections make the NLI model, and the verdicts built on it, better on claims it never saw?

Human corrections are simulated with SciFact's gold rationales: each rationale sentence with its
claim and label is one correction (premise = that abstract sentence, hypothesis = the claim;
SUPPORT → entailment, CONTRADICT → contradiction). Claims are split 70 / 30 by claim id (a seeded
shuffle of the ids, seed 13; the two claim texts that occur under two ids each are kept on one
side, so no claim text and no pair is both trained on and judged). Adapters are trained with the
product's own code and settings (``lyra_training.adapters.train_adapter``, ``LearningSettings()``, the same
SNLI replay mix as ``learn_from_corrections``) on the first 50, 100, 200 and all training corrections in a
seeded arrival order, and compared with the base model on:

- NLI on the held-out claims' rationale pairs: accuracy and macro-F1 over entailment /
  contradiction (a ``neutral`` prediction counts as a miss);
- the same plus one ``neutral`` pair per held-out claim — a seeded non-rationale sentence of one of
  its cited abstracts — for a 3-class picture (macro-F1 over the three classes). SciFact does not
  label those sentences: a few may bear on the claim, so this set is an approximation;
- the SNLI regression slice the product's gate uses (1,000 pairs): what the adapter forgets;
- verdict macro-F1 (SUPPORT / CONTRADICT / NEI) of the verification benchmark on the held-out
  claims (``bench.verification.ClaimEvidence``: BM25 papers → fragments → top-k by embedding, or
  every fragment of the cited papers → NLI → Bayesian verdict with every edge voting), base model
  and the adapter trained on all corrections side by side.

``--train-neutral`` adds one such neutral correction per training claim (what a person rejecting a
wrong SUPPORTS / REFUTES edge gives); it is off by default, as the corrections above are the rationales.

Gold labels are read only to build the training corrections and to score; prediction sees the claim
text and the retrieved abstracts only. Adapters go to a temporary directory (``--adapters DIR`` keeps
them), never into the package. Training time and pairs/s are those of ``train_adapter`` with
``--threads`` torch threads.

    .venv/bin/python -m bench.learning [--threads 2] [--curve 50,100,200,all] [--claims-verify N]
        [--papers K] [--epochs E] [--max-minutes M] [--train-neutral] [--home DIR] [--adapters DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.common import read_jsonl, require_data
from bench.verification import EVERY_EDGE_VOTES, LABELS, NLI_IDS, ClaimEvidence, macro_f1, verdicts
from lyra_core.splits import claim_key
from lyra_core.training_metrics import Metrics, metrics
from lyra_resources.home import resolve_home
from lyra_resources.models.inference import NliModel, set_threads
from lyra_resources.models.model_files import DEFAULT_NLI_DIR
from lyra_resources.settings.loading import load_settings
from lyra_resources.settings.services import LearningSettings
from lyra_training.adapter_gate import evaluate
from lyra_training.adapters import GATE_DIR, WeightedPair, replay_sample, replay_size, train_adapter
from lyra_training.nli_data import NliPair, read_pairs

SEED = 13
HELD_OUT = 0.3
LABEL_OF = {"SUPPORT": "entailment", "CONTRADICT": "contradiction"}


@dataclass(frozen=True)
class Pair:
    claim_id: int
    premise: str
    hypothesis: str
    label: str

    def nli(self) -> NliPair:
        return NliPair(premise=self.premise, hypothesis=self.hypothesis, label=self.label)


def split_claims(claims: list[dict], held_out: float, seed: int) -> tuple[list[dict], list[dict], int]:
    """(train, held out, claim texts shared by several ids): a seeded shuffle of claim ids, the first
    ``1 - held_out`` of them trained on; ids that share a claim text move together (the first one's side)."""
    ids = sorted(c["id"] for c in claims)
    random.Random(seed).shuffle(ids)
    n_train = round(len(ids) * (1 - held_out))
    by_id = {c["id"]: c for c in claims}
    side_of_text: dict[str, bool] = {}
    shared = 0
    train, held = [], []
    for rank, cid in enumerate(ids):
        key = claim_key(by_id[cid]["claim"])
        if key in side_of_text:
            shared += 1
        in_train = side_of_text.setdefault(key, rank < n_train)
        (train if in_train else held).append(by_id[cid])
    return sorted(train, key=lambda c: c["id"]), sorted(held, key=lambda c: c["id"]), shared


def rationale_pairs(claims: list[dict], abstracts: dict[int, list[str]]) -> list[Pair]:
    """Each gold rationale sentence of each claim, with the claim and its label: one correction."""
    pairs = []
    for claim in claims:
        for doc_id, sets in claim["evidence"].items():
            sentences = abstracts.get(int(doc_id), [])
            for evidence_set in sets:
                for idx in evidence_set["sentences"]:
                    if idx < len(sentences):
                        pairs.append(
                            Pair(
                                claim["id"],
                                sentences[idx].strip(),
                                claim["claim"],
                                LABEL_OF[evidence_set["label"]],
                            )
                        )
    return pairs


def neutral_pairs(claims: list[dict], abstracts: dict[int, list[str]], seed: int) -> list[Pair]:
    """One seeded non-rationale sentence of a cited abstract per claim, labelled neutral."""
    rng = random.Random(seed)
    pairs = []
    for claim in claims:
        rationale = {
            (int(d), i)
            for d, sets in claim["evidence"].items()
            for evidence_set in sets
            for i in evidence_set["sentences"]
        }
        docs = sorted({int(d) for d in claim["cited_doc_ids"]} | {int(d) for d in claim["evidence"]})
        candidates = [
            (d, i)
            for d in docs
            for i in range(len(abstracts.get(d, [])))
            if (d, i) not in rationale and abstracts[d][i].strip()
        ]
        if candidates:
            d, i = rng.choice(candidates)
            pairs.append(Pair(claim["id"], abstracts[d][i].strip(), claim["claim"], "neutral"))
    return pairs


def probabilities(model: NliModel, items: list[dict], claim_text: dict[int, str]) -> np.ndarray:
    """The model's calibrated probabilities on (fragment, claim) items, one column per NLI label
    in ``NLI_IDS`` order, as ``bench.verification.verdicts`` reads them."""
    predictions = model.predict([(item["text"], claim_text[item["claim_id"]]) for item in items])
    return np.array([[p.probs[label] for label in NLI_IDS] for p in predictions]).reshape(-1, len(NLI_IDS))


@dataclass
class Row:
    name: str
    corrections: int = 0
    replay: int = 0
    steps: int = 0
    epochs: int = 0
    seconds: float = 0.0
    pairs_per_s: float = 0.0
    timed_out: bool = False
    rationale: Metrics | None = None
    three_way: Metrics | None = None
    regression: Metrics | None = None


def measure(
    row: Row, model: NliModel, heldout: list[NliPair], neutral: list[NliPair], regression: list[NliPair]
) -> Row:
    """One pass over the held-out pairs (rationale, then neutral) and the SNLI regression slice."""
    pairs = [*heldout, *neutral]
    predicted = [p.label for p in model.predict([(x.premise, x.hypothesis) for x in pairs])]
    gold = [x.label for x in pairs]
    row.rationale = metrics(gold[: len(heldout)], predicted[: len(heldout)])
    row.three_way = metrics(gold, predicted)
    row.regression = evaluate(model, regression)
    return row


def print_table(rows: list[Row], base: Row) -> None:
    head = (
        f"{'model':<18} {'corr.':>5} {'replay':>6} {'steps':>5} {'train s':>8} {'pairs/s':>7}   "
        f"{'rationale acc':>13} {'F1':>6} {'ΔF1':>6}   {'+neutral acc':>12} {'F1':>6} {'ΔF1':>6}   "
        f"{'SNLI reg. acc':>13} {'Δ':>6}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        trained = r is not base
        cells = (
            f"{r.corrections:>5} {r.replay:>6} {r.steps:>5} {r.seconds:>8.1f} {r.pairs_per_s:>7.1f}"
            if trained
            else f"{'—':>5} {'—':>6} {'—':>5} {'—':>8} {'—':>7}"
        )

        def delta(now: float, then: float, trained: bool = trained) -> str:
            return f"{now - then:>+6.3f}" if trained else f"{'':>6}"

        print(
            f"{r.name:<18} {cells}   {r.rationale.accuracy:>13.3f} {r.rationale.macro_f1:>6.3f} "
            f"{delta(r.rationale.macro_f1, base.rationale.macro_f1)}   {r.three_way.accuracy:>12.3f} "
            f"{r.three_way.macro_f1:>6.3f} {delta(r.three_way.macro_f1, base.three_way.macro_f1)}   "
            f"{r.regression.accuracy:>13.3f} {delta(r.regression.accuracy, base.regression.accuracy)}"
            + ("   (time box hit)" if r.timed_out else "")
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--threads", type=int, default=2, help="torch threads for training and inference")
    parser.add_argument(
        "--curve",
        default="50,100,200,all",
        help="training-correction counts, 'all' = every one; 'none' = base model only",
    )
    parser.add_argument(
        "--train-neutral",
        action="store_true",
        help="also one neutral correction per training claim (a non-rationale sentence of a cited "
        "abstract, as a person rejecting a wrong edge would give); off by default",
    )
    parser.add_argument(
        "--claims-verify",
        type=int,
        default=0,
        help="verdicts on a seeded sample of N held-out claims (0 = all of them)",
    )
    parser.add_argument(
        "--papers", type=int, default=10, help="papers retrieved per claim (as bench.verification)"
    )
    parser.add_argument("--epochs", type=int, default=None, help="override LearningSettings.epochs")
    parser.add_argument(
        "--max-minutes", type=float, default=None, help="override LearningSettings.max_minutes"
    )
    parser.add_argument(
        "--home", default=None, help="Lyra home for the corpus and embedding caches (default ./.lyra)"
    )
    parser.add_argument(
        "--adapters", default=None, help="keep the adapters here (default: a temporary directory)"
    )
    args = parser.parse_args()
    set_threads(args.threads)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", message=".*tensor.detach.*")
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # "Loading weights" bars, one per model load
    started_all = time.perf_counter()

    overrides = {
        k: v for k, v in (("epochs", args.epochs), ("max_minutes", args.max_minutes)) if v is not None
    }
    cfg = LearningSettings(**overrides)
    data = require_data("scifact")
    claims = read_jsonl(data / "claims_train.jsonl")
    abstracts = {int(d["doc_id"]): d["abstract"] for d in read_jsonl(data / "corpus.jsonl")}

    # -- corrections and the split ------------------------------------------------------------
    train_claims, held_claims, shared = split_claims(claims, HELD_OUT, SEED)
    train_all = rationale_pairs(train_claims, abstracts)
    held = rationale_pairs(held_claims, abstracts)
    neutral = neutral_pairs(held_claims, abstracts, SEED)
    train_ids, held_ids = {c["id"] for c in train_claims}, {c["id"] for c in held_claims}
    train_keys = {(p.premise, p.hypothesis) for p in train_all}
    leaked_pairs = sum((p.premise, p.hypothesis) in train_keys for p in [*held, *neutral])
    leaked_texts = {claim_key(c["claim"]) for c in train_claims} & {
        claim_key(c["claim"]) for c in held_claims
    }
    shared_premises = len({p.premise for p in held} & {p.premise for p in train_all})
    assert not train_ids & held_ids and leaked_pairs == 0 and not leaked_texts, "train / held-out overlap"

    def counts(pairs: list[Pair]) -> str:
        return ", ".join(
            f"{lab} {sum(p.label == lab for p in pairs)}" for lab in ("entailment", "contradiction")
        )

    print(
        f"SciFact train: {len(claims)} claims, {len(train_all) + len(held)} gold rationale sentences "
        f"(= simulated corrections)"
    )
    print(
        f"split by claim id (seeded shuffle, seed {SEED}): train {len(train_claims)} claims / "
        f"held out {len(held_claims)} claims ({shared} ids sharing a claim text with another id "
        f"kept on its side)"
    )
    print(f"  training corrections: {len(train_all)} ({counts(train_all)})")
    print(
        f"  held-out rationale pairs: {len(held)} ({counts(held)}); + {len(neutral)} neutral pairs "
        f"(a non-rationale sentence of a cited abstract per held-out claim)"
    )
    print(
        f"  overlap: claim ids 0, claim texts {len(leaked_texts)}, (premise, hypothesis) pairs {leaked_pairs}; "
        f"{shared_premises} held-out premise sentences also occur as training premises (for other claims)"
    )

    heldout_pairs = [p.nli() for p in held]
    neutral_nli = [p.nli() for p in neutral]
    regression = read_pairs(GATE_DIR / "regression.jsonl")
    order = list(train_all)
    if args.train_neutral:
        extra = neutral_pairs(train_claims, abstracts, SEED)
        held_keys = {(p.premise, p.hypothesis) for p in [*held, *neutral]}
        assert not {(p.premise, p.hypothesis) for p in extra} & held_keys, "train / held-out overlap"
        order += extra
        print(f"  --train-neutral: + {len(extra)} neutral training corrections (one per training claim)")
    random.Random(SEED).shuffle(order)  # the order corrections "arrive" in; curve points are prefixes
    sizes = []
    for token in args.curve.split(","):
        if token.strip().lower() in ("", "none"):
            continue
        n = len(order) if token.strip().lower() == "all" else int(token)
        if 0 < n <= len(order) and n not in sizes:
            sizes.append(n)
    print(
        f"\nLearningSettings: lr {cfg.learning_rate}, batch {cfg.batch_size}, epochs {cfg.epochs}, LoRA r "
        f"{cfg.lora_r} α {cfg.lora_alpha} dropout {cfg.lora_dropout}, "
        f"replay {cfg.replay_per_correction}/correction "
        f"(at least {cfg.replay_min}), time box {cfg.max_minutes:g} min; torch threads {args.threads} "
        f"(machine: {os.cpu_count()} cores)"
    )
    print(
        f"evaluation: {len(heldout_pairs)} held-out rationale pairs, "
        f"{len(heldout_pairs) + len(neutral_nli)} with neutral, {len(regression)} SNLI regression pairs\n"
    )

    # -- the curve -----------------------------------------------------------------------------
    tmp = None if args.adapters else tempfile.TemporaryDirectory(prefix="lyra-bench-adapters-")
    adapters_dir = Path(args.adapters or tmp.name)
    base_model = NliModel(DEFAULT_NLI_DIR)
    base = measure(Row("base"), base_model, heldout_pairs, neutral_nli, regression)
    print(
        f"base {base_model.version}: rationale macro-F1 {base.rationale.macro_f1:.3f}, "
        f"+neutral {base.three_way.macro_f1:.3f}, SNLI regression acc {base.regression.accuracy:.3f}",
        flush=True,
    )
    rows, last_adapter = [base], None
    for n in sizes:
        corrections = [
            WeightedPair(premise=p.premise, hypothesis=p.hypothesis, label=p.label) for p in order[:n]
        ]
        replay = replay_sample(replay_size(n, cfg), cfg.split_seed)
        out = adapters_dir / f"scifact-{n}"
        report = train_adapter(
            DEFAULT_NLI_DIR, corrections, replay, out, cfg, seed=cfg.split_seed, threads=args.threads
        )
        row = Row(
            f"adapter @{n}" + (" (all)" if n == len(order) else ""),
            corrections=n,
            replay=report.replay_pairs,
            steps=report.steps,
            epochs=report.epochs_run,
            seconds=report.seconds,
            pairs_per_s=report.pairs_per_s,
            timed_out=report.stopped_by_time,
        )
        measure(row, NliModel(DEFAULT_NLI_DIR, adapter=out), heldout_pairs, neutral_nli, regression)
        rows.append(row)
        last_adapter = out
        print(
            f"{row.name}: {n} corrections + {row.replay} replay, {row.steps} steps ({row.epochs} epochs) in "
            f"{row.seconds:.1f}s, {row.pairs_per_s:.1f} pairs/s{' — time box hit' if row.timed_out else ''}; "
            f"rationale macro-F1 {row.rationale.macro_f1:.3f}, +neutral {row.three_way.macro_f1:.3f}, "
            f"SNLI regression acc {row.regression.accuracy:.3f}",
            flush=True,
        )
    set_threads(args.threads)  # train_adapter sets the same; kept explicit for the inference below

    # -- verdicts on the held-out claims -------------------------------------------------------
    verify = list(held_claims)
    if args.claims_verify:
        verify = sorted(
            random.Random(SEED).sample(verify, min(args.claims_verify, len(verify))), key=lambda c: c["id"]
        )
    k = load_settings().evidence.nli_top_k
    evidence = ClaimEvidence(data, resolve_home(args.home), args.papers, k)
    models = {"base": base_model}
    if last_adapter is not None:
        models[f"adapter @{sizes[-1]}"] = NliModel(DEFAULT_NLI_DIR, adapter=last_adapter)
    started = time.perf_counter()
    entries = []
    for done, claim in enumerate(verify, 1):  # prediction: claim text and abstracts only
        if done % 25 == 0:
            print(
                f"  verifying claim {done}/{len(verify)} ({time.perf_counter() - started:.0f}s)",
                file=sys.stderr,
            )
        entries.append(evidence.of(claim))
    ids, claim_text = [e["id"] for e in entries], {e["id"]: e["claim"] for e in entries}
    predicted: dict[str, dict[str, dict[int, str]]] = {name: {} for name in models}
    for name, nli in models.items():
        for papers in ("retrieved", "oracle"):
            items = [{**f, "claim_id": e["id"]} for e in entries for f in e[papers]]
            predicted[name][papers] = verdicts(
                items, probabilities(nli, items, claim_text), ids, EVERY_EDGE_VOTES
            )
    verify_seconds = time.perf_counter() - started
    gold = [e["gold"] for e in entries]  # read only to score

    # -- the report ----------------------------------------------------------------------------
    print(f"\n== NLI on held-out claims ({len(held_claims)} claims never trained on) ==")
    print(
        "rationale = gold rationale pairs (entailment/contradiction, 2-class macro-F1); "
        "+neutral = with one neutral pair per claim (3-class macro-F1)\n"
    )
    print_table(rows, base)
    print(
        f"\n== verdicts on held-out claims ({len(verify)} claims"
        f"{', seeded sample' if args.claims_verify else ''}; {args.papers} BM25 papers, NLI top-{k} fragments "
        f"(oracle: every fragment of the cited papers), seed verdict rule) =="
    )
    print("gold: " + ", ".join(f"{lab} {gold.count(lab)}" for lab in LABELS) + "\n")
    for papers in ("retrieved", "oracle"):
        for name in models:
            f1, per = macro_f1(gold, [predicted[name][papers][i] for i in ids])
            cells = "  ".join(f"{lab[:4]} P {per[lab][0]:.2f} R {per[lab][1]:.2f}" for lab in LABELS)
            print(f"{name:<18} {papers + ' abstracts':<20} verdict macro-F1 {f1:.3f}   {cells}")
    print(
        f"\nverification: {len(verify) * 2 * len(models) / verify_seconds:.2f} claim judgements/s "
        f"({verify_seconds:.0f}s; embeddings cached in {evidence.store.layout.database})"
    )
    train_seconds = sum(r.seconds for r in rows[1:])
    print(
        f"training: {train_seconds:.0f}s for {len(rows) - 1} adapters on {args.threads} torch threads; "
        f"whole run {time.perf_counter() - started_all:.0f}s"
        + (f"; adapters kept in {adapters_dir}" if args.adapters else "")
    )
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
