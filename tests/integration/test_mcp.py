"""The MCP server through real MCP client sessions: the SDK's in-memory client, a stdio server
process, and a pipeline-like writer process holding the database while agents give feedback."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from fixtures.mcp import call, store_env, text
from fixtures.tables import snapshot
from lyra_resources.home import REPO_ROOT
from lyra_tools.mcp.server import build_server, task_run_command

READ_TOOLS = [
    "get_evidence_summary",
    "list_claim_topics",
    "get_claims_by_topic",
    "get_claim_evidence",
    "find_contradictions",
    "get_materials",
    "list_tasks",
    "get_status",
    "search_papers",
    "get_paper",
]
WRITE_TOOLS = ["create_task", "stop_task", "feedback"]


def test_every_tool_answers_small_structured_json(store, graph):
    server = build_server(store.home)

    async def tools():
        async with Client(server) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    listed = anyio.run(tools)
    assert set(listed) == {*READ_TOOLS, *WRITE_TOOLS}
    assert listed["get_claims_by_topic"].output_schema["title"] == "TopicClaims"
    assert "edge_correct" in json.dumps(listed["feedback"].input_schema)

    t = graph.task_id
    results = call(
        server,
        [
            ("get_evidence_summary", {"task_id": t}),
            ("list_claim_topics", {"task_id": t}),
            ("get_claims_by_topic", {"task_id": t, "topic": "t_fracture", "limit": 2}),
            ("get_claim_evidence", {"claim_id": graph.claims["user"]}),
            ("find_contradictions", {"task_id": t}),
            ("get_materials", {"task_id": t}),
            ("get_materials", {"task_id": t, "format": "full", "limit": 2}),
            ("list_tasks", {}),
        ],
    )
    for name, result in zip(READ_TOOLS, results, strict=False):
        assert not result.is_error, (name, text(result))
        assert json.loads(text(result)) == result.structured_content  # compact JSON, same object
        assert len(text(result).encode()) <= 8192 and "\n" not in text(result)
    summary, _, by_topic, evidence, contradictions, materials, full, tasks = (
        r.structured_content for r in results
    )
    assert summary["statistics"]["total_claims"] == 4 and materials["summary"]["task_id"] == t
    assert by_topic["next_cursor"] and full["next_cursor"] and tasks["total"] == 1
    assert evidence["score"]["verdict"] and contradictions["total"] == 3
    # each passage carries what a scientist weighs: its paper's design and size, the figures it states
    assert "study_design" in json.dumps(listed["get_claim_evidence"].output_schema)
    trial = evidence["evidence"]["refutes"][0]
    assert (trial["study_design"], trial["sample_size"], trial["facts"]) == ("rct", 36282, "RCT, n = 36,282")
    meta = next(e for e in evidence["evidence"]["supports"] if e["source"]["doi"] == "10.1001/jama.2019.0001")
    assert (meta["study_design"], meta["design_cue"], meta["sample_size"]) == (
        "meta_analysis",
        "meta-analysis",
        None,
    )
    assert meta["facts"] == "meta-analysis, RR 0.7 (0.58–0.86)"
    # the fragments get_claim_evidence showed are 'returned' signals for that claim
    returned = store.fetch_df("SELECT fragment_id, query_id FROM relevance_signals WHERE signal = 'returned'")
    assert len(returned) == 4 and set(returned["query_id"]) == {graph.claims["user"]}
    more = call(
        server,
        [
            (
                "get_claims_by_topic",
                {"task_id": t, "topic": "t_fracture", "limit": 2, "cursor": by_topic["next_cursor"]},
            )
        ],
    )[0]
    assert len(more.structured_content["claims"]) == 1


def list_tools(server) -> dict:
    async def tools():
        async with Client(server) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    return anyio.run(tools)


def test_tool_annotations_say_which_tools_change_something(store):
    listed = list_tools(build_server(store.home))
    # get_claim_evidence records what it showed as relevance signals: it is no pure read
    for name in [*WRITE_TOOLS, "get_claim_evidence"]:
        hints = listed[name].annotations
        assert hints is not None and hints.read_only_hint is False, name
        assert None not in (hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint), name
    assert (
        listed["create_task"].annotations.open_world_hint
        and not listed["create_task"].annotations.destructive_hint
    )
    assert (
        listed["stop_task"].annotations.destructive_hint and listed["stop_task"].annotations.idempotent_hint
    )
    for name in set(READ_TOOLS) - {"get_claim_evidence"}:
        assert listed[name].annotations.read_only_hint is True, name


def test_create_task_options_schema_describes_each_option_and_errors_stay_one_line(tmp_path):
    from lyra_core.tasks import TaskOptions

    launched = []
    server = build_server(tmp_path / "home", launcher=lambda task_id, root: launched.append(task_id))
    options = list_tools(server)["create_task"].input_schema["properties"]["options"]
    typed = next(s for s in options["anyOf"] if s.get("type") == "object")
    assert (
        set(typed["properties"]) == set(TaskOptions.model_fields) and typed["additionalProperties"] is False
    )
    assert all(len(p.get("description", "")) > 20 for p in typed["properties"].values())
    assert typed["properties"]["papers_per_source"]["anyOf"][0]["minimum"] == 1
    assert "$ref" not in json.dumps(options)  # nested models inlined: a ref would point outside the options
    assert "id" in typed["properties"]["verify_claims"]["items"]["properties"]
    results = call(
        server,
        [
            ("create_task", {"query": "q?", "options": {"papers_per_source": 0}}),
            ("create_task", {"query": "q?", "options": {"watch_every": "5m"}}),
            ("create_task", {"query": "q?", "options": {"corpus": "not-a-list", "pages": 3}}),
        ],
    )
    for result in results:
        assert result.is_error and "\n" not in text(result), text(result)
    assert "options.papers_per_source" in text(results[0]) and "15 minutes" in text(results[1])
    assert "options.corpus must be a list" in text(results[2]) and "pages is not a known name" in text(
        results[2]
    )
    assert launched == [] and not (tmp_path / "home" / "logs").exists()


def test_feedback_through_the_client_is_reflected_at_once(store, graph):
    server = build_server(store.home)
    edge, claim = graph.edges[("user", "whi")], graph.claims["user"]
    fb, ev = call(
        server,
        [
            (
                "feedback",
                {
                    "task_id": graph.task_id,
                    "action": "edge_correct",
                    "args": {"edge_id": edge, "correct_relation": "supports", "reason": "misread negation"},
                },
            ),
            ("get_claim_evidence", {"claim_id": claim, "task_id": graph.task_id}),
        ],
    )
    assert not fb.is_error and fb.structured_content["edge"]["human_corrected"]
    assert (
        ev.structured_content["score"]["refuting_count"] == 0 and ev.structured_content["score"]["recomputed"]
    )
    assert store.fetch_df("SELECT count(*) AS n FROM nli_corrections")["n"][0] == 1


def test_bad_calls_are_tool_errors_and_change_nothing(store, graph):
    server = build_server(store.home)
    before = snapshot(store)
    t = graph.task_id
    cases = [
        ("get_evidence_summary", {"task_id": "task_missing"}, "no task 'task_missing'"),
        ("get_claim_evidence", {"claim_id": "c_missing"}, "no claim 'c_missing'"),
        ("get_claims_by_topic", {"task_id": t, "topic": "x" * 301}, "topic"),
        (
            "get_claims_by_topic",
            {"task_id": t, "topic": "t_fracture", "cursor": "bm90LWEtY3Vyc29y"},
            "cursor",
        ),
        ("list_claim_topics", {"task_id": t, "limit": "ten"}, "limit"),
        ("list_claim_topics", {"task_id": t, "limit": 5000}, "limit"),
        ("get_materials", {"task_id": t, "format": "everything"}, "format"),
        ("feedback", {"task_id": t, "action": "drop_table", "args": {}}, "action"),
        ("feedback", {"task_id": t, "action": "claim_reject", "args": "c_1"}, "args"),
        ("feedback", {"task_id": t, "action": "claim_reject", "args": {"claim_id": "c_missing"}}, "no claim"),
        (
            "feedback",
            {
                "task_id": t,
                "action": "edge_correct",
                "args": {"edge_id": graph.edges[("hip", "whi")], "correct_relation": 3},
            },
            "correct_relation",
        ),
        (
            "feedback",
            {"task_id": t, "action": "domain_block", "args": {"domain_pattern": "*.co.jp", "reason": "x"}},
            "forbidden",
        ),
        (
            "feedback",
            {"task_id": t, "action": "add_note", "args": {"target_id": t, "note": "n" * 50_000}},
            "bytes",
        ),
        (
            "feedback",
            {"task_id": "x" * 500, "action": "add_note", "args": {"target_id": t, "note": "n"}},
            "task_id",
        ),
        ("get_status", {"task_id": "task_missing"}, "no task"),
    ]
    results = call(server, [(name, args) for name, args, _ in cases])
    for (name, args, message), result in zip(cases, results, strict=True):
        assert result.is_error, (name, args)
        assert message in text(result), (name, text(result))
    assert snapshot(store) == before


def test_create_task_launches_a_detached_run_and_status_reads_dagster(tmp_path, small_corpus):
    home = tmp_path / "home"
    launched = []

    def launcher(task_id: str, root: Path):  # a real detached process standing in for the pipeline
        proc = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
        launched.append((task_id, root, proc))
        return proc.pid, root / "logs" / f"{task_id}.log"

    server = build_server(home, launcher=launcher)
    corpus = home / "corpora" / "small.jsonl"  # an agent names corpora under the server's corpus roots
    corpus.parent.mkdir(parents=True)
    corpus.write_bytes(small_corpus.read_bytes())
    created, bad = call(
        server,
        [
            (
                "create_task",
                {
                    "query": "Does exercise raise bone density?",
                    "options": {"corpus": [str(corpus)], "claims": ["Exercise raises BMD in women."]},
                },
            ),
            ("create_task", {"query": "q?", "options": {"papers_per_source": 0}}),
        ],
    )
    assert not created.is_error and bad.is_error and "papers_per_source" in text(bad)
    task_id = created.structured_content["task_id"]
    assert launched[0][0] == task_id and launched[0][2].wait(10) == 0
    status = call(server, [("get_status", {"task_id": task_id})])[0].structured_content
    assert (
        status["status"] == "queued" and status["latest_run"] is None and status["edges_nli_version"] is None
    )
    assert status["active_nli_version"].startswith(
        "lyra-verifier-minilm-l6@"
    )  # the shipped model until an adapter wins
    assert {a["asset"] for a in status["assets"]} >= {"papers", "nli_edges", "claim_scores"}
    assert all(a["state"] == "not_run" for a in status["assets"]) and status["blocked_domains"] == []
    assert task_run_command(task_id, home)[1:] == [
        "-m",
        "lyra_tools.cli",
        "task",
        "run",
        task_id,
        "--home",
        str(home),
    ]
    stopped, missing = call(
        server, [("stop_task", {"task_id": task_id}), ("stop_task", {"task_id": "task_nope"})]
    )
    assert (
        stopped.structured_content["stopped_runs"] == [] and stopped.structured_content["status"] == "queued"
    )
    assert "nothing to stop" in stopped.structured_content["message"]  # no run yet: nothing is marked stopped
    assert missing.is_error and "no task 'task_nope'" in text(missing)


def test_create_task_refuses_a_broken_domain_policy_before_any_task_exists(tmp_path, monkeypatch):
    from lyra_resources.web import domain_policy

    broken = tmp_path / "domains.yaml"
    broken.write_text("domains:\n  - {domain: doi.org, trust_level: primry}\n")
    monkeypatch.setattr(domain_policy, "DOMAINS_FILE", broken)
    launched = []
    server = build_server(tmp_path / "home", launcher=lambda task_id, root: launched.append(task_id))
    refused, listed = call(server, [("create_task", {"query": "q?"}), ("list_tasks", {})])
    assert refused.is_error and f"{broken}:2: domains.0.trust_level" in text(refused)
    assert launched == [] and listed.structured_content["tasks"] == []


def test_stdio_server_process(store, graph):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lyra_tools.mcp.server", "--home", store.home],
        cwd=str(REPO_ROOT),
        env={"PYTHONPATH": str(REPO_ROOT), **store_env()},
    )
    tasks, summary, fb, err = call(
        params,
        [
            ("list_tasks", {}),
            ("get_evidence_summary", {"task_id": graph.task_id}),
            (
                "feedback",
                {
                    "task_id": graph.task_id,
                    "action": "claim_reject",
                    "args": {"claim_id": graph.claims["falls"], "reason": "off topic"},
                },
            ),
            ("get_claim_evidence", {"claim_id": "c_missing"}),
        ],
    )
    assert tasks.structured_content["tasks"][0]["id"] == graph.task_id
    assert summary.structured_content["statistics"]["total_claims"] == 4
    assert fb.structured_content["changed"] and err.is_error and "no claim" in text(err)
    assert store.fetch_df("SELECT count(*) AS n FROM claim_rejections WHERE is_active")["n"][0] == 1


WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import pandas as pd
    from lyra_resources.store.lyra_store import LyraStore

    home, task_id, stop = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    store = LyraStore(home=home)
    n = 30_000
    frame = pd.DataFrame({"fragment_id": [f"f_big{i}" for i in range(n)], "page_id": ["pg_big"] * n,
                          "position": list(range(n)), "text": ["a long fragment of text " * 8] * n,
                          "sections": [[] for _ in range(n)]})
    done = 0
    while not stop.exists() or done < 2:
        started = time.time()
        store.replace_partition("fragments", task_id, frame.assign(position=frame["position"] + done))
        done += 1
        print(done, started, time.time(), flush=True)
""")


def test_feedback_during_a_materialization_in_another_process(store, graph, tmp_path):
    """A writer process keeps replacing a 30,000-row partition (as a pipeline run does) while the
    agent sends feedback through the MCP client: every call succeeds and every row is stored."""
    busy = store.create_task("a task being materialized").id
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, store.home, busy, str(stop)],
        cwd=str(REPO_ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline().split()[:1] == ["1"], writer.stderr.read()  # the writer is under way
        server = build_server(store.home)
        t = graph.task_id
        calls = []
        for i in range(40):
            edge = list(graph.edges.values())[i % len(graph.edges)]
            calls.append(
                (
                    "feedback",
                    {
                        "task_id": t,
                        "action": "edge_correct",
                        "args": {
                            "edge_id": edge,
                            "correct_relation": ["supports", "refutes", "neutral"][i % 3],
                        },
                    },
                )
            )
            calls.append(
                (
                    "feedback",
                    {"task_id": t, "action": "add_note", "args": {"target_id": t, "note": f"note {i}"}},
                )
            )
            if i % 5 == 0:
                calls.append(("get_claim_evidence", {"claim_id": graph.claims["user"], "task_id": t}))
        started = time.time()
        results = call(server, calls)
        ended = time.time()
    finally:
        stop.touch()
        out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    replaces = [tuple(map(float, line.split()[1:])) for line in out.splitlines()]
    during = [(a, b) for a, b in replaces if a < ended and b > started]
    assert during, "the writer must have been replacing its partition while feedback was given"
    errors = [text(r) for r in results if r.is_error]
    assert errors == []
    notes = store.fetch_df("SELECT payload FROM feedback_events WHERE action = 'add_note'")["payload"]
    assert sorted(json.loads(p)["note"] for p in notes) == sorted(f"note {i}" for i in range(40))
    assert store.fetch_df("SELECT count(*) AS n FROM feedback_events")["n"][0] == 80
    assert len(store.read_partition("fragments", busy)) == 30_000
