"""How often a question-mode task answers a yes/no question right.

Two sets of questions with known answers, each run as the real ``lyra run QUESTION --corpus FILE``
(one process per task, as a user runs it) and read back from ``task_answer``:

- **PubMedQA** (PQA-L, ``../shared/data/nli_training/pubmedqa_pqal``): questions labelled yes / no
  from the 500 of its test side; the corpus is all 1,000 PQA-L abstracts (context sections and
  the conclusion, as published), so each task has to find its paper among 999 others. No Lyra
  model was trained on PubMedQA.
- **SciFact** train claims with SUPPORT / CONTRADICT evidence, turned into yes/no questions by the
  rules of :func:`to_question` (the rule each used is printed), on the 5,183-abstract SciFact
  corpus. The shipped verifier was trained on every SciFact train claim, so these questions are
  drawn from one cross-validation fold and judged by that fold's verifier (``--scifact-nli``,
  trained without those claims, see ``lyra models train-nli``); without it the figures are marked
  as seen in training.

An answer is *right* when a yes question is ``supported``/``well_supported`` or a no question
``likely_false``; *wrong in direction* when it is the opposite; *nothing here* when it is neither and
the answer says no passage addresses the question's exposure and outcome together
(``task_answer.not_addressed``); *undecided* otherwise (``unverified`` or ``contested``, or the
question read as an open question).

    .venv/bin/python -m bench.answers [--pubmedqa 30] [--scifact 30] [--home DIR] \\
        [--scifact-nli DIR --scifact-fold 0] [--compare-gates] [--compare-judges] \\
        [--compare-unstated] [--previous DETAILS.jsonl]

``--compare-gates`` runs every question twice in the same run: with the evidence gates of
``nli_edges`` (findings only, far fragments neutral) and without them; ``--compare-judges`` runs
it again with the direction judge off (the cross-encoder judges every claim, as before it shipped);
``--compare-unstated`` again with the cross-encoder judging a passage whose words and figures state
no direction (``evidence.unstated_direction: cross-encoder``).
``--previous`` prints a previous round's rows (its ``details.jsonl``) beside this round's, and this
round's again on the questions both rounds asked (a fixed seed draws a larger round's first questions
as a smaller one drew them).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import yaml

from bench.common import read_jsonl, require_data
from lyra_core.hypothesis.words import AUXILIARY_VERBS, DO
from lyra_core.splits import claim_folds
from lyra_resources.home import resolve_home
from lyra_resources.store.lyra_store import LyraStore
from lyra_training.verifier_data import gold_label

YES = {"supported", "well_supported"}
NO = {"likely_false"}
# The auxiliaries fronted to make a question of a claim: "do" takes do-support, a rule of its own, and
# "had", "must", "am" and "shall" are left to the later rules, as in the questions the results were measured on.
_FRONTED = AUXILIARY_VERBS - DO - {"am", "had", "must", "shall"}
# The verbs a SciFact claim's predicate may start with, for turning claims into questions (Lyra reads
# questions without such a list: lyra_core.hypothesis).
VERBS = set(
    """
accelerate accept account achieve act add address affect age attend call coincide differentiate discriminate
exhibit favor favour perform predispose prime push relate release relieve request run subside think underprescribe
want be aggravate agree alleviate alter ameliorate amplify appear apply
associate attenuate augment avoid benefit block boost bring carry cause change compare compensate compromise confer
confound constitute contribute control correlate correspond cost counteract create cure damage decline decrease
define delay depend deserve detect determine develop differ diminish distinguish disrupt enable encourage enhance
ensure equal exacerbate exceed exert exclude exist explain fall express extend facilitate fail fit follow go guide
harm have help hinder identify impact impair improve increase indicate induce influence inhibit interfere involve
justify lead lengthen limit live lower maintain make matter mediate mimic minimize mitigate modify modulate need
normalise normalize occur offer outperform outweigh persist play pose precede predict prevent produce prolong
promote protect provide raise reach recall receive reduce reflect remain replace represent require reverse result
save see seem shorten show slow stimulate suppress survive take target tend translate trigger understand undergo
vary work worsen yield
""".split()
)
_NOT_AFTER = {
    "a",
    "an",
    "the",
    "of",
    "in",
    "on",
    "for",
    "with",
    "to",
    "from",
    "by",
    "at",
    "and",
    "or",
    "than",
}


def _base(word: str) -> str | None:
    """'reduces' → 'reduce', 'suppresses' → 'suppress', 'modifies' → 'modify'; None if no known verb."""
    for cut, add in (("ies", "y"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"), ("xes", "x"), ("s", "")):
        if word.endswith(cut) and word[: -len(cut)] + add in VERBS:
            return word[: -len(cut)] + add
    return None


def _subject(words: list[str]) -> str:
    first, rest = words[0], words[1:]
    if first[:1].isupper() and first[1:].islower() and first.isalpha():  # "Statins" → "statins", not "ALDH1"
        first = first.lower()
    return " ".join([first, *rest])


def to_question(claim: str) -> tuple[str, str]:
    """A SciFact claim as a yes/no question and the rule used: the auxiliary fronted ("X is
    associated with Y" → "Is X associated with Y?"), do-support for a present-tense verb ("X
    reduces Y" → "Does X reduce Y?", "Xs reduce Y" → "Do Xs reduce Y?"), else "Is it true that …?"."""
    words = claim.rstrip(" .").split()
    for i in range(1, len(words)):
        word, before = words[i].lower().strip(",;:"), words[i - 1].lower()
        if before in _NOT_AFTER:
            continue
        rest = " ".join(words[i + 1 :])
        if word in ("has", "have") and not re.fullmatch(
            r"[a-z-]+(ed|en|wn|ne)", words[i + 1].lower() if i + 1 < len(words) else ""
        ):
            return f"{'Does' if word == 'has' else 'Do'} {_subject(words[:i])} have {rest}?", "do + have"
        if word in _FRONTED and i + 1 < len(words):
            return f"{word.capitalize()} {_subject(words[:i])} {rest}?", "auxiliary fronted"
        base = _base(word)
        if base:
            return f"Does {_subject(words[:i])} {base} {rest}?".replace("  ", " "), "does + verb"
        if word in VERBS and word != "be":
            return f"Do {_subject(words[:i])} {word} {rest}?".replace("  ", " "), "do + verb"
    return f"Is it true that {_subject(words)}?", "is it true that"


def pubmedqa_questions(n: int, seed: int, work: Path) -> tuple[list[dict], Path]:
    folder = require_data("nli_training", "pubmedqa_pqal")
    records = json.loads((folder / "ori_pqal.json").read_text())
    test_side = json.loads((folder / "test_ground_truth.json").read_text())
    corpus = work / "pubmedqa_corpus.jsonl"
    corpus.parent.mkdir(parents=True, exist_ok=True)
    with corpus.open("w") as out:
        for pmid, r in sorted(records.items()):
            out.write(
                json.dumps({"_id": pmid, "title": "", "text": " ".join([*r["CONTEXTS"], r["LONG_ANSWER"]])})
                + "\n"
            )
    pool = sorted(p for p in test_side if records[p]["final_decision"] in ("yes", "no"))
    chosen = random.Random(seed).sample(pool, min(n, len(pool)))
    return [
        {
            "set": "PubMedQA",
            "id": p,
            "question": records[p]["QUESTION"],
            "expected": records[p]["final_decision"],
            "rule": "as asked",
        }
        for p in chosen
    ], corpus


def scifact_questions(n: int, seed: int, fold: int | None) -> tuple[list[dict], Path]:
    data = require_data("scifact")
    claims = read_jsonl(data / "claims_train.jsonl")
    fold_of = claim_folds(claims)
    unique = {
        c["claim"]: c
        for c in claims
        if gold_label(c) in ("SUPPORT", "CONTRADICT") and (fold is None or fold_of[c["id"]] == fold)
    }
    chosen = random.Random(seed).sample(sorted(unique.values(), key=lambda c: c["id"]), min(n, len(unique)))
    out = []
    for c in chosen:
        question, rule = to_question(c["claim"])
        out.append(
            {
                "set": "SciFact",
                "id": c["id"],
                "claim": c["claim"],
                "question": question,
                "rule": rule,
                "expected": "yes" if gold_label(c) == "SUPPORT" else "no",
            }
        )
    return out, data / "corpus.jsonl"


def run_task(question: str, corpus: Path, home: Path, env: dict[str, str]) -> tuple[dict, float]:
    """``lyra run`` in its own process; the task's answer row and the wall time."""
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lyra_tools.cli",
            "run",
            question,
            "--corpus",
            str(corpus),
            "--home",
            str(home),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}, seconds
    store = LyraStore.at(home)
    task = store.list_tasks()[-1]
    rows = store.fetch_df("SELECT * FROM task_answer WHERE task_id = ?", [task.id]).to_dict("records")
    return (rows[0] | {"task_id": task.id}) if rows else {"error": ["no task_answer row"]}, seconds


def outcome(expected: str, answer: dict) -> str:
    verdict = answer.get("verdict")
    if verdict in YES:
        return "right" if expected == "yes" else "wrong direction"
    if verdict in NO:
        return "right" if expected == "no" else "wrong direction"
    return "nothing here" if answer.get("not_addressed") else "undecided"


def other_judges() -> list[str]:
    """The judge the shipped settings do not use (``evidence.judge``), to run beside them."""
    from lyra_resources.home import CONFIG_DIR

    data = yaml.safe_load((CONFIG_DIR / "settings.yaml").read_text()) or {}
    shipped = (data.get("evidence") or {}).get("judge", "rules")
    return [j for j in ("rules", "learned") if j != shipped]


def settings_file(
    work: Path,
    name: str,
    nli: str | None,
    gates: bool,
    direction: str = "",
    unstated: str = "",
    judge: str = "",
) -> Path:
    """The project's settings with the judge and the evidence gates of one method (``direction``:
    the direction reader's folder, "" for the shipped one, or "off": the cross-encoder judges all;
    ``unstated``: who judges a passage whose words and figures state no direction, "" as configured;
    ``judge``: ``evidence.judge``, "" as configured)."""
    from lyra_resources.home import CONFIG_DIR

    data = yaml.safe_load((CONFIG_DIR / "settings.yaml").read_text()) or {}
    data.setdefault("models", {})["direction"] = direction
    if nli:
        data.setdefault("models", {})["nli"] = str(Path(nli).resolve())
    if unstated:
        data.setdefault("evidence", {})["unstated_direction"] = unstated
    if judge:
        data.setdefault("evidence", {})["judge"] = judge
    if not gates:  # every fragment is evidence and no edge is neutral for being far from the claim
        data.setdefault("evidence", {}).update({"min_finding": 0.0, "min_similarity": -1.0})
    path = work / f"settings_{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pubmedqa", type=int, default=30, help="PubMedQA yes/no questions (test side)")
    parser.add_argument("--scifact", type=int, default=30, help="SciFact train claims as questions")
    parser.add_argument("--scifact-nli", default=None, help="verifier that never saw the fold's claims")
    parser.add_argument("--scifact-fold", type=int, default=0)
    parser.add_argument(
        "--compare-gates",
        action="store_true",
        help="also run every question with the evidence gates off (min_finding 0, min_similarity -1)",
    )
    parser.add_argument(
        "--compare-judges",
        action="store_true",
        help="also run every question with the direction judge off (the cross-encoder judges every claim)",
    )
    parser.add_argument(
        "--compare-unstated",
        action="store_true",
        help="also run every question with the cross-encoder judging passages whose words and figures "
        "state no direction (the rule before the direction reader alone decided there)",
    )
    parser.add_argument(
        "--compare-learned",
        action="store_true",
        help="also run every question with the learned judge (evidence.judge: learned) and, where the "
        "shipped setting is learned, with the rules (evidence.judge: rules)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--home", default=None)
    parser.add_argument("--resume", action="store_true", help="keep the answers details.jsonl already holds")
    parser.add_argument(
        "--previous",
        type=Path,
        default=None,
        help="a previous round's details.jsonl: its rows are printed beside this round's, and this "
        "round's again on the questions both asked",
    )
    args = parser.parse_args()
    home = resolve_home(args.home)
    work = home / "bench" / "answers"
    work.mkdir(parents=True, exist_ok=True)
    env = os.environ | {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    methods = (
        [("gates on", True, "", "", "")]
        + ([("gates off", False, "", "", "")] if args.compare_gates else [])
        + ([("direction off", True, "off", "", "")] if args.compare_judges else [])
        + ([("unstated: CE", True, "", "cross-encoder", "")] if args.compare_unstated else [])
        + [(f"judge: {j}", True, "", "", j) for j in other_judges() if args.compare_learned]
    )
    runs = []
    if args.pubmedqa:
        pqa, pqa_corpus = pubmedqa_questions(args.pubmedqa, args.seed, work)
        for method, gates, direction, unstated, judge in methods:
            path = settings_file(
                work,
                f"pubmedqa_{gates}_{direction or 'shipped'}_{unstated or 'set'}_{judge or 'judge'}",
                None,
                gates,
                direction,
                unstated,
                judge,
            )
            runs.append((pqa, pqa_corpus, env | {"LYRA_SETTINGS": str(path)}, "shipped verifier", method))
    if args.scifact:
        fold = args.scifact_fold if args.scifact_nli else None
        sf, sf_corpus = scifact_questions(args.scifact, args.seed, fold)
        judge = (
            f"fold-{fold} verifier (claims unseen)"
            if args.scifact_nli
            else "shipped verifier — SEEN IN TRAINING, optimistic"
        )
        for method, gates, direction, unstated, judge_setting in methods:
            path = settings_file(
                work,
                f"scifact_{gates}_{direction or 'shipped'}_{unstated or 'set'}_{judge_setting or 'judge'}",
                args.scifact_nli,
                gates,
                direction,
                unstated,
                judge_setting,
            )
            runs.append((sf, sf_corpus, env | {"LYRA_SETTINGS": str(path)}, judge, method))
    details = work / "details.jsonl"
    key = lambda q: (q["set"], str(q["id"]), q["judge"], q["method"])  # noqa: E731
    done = (
        {key(d): d for d in read_jsonl(details) if "method" in d} if args.resume and details.exists() else {}
    )
    questions = []
    with details.open("w") as log:
        for items, corpus, run_env, judge, method in runs:
            for item in items:
                q = dict(item, judge=judge, method=method)
                if key(q) in done:
                    q = done[key(q)]
                else:
                    answer, seconds = run_task(q["question"], corpus, home, run_env)
                    q |= {
                        "seconds": round(seconds, 1),
                        "outcome": outcome(q["expected"], answer),
                        **{
                            k: answer.get(k)
                            for k in (
                                "hypothesis",
                                "verdict",
                                "confidence",
                                "supporting_papers",
                                "refuting_papers",
                                "papers_judged",
                                "not_addressed",
                                "error",
                                "task_id",
                            )
                        },
                    }
                    print(
                        f"[{q['set']} {method} {len(questions) + 1}] {q['expected']:>3} → "
                        f"{q['verdict'] or q.get('error')} ({q['outcome']}, {seconds:.0f} s): {q['question'][:80]}",
                        flush=True,
                    )
                questions.append(q)
                log.write(json.dumps(q, default=str) + "\n")
                log.flush()
    print(f"\nquestion-mode answers ({details})")
    previous = [q for q in read_jsonl(args.previous) if "method" in q] if args.previous else []
    print(
        f"{'set':<9} {'judge':<34} {'method':<13} {'n':>3} {'right':>6} {'wrong dir':>10} {'undecided':>10} "
        f"{'nothing here':>13} {'s/task':>7}"
    )
    for name in ("PubMedQA", "SciFact"):
        for method, *_ in methods:
            rows = [q for q in questions if q["set"] == name and q["method"] == method]
            if not rows:
                continue
            print_row(name, rows[0]["judge"], method, rows)
            before = [q for q in previous if q["set"] == name and q["method"] == method]
            if before:
                asked = {str(q["id"]) for q in before}
                print_row("", "previous round", method, before)
                print_row(
                    "", "this round, the same questions", method, [q for q in rows if str(q["id"]) in asked]
                )
    rules = Counter(q["rule"] for q in questions if q["set"] == "SciFact" and q["method"] == methods[0][0])
    if rules:
        print("SciFact claims → questions: " + ", ".join(f"{k} {v}" for k, v in rules.most_common()))
    opened = sum(1 for q in questions if not q.get("hypothesis") and not q.get("error"))
    if opened:
        print(f"{opened} answers read their question as an open question (no hypothesis): counted undecided")


def print_row(name: str, judge: str, method: str, rows: list[dict]) -> None:
    """One line of the table (shares of each outcome) and the yes / no questions' counts below it."""
    counts = Counter(q["outcome"] for q in rows)
    pct = lambda k: f"{counts[k] / len(rows):.0%}" if rows else "—"  # noqa: E731
    seconds = sum(q["seconds"] for q in rows) / len(rows) if rows else 0.0
    print(
        f"{name:<9} {judge:<34} {method:<13} {len(rows):>3} {pct('right'):>6} {pct('wrong direction'):>10} "
        f"{pct('undecided'):>10} {pct('nothing here'):>13} {seconds:>7.0f}"
    )
    for expected in ("yes", "no"):
        part = [q for q in rows if q["expected"] == expected]
        if part:
            c = Counter(q["outcome"] for q in part)
            print(
                f"    {expected:>3}: {len(part)} questions — {c['right']} right, {c['wrong direction']} "
                f"wrong direction, {c['undecided']} undecided, {c['nothing here']} nothing here"
            )


if __name__ == "__main__":
    main()
