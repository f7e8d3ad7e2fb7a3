"""MCP read-tool benchmark: p50/p95 latency and answer size of every read tool on a store of
50 tasks and 22,900 claims (183,200 edges, 172,200 fragments).

    .venv/bin/python -m bench.mcp [--home DIR] [--tasks 50] [--claims 460] [--calls 60] [--rebuild]
                                  [--mode kept|file|both]

Goal, with 500 tasks in the store (``--tasks 500 --claims 40``): p95 ≤ 25 ms for every exploration
tool, ≤ 50 ms for get_status, and every answer ≤ 8 KB.

How the store is built. Running the pipeline 50 times is too slow on 2 cores (and the NLI model may
not be trained yet), so one task's rows are generated from the real SciFact data with Lyra's own
functions, then replicated into 50 task ids:
- claims: the first ``--claims`` (460) SciFact training claims (claims_train.jsonl) that cite an
  abstract, as user claims (fact-checking mode: all adopted; 458 distinct ids once deduplicated);
- papers, pages, fragments: every abstract those claims cite plus 100 other SciFact abstracts, one
  ``abstract`` page per paper (no URL, so domain 'local', as the local corpus gives), cut into
  fragments by ``lyra_core.fragments.make_fragments`` with the default settings (2-sentence windows);
- nli_edges: each claim meets its 8 best fragments by BM25 (``lyra_core.bm25``; the pipeline uses
  embedding similarity); the relation is SciFact's gold label where the fragment's abstract is
  rationale evidence for the claim (SUPPORT → SUPPORTS, CONTRADICT → REFUTES), NEUTRAL otherwise,
  with a deterministic pseudo-random confidence in [0.5, 0.99];
- claim_scores: ``lyra_core.scoring.score_claim``; claim_topics: ``lyra_core.topics.build_topics``
  over the packaged MiniLM embeddings of the claims (cosine ≥ 0.5, the default);
- replication: task ids task_bench000…049, claim / edge / topic ids re-hashed per task with the
  pipeline's id functions (page and fragment ids are task-independent, as in the pipeline); rows are
  written with ``LyraStore.replace_partition`` (DuckDB + Parquet);
- every 5th task carries human feedback applied through ``lyra_tools.feedback.apply.apply_feedback``
  (10 edge corrections, 3 rejected claims), so the effective-graph overlay is part of the timings.

How it is measured: each read tool is called ``--calls`` times (after one warm-up call) through the
MCP SDK's in-memory client against ``build_server`` — the agent's path, JSON included — on random
tasks, topics and claims (seeded). Latency is the client's round trip; CPU is this process's CPU
time for the call (client and server share it), which is what the wall time would be on an idle
machine; answer size is the byte length of the compact JSON text block the agent reads.
get_claim_evidence queues its 'returned' relevance signals (written in the background);
get_status also reads the task's latest run from the Dagster instance (sqlite): it is timed on the
synthetic tasks (no run) and on one task the real pipeline ran once per home (30 SciFact abstracts),
whose run's event log it reads.
Building the store takes about 3 minutes of CPU on 2 cores, timing about 1 minute.

Then ten agent sessions, each on one task as an agent goes through it (summary, topics, a topic's
claims, three claims' evidence, contradictions, materials, a paper search and record, status), time
each call again: the table's ``session:`` rows. The calls above each pick a task at random among 500,
so most of them meet a task the server has not read yet; a session reads one task many times.

``--mode`` picks the server: ``kept`` (the default) reads from its in-memory copies
(``lyra_resources.store.snapshot_reads``: a task's Parquet generation, the small tables copied when the store's
change stamp moves, Dagster's answers kept while its files stand, output schemas checked at the top
level); ``file`` is the server as it was before (``build_server(snapshot_reads=False)``: every call
ATTACHes the database file, Dagster is asked every time, whole output schemas); ``both`` times
``file`` then ``kept``, each in a process of its own, and prints them side by side.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
import numpy as np
import pandas as pd

from bench.common import read_jsonl, require_data
from lyra_core.bm25 import Bm25Index
from lyra_core.claims import claim_id_for
from lyra_core.evidence import edge_id_for, edge_probabilities, unread_parts
from lyra_core.fragments import make_fragments
from lyra_core.papers import paper_id_for
from lyra_core.scoring import Evidence, score_claim
from lyra_core.text import tokenize
from lyra_core.topics import build_topics
from lyra_resources.store.lyra_store import LyraStore

QUESTION = "Which biomedical findings stated in these SciFact claims does the literature support or refute?"
NLI_VERSION = "bench-scifact-gold-labels"
TOP_K = 8


def _unit(*parts: object) -> float:
    """Deterministic pseudo-random number in [0, 1) from ``parts``."""
    return int(hashlib.sha1("\x1f".join(map(str, parts)).encode()).hexdigest()[:8], 16) / 2**32


def source_rows(n_claims: int) -> dict:
    """One task's worth of rows (task-independent parts) from the real SciFact files."""
    corpus = {str(d["doc_id"]): d for d in read_jsonl(require_data("scifact", "corpus.jsonl"))}
    claims = [
        c
        for c in read_jsonl(require_data("scifact", "claims_train.jsonl"))
        if any(str(d) in corpus for d in c.get("cited_doc_ids", []))
    ][:n_claims]
    cited = list(dict.fromkeys(str(d) for c in claims for d in c["cited_doc_ids"] if str(d) in corpus))
    others = [d for d in corpus if d not in set(cited)]
    docs = cited + random.Random(7).sample(others, 100)
    papers, pages, fragments, page_of_doc = [], [], [], {}
    for rank, doc_id in enumerate(docs):
        doc = corpus[doc_id]
        paper_id = paper_id_for(None, None, None, f"scifact:{doc_id}")
        abstract = " ".join(doc["abstract"])
        page_id = "pg_" + hashlib.sha1(f"{paper_id}\x1fabstract".encode()).hexdigest()[:16]
        page_of_doc[doc_id] = page_id
        papers.append(
            {
                "paper_id": paper_id,
                "doi": None,
                "pmid": None,
                "arxiv_id": None,
                "title": doc["title"],
                "abstract": abstract,
                "year": None,
                "venue": None,
                "url": None,
                "sources": [f"local:{doc_id}"],
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
        fragments += [
            f.model_dump() for f in make_fragments(page_id, abstract, window=2, stride=1, max_chars=1200)
        ]
    fragments_df = pd.DataFrame(fragments)
    doc_of_page = {p: d for d, p in page_of_doc.items()}
    index = Bm25Index([tokenize(t) for t in fragments_df["text"]])
    pairs = []  # (claim index, fragment row, relation, confidence, similarity)
    for ci, claim in enumerate(claims):
        scores = np.asarray(index.get_scores(tokenize(claim["claim"])))
        best = np.lexsort((np.arange(len(scores)), -scores))[:TOP_K]
        labels = {doc: ev[0]["label"] for doc, ev in claim.get("evidence", {}).items() if ev}
        for fi in best:
            doc = doc_of_page[fragments_df["page_id"].iat[fi]]
            relation = {"SUPPORT": "SUPPORTS", "CONTRADICT": "REFUTES"}.get(labels.get(doc), "NEUTRAL")
            pairs.append(
                (
                    ci,
                    int(fi),
                    relation,
                    round(0.5 + 0.49 * _unit(claim["id"], fi), 4),
                    float(scores[fi]) / (float(scores[best[0]]) or 1.0),
                )
            )
    return {
        "claims": claims,
        "papers": pd.DataFrame(papers),
        "pages": pd.DataFrame(pages),
        "fragments": fragments_df,
        "pairs": pairs,
    }


def task_rows(task_id: str, src: dict, vectors: np.ndarray) -> dict[str, pd.DataFrame]:
    texts = [c["claim"] for c in src["claims"]]
    claim_ids = [claim_id_for(task_id, t) for t in texts]
    claims = pd.DataFrame(
        {
            "claim_id": claim_ids,
            "text": texts,
            "origin": "user",
            "extractor": "user",
            "source_fragment_id": None,
            "adoption_status": "adopted",
            "also_in_fragments": [[] for _ in texts],
            "relevance": [round(_unit("rel", t), 3) for t in texts],
            "extraction_score": 10.0,
            "features": [[] for _ in texts],
        }
    ).drop_duplicates("claim_id")
    frags = src["fragments"]
    edges = pd.DataFrame(
        [
            {
                "edge_id": edge_id_for(task_id, frags["fragment_id"].iat[fi], claim_ids[ci]),
                "fragment_id": frags["fragment_id"].iat[fi],
                "claim_id": claim_ids[ci],
                "relation": relation,
                "nli_label": {"SUPPORTS": "entailment", "REFUTES": "contradiction"}.get(relation, "neutral"),
                "nli_confidence": conf,
                "source_trust_level": "unverified",
                "target_trust_level": None,
                "model_version": NLI_VERSION,
                "similarity": sim,
                "page_id": frags["page_id"].iat[fi],
                **edge_probabilities(relation, conf),
                **unread_parts("cross-encoder", f"the cross-encoder reads {relation.lower()} ({conf:.2f})"),
                "study_design": None,
                "design_cue": None,
                "sample_size": None,
            }
            for ci, fi, relation, conf, sim in src["pairs"]
        ]
    ).drop_duplicates("edge_id")
    by_claim: dict[str, list[Evidence]] = {}
    for e in edges.itertuples(index=False):
        by_claim.setdefault(e.claim_id, []).append(
            Evidence(relation=e.relation, nli_confidence=e.nli_confidence, page_id=e.page_id)
        )
    scores = pd.DataFrame(
        [
            {"claim_id": cid, **score_claim(by_claim.get(cid, [])).model_dump(), "method": "bayesian"}
            for cid in claims["claim_id"]
        ]
    )
    refuted = set(scores.loc[scores["refuting_count"] > 0, "claim_id"])
    topics = build_topics(task_id, claim_ids, texts, vectors, 0.5)
    topic_rows = pd.DataFrame(
        [
            {
                "topic_id": t.topic_id,
                "label": t.label,
                "label_method": "distinctive-terms",
                "claim_count": len(t.members),
                "has_contradiction": any(claim_ids[i] in refuted for i in t.members),
                "claim_ids": [claim_ids[i] for i in t.members],
                "terms": t.terms,
            }
            for t in topics
        ]
    )
    return {
        "papers": src["papers"],
        "pages": src["pages"],
        "fragments": src["fragments"],
        "claims": claims,
        "nli_edges": edges,
        "claim_scores": scores,
        "claim_topics": topic_rows,
    }


def add_feedback(store: LyraStore, task_id: str, rows: dict[str, pd.DataFrame], rng: random.Random) -> int:
    from lyra_tools.feedback.apply import apply_feedback

    edges = rows["nli_edges"]
    calls = 0
    for edge in edges.sample(10, random_state=rng.randrange(10**6)).itertuples(index=False):
        other = rng.choice([r for r in ("SUPPORTS", "REFUTES", "NEUTRAL") if r != edge.relation])
        apply_feedback(
            store,
            task_id,
            "edge_correct",
            {"edge_id": edge.edge_id, "correct_relation": other, "reason": "bench correction"},
        )
        calls += 1
    for claim_id in rng.sample(list(rows["claims"]["claim_id"]), 3):
        apply_feedback(store, task_id, "claim_reject", {"claim_id": claim_id, "reason": "bench rejection"})
        calls += 1
    return calls


def build_store(home: Path, n_tasks: int, n_claims: int) -> None:
    from lyra_resources.models.inference import embedder

    started = time.perf_counter()
    src = source_rows(n_claims)
    vectors = embedder().encode([c["claim"] for c in src["claims"]])
    print(
        f"source task: {len(src['claims'])} claims, {len(src['papers'])} papers, {len(src['fragments'])} fragments, "
        f"{len(src['pairs'])} edges ({time.perf_counter() - started:.0f}s)"
    )
    store = LyraStore.at(home)
    rng = random.Random(11)
    feedback_calls = 0
    for k in range(n_tasks):
        task_id = f"task_bench{k:03d}"
        if store.get_task(task_id) is None:
            store.create_task(f"{QUESTION} (copy {k})", {"claims": []}, task_id=task_id)
        rows = task_rows(task_id, src, vectors)
        store.replace_partitions(task_id, rows)  # one transaction and one Parquet export per task
        store.update_task(task_id, status="completed")
        if (k + 1) % 50 == 0:
            print(f"  {k + 1} tasks written ({time.perf_counter() - started:.0f}s)", flush=True)
        if k % 5 == 0:
            feedback_calls += add_feedback(store, task_id, rows, rng)
    counts = store.fetch_df("SELECT count(DISTINCT task_id) AS tasks, count(*) AS claims FROM claims").iloc[0]
    print(
        f"store: {counts['tasks']} tasks, {counts['claims']} claims, {feedback_calls} feedback calls "
        f"({time.perf_counter() - started:.0f}s)"
    )


RUN_QUESTION = "Does vitamin D supplementation reduce the risk of fractures?"


def task_with_a_run(home: Path, n_docs: int = 30) -> str:
    """A task the real pipeline ran (on the first ``n_docs`` SciFact abstracts), so that get_status reads
    a real run's event log from the Dagster instance; made once per home."""
    from lyra_assets.execution.run_control import run_task

    store = LyraStore.at(home)
    for task in store.list_tasks():
        if task.query == RUN_QUESTION and task.status == "completed":
            return task.id
    corpus = home / "bench_run_corpus.jsonl"
    docs = read_jsonl(require_data("scifact", "corpus.jsonl"))[:n_docs]
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs))
    task = store.create_task(RUN_QUESTION, {"corpus": [str(corpus)]})
    outcome = run_task(task.id, home)
    if not outcome.success:
        raise SystemExit(f"the bench's real run failed: {outcome.error}")
    return task.id


def sample_args(store: LyraStore, rng: random.Random, n: int, with_run: str) -> dict[str, list[dict]]:
    tasks = [t.id for t in store.list_tasks() if t.query != RUN_QUESTION]
    topics = store.fetch_df("SELECT task_id, topic_id FROM claim_topics")
    claims = store.fetch_df("SELECT task_id, claim_id FROM claims USING SAMPLE 2000 ROWS")
    out: dict[str, list[dict]] = {}

    def pick_topic():
        return topics.iloc[rng.randrange(len(topics))]

    def pick_claim():
        return claims.iloc[rng.randrange(len(claims))]

    out["get_evidence_summary"] = [{"task_id": rng.choice(tasks)} for _ in range(n)]
    out["list_claim_topics"] = [{"task_id": rng.choice(tasks)} for _ in range(n)]
    out["get_claims_by_topic"] = [
        {"task_id": (t := pick_topic())["task_id"], "topic": t["topic_id"]} for _ in range(n)
    ]
    out["get_claim_evidence"] = [
        {"claim_id": (c := pick_claim())["claim_id"], "task_id": c["task_id"]} for _ in range(n)
    ]
    out["get_claim_evidence (no task_id)"] = [{"claim_id": pick_claim()["claim_id"]} for _ in range(n)]
    out["find_contradictions"] = [{"task_id": rng.choice(tasks)} for _ in range(n)]
    out["get_materials summary"] = [{"task_id": rng.choice(tasks)} for _ in range(n)]
    out["get_materials full"] = [{"task_id": rng.choice(tasks), "format": "full"} for _ in range(n)]
    papers = store.fetch_df("SELECT task_id, paper_id, title FROM papers USING SAMPLE 2000 ROWS")

    def pick_paper():
        return papers.iloc[rng.randrange(len(papers))]

    out["search_papers"] = [
        {"task_id": (p := pick_paper())["task_id"], "query": " ".join(p["title"].split()[:5])}
        for _ in range(n)
    ]
    out["get_paper"] = [
        {"task_id": (p := pick_paper())["task_id"], "paper_id": p["paper_id"]} for _ in range(n)
    ]
    out["list_tasks"] = [{} for _ in range(n)]
    out["get_status"] = [{"task_id": rng.choice(tasks)} for _ in range(max(n // 3, 5))]
    out["get_status (task with a run)"] = [{"task_id": with_run} for _ in range(max(n // 3, 5))]
    return out


def measure(home: Path, calls: int, with_run: str, kept: bool = True) -> list[dict]:
    from mcp import Client

    from lyra_tools.mcp.server import build_server

    store = LyraStore.at(home)
    plan = sample_args(store, random.Random(5), calls, with_run)
    server = build_server(home, snapshot_reads=kept)
    results = []

    async def main():
        async with Client(server, read_timeout_seconds=120) as client:
            for label, arg_list in plan.items():
                tool = label.split(" ")[0]
                args = arg_list[0] | ({"format": "summary"} if label == "get_materials summary" else {})
                await client.call_tool(tool, args)  # warm-up
                times, cpu, sizes = [], [], []
                for args in arg_list:
                    start, cpu_start = time.perf_counter(), time.process_time()
                    answer = await client.call_tool(tool, args)
                    times.append((time.perf_counter() - start) * 1000)
                    cpu.append((time.process_time() - cpu_start) * 1000)
                    if answer.is_error:
                        raise SystemExit(f"{label} failed: {answer.content[0].text}")
                    sizes.append(len(answer.content[0].text.encode()))
                results.append(
                    {
                        "tool": label,
                        "calls": len(times),
                        "p50_ms": statistics.median(times),
                        "p95_ms": float(np.percentile(times, 95)),
                        "max_ms": max(times),
                        "cpu_p50_ms": statistics.median(cpu),
                        "cpu_p95_ms": float(np.percentile(cpu, 95)),
                        "median_bytes": int(statistics.median(sizes)),
                        "max_bytes": max(sizes),
                    }
                )
            await sessions(client, store, results)

    anyio.run(main)
    return results


SESSIONS = 10


async def sessions(client, store: LyraStore, results: list[dict]) -> None:
    """An agent's way through a task, on ``SESSIONS`` tasks none of the calls above chose first: the
    summary, the topics, the first topic's claims, three of their evidence, the contradictions, the
    materials, a paper's search and record, the status; each call timed as above."""
    rng = random.Random(9)
    tasks = [t.id for t in store.list_tasks() if t.query != RUN_QUESTION]
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}

    async def timed(tool: str, args: dict) -> dict:
        start, cpu_start = time.perf_counter(), time.process_time()
        answer = await client.call_tool(tool, args)
        times.setdefault(tool, []).append((time.perf_counter() - start) * 1000)
        cpu.setdefault(tool, []).append((time.process_time() - cpu_start) * 1000)
        if answer.is_error:
            raise SystemExit(f"{tool} failed in a session: {answer.content[0].text}")
        return answer.structured_content

    for task in rng.sample(tasks, SESSIONS):
        await timed("get_evidence_summary", {"task_id": task})
        topics = await timed("list_claim_topics", {"task_id": task})
        topic = topics["topics"][0]["topic_id"]
        claims = await timed("get_claims_by_topic", {"task_id": task, "topic": topic})
        papers = []
        for claim in claims["claims"][:3]:
            found = await timed("get_claim_evidence", {"task_id": task, "claim_id": claim["claim_id"]})
            papers += [i["source"]["paper_id"] for side in found["evidence"].values() for i in side]
        await timed("find_contradictions", {"task_id": task})
        await timed("get_materials", {"task_id": task, "format": "full"})
        await timed("search_papers", {"task_id": task, "query": "vitamin D risk"})
        paper = next((p for p in papers if p), None)
        if paper is not None:
            await timed("get_paper", {"task_id": task, "paper_id": paper})
        await timed("get_status", {"task_id": task})
    for tool, ms in times.items():
        results.append(
            {
                "tool": f"session: {tool}",
                "calls": len(ms),
                "p50_ms": statistics.median(ms),
                "p95_ms": float(np.percentile(ms, 95)),
                "max_ms": max(ms),
                "cpu_p50_ms": statistics.median(cpu[tool]),
                "cpu_p95_ms": float(np.percentile(cpu[tool], 95)),
                "median_bytes": 0,
                "max_bytes": 0,
            }
        )


GOAL_MS, STATUS_GOAL_MS = 25, 50


def print_results(results: list[dict]) -> None:
    print(
        f"\n{'tool':34} {'calls':>5} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'cpu p50':>8} {'cpu p95':>8} "
        f"{'median B':>9} {'max B':>6}"
    )
    for r in results:
        print(
            f"{r['tool']:34} {r['calls']:5d} {r['p50_ms']:7.1f} {r['p95_ms']:7.1f} {r['max_ms']:7.1f} "
            f"{r['cpu_p50_ms']:8.1f} {r['cpu_p95_ms']:8.1f} {r['median_bytes']:9d} {r['max_bytes']:6d}"
        )
    slow = [
        r["tool"] for r in results if r["p95_ms"] > (STATUS_GOAL_MS if "get_status" in r["tool"] else GOAL_MS)
    ]
    big = [r["tool"] for r in results if r["max_bytes"] > 8192]
    print(
        f"\ngoal p95 ≤ {GOAL_MS} ms for every exploration tool, ≤ {STATUS_GOAL_MS} ms for get_status: "
        f"{'met' if not slow else 'missed by ' + ', '.join(slow)}; "
        f"every answer ≤ 8 KB: {'met' if not big else 'missed by ' + ', '.join(big)}"
    )


def print_side_by_side(file: list[dict], kept: list[dict]) -> None:
    print(
        f"\n{'tool':34} {'file p50':>8} {'file p95':>8} {'cpu p50':>8} │ {'kept p50':>8} {'kept p95':>8} "
        f"{'cpu p50':>8}"
    )
    for before, after in zip(file, kept, strict=True):
        print(
            f"{before['tool']:34} {before['p50_ms']:8.1f} {before['p95_ms']:8.1f} {before['cpu_p50_ms']:8.1f} │ "
            f"{after['p50_ms']:8.1f} {after['p95_ms']:8.1f} {after['cpu_p50_ms']:8.1f}"
        )


def timed_in_child(args: argparse.Namespace, mode: str) -> list[dict]:
    """One mode's timings from a process of its own (two servers of one file never share a process)."""
    out = Path(args.home).resolve() / f"bench-mcp-{mode}.json"
    command = [sys.executable, "-m", "bench.mcp", "--home", args.home, "--tasks", str(args.tasks)]
    command += ["--claims", str(args.claims), "--calls", str(args.calls), "--mode", mode, "--json", str(out)]
    subprocess.run(command, check=True)
    return json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", default=".lyra/bench-mcp", help="Lyra home of the benchmark store (reused)")
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--claims", type=int, default=460, help="claims per task")
    parser.add_argument("--calls", type=int, default=60, help="timed calls per tool")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the store even if it exists")
    parser.add_argument(
        "--mode",
        choices=("kept", "file", "both"),
        default="kept",
        help="the server's reads: from its in-memory copies, from the file on every call (as before), or both",
    )
    parser.add_argument("--json", help=argparse.SUPPRESS)  # where a child process writes its timings
    args = parser.parse_args()
    logging.disable(logging.INFO)  # Dagster's instance migrations log at INFO on every open
    home = Path(args.home).resolve()
    store = LyraStore.at(home)
    if args.rebuild or len(store.list_tasks()) < args.tasks:
        build_store(home, args.tasks, args.claims)
    if args.mode == "both":
        task_with_a_run(home)  # made before either child times anything
        file, kept = timed_in_child(args, "file"), timed_in_child(args, "kept")
        print("\nside by side: the file on every call (before) │ the in-memory copies (now)")
        print_side_by_side(file, kept)
        return
    counts = store.fetch_df(
        "SELECT (SELECT count(*) FROM tasks) AS tasks, (SELECT count(*) FROM claims) AS claims, "
        "(SELECT count(*) FROM nli_edges) AS edges, (SELECT count(*) FROM fragments) AS fragments, "
        "(SELECT count(*) FROM edge_reviews) AS reviews"
    ).iloc[0]
    print(
        f"store {home}: {counts['tasks']} tasks, {counts['claims']:,} claims, {counts['edges']:,} edges, "
        f"{counts['fragments']:,} fragments, {counts['reviews']} reviewed edges"
    )
    with_run = task_with_a_run(home)
    results = measure(home, args.calls, with_run, kept=args.mode == "kept")
    print(
        f"server reads: {'in-memory copies' if args.mode == 'kept' else 'the database file on every call'}; "
        f"machine load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
        "(wall times include waiting for a CPU; CPU times are this process's own work)"
    )
    print_results(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results))


if __name__ == "__main__":
    main()
