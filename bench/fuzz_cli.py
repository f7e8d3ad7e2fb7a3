"""Hostile arguments against the real ``lyra`` command, each call a subprocess.

A scratch folder holds a Lyra home with one completed task (its rows written with the pipeline's
own id functions, its Dagster partition registered) and the inputs the calls name: a good corpus,
claims files that are empty, nested 10,000 deep, hold NUL bytes or are not UTF-8, a folder, a file
where a folder is expected, a corpus whose records hold Rich markup, terminal control sequences,
NUL, bidi overrides and line breaks. Every subcommand is called with arguments no user should send:
bytes that are not UTF-8, huge strings, paths that are files, folders, devices or missing,
negative and huge numbers, unknown enum values, unknown task ids.

A call passes when its stderr holds no traceback and no "unexpected" line of the last-resort
guard, no control character of the hostile records reaches its output raw, it ends before the
timeout, and, where it is refused (exit code not 0), stderr is exactly
one ``error:`` line and nothing changed: the row count and a content hash of every DuckDB table,
the files of the scratch folder (the home's and the inputs'), and no path the call named came to
exist. The corpus cache of the home is filled once before the calls, as the first accepted task
would fill it.

    python -m bench.fuzz_cli                 # every case (~110 calls, about 3 s each)
    python -m bench.fuzz_cli --sample 25 --seed 7

Odd homes (``odd_home_cases``): a store or home made immutable (EPERM; made with ``chattr +i``, so
as root on a file system that keeps the flag, else left out), a store that is a folder, a loop of
symbolic links, a home that does not exist.

Hostile corpus text (``corpus_cases``): files holding lone surrogates, NUL, braces nested 16,000
deep, huge fields, bytes that are not UTF-8, ``@string`` macros that double each other, beside good
records that must still load.

Hostile configuration (``bench.fuzz_config.config_cases``, also ``python -m bench.fuzz_config``,
which checks what each refusal says): ``$LYRA_SETTINGS`` and ``$LYRA_DOMAINS`` naming files nested
10,000 deep, an alias bomb, a FIFO, ``/dev/zero``; environment values that cannot work; models the
settings name that are no models. Each is refused before any task exists.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TASK = "task_f0220000"
SURROGATE = "\udcff"  # the byte 0xff of a command line, as Python decodes it
HUGE = "x" * 100_000  # under Linux's 128 KiB limit for one argument
DEEP = "[" * 10_000 + "]" * 10_000
CORPUS = [
    {
        "doc_id": 1,
        "title": "Vitamin D supplementation and fracture risk in older adults",
        "abstract": ["High-dose vitamin D reduced hip fracture risk by 30%.", "Low doses showed no effect."],
    },
    {
        "doc_id": 2,
        "title": "Calcium and vitamin D in postmenopausal women",
        "abstract": [
            "Calcium with vitamin D did not reduce hip fractures.",
            "Kidney stones were more frequent.",
        ],
    },
]
CLAIM = "High-dose vitamin D reduces hip fracture risk."
# Corpus text a hostile record may hold: Rich markup, CSI, OSC 52 and OSC 8 sequences, NUL, DEL, C1,
# bidi overrides and line breaks. No call may pass any of it raw to the terminal (RAW_CONTROLS).
HOSTILE_TEXT = (
    "Vitamin D [/] [bold]\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil.example\x07x\x1b]8;;\x07"
    "\x00\x7f\x9b\u202efracture\u2066\r\n# risk\tnote"
)
RAW_CONTROLS = ("\x1b", "\x07", "\x00", "\x9b", "\u202e", "\u2066")


@dataclass
class Case:
    """One call: ``args`` with {home}, {task}, {dir} filled in; ``expect`` is "refuse" (exit code not
    0) or "any" (accepted calls are fine too, e.g. an unknown topic that lists nothing)."""

    name: str
    args: list[str]
    expect: str = "refuse"
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Outcome:
    case: Case
    code: int | None
    stderr: str
    seconds: float
    problems: list[str]


def build_home(scratch: Path) -> Path:
    """A home with one completed task: papers, pages, fragments, claims, edges and scores as the
    assets write them, and the task's Dagster partition."""
    import pandas as pd

    from lyra_assets.documents import page_id_for
    from lyra_assets.execution.runs import open_instance, register_partition
    from lyra_core.claims import claim_id_for
    from lyra_core.evidence import edge_id_for, edge_probabilities, unread_parts
    from lyra_core.fragments import make_fragments
    from lyra_core.papers import paper_id_for
    from lyra_core.scoring import Evidence, score_claim
    from lyra_resources.store.lyra_store import LyraStore

    home = scratch / "home"
    store = LyraStore.at(home)
    store.create_task("Does vitamin D supplementation reduce fracture risk?", {}, task_id=TASK)
    papers, pages, fragments = [], [], []
    for rank, doc in enumerate(CORPUS):
        paper_id = paper_id_for(None, None, None, f"fuzz:{doc['doc_id']}")
        page_id = page_id_for(paper_id, "abstract")
        text = " ".join(doc["abstract"])
        papers.append(
            {
                "paper_id": paper_id,
                "doi": None,
                "pmid": None,
                "arxiv_id": None,
                "title": doc["title"],
                "abstract": text,
                "year": 2020,
                "venue": None,
                "url": None,
                "sources": [f"local:{doc['doc_id']}"],
                "search_rank": rank,
                "authors": [],
            }
        )
        pages.append(
            {
                "page_id": page_id,
                "paper_id": paper_id,
                "url": None,
                "domain": "local",
                "kind": "abstract",
                "title": doc["title"],
            }
        )
        fragments += [f.model_dump() for f in make_fragments(page_id, text, window=1, stride=1)]
    claim_id = claim_id_for(TASK, CLAIM)
    claims = [
        {
            "claim_id": claim_id,
            "text": CLAIM,
            "origin": "user",
            "extractor": "user",
            "source_fragment_id": None,
            "adoption_status": "adopted",
            "also_in_fragments": [],
            "relevance": 0.9,
            "extraction_score": 3.0,
            "features": [],
        }
    ]
    edges = [
        {
            "edge_id": edge_id_for(TASK, f["fragment_id"], claim_id),
            "fragment_id": f["fragment_id"],
            "claim_id": claim_id,
            "relation": relation,
            "nli_label": relation.lower(),
            "nli_confidence": 0.8,
            "source_trust_level": "academic",
            "target_trust_level": "academic",
            "model_version": "fuzz",
            "similarity": 0.7,
            "page_id": f["page_id"],
            **edge_probabilities(relation, 0.8),
            **unread_parts("cross-encoder", f"the cross-encoder reads {relation.lower()} (0.80)"),
            "study_design": None,
            "design_cue": None,
            "sample_size": None,
        }
        for f, relation in zip(fragments[::2], ("SUPPORTS", "REFUTES"), strict=True)
    ]
    evidence = [
        Evidence(relation=e["relation"], nli_confidence=e["nli_confidence"], page_id=e["page_id"])
        for e in edges
    ]
    scores = [{"claim_id": claim_id, **score_claim(evidence).model_dump(), "method": "bayesian"}]
    topics = [
        {
            "topic_id": "t_fracture",
            "label": "hip fracture",
            "label_method": "distinctive-terms",
            "claim_count": 1,
            "has_contradiction": True,
            "claim_ids": [claim_id],
            "terms": ["hip", "fracture"],
        }
    ]
    for table, rows in {
        "papers": papers,
        "pages": pages,
        "fragments": fragments,
        "claims": claims,
        "nli_edges": edges,
        "claim_scores": scores,
        "claim_topics": topics,
    }.items():
        store.replace_partition(table, TASK, pd.DataFrame(rows))
    store.update_task(TASK, status="completed")
    with open_instance(home) as instance:
        register_partition(instance, TASK)
    return home


def write_inputs(scratch: Path) -> Path:
    """The files the calls name, in ``scratch/in``; the corpus's cache filled once in the home."""
    from lyra_resources.home import HomeLayout
    from lyra_resources.settings.loading import load_settings
    from lyra_resources.sources.literature import LiteratureSources
    from lyra_resources.task_input import check_corpus

    folder = scratch / "in"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in CORPUS))
    (folder / "empty.txt").write_text("")
    (folder / "comments.txt").write_text("# only a comment\n\n")
    (folder / "deep.jsonl").write_text(json.dumps({"claim": CLAIM})[:-1] + ', "papers": ' + DEEP + "}\n")
    (folder / "deep_object.jsonl").write_text(
        '{"claim": "' + CLAIM + '", "x": ' + '{"a": ' * 10_000 + "1" + "}" * 10_001 + "\n"
    )
    (folder / "nul.txt").write_bytes(CLAIM.encode() + b"\x00 and more\n")
    (folder / "latin1.txt").write_bytes("Caf\xe9 au lait raises alertness in adults.\n".encode("latin-1"))
    (folder / "good_claims.txt").write_text(CLAIM + "\n")
    (folder / "unknown_papers.jsonl").write_text(json.dumps({"claim": CLAIM, "papers": ["999"]}) + "\n")
    (folder / "queries_deep.jsonl").write_text('{"_id": "q1", "text": ' + DEEP + "}\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "vitamin"}) + "\n")
    (folder / "a_file").write_text("not a folder\n")
    (folder / "hostile.jsonl").write_text(
        "".join(
            json.dumps(
                {**d, "title": f"{HOSTILE_TEXT} {d['title']}", "abstract": [HOSTILE_TEXT, *d["abstract"]]}
            )
            + "\n"
            for d in CORPUS
        )
    )
    (folder / "a_folder").mkdir()
    write_hostile_corpora(folder)
    from bench import fuzz_config  # it builds on this module's cases

    fuzz_config.write_config_inputs(folder)
    with (folder / "sparse_huge.txt").open("wb") as fh:  # 60 MB that take no disk
        fh.truncate(60 * 1024 * 1024)
    home = scratch / "home"
    check_corpus(
        LiteratureSources.configured(HomeLayout(root=home).cache, load_settings()),
        str(folder / "corpus.jsonl"),
        "--corpus",
    )
    return folder


def cases() -> list[Case]:
    """Every call of the run, in a fixed order; {home}, {task} and {dir} (the inputs) filled in later."""
    h = ["--home", "{home}"]
    good = ["--corpus", "{dir}/corpus.jsonl"]
    out: list[Case] = []
    # the question and a task's input
    for name, question in [
        ("surrogate", SURROGATE + " question"),
        ("empty", ""),
        ("blank", "   "),
        ("huge", HUGE),
    ]:
        out.append(Case(f"run question {name}", ["run", question, *good, *h]))
    for name, value in [
        ("negative", "-1"),
        ("zero", "0"),
        ("huge", "1" + "0" * 30),
        ("text", "abc"),
        ("float", "1.5"),
    ]:
        out.append(
            Case(f"run --papers {name}", ["run", "vitamin D and fractures", *good, "--papers", value, *h])
        )
    for name, value in [
        ("negative", "-5m"),
        ("zero", "0m"),
        ("huge", "9" * 30 + "d"),
        ("unit", "5y"),
        ("surrogate", SURROGATE),
    ]:
        out.append(
            Case(f"run --watch {name}", ["run", "vitamin D and fractures", *good, "--watch", value, *h])
        )
    for name, claim in [
        ("short", "short"),
        ("huge", HUGE),
        ("surrogate", "vitamin D " + SURROGATE + " fractures"),
    ]:
        out.append(
            Case(f"run --claim {name}", ["run", "vitamin D and fractures", *good, "--claim", claim, *h])
        )
    for name in [
        "empty.txt",
        "comments.txt",
        "deep.jsonl",
        "deep_object.jsonl",
        "nul.txt",
        "latin1.txt",
        "a_folder",
        "missing.txt",
        "sparse_huge.txt",
        "unknown_papers.jsonl",
    ]:
        out.append(
            Case(
                f"run --claims-file {name}",
                ["run", "vitamin D and fractures", *good, "--claims-file", "{dir}/" + name, *h],
            )
        )
    for name in ["/dev/zero", "/dev/full", "/dev/null"]:
        out.append(
            Case(
                f"run --claims-file {name}",
                ["run", "vitamin D and fractures", *good, "--claims-file", name, *h],
            )
        )
    for name, corpus in [
        ("missing", "{dir}/nope.jsonl"),
        ("empty", "{dir}/empty.txt"),
        ("deep", "{dir}/deep.jsonl"),
        ("empty folder", "{dir}/a_folder"),
        ("device", "/dev/zero"),
        ("huge path", "/" + HUGE),
        ("surrogate", "{dir}/" + SURROGATE),
    ]:
        out.append(Case(f"run --corpus {name}", ["run", "vitamin D and fractures", "--corpus", corpus, *h]))
    # homes: a file, a device, /proc, a name too long, bytes that are not UTF-8, a missing one
    homes = [
        ("file", "{dir}/a_file"),
        ("under a file", "{dir}/a_file/home"),
        ("/dev/null", "/dev/null"),
        ("/dev/full", "/dev/full"),
        ("/proc/1", "/proc/1"),
        ("huge", "/tmp/" + "h" * 5000),
        ("surrogate", "{dir}/" + SURROGATE + "home"),
        ("missing", "{dir}/missing-home"),
    ]
    for name, home in homes:
        out.append(Case(f"task list --home {name}", ["task", "list", "--home", home]))
        out.append(Case(f"task status --home {name}", ["task", "status", "{task}", "--home", home]))
        out.append(
            Case(
                f"run --home {name}",
                ["run", "vitamin D and fractures", "--claims-file", "{dir}/empty.txt", *good, "--home", home],
            )
        )
    out.append(Case("task list LYRA_HOME file", ["task", "list"], env={"LYRA_HOME": "{dir}/a_file"}))
    out.append(
        Case(
            "export LYRA_HOME /proc/1",
            ["export", "{task}", "--format", "bibtex"],
            env={"LYRA_HOME": "/proc/1"},
        )
    )
    # task ids
    for name, task in [
        ("unknown", "task_00000000"),
        ("surrogate", SURROGATE),
        ("empty", ""),
        ("huge", HUGE),
        ("sql", "task_0'; DROP TABLE tasks; --"),
        ("path", "../../etc/passwd"),
        ("dash", "-1"),
    ]:
        for command in (
            ["task", "status"],
            ["task", "run"],
            ["task", "watch"],
            ["task", "unwatch"],
            ["task", "stop"],
        ):
            if name in ("unknown", "surrogate", "huge", "sql") or command[1] == "status":
                out.append(Case(f"{' '.join(command)} id {name}", [*command, task, *h]))
        out.append(Case(f"claims id {name}", ["claims", task, *h]))
        out.append(Case(f"export id {name}", ["export", task, "--format", "html", *h]))
    for name, every in [
        ("negative", "-5m"),
        ("short", "1m"),
        ("huge", "9" * 30 + "d"),
        ("surrogate", SURROGATE),
        ("empty", ""),
    ]:
        out.append(Case(f"task watch --every {name}", ["task", "watch", "{task}", "--every", every, *h]))
    # exports
    for name, fmt in [("unknown", "docx"), ("empty", ""), ("upper", "HTML"), ("surrogate", SURROGATE)]:
        out.append(Case(f"export --format {name}", ["export", "{task}", "--format", fmt, *h]))
    for name, target in [
        ("folder", "{dir}/a_folder"),
        ("/dev/full", "/dev/full"),
        ("missing folder", "{dir}/nowhere/x.html"),
        ("/nonexistent", "/nonexistent-fuzz/x.html"),
        ("under a file", "{dir}/a_file/x.html"),
        ("huge", "{dir}/" + "o" * 5000),
    ]:
        out.append(
            Case(f"export --out {name}", ["export", "{task}", "--format", "html", "--out", target, *h])
        )
    # claims and evidence
    for name, value in [("zero", "0"), ("negative", "-5"), ("huge", "1" + "0" * 20), ("text", "many")]:
        out.append(Case(f"claims --limit {name}", ["claims", "{task}", "--limit", value, *h]))
        out.append(Case(f"evidence --limit {name}", ["evidence", "c_x", "--limit", value, *h]))
    for name, topic in [("surrogate", SURROGATE), ("huge", HUGE), ("unknown", "no such topic")]:
        out.append(Case(f"claims --topic {name}", ["claims", "{task}", "--topic", topic, *h]))
    for name, claim in [("unknown", "c_00000000"), ("surrogate", SURROGATE), ("huge", HUGE), ("empty", "")]:
        out.append(Case(f"evidence claim {name}", ["evidence", claim, *h]))
    # feedback
    note = lambda text: json.dumps({"target_id": TASK, "note": text})  # noqa: E731
    for name, payload in [
        ("deep", DEEP),
        ("deep object", '{"a": ' * 5000 + "1" + "}" * 5000),
        ("NUL note", note("a\x00b")),
        ("surrogate note", note("a" + SURROGATE + "b")),
        ("not JSON", "{nope"),
        ("list", "[1, 2]"),
        ("huge note", note(HUGE[:90_000])),
        ("unknown field", json.dumps({"target_id": TASK, "note": "n", "x": 1})),
    ]:
        out.append(
            Case(f"feedback apply add_note {name}", ["feedback", "apply", "{task}", "add_note", payload, *h])
        )
    out.append(Case("feedback apply action surrogate", ["feedback", "apply", "{task}", SURROGATE, "{}", *h]))
    out.append(
        Case(
            "feedback apply unknown task",
            ["feedback", "apply", "task_00000000", "add_note", note("a note"), *h],
        )
    )
    for name, args in [
        ("relation", ["e_x", "sideways"]),
        ("edge surrogate", [SURROGATE, "supports"]),
        ("reason huge", ["e_x", "supports", "--reason", HUGE]),
    ]:
        out.append(Case(f"feedback edge-correct {name}", ["feedback", "edge-correct", "{task}", *args, *h]))
    # verify
    for name in [
        "empty.txt",
        "deep.jsonl",
        "deep_object.jsonl",
        "nul.txt",
        "unknown_papers.jsonl",
        "a_folder",
        "sparse_huge.txt",
    ]:
        out.append(Case(f"verify --claims {name}", ["verify", *good, "--claims", "{dir}/" + name, *h]))
    out.append(Case("verify --claims /dev/zero", ["verify", *good, "--claims", "/dev/zero", *h]))
    for name, value in [("zero", "0"), ("huge", "1" + "0" * 20)]:
        out.append(
            Case(
                f"verify --papers-per-claim {name}",
                ["verify", *good, "--claims", "{dir}/good_claims.txt", "--papers-per-claim", value, *h],
            )
        )
    for name, target in [("folder", "{dir}/a_folder"), ("missing folder", "{dir}/nowhere/r.jsonl")]:
        out.append(
            Case(
                f"verify --out {name}",
                ["verify", *good, "--claims", "{dir}/good_claims.txt", "--out", target, *h],
            )
        )
    # search
    for name, args in [
        ("query surrogate", [SURROGATE + " q", *good]),
        ("no corpus", ["vitamin"]),
        ("--top zero", ["vitamin", *good, "--top", "0"]),
        ("--top negative", ["vitamin", *good, "--top", "-3"]),
        ("--queries deep", [*good, "--queries", "{dir}/queries_deep.jsonl", "--run", "{dir}/run.tsv"]),
        ("--queries /dev/zero", [*good, "--queries", "/dev/zero", "--run", "{dir}/run.tsv"]),
        ("--run folder", [*good, "--queries", "{dir}/queries.jsonl", "--run", "{dir}/a_folder"]),
        (
            "--run missing folder",
            [*good, "--queries", "{dir}/queries.jsonl", "--run", "{dir}/nowhere/run.tsv"],
        ),
    ]:
        out.append(Case(f"search {name}", ["search", *args, *h]))
    hostile = ["--corpus", "{dir}/hostile.jsonl"]
    for name, args in [
        ("piped", ["vitamin D", *hostile]),
        ("json", ["vitamin D", *hostile, "--json"]),
        ("markup query", ["[/] vitamin [bold] \x1b[2J", *hostile]),
    ]:
        out.append(Case(f"search hostile corpus {name}", ["search", *args, *h], "any"))
    for name, question in [
        ("markup", "Does vitamin D [/] reduce fracture risk?"),
        ("escape", "vitamin D \x1b[2J"),
    ]:
        out.append(
            Case(
                f"run question {name} with no claims",
                ["run", question, *good, "--claims-file", "{dir}/empty.txt", *h],
            )
        )
    # servers, models, store, usage
    for name, args in [
        ("mcp --transport", ["mcp", "--transport", "carrier-pigeon"]),
        ("mcp --port", ["mcp", "--transport", "http", "--port", "-1"]),
        ("ui --port", ["ui", "--port", "70000"]),
        ("ui --port text", ["ui", "--port", "eighty"]),
        ("worker --concurrency", ["worker", "--concurrency", "0"]),
        ("worker local profile", ["worker"]),
        ("models activate", ["models", "activate", SURROGATE]),
        ("models activate unknown", ["models", "activate", "nli-v999"]),
        ("models train-nli", ["models", "train-nli", "--data", "{dir}/a_file"]),
        ("models train-reranker", ["models", "train-reranker", "--corpus", "{dir}/nope"]),
        ("models train-claim-roles", ["models", "train-claim-roles", "--data", "/dev/null"]),
        ("unknown command", ["frobnicate"]),
        ("unknown option", ["task", "list", "--colour"]),
        ("missing argument", ["task", "status"]),
    ]:
        out.append(Case(name, [*args, *h]))
    return out


# -- hostile corpus text: each file holds good records beside bad ones, and the good ones must load ------

_GOOD_BIB = "@article{good,\n  title = {Vitamin D and hip fracture},\n  author = {Smith, Jane},\n}\n"
_NESTED = "{" * 16_000 + "x" + "}" * 16_000


def _jsonl_with(bad: str) -> str:
    """The fuzz corpus's lines with ``bad`` (a JSON line) second."""
    lines = [json.dumps(d) for d in CORPUS]
    return "\n".join([lines[0], bad, *lines[1:]]) + "\n"


def write_hostile_corpora(folder: Path) -> Path:
    """Corpus files of hostile text in ``folder/corpora`` (and a folder of all of them); its path."""
    root = folder / "corpora"
    each = root / "each"
    each.mkdir(parents=True)
    record = lambda title: json.dumps({"doc_id": 9, "title": title, "abstract": ["Vitamin D."]})  # noqa: E731
    texts: dict[str, str | bytes] = {
        "surrogate.jsonl": _jsonl_with(record("falls \ud800 risk").replace("\\\\ud800", "\\ud800")),
        "surrogate_key.jsonl": _jsonl_with('{"\\udfff": 1}'),
        "surrogate_only.jsonl": record("x").replace('"x"', '"\\ud800"') + "\n",
        "nul_escape.jsonl": _jsonl_with(record("a\u0000b")),
        "nul_byte.jsonl": _jsonl_with(record("x")).encode().replace(b'"x"', b'"a\x00b"'),
        "not_utf8.jsonl": _jsonl_with(record("x")).encode().replace(b'"x"', b'"caf\xe9 \xff\xfe"'),
        "huge_title.jsonl": _jsonl_with(record("vitamin " * 125_000)),
        "nested.bib": "".join(
            f"@article{{deep{i}, title = {{Deep}}, author = {{{_NESTED}}}}}\n\n" for i in range(4)
        )
        + _GOOD_BIB,
        "unclosed.bib": "@article{open, title = " + "{" * 64_000 + "\n\n" + _GOOD_BIB,
        "huge_field.bib": "@article{huge, title = {" + "word " * 40_000 + "}}\n" + _GOOD_BIB,
        "not_utf8.bib": b"@article{latin, title = {Caf\xe9 \xff and vitamin D}}\n" + _GOOD_BIB.encode(),
        "nul.bib": b"@article{nul, title = {a\x00b}}\n" + _GOOD_BIB.encode(),
        "macros.bib": '@string{ev = "Vitamin D"}\n@string{loop = loop # "x"}\n@string{m0 = "ab"}\n'
        + "".join(f"@string{{m{i} = m{i - 1} # m{i - 1}}}\n" for i in range(1, 40))
        + '@article{macro, title = ev # " supplementation", abstract = loop # undefined}\n'
        "@article{bomb, title = m39}\n" + _GOOD_BIB,
    }
    for name, text in texts.items():
        for where in (root / name, each / name):
            (where.write_bytes if isinstance(text, bytes) else where.write_text)(text)
    (each / os.fsdecode(b"caf\xe9.jsonl")).write_text(_jsonl_with(record("x")))  # a name that is not UTF-8
    return root


def corpus_cases() -> list[Case]:
    """``lyra search`` on each hostile corpus file (its good records must load: accepted, or refused in
    one line when it has none: NUL bytes make a file binary), on a folder of all of them, and one ``lyra run``
    on that folder."""
    h = ["--home", "{home}"]
    out = [
        Case(
            f"search corpus {name}",
            ["search", "vitamin D fracture", "--corpus", "{dir}/corpora/" + name, *h],
            "refuse" if name in ("surrogate_only.jsonl", "nul_byte.jsonl", "nul.bib") else "any",
        )
        for name in (
            "surrogate.jsonl",
            "surrogate_key.jsonl",
            "surrogate_only.jsonl",
            "nul_escape.jsonl",
            "nul_byte.jsonl",
            "not_utf8.jsonl",
            "huge_title.jsonl",
            "nested.bib",
            "unclosed.bib",
            "huge_field.bib",
            "not_utf8.bib",
            "nul.bib",
            "macros.bib",
            "each",
        )
    ]
    out.append(
        Case(
            "run corpus each",
            [
                "run",
                "Does vitamin D reduce fracture risk?",
                "--corpus",
                "{dir}/corpora/each",
                "--papers",
                "5",
                *h,
            ],
            "any",
        )
    )
    return out


# -- odd homes: a store or a home made immutable (`chattr +i`: writes fail with EPERM, not EACCES), a
# store that is a folder, a loop of symbolic links, a home that does not exist ---------------------

IMMUTABLE_HOMES = ("immutable-store", "immutable-home")  # copies of the home; what `chattr +i` is set on


def chattr(flag: str, *paths: Path) -> bool:
    """``chattr FLAG PATHS``; whether it worked (it needs root and a file system that keeps the flag)."""
    try:
        done = subprocess.run(["chattr", flag, *map(str, paths)], capture_output=True, timeout=30)
    except OSError:  # no chattr here
        return False
    return done.returncode == 0


def can_make_immutable(folder: Path) -> bool:
    """Whether a file in ``folder`` can be made immutable (and back) here."""
    probe = folder / ".immutable-probe"
    probe.write_text("")
    try:
        return chattr("+i", probe) and chattr("-i", probe)
    finally:
        probe.unlink()


def prepare_odd_homes(home: Path, inputs: Path) -> bool:
    """The odd homes in ``inputs``: ``immutable-store`` (a copy of ``home`` whose lyra.duckdb is
    immutable), ``immutable-home`` (a copy whose folder is), ``store-folder`` (lyra.duckdb a
    folder), ``loop`` (a symlink to a symlink to it); ``missing-home`` is left missing. Whether the
    immutable ones could be made (else they are not made, and their cases are left out)."""
    import shutil

    (inputs / "store-folder" / "lyra.duckdb").mkdir(parents=True)
    (inputs / "loop").symlink_to(inputs / "loop-back")
    (inputs / "loop-back").symlink_to(inputs / "loop")
    if not can_make_immutable(inputs):
        return False
    for name in IMMUTABLE_HOMES:
        shutil.copytree(home, inputs / name, symlinks=True)
    return chattr("+i", inputs / "immutable-store" / "lyra.duckdb") and chattr(
        "+i", inputs / "immutable-home"
    )


def release_odd_homes(inputs: Path) -> None:
    """The immutable flags taken off again, so the scratch folder can be removed."""
    for path in (inputs / "immutable-store" / "lyra.duckdb", inputs / "immutable-home"):
        if path.exists():
            chattr("-i", path)


def odd_home_cases(immutable: bool = True) -> list[Case]:
    """Reads and writes on each odd home (``prepare_odd_homes``): an immutable store or home serves
    every read and refuses a write in one line at once; a store that is a folder, a symlink loop and
    a missing home are one line each, and nothing is made. ``immutable``: the immutable homes exist."""
    reads = [
        ["task", "list"],
        ["task", "status", "{task}"],
        ["claims", "{task}"],
        ["export", "{task}", "--format", "csv", "--out", "{dir}/odd-export.csv"],
    ]
    writes = [
        ["feedback", "apply", "{task}", "add_note", '{"target_id": "{task}", "note": "odd"}'],
        ["task", "run", "{task}"],
        ["run", "vitamin D and fractures", "--corpus", "{dir}/corpus.jsonl"],
    ]
    out: list[Case] = []
    for name in [*(IMMUTABLE_HOMES if immutable else ()), "store-folder", "loop", "missing-home"]:
        home = ["--home", "{dir}/" + name]
        for args in reads:
            out.append(
                Case(
                    f"odd home {name}: {' '.join(args[:2])}",
                    [*args, *home],
                    "any" if "immutable" in name else "refuse",
                )
            )
        for args in writes if name != "missing-home" else writes[:2]:  # a run makes a missing home
            out.append(Case(f"odd home {name}: {' '.join(args[:2])}", [*args, *home]))
    return out


def fill(value: str, home: Path, inputs: Path) -> str:
    return value.replace("{home}", str(home)).replace("{task}", TASK).replace("{dir}", str(inputs))


def snapshot(scratch: Path, home: Path) -> dict:
    """Each DuckDB table's row count and content hash, the tasks partition's keys, and every file
    under ``scratch`` (databases by name only: opening one may rewrite its pages, not its rows;
    SQLite's journals not at all)."""
    import duckdb

    tables = {}
    conn = duckdb.connect(str(home / "lyra.duckdb"), read_only=True)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1"
            ).fetchall()
        ]
        for name in names:
            tables[name] = conn.execute(
                f"SELECT count(*), md5(coalesce(string_agg(CAST(t AS VARCHAR), chr(10) "
                f"ORDER BY CAST(t AS VARCHAR)), '')) FROM \"{name}\" t"
            ).fetchone()
    finally:
        conn.close()
    files = {}
    for path in sorted(scratch.rglob("*")):
        rel = str(path.relative_to(scratch))
        if path.name.endswith(("-wal", "-shm", "-journal")):  # SQLite's own, come and go with its readers
            continue
        if path.is_file() and not path.name.startswith("lyra.duckdb") and path.suffix != ".db":
            files[rel] = (
                hashlib.md5(path.read_bytes()).hexdigest() if path.stat().st_size < 10**7 else "large"
            )
        else:
            files[rel] = "dir" if path.is_dir() else "file"
    return {"tables": tables, "files": files, "partitions": partitions(home)}


def partitions(home: Path) -> list[str]:
    """The tasks partition's keys, read from the Dagster instance's SQLite storage."""
    import sqlite3

    keys = []
    for db in sorted((home / "dagster").rglob("*.db")):
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            keys += [r[0] for r in conn.execute("SELECT partition FROM dynamic_partitions").fetchall()]
        except sqlite3.Error:
            pass
        finally:
            conn.close()
    return sorted(keys)


def call(case: Case, home: Path, inputs: Path, scratch: Path, timeout_s: float) -> Outcome:
    args = [fill(a, home, inputs) for a in case.args]
    env = {k: v for k, v in os.environ.items() if k not in ("LYRA_HOME", "LYRA_DEBUG")}
    env |= {
        "PYTHONPATH": os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "COLUMNS": "100",
    }
    env |= {k: fill(v, home, inputs) for k, v in case.env.items()}
    named = [Path(a) for a in args if a.startswith("/") and len(a) < 1000 and not Path(a).exists()]
    before = snapshot(scratch, home)
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "lyra_tools.cli", *args],
            cwd=scratch,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
        )
        code, stderr = proc.returncode, proc.stderr.decode("utf-8", "replace")
        shown = stderr + proc.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as exc:
        code, stderr = None, (exc.stderr or b"").decode("utf-8", "replace")
        shown = stderr
    seconds = time.monotonic() - started
    problems = []
    if code is None:
        problems.append(f"no answer in {timeout_s:.0f}s")
    if "Traceback" in stderr:
        problems.append("a traceback")
    if "error: unexpected " in stderr:
        problems.append("the last-resort guard caught it: " + stderr.strip().splitlines()[-1][:200])
    if raw := [repr(c) for c in RAW_CONTROLS if c in shown]:
        problems.append(f"raw control characters reached the output: {', '.join(raw)}")
    if code == 0 and case.expect == "refuse":
        problems.append("accepted, not refused")
    if code not in (0, None):
        lines = stderr.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("error: "):
            problems.append(f"{len(lines)} stderr lines, not one error line: {stderr[:300]!r}")
        after = snapshot(scratch, home)
        for part in ("tables", "partitions", "files"):
            if after[part] != before[part]:
                changed = sorted(
                    set(after[part].items() if part != "partitions" else after[part])
                    ^ set(before[part].items() if part != "partitions" else before[part])
                )
                problems.append(f"{part} changed: {str(changed)[:300]}")
        problems += [f"{p} was created" for p in named if p.exists()]
    return Outcome(case, code, stderr, seconds, problems)


def run_cases(chosen: list[Case], timeout_s: float = 120.0, log=print) -> list[Outcome]:
    """Build the scratch home and inputs, make every call of ``chosen``, clean up; the outcomes."""
    with tempfile.TemporaryDirectory(prefix="lyra-fuzz-") as tmp:
        scratch = Path(tmp)
        home = build_home(scratch)
        inputs = write_inputs(scratch)
        if any(case.name.startswith("odd home") for case in chosen):
            immutable = prepare_odd_homes(home, inputs)
            chosen = [c for c in chosen if immutable or not any(n in c.name for n in IMMUTABLE_HOMES)]
        outcomes = []
        try:
            for case in chosen:
                outcome = call(case, home, inputs, scratch, timeout_s)
                outcomes.append(outcome)
                mark = "ok " if not outcome.problems else "BAD"
                log(
                    f"{mark} {outcome.code!s:>4} {outcome.seconds:5.1f}s  {case.name}"
                    + (f"  <- {'; '.join(outcome.problems)}" if outcome.problems else "")
                )
        finally:
            release_odd_homes(inputs)
        return outcomes


def summary(outcomes: list[Outcome]) -> str:
    refused = [o for o in outcomes if o.code not in (0, None)]
    return (
        f"{len(outcomes)} calls: {len(refused)} refused, {len(outcomes) - len(refused)} accepted; "
        f"{sum('a traceback' in o.problems for o in outcomes)} tracebacks, "
        f"{sum(o.code is None for o in outcomes)} hangs, "
        f"{sum(any(p.startswith('the last-resort') for p in o.problems) for o in outcomes)} caught by the guard, "
        f"{sum(any('stderr lines' in p for p in o.problems) for o in outcomes)} refusals not one line, "
        f"{sum(any('changed' in p or 'created' in p for p in o.problems) for o in outcomes)} refusals that "
        f"changed something, {sum('accepted, not refused' in o.problems for o in outcomes)} accepted that "
        f"should be refused; {sum(bool(o.problems) for o in outcomes)} failed"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sample", type=int, default=0, help="this many cases, drawn with --seed (default: all)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a call may take")
    args = parser.parse_args()
    from bench import fuzz_config

    chosen = cases() + corpus_cases() + odd_home_cases() + fuzz_config.config_cases()
    if args.sample:
        chosen = random.Random(args.seed).sample(chosen, min(args.sample, len(chosen)))
    outcomes = run_cases(chosen, args.timeout)
    print(summary(outcomes))
    sys.exit(1 if any(o.problems for o in outcomes) else 0)


if __name__ == "__main__":
    main()
