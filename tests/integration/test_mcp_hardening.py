"""The MCP stdio server against hostile clients, as a real `lyra mcp` process: lines the SDK would
drop get JSON-RPC errors, forged cursors and bad arguments one-line reasons, corpus paths stay under
the configured roots, and a write repeated with its request id after a kill -9 is stored once."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import anyio
import pytest
from mcp import Client

from fixtures.mcp import store_env
from fixtures.mcp_raw import RawServer, text
from fixtures.tables import snapshot
from lyra_tools.mcp.server import build_server

NOTE = {"action": "add_note", "args": {"target_id": None, "note": "checked twice"}}


@pytest.fixture
def settings_file(tmp_path, monkeypatch) -> Path:
    """A settings file of the test's own (no corpus paths, default MCP roots), for this process and the server."""
    path = tmp_path / "settings.yaml"
    path.write_text("corpus: []\n")
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    return path


@pytest.fixture
def server(store, settings_file):
    raw = RawServer(store.home, env=store_env())
    yield raw
    stderr = raw.close()
    assert "Traceback" not in stderr, stderr


def test_lines_the_sdk_would_drop_get_jsonrpc_errors(server):
    deep = "[" * 3000 + "]" * 3000
    call = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"list_tasks","arguments":%s}}'
    cases = [  # (line, the id the answer carries, JSON-RPC error code)
        (call % (1, '{"cursor":"\\ud800"}'), 1, -32700),  # a lone surrogate, escaped
        (
            '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"feedback","arguments":{"args":%s}}}'
            % deep,
            2,
            -32700,
        ),  # nested 3,000 deep: the top-level id is still read
        (call % (3, '{"a":' * 100 + "1" + "}" * 100), 3, -32600),  # parses, but 100 levels deep
        ("this is not JSON", None, -32700),
        ('{"jsonrpc":"2.0","id":4,"method":5}', 4, -32600),
        (
            '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_tasks"',
            5,
            -32700,
        ),  # cut short
        ("[1, 2]", None, -32600),
        ('{"jsonrpc":"2.0","id":6}', 6, -32600),
        ('{"jsonrpc":"1.0","id":7,"method":"ping"}', 7, -32600),
        ('{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":NaN}}', 8, -32700),
        (
            b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"\xff\xfe"}}',
            9,
            None,
        ),  # replaced bytes: answered
    ]
    for line, request_id, code in cases:
        server.send(line)
        answer = server.answer(request_id)
        if code is None:
            assert "result" in answer, answer
            continue
        assert answer["error"]["code"] == code, (line[:80], answer)
        assert "\n" not in answer["error"]["message"] and len(answer["error"]["message"]) < 300
    assert server.request("ping", {})["result"] == {}  # the server still serves


def forged(cursor: str, offset: str) -> str:
    """``cursor`` with its offset replaced by the literal ``offset`` (its query key kept)."""
    data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    raw = '{"k":"%s","o":{"i":%s}}' % (data["k"], offset)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def test_forged_cursors_and_bad_arguments_get_one_line_reasons(server, graph):
    t = graph.task_id
    real = server.call("list_claim_topics", {"task_id": t, "limit": 1})["structuredContent"]["next_cursor"]
    for offset in ["1e30", "Infinity", "-1", '"abc"', "1e400", "99999999999999999999", "1.5", "true"]:
        result = server.call("list_claim_topics", {"task_id": t, "cursor": forged(real, offset)})
        assert result["isError"] and "cursor does not belong to this query" in text(result), (offset, result)
    for cursor in ["1e30", "Infinity", "-1", "abc"]:
        result = server.call("get_claims_by_topic", {"task_id": t, "topic": "t_fracture", "cursor": cursor})
        assert result["isError"] and "cursor does not belong" in text(result), (cursor, result)
    cases = [
        ("list_claim_topics", {"task_id": t, "limit": "ten"}, "limit must be a whole number (got 'ten')"),
        ("get_claim_evidence", {}, "claim_id is required"),
        ("get_paper", {"task_id": t, "paper_id": "p" * 500}, "paper_id is 500 characters long"),
        ("feedback", {"task_id": t, "action": "claim_reject", "args": {}, "request_id": "a b"}, "request_id"),
    ]
    for tool, args, message in cases:
        result = server.call(tool, args)
        assert result["isError"] and message in text(result), (tool, text(result))
        assert "\n" not in text(result) and "errors.pydantic.dev" not in text(result)


def feedback_rows(store, note: str) -> int:
    return int(
        store.fetch_df("SELECT count(*) AS n FROM feedback_events WHERE payload LIKE ?", [f"%{note}%"])["n"][
            0
        ]
    )


def test_a_write_repeated_with_its_request_id_after_kill_9_is_stored_once(store, graph, settings_file):
    t = graph.task_id
    note = {**NOTE, "task_id": t, "args": {"target_id": t, "note": "written once"}}
    first = RawServer(store.home, env=store_env())
    answered = first.call("feedback", {**note, "request_id": "req-1"})
    assert not answered.get("isError"), answered
    # a second write whose answer is lost with the server: killed right after the request was sent
    lost = {**NOTE, "task_id": t, "args": {"target_id": t, "note": "answer lost"}}
    first.send(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 99,
                "method": "tools/call",
                "params": {"name": "feedback", "arguments": {**lost, "request_id": "req-2"}},
            }
        )
    )
    first.kill()
    second = RawServer(store.home, env=store_env())
    try:
        again = second.call("feedback", {**note, "request_id": "req-1"})
        retried = second.call("feedback", {**lost, "request_id": "req-2"})
        before = snapshot(store)
        other = second.call(
            "feedback", {**note, "args": {"target_id": t, "note": "another"}, "request_id": "req-1"}
        )
        assert not retried.get("isError"), retried
        assert (
            again["structuredContent"] == answered["structuredContent"]
        )  # the first answer, event id and all
        assert other["isError"] and "request_id 'req-1' was already used" in text(other)
        assert "\n" not in text(other)
    finally:
        assert "Traceback" not in second.close()
    assert feedback_rows(store, "written once") == 1 and feedback_rows(store, "answer lost") == 1
    assert feedback_rows(store, "another") == 0 and snapshot(store) == before
    recorded = store.fetch_df("SELECT request_id, tool FROM mcp_requests ORDER BY request_id")
    assert recorded.to_dict("records") == [
        {"request_id": "req-1", "tool": "feedback"},
        {"request_id": "req-2", "tool": "feedback"},
    ]


def test_create_task_with_a_request_id_makes_one_task(tmp_path, small_corpus, settings_file):
    home = tmp_path / "home"
    corpora = home / "corpora"
    corpora.mkdir(parents=True)
    corpus = corpora / "papers.jsonl"
    corpus.write_bytes(small_corpus.read_bytes())
    launched = []

    def launcher(task_id: str, root: Path) -> tuple[None, Path]:
        launched.append(task_id)
        return None, root / "logs" / f"{task_id}.log"

    server = build_server(home, launcher=launcher)
    args = {
        "query": "Does vitamin D prevent fractures?",
        "options": {"corpus": [str(corpus)]},
        "request_id": "c-1",
    }

    async def main():
        async with Client(server) as client:
            return [
                await client.call_tool("create_task", a)
                for a in (args, args, {**args, "query": "another question"}, {**args, "request_id": None})
            ]

    first, repeated, mismatch, without_id = anyio.run(main)
    assert not first.is_error and repeated.structured_content == first.structured_content
    assert mismatch.is_error and "request_id 'c-1' was already used" in mismatch.content[0].text
    assert (
        not without_id.is_error
        and without_id.structured_content["task_id"] != first.structured_content["task_id"]
    )
    assert launched == [first.structured_content["task_id"], without_id.structured_content["task_id"]]


def test_create_task_corpus_paths_stay_under_the_corpus_roots(store, settings_file, tmp_path):
    secret = tmp_path / "secret.jsonl"
    secret.write_text(
        json.dumps({"doc_id": 1, "title": "the server's secret", "abstract": ["do not read"]}) + "\n"
    )
    corpora = Path(store.home) / "corpora"
    corpora.mkdir()
    (corpora / "link.jsonl").symlink_to(secret)
    (corpora / "folder-link").symlink_to(tmp_path)
    refused = [
        str(secret),
        str(corpora / "link.jsonl"),
        str(corpora / "folder-link" / "secret.jsonl"),
        f"{corpora}/../../secret.jsonl",
        "/etc/passwd",
        "/nonexistent/x.jsonl",
        "~/../../etc/hosts",
    ]
    before = snapshot(store)
    server = RawServer(store.home, env=store_env())
    try:
        for path in refused:
            result = server.call(
                "create_task", {"query": "What is the secret?", "options": {"corpus": [path]}}
            )
            assert result["isError"], (path, result)
            assert "outside the corpus roots this server allows" in text(result) and str(corpora) in text(
                result
            )
            assert "\n" not in text(result) and "do not read" not in text(result)
        tasks = server.call("list_tasks", {})["structuredContent"]
    finally:
        assert "Traceback" not in server.close()
    assert len(tasks["tasks"]) == 1 and snapshot(store) == before  # the graph's own task only
    assert not (Path(store.home) / "logs").exists()


def test_mcp_corpus_roots_setting_replaces_the_default_roots(tmp_path, small_corpus, settings_file):
    from lyra_resources.settings.loading import load_settings
    from lyra_resources.task_input import TaskInputError, check_task_input, mcp_corpus_roots

    home = tmp_path / "home"
    settings_file.write_text(f"corpus: [{small_corpus}]\n")
    default = mcp_corpus_roots(load_settings(), home)
    assert default == [Path(os.path.realpath(home / "corpora")), small_corpus.resolve()]
    checked = check_task_input("q?", {"corpus": [str(small_corpus)]}, home, corpus_roots=default)
    assert checked.options.corpus == [str(small_corpus.resolve())]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    settings_file.write_text(f"mcp:\n  corpus_roots: [{elsewhere}]\n")
    roots = mcp_corpus_roots(load_settings(), home)
    assert roots == [elsewhere.resolve()]
    with pytest.raises(TaskInputError, match="outside the corpus roots"):
        check_task_input("q?", {"corpus": [str(small_corpus)]}, home, corpus_roots=roots)
    # the command line is a person's own shell: no roots
    assert check_task_input("q?", {"corpus": [str(small_corpus)]}, home).options.corpus == [str(small_corpus)]
