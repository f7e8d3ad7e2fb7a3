"""The MCP server's reads from memory (lyra_resources.store.snapshot_reads): answered without the database file
between writes, and every write (the server's own, another store's, a new generation) read at once."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from fixtures.graphs import write_graph
from fixtures.mcp import text
from fixtures.tables import held_by_another_process
from lyra_tools.feedback.apply import apply_feedback
from lyra_tools.mcp.server import build_server

pytestmark = pytest.mark.duckdb_file


def session(server, steps):
    """Run ``steps(client)`` (an async function) in one client session; returns what it returns."""

    async def main():
        async with Client(server, read_timeout_seconds=120) as client:
            return await steps(client)

    return anyio.run(main)


def test_reads_are_answered_while_another_process_holds_the_file(store, graph):
    t = graph.task_id
    reads = [
        ("get_evidence_summary", {"task_id": t}),
        ("list_claim_topics", {"task_id": t}),
        ("get_claims_by_topic", {"task_id": t, "topic": "t_fracture"}),
        ("find_contradictions", {"task_id": t}),
        ("get_materials", {"task_id": t, "format": "full"}),
        ("search_papers", {"task_id": t, "query": "vitamin D"}),
        ("get_claim_evidence", {"claim_id": graph.claims["user"]}),
        ("list_tasks", {}),
        ("get_status", {"task_id": t}),
    ]

    async def steps(client):
        first = [await client.call_tool(n, a) for n, a in reads]
        await anyio.sleep(2.5)  # the 'returned' signals get_claim_evidence queued are written
        await client.call_tool("list_tasks", {})  # and the server reads the store as they left it
        with held_by_another_process(store.layout.database, 8.0) as holder:
            again = [await client.call_tool(n, a) for n, a in reads]
            still_held = holder.poll() is None
        return first, again, still_held

    first, again, still_held = session(build_server(store.home), steps)
    assert still_held  # every read answered before the other process let go of the file
    for (name, _), before, after in zip(reads, first, again, strict=True):
        assert not before.is_error and not after.is_error, (name, text(before), text(after))
        if name != "get_status":  # its run state and times may move on
            assert after.structured_content == before.structured_content, name


def test_every_write_is_read_by_the_very_next_call(store, graph):
    t, claim = graph.task_id, graph.claims["user"]
    edge = graph.edges[("user", "whi")]

    async def steps(client):
        before = await client.call_tool("get_claim_evidence", {"claim_id": claim, "task_id": t})
        # the server's own write
        fixed = await client.call_tool(
            "feedback",
            {
                "task_id": t,
                "action": "edge_correct",
                "args": {"edge_id": edge, "correct_relation": "supports"},
            },
        )
        after_own = await client.call_tool("get_claim_evidence", {"claim_id": claim, "task_id": t})
        # another store's write (the CLI's, in another process as far as the server knows)
        apply_feedback(store, t, "claim_reject", {"claim_id": claim, "reason": "off topic"})
        after_other = await client.call_tool("get_claim_evidence", {"claim_id": claim, "task_id": t})
        summary = await client.call_tool("get_evidence_summary", {"task_id": t})
        return before, fixed, after_own, after_other, summary

    before, fixed, after_own, after_other, summary = session(build_server(store.home), steps)
    assert not fixed.is_error, text(fixed)
    refuting = [e["edge_id"] for e in before.structured_content["evidence"]["refutes"]]
    assert edge in refuting
    corrected = {e["edge_id"]: e for e in after_own.structured_content["evidence"]["supports"]}
    assert corrected[edge]["human_corrected"] and after_own.structured_content["score"]["recomputed"]
    assert not before.structured_content["rejected"] and after_other.structured_content["rejected"]
    assert summary.structured_content["statistics"]["rejected_claims"] == 1


def test_a_new_generation_is_read_as_soon_as_it_is_switched_in(store, graph):
    t = graph.task_id

    async def steps(client):
        before = await client.call_tool("get_evidence_summary", {"task_id": t})
        # a re-run's rows through replace_partition: the Parquet generation follows at once
        write_graph(store, t, relabel={("user", "whi"): ("SUPPORTS", 0.88)})
        after = await client.call_tool("get_evidence_summary", {"task_id": t})
        return before, after

    before, after = session(build_server(store.home), steps)
    b, a = before.structured_content["statistics"], after.structured_content["statistics"]
    assert (a["supports_edges"], a["refutes_edges"]) == (b["supports_edges"] + 1, b["refutes_edges"] - 1)


def test_a_published_graph_not_yet_exported_is_read_from_the_file(store, graph):
    """A run that committed its generation but died before writing its Parquet files: the files
    are not the graph readers must see, so the server reads the database until they are."""
    t = graph.task_id
    store.transaction(
        lambda conn: conn.execute(
            "INSERT INTO task_generations (run_id, task_id, state, started_at, published_at) "
            "VALUES ('run-1', ?, 'published', now(), now())",
            [t],
        )
    )
    store.transaction(
        lambda conn: conn.execute(
            "UPDATE claims SET text = 'Renamed claim' WHERE claim_id = ?", [graph.claims["user"]]
        )
    )
    read = ("get_claim_evidence", {"claim_id": graph.claims["user"], "task_id": t})

    async def steps(client):
        unexported = await client.call_tool(*read)
        store.export_task(t)  # what finish_exports does for such a run
        exported = await client.call_tool(*read)
        return unexported, exported

    unexported, exported = session(build_server(store.home), steps)
    assert unexported.structured_content["claim_text"] == "Renamed claim"
    assert exported.structured_content["claim_text"] == "Renamed claim"


def test_status_counts_a_tasks_rows_as_its_generation_recorded_them(store, graph):
    t = graph.task_id

    async def steps(client):
        return await client.call_tool("get_status", {"task_id": t})

    status = session(build_server(store.home), steps)
    assert not status.is_error, text(status)
    assert status.structured_content["row_counts"] == store.row_counts(t)
