"""Every JSON-RPC line with an id gets exactly one answer from the real `lyra mcp` stdio server,
whatever the id holds: a lone surrogate (which no UTF-8 answer can carry) is answered with id null
and the server keeps serving; an id of any JSON type but a string or an integer (null, an object,
an array, a boolean, a number with a fraction or an exponent) is an invalid request, answered
-32600 with id null, never taken for a notification; a request sent before ``initialize`` is told
to initialise first. Whatever the server writes is a message the SDK's writer can serialise."""

from __future__ import annotations

import json

import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from fixtures.mcp_raw import RawServer
from lyra_tools.mcp.transport import check_line, salvage_id, writable

PING = '{"jsonrpc":"2.0","id":%s,"method":"ping"}'
CALL = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"list_tasks","arguments":{}}}'


@pytest.fixture
def settings_file(tmp_path, monkeypatch):
    path = tmp_path / "settings.yaml"
    path.write_text("corpus: []\nsources: {live: 'off'}\n")
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    return path


def closed(server: RawServer) -> None:
    """The server is still running; closing it leaves no traceback on stderr."""
    assert server.proc.poll() is None, "the server stopped"
    stderr = server.close()
    assert "Traceback" not in stderr and "ExceptionGroup" not in stderr, stderr[-3000:]


def only_answer(server: RawServer, request_id) -> dict:
    """The answer to ``request_id``, and no other answer waiting beside it (a later ping is answered
    next: nothing was answered twice)."""
    answer = server.answer(request_id)
    assert server.request("ping", {}, request_id="after")["result"] == {}
    assert server.pending == {}, server.pending
    return answer


def test_an_id_holding_a_lone_surrogate_is_answered_with_id_null_and_the_server_keeps_serving(
    tmp_path, settings_file
):
    server = RawServer(tmp_path / "home")
    try:
        for line in [
            PING % '"\\ud800"',
            PING % '"ok \\udfff"',
            CALL % '"\\ud800"',
            '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"',  # cut short: the id is salvaged, not echoed
            '{"jsonrpc":"2.0","id":"\\ud800","method":5}',
            '{"jsonrpc":"2.0","id":"\\ud800"}',
        ]:
            server.send(line)
            answer = only_answer(server, None)
            assert answer["error"]["code"] in (types.PARSE_ERROR, types.INVALID_REQUEST), (line, answer)
            assert "\n" not in answer["error"]["message"]
    finally:
        closed(server)


@pytest.mark.parametrize(
    ("raw_id", "kind"),
    [
        ("null", "null"),
        ("{}", "an object"),
        ('{"id": 1}', "an object"),
        ("[]", "an array"),
        ("[1]", "an array"),
        ("true", "a boolean"),
        ("false", "a boolean"),
        ("1.5", "a number with a fraction"),
        ("2.0", "a number with a fraction"),
        ("2e0", "a number with a fraction"),
        ("1e400", "a number with a fraction"),
        ("-0.0", "a number with a fraction"),
    ],
)
def test_a_request_whose_id_is_no_string_or_integer_is_an_invalid_request(
    tmp_path, settings_file, raw_id, kind
):
    server = RawServer(tmp_path / "home")
    try:
        for line in (PING % raw_id, CALL % raw_id):
            server.send(line)
            answer = only_answer(server, None)
            assert answer["error"]["code"] == types.INVALID_REQUEST, (line, answer)
            assert f'"id" must be a string or an integer, not {kind}' in answer["error"]["message"]
    finally:
        closed(server)


def test_ids_of_every_valid_kind_are_answered_with_the_id_as_sent(tmp_path, settings_file):
    server = RawServer(tmp_path / "home")
    try:
        for request_id in [0, -5, 2**63, 2**70, "", " ", "☃ 𝕏", "x" * 10_000, "a\x00b"]:
            server.send(PING % json.dumps(request_id))
            assert only_answer(server, request_id)["result"] == {}
        server.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}')
        assert server.request("ping", {}, request_id="after")["result"] == {}
        assert server.pending == {}  # a notification is not answered
    finally:
        closed(server)


def test_a_request_before_initialize_is_told_to_initialise_first(tmp_path, settings_file):
    server = RawServer(tmp_path / "home", initialize=False)
    try:
        for method, params in [("tools/list", {}), ("tools/call", {"name": "list_tasks", "arguments": {}})]:
            answer = server.request(method, params)
            assert answer["error"]["code"] == types.INVALID_REQUEST, answer
            assert "not initialised" in answer["error"]["message"]
            assert "initialize" in answer["error"]["message"].split("not initialised")[1], answer
        assert server.request("ping", {})["result"] == {}  # ping needs no session
        assert server.request("no/such/method", {})["error"]["code"] == types.METHOD_NOT_FOUND
        server.initialize()
        tools = server.request("tools/list", {})["result"]["tools"]
        assert "list_tasks" in {t["name"] for t in tools}
    finally:
        closed(server)


# -- the checks themselves, in this process ---------------------------------------------------------


def test_check_line_never_hands_back_an_id_the_writer_cannot_encode():
    for line in [PING % '"\\ud800"', PING % '"a\\udc00b"', PING % "null", PING % "1.5", PING % "[]"]:
        try:
            check_line(line)
        except Exception as refused:  # LineRefused: its answer must serialise
            error = refused.error  # type: ignore[attr-defined]
            assert error.id is None, (line, error)
            error.model_dump_json(by_alias=True, exclude_unset=True)
        else:
            raise AssertionError(f"{line} was handed to the SDK")
    assert salvage_id('{"jsonrpc":"2.0","id":"\\ud800","method":') is None
    assert salvage_id('{"jsonrpc":"2.0","id":"ok","method":') == "ok"


def test_a_message_the_sdk_cannot_serialise_is_written_with_its_surrogates_replaced():
    answer = types.JSONRPCResponse(
        jsonrpc="2.0", id="\ud800", result={"text": "a \udfff b", "\udc80key": ["\ud83d"]}
    )
    written = writable(SessionMessage(answer)).message
    data = json.loads(written.model_dump_json(by_alias=True, exclude_unset=True))
    assert data == {
        "jsonrpc": "2.0",
        "id": "\ufffd",
        "result": {"text": "a \ufffd b", "\ufffdkey": ["\ufffd"]},
    }
    fine = SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"text": "☃"}))
    assert writable(fine) is fine
