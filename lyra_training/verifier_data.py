"""Training and evaluation pairs for Lyra's claim verifier, read from public datasets on disk.

Every pair is (premise = an evidence passage, hypothesis = a claim, label) in the NLI label set
(entailment → SUPPORTS, contradiction → REFUTES, neutral → NEUTRAL). Premises are what the
pipeline judges: one sentence, or a window of two consecutive sentences as ``fragments`` cuts
them. Readers take the dataset folders laid out as their authors publish them (see
``lyra models train-nli --help``); nothing is downloaded.

SciFact pairs carry the claim's *group*: claims that cite a common paper share a group, and
cross-validation folds are drawn by group, so no paper's evidence is on both sides of a split.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Callable, Iterable
from pathlib import Path

from lyra_core.claim_rewrites import negate, templated_claim
from lyra_core.splits import claim_groups
from lyra_training.nli_data import NliPair

FLIP = {"entailment": "contradiction", "contradiction": "entailment"}
SCIFACT_LABEL = {"SUPPORT": "entailment", "CONTRADICT": "contradiction"}


class TrainingPair(NliPair):
    """An NLI pair with where it came from and, for SciFact, the claim group it belongs to."""

    source: str
    group: str | None = None


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# --- SciFact -----------------------------------------------------------------------------------------


def gold_label(claim: dict) -> str:
    """SUPPORT, CONTRADICT or NEI for a SciFact claim (mixed evidence counts as SUPPORT, as the
    SciFact evaluation reads it: the first label of its evidence)."""
    labels = [s["label"] for sets in claim.get("evidence", {}).values() for s in sets]
    return labels[0] if labels else "NEI"


def windows(sentences: list[str], size: int = 2) -> list[tuple[int, ...]]:
    """Sentence-index windows as ``fragments`` cuts an abstract (size 2, stride 1)."""
    if len(sentences) <= size:
        return [tuple(range(len(sentences)))] if sentences else []
    return [tuple(range(i, i + size)) for i in range(len(sentences) - size + 1)]


def _text(sentences: list[str], idx: Iterable[int]) -> str:
    return " ".join(sentences[i].strip() for i in sorted(idx))


def scifact_pairs(
    claims: list[dict],
    corpus: dict[int, dict],
    *,
    hard_negative: Callable[[dict], int | None] | None = None,
    negation_rate: float = 0.5,
    neutral_per_doc: int = 1,
    seed: int = 13,
) -> list[TrainingPair]:
    """Pairs from SciFact claims and the abstracts they cite.

    - each rationale set → its sentences (and, for a one-sentence rationale, one two-sentence
      window that contains it) with the claim's label;
    - with probability ``negation_rate``, the same premise against the negated claim, label flipped;
    - NEUTRAL: windows of a cited abstract holding no rationale sentence, windows of an NEI
      claim's cited abstracts, and the most claim-like window of ``hard_negative(claim)`` (a
      retrieved abstract the claim does not cite).
    """
    rng = random.Random(seed)
    groups = claim_groups(claims)
    pairs: list[TrainingPair] = []

    def add(premise: str, claim: dict, label: str, source: str, hypothesis: str | None = None) -> None:
        pairs.append(
            TrainingPair(
                premise=premise,
                hypothesis=hypothesis or claim["claim"],
                label=label,
                source=source,
                group=groups[claim["id"]],
            )
        )

    for claim in claims:
        evidence = claim.get("evidence", {})
        for doc_id in claim.get("cited_doc_ids", []):
            doc = corpus.get(int(doc_id))
            if doc is None:
                continue
            sentences = doc["abstract"]
            rationale: set[int] = set()
            for rset in evidence.get(str(doc_id), []):
                label = SCIFACT_LABEL[rset["label"]]
                idx = sorted(rset["sentences"])
                rationale.update(idx)
                premises = [_text(sentences, idx)]
                if len(idx) == 1:  # and one window holding it, as a fragment would show it
                    holding = [w for w in windows(sentences) if idx[0] in w]
                    premises += [_text(sentences, rng.choice(holding))] if holding else []
                for premise in dict.fromkeys(premises):
                    add(premise, claim, label, "scifact")
                    negated = negate(claim["claim"])
                    if negated and rng.random() < negation_rate:
                        add(premise, claim, FLIP[label], "scifact_negated", negated)
            free = [w for w in windows(sentences) if not rationale.intersection(w)]
            for w in rng.sample(free, min(neutral_per_doc, len(free))):
                add(_text(sentences, w), claim, "neutral", "scifact_neutral" if rationale else "scifact_nei")
        if hard_negative is not None:
            doc_id = hard_negative(claim)
            doc = corpus.get(doc_id) if doc_id is not None else None
            if doc is not None:
                claim_words = set(claim["claim"].lower().split())
                best = max(
                    windows(doc["abstract"]),
                    default=None,
                    key=lambda w: len(claim_words & set(_text(doc["abstract"], w).lower().split())),
                )
                if best is not None:
                    add(_text(doc["abstract"], best), claim, "neutral", "scifact_retrieved")
    return pairs


# --- Other scientific and general claim/evidence sets ----------------------------------------------------


def evidence_inference_pairs(
    folder: Path, split: str = "train", limit: int = 4000, seed: int = 13
) -> list[TrainingPair]:
    """Evidence Inference v2: an annotated evidence span against the prompt written as a claim
    (its stated direction → entailment, the opposite → contradiction) and against another
    prompt's claim from a different article (neutral). ``split`` picks articles by the authors'
    ev2 split files."""
    articles = set((folder / "splits" / f"ev2_{split}_article_ids.txt").read_text().split())
    with (folder / "prompts_merged.csv").open(encoding="utf-8") as handle:
        prompts = {row["PromptID"]: row for row in csv.DictReader(handle)}
    direction = {
        "significantly increased": "increased",
        "significantly decreased": "decreased",
        "no significant difference": "no_difference",
    }
    opposite = {"increased": "decreased", "decreased": "increased", "no_difference": "increased"}
    seen: set[str] = set()
    rows = []
    with (folder / "v2_annotations.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            prompt = prompts.get(row["PromptID"])
            span = " ".join((row.get("Annotations") or "").split())
            if (
                row["PMCID"] not in articles
                or prompt is None
                or row["Label"] not in direction
                or not 40 <= len(span) <= 600
                or row["PromptID"] in seen
                or max(len(prompt["Intervention"]), len(prompt["Comparator"]), len(prompt["Outcome"])) > 150
            ):
                continue
            seen.add(row["PromptID"])
            rows.append((span, prompt, direction[row["Label"]]))
    rng = random.Random(seed)
    rng.shuffle(rows)
    pairs: list[TrainingPair] = []
    for i, (span, prompt, way) in enumerate(rows):

        def claim(d, p=prompt):
            return templated_claim(p["Intervention"], p["Comparator"], p["Outcome"], d)

        pairs.append(
            TrainingPair(premise=span, hypothesis=claim(way), label="entailment", source="evidence_inference")
        )
        pairs.append(
            TrainingPair(
                premise=span,
                hypothesis=claim(opposite[way]),
                label="contradiction",
                source="evidence_inference",
            )
        )
        other_span, other_prompt, other_way = rows[(i + 7) % len(rows)]
        if other_prompt["PMCID"] != prompt["PMCID"]:
            pairs.append(
                TrainingPair(
                    premise=other_span, hypothesis=claim(way), label="neutral", source="evidence_inference"
                )
            )
    return pairs[:limit]


def abstrct_pairs(path: Path, no_relation: int = 600, seed: int = 13) -> list[TrainingPair]:
    """AbstRCT argument relations: Support → entailment, Attack → contradiction, and a sample of
    the no-relation pairs (same abstract, loosely neutral)."""
    label_of = {
        "__label__Support": "entailment",
        "__label__Attack": "contradiction",
        "__label__noRel": "neutral",
    }
    related, unrelated = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or parts[0] not in label_of:
            continue
        pair = TrainingPair(premise=parts[1], hypothesis=parts[2], label=label_of[parts[0]], source="abstrct")
        (unrelated if pair.label == "neutral" else related).append(pair)
    return related + random.Random(seed).sample(unrelated, min(no_relation, len(unrelated)))


def fever_symmetric_pairs(path: Path) -> list[TrainingPair]:
    label_of = {"SUPPORTS": "entailment", "REFUTES": "contradiction"}
    return [
        TrainingPair(
            premise=r["evidence"], hypothesis=r["claim"], label=label_of[r["label"]], source="fever_symmetric"
        )
        for r in read_jsonl(path)
        if r.get("label") in label_of
    ]


def fool_me_twice_pairs(path: Path, seed: int = 13) -> list[TrainingPair]:
    """Gold evidence with the claim's label, and one retrieved non-gold sentence as neutral."""
    label_of = {"SUPPORTS": "entailment", "REFUTES": "contradiction"}
    rng = random.Random(seed)
    pairs = []
    for r in read_jsonl(path):
        if r.get("label") not in label_of or not r.get("gold_evidence"):
            continue
        gold = {e["text"] for e in r["gold_evidence"]}
        pairs.append(
            TrainingPair(
                premise=" ".join(gold),
                hypothesis=r["text"],
                label=label_of[r["label"]],
                source="fool_me_twice",
            )
        )
        others = [e["text"] for e in r.get("retrieved_evidence", []) if e["text"] not in gold]
        if others:
            pairs.append(
                TrainingPair(
                    premise=rng.choice(others), hypothesis=r["text"], label="neutral", source="fool_me_twice"
                )
            )
    return pairs


def scinli_pairs(paths: list[Path]) -> list[TrainingPair]:
    """SciNLI entailment and neutral pairs ("contrasting" and "reasoning" are not NLI classes)."""
    pairs = []
    for path in paths:
        if path.suffix == ".jsonl":
            rows = read_jsonl(path)
        else:
            with path.open(encoding="utf-8") as handle:
                rows = list(csv.DictReader(handle, delimiter="\t"))
        pairs += [
            TrainingPair(premise=r["sentence1"], hypothesis=r["sentence2"], label=r["label"], source="scinli")
            for r in rows
            if r.get("label") in ("entailment", "neutral")
        ]
    return pairs


def snli_pairs(path: Path) -> list[TrainingPair]:
    return [
        TrainingPair(premise=r["premise"], hypothesis=r["hypothesis"], label=r["label"], source="snli")
        for r in read_jsonl(path)
    ]


def general_pairs(data: Path, snli_replay: Path) -> list[TrainingPair]:
    """The fold-independent mix: scientific and general claim/evidence sets plus SNLI replay.
    ``data`` is the folder holding ``evidence_inference/``, ``abstrct_relations/``, …"""
    return [
        *evidence_inference_pairs(data / "evidence_inference", "train"),
        *abstrct_pairs(data / "abstrct_relations" / "neoplasm_train_relations.tsv"),
        *fever_symmetric_pairs(data / "fever_symmetric" / "fever_symmetric_dev.jsonl"),
        *fool_me_twice_pairs(data / "fool_me_twice" / "dev.jsonl"),
        *scinli_pairs(
            [
                data / "scinli" / "human_train_cotraining" / "data_train_1.tsv",
                data / "scinli" / "human_train_cotraining" / "data_train_2.tsv",
                data / "scinli" / "dev.jsonl",
            ]
        ),
        *snli_pairs(snli_replay),
    ]


def transfer_sets(data: Path) -> dict[str, list[TrainingPair]]:
    """Held-out sets of other kinds of text, never trained on: how the verifier generalises."""
    return {
        "evidence_inference_test": evidence_inference_pairs(data / "evidence_inference", "test", limit=1500),
        "abstrct_glaucoma_test": [
            p
            for p in abstrct_pairs(
                data / "abstrct_relations" / "glaucoma_test_relations.tsv", no_relation=300
            )
        ],
        "fever_symmetric_test": fever_symmetric_pairs(
            data / "fever_symmetric" / "fever_symmetric_test.jsonl"
        ),
        "fool_me_twice_test": fool_me_twice_pairs(data / "fool_me_twice" / "test.jsonl")[:1500],
        "scinli_test": scinli_pairs([data / "scinli" / "test.jsonl"])[:1500],
    }
