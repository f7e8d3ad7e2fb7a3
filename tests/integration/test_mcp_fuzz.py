"""Fuzzing the real `lyra mcp` stdio server: a few hundred calls of every tool with hostile arguments
(wrong types, huge strings, unicode, lone surrogates, nulls, deep nesting, forged cursors, unknown
ids, path traversal in corpus paths) and broken JSON-RPC lines, over one server process with a fixed
seed, on a graph whose corpus text is hostile too (markup, terminal control sequences, NUL, newlines,
nested braces, prompt injection: fixtures.hostile_corpus), and raw lines: ids of every JSON type (an
invalid one answered -32600 with id null, never taken for a notification) and a lone surrogate in
each field of a request, the id included. Every request is answered once, the server serves to the
end, no answer and no line of stderr holds a traceback, a refusal is one line and changes no table,
and every answer that serves hostile corpus text names its field in ``untrusted_content``."""

from __future__ import annotations

import base64
import json
import random

import pytest

from fixtures.hostile_corpus import HOSTILE_TEXTS, make_corpus_hostile, unmarked_hostile_text
from fixtures.mcp import store_env
from fixtures.mcp_raw import RawServer, text
from lyra_core.feedback import ACTIONS
from lyra_resources.schema import TABLES

SEED = 20_240_611
CALLS = 320
TOOLS = [
    "create_task",
    "get_status",
    "stop_task",
    "list_tasks",
    "get_evidence_summary",
    "list_claim_topics",
    "get_claims_by_topic",
    "get_claim_evidence",
    "find_contradictions",
    "search_papers",
    "get_paper",
    "get_materials",
    "feedback",
]


def table_state(store) -> dict[str, list]:
    """Every row of every table, sorted; the 'returned' relevance signals are left out: successful
    get_claim_evidence reads queue them and a background writer stores them whenever it wakes."""
    with store.connect() as conn:
        state = {
            t: sorted(map(repr, conn.execute(f"SELECT * FROM {t}").fetchall()))
            for t in TABLES
            if t != "relevance_signals"
        }
        state["relevance_signals"] = sorted(
            map(repr, conn.execute("SELECT * FROM relevance_signals WHERE signal <> 'returned'").fetchall())
        )
    return state


def deep(levels: int) -> object:
    value: object = "bottom"
    for i in range(levels):
        value = [value] if i % 2 else {"n": value}
    return value


def cursor_of(offset: str, key: str = "0123456789") -> str:
    return base64.urlsafe_b64encode(('{"k":"%s","o":{"i":%s}}' % (key, offset)).encode()).decode().rstrip("=")


class Hostile:
    """Argument values, hostile and (sometimes) valid, drawn from one seeded generator."""

    def __init__(self, rng: random.Random, graph, corpora: str) -> None:
        self.rng, self.graph = rng, graph
        self.ids = [
            graph.task_id,
            *graph.claims.values(),
            *graph.edges.values(),
            *graph.fragments.values(),
            *graph.pages.values(),
            *graph.topics,
        ]
        self.junk = [
            None,
            True,
            False,
            0,
            -1,
            2**63,
            -(2**70),
            1.5,
            1e308,
            "",
            " ",
            "x" * 100_000,
            "\u202e\u0000 ☃ 𝕏 \ufeff",
            "' OR 1=1 --",
            "; DROP TABLE tasks; --",
            "../../etc/passwd",
            "%s%n",
            "task_nope",
            "c_missing",
            [],
            {},
            [None] * 50,
            {"$ref": "#"},
            deep(20),
            deep(45),
            deep(80),
            {"k": "v" * 20_000},
            *HOSTILE_TEXTS,
        ]
        self.cursors = [
            "1e30",
            "Infinity",
            "-1",
            "abc",
            "",
            "=" * 199,
            cursor_of("1e30"),
            cursor_of("Infinity"),
            cursor_of("-1"),
            cursor_of('"abc"'),
            cursor_of("9" * 30),
            "a" * 201,
        ]
        self.paths = [
            "/etc/passwd",
            "../../../../etc/shadow",
            f"{corpora}/../../lyra.duckdb",
            f"{corpora}/missing.jsonl",
            "~/.ssh/id_rsa",
            "/proc/self/environ",
            "\u0000",
            "corpora/../../x",
            "/" + "a/" * 2000,
            "",
        ]

    def value(self, valid: object) -> object:
        r = self.rng.random()
        return valid if r < 0.35 else self.rng.choice(self.ids) if r < 0.5 else self.rng.choice(self.junk)

    def feedback_args(self, action: str) -> dict:
        g, rng = self.graph, self.rng
        pick = lambda ids: rng.choice(list(ids))  # noqa: E731
        return {
            "claim_reject": {"claim_id": pick(g.claims.values()), "reason": "fuzz"},
            "claim_restore": {"claim_id": pick(g.claims.values())},
            "edge_correct": {
                "edge_id": pick(g.edges.values()),
                "correct_relation": rng.choice(["supports", "refutes", "neutral"]),
            },
            "domain_block": {"domain_pattern": "example.org", "reason": "fuzz"},
            "domain_unblock": {"domain_pattern": "example.org", "reason": "fuzz"},
            "domain_clear_override": {"domain_pattern": "example.org"},
            "fragment_useful": {"fragment_id": pick(g.fragments.values())},
            "fragment_not_useful": {"fragment_id": pick(g.fragments.values())},
            "flag_irrelevant": {"fragment_id": pick(g.fragments.values())},
            "flag_missing": {"page_id": pick(g.pages.values()), "missing_text": "the dose"},
            "add_note": {"target_id": g.task_id, "note": "fuzz note ☃"},
        }[action]

    def valid(self, tool: str) -> dict:
        rng, task = self.rng, self.graph.task_id
        request_id = {"request_id": f"fuzz-{rng.randrange(20)}"} if rng.random() < 0.5 else {}
        return {
            "create_task": {
                "query": "Does vitamin D prevent fractures?",
                "options": {"corpus": [rng.choice(self.paths)]},
                **request_id,
            },
            "get_status": {"task_id": task},
            "stop_task": {"task_id": task, **request_id},
            "list_tasks": {},
            "get_evidence_summary": {"task_id": task},
            "list_claim_topics": {"task_id": task, "limit": 1},
            "get_claims_by_topic": {"task_id": task, "topic": "t_fracture", "limit": 1},
            "get_claim_evidence": {"claim_id": rng.choice(list(self.graph.claims.values()))},
            "find_contradictions": {"task_id": task},
            "search_papers": {"task_id": task, "query": "vitamin D"},
            "get_paper": {"task_id": task, "paper_id": "p_missing"},
            "get_materials": {"task_id": task},
            "feedback": {
                "task_id": task,
                "action": (action := rng.choice(ACTIONS)),
                "args": self.feedback_args(action),
                **request_id,
            },
        }[tool]

    def arguments(self, tool: str) -> dict:
        """A valid call (a fifth of them), one with one argument made hostile (nearly half), or one
        whose every argument may be hostile."""
        rng, v = self.rng, self.value
        mode = rng.random()
        args = self.valid(tool)
        if mode < 0.2:
            return args
        if mode < 0.65:
            name = rng.choice([*args, "limit", "cursor", "extra"])
            if name in ("limit", "cursor") or rng.random() < 0.8:
                args[name] = rng.choice(self.cursors) if name == "cursor" else rng.choice(self.junk)
            else:
                args.pop(name, None)
            if tool == "feedback" and rng.random() < 0.5:  # or one of its args
                inner = dict(args.get("args") or {}) if isinstance(args.get("args"), dict) else {}
                inner[rng.choice([*inner, "reason"])] = rng.choice(self.junk)
                args["args"] = inner
            if tool == "create_task" and rng.random() < 0.5:
                args["options"] = {"corpus": rng.sample(self.paths, 3)}
            return args
        for name in list(args):
            args[name] = v(args[name])
        args.update({"limit": v(5), "cursor": rng.choice(self.cursors)} if rng.random() < 0.5 else {})
        if rng.random() < 0.1:
            args[rng.choice(["extra", "__proto__", "sql", "ünïcode"])] = rng.choice(self.junk)
        return {k: a for k, a in args.items() if rng.random() < 0.9}


RAW_LINES = [
    "not json",
    '{"jsonrpc":"2.0","id":"raw","method":5}',
    '{"jsonrpc":"2.0","id":"raw","method":"nope"}',
    '{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":5}',
    '{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":{"name":"list_tasks","arguments":"\\udfff"}}',
    '{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":{"name":"list_tasks","arguments":%s}}'
    % ("[" * 3000 + "]" * 3000),
    '{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}',
    '{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":{"name":"list_tasks","arguments":[1]}}',
    '{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":{"name":"list_tasks","arguments":{"limit":1e999}}}',
    '{"jsonrpc":"2.0","id":"raw","method":"resources/read","params":{"uri":"file:///etc/passwd"}}',
    '{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":{"name":"search_papers",'
    '"arguments":{"task_id":"t","query":"vitamin \\ud800 D"}}}',
    '{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":{"name":"get_paper",'
    '"arguments":{"task_id":"t","paper_id":"\\udfff\\u0000"}}}',
]


# ids of every JSON type (and text no UTF-8 answer can carry): an invalid one is answered -32600 with
# id null, never taken for a notification; a valid one is answered with the id as it was sent
ID_CASES = [
    *[
        ('{"jsonrpc":"2.0","id":%s,"method":"ping"}' % raw, None)
        for raw in ["null", "{}", '{"a":[1]}', "[]", "[1,2]", "true", "false", "1.5", "2.0", "1e400", "-0.0"]
    ],
    *[
        ('{"jsonrpc":"2.0","id":%s,"method":"ping"}' % json.dumps(valid), valid)
        for valid in [0, -7, 2**70, "", "☃", "raw-ok"]
    ],
    ('{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}', None),
    ('{"jsonrpc":"2.0","id":"a\\udfffb","method":"tools/call","params":{"name":"list_tasks"}}', None),
    ('{"jsonrpc":"2.0","id":"\\ud800","method":"ping"', None),  # cut short as well
]
_CALL = {
    "jsonrpc": "2.0",
    "id": "raw",
    "method": "tools/call",
    "params": {"name": "list_tasks", "arguments": {"limit": 1}},
}


def surrogate_lines() -> list[tuple[str, object]]:
    """The tools/call above with a lone surrogate put into each of its fields in turn (a key or a
    value, at every level), and the id its answer carries."""
    lines = []

    def spoiled(value, path):
        if not path:
            return "\ud800" if isinstance(value, str) else value
        key, rest = path[0], path[1:]
        if key == "<key>":  # a key of its own beside the others
            return {**value, "\udfff": 1}
        return {**value, key: spoiled(value[key], rest)}

    for path in [
        ("jsonrpc",),
        ("id",),
        ("method",),
        ("<key>",),
        ("params", "name"),
        ("params", "<key>"),
        ("params", "arguments", "<key>"),
        ("params", "arguments", "limit"),
    ]:
        message = spoiled(_CALL, path)
        if path == ("params", "arguments", "limit"):
            message["params"]["arguments"]["limit"] = "\ud800"
        lines.append((json.dumps(message), None if path == ("id",) else "raw"))
    return lines


VALID_ID_LINES = {line for line, answer_id in ID_CASES if answer_id is not None}
REFUSED_LINES = {line for line, _ in ID_CASES + surrogate_lines()} - VALID_ID_LINES
RAW_CASES = (
    [(line, None if line == "not json" else "raw") for line in RAW_LINES] + ID_CASES + surrogate_lines()
)


def send_raw(server: RawServer, line: str, answer_id: object) -> None:
    """``line`` sent as it is, and its one answer, which carries ``answer_id``."""
    server.send(line)
    message = server.answer(answer_id)
    assert "Traceback" not in json.dumps(message), message
    if line in VALID_ID_LINES:
        assert "result" in message, (line, message)
    elif line in REFUSED_LINES:
        assert message["error"]["code"] in (-32600, -32700), (line, message)


@pytest.fixture
def settings_file(tmp_path, monkeypatch):
    path = tmp_path / "settings.yaml"
    path.write_text("corpus: []\nsources: {live: 'off'}\n")  # no task can reach the network
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    return path


def test_fuzzed_calls_are_all_answered_without_tracebacks_and_refusals_change_nothing(
    store, graph, settings_file
):
    rng = random.Random(SEED)
    make_corpus_hostile(store, graph)
    hostile = Hostile(rng, graph, f"{store.home}/corpora")
    server = RawServer(store.home, env=store_env())
    refused = answered = raw_sent = 0
    try:
        state = table_state(store)
        for line, answer_id in RAW_CASES:  # each once, then drawn among the calls
            send_raw(server, line, answer_id)
        assert table_state(store) == state
        for n in range(CALLS):
            if rng.random() < 0.15:
                send_raw(server, *rng.choice(RAW_CASES))
                answered += 1
                raw_sent += 1
                assert table_state(store) == state
                continue
            tool = rng.choice(TOOLS)
            args = hostile.arguments(tool)
            result = server.call(tool, args)
            answered += 1
            shown = text(result) if "jsonrpc_error" in result or result.get("content") else json.dumps(result)
            assert "Traceback" not in shown and "internal error" not in shown, (n, tool, shown[:500])
            after = table_state(store)
            if "jsonrpc_error" in result or result.get("isError"):
                refused += 1
                assert "\n" not in text(result), (n, tool, text(result)[:500])
                assert after == state, (n, tool, json.dumps(args)[:300], text(result))
            else:
                assert tool != "create_task", ("no task may be created", args)
                assert unmarked_hostile_text(result.get("structuredContent") or {}) == [], (n, tool)
            state = after
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr and "ExceptionGroup" not in stderr, stderr[-5000:]
    assert answered >= CALLS and refused > CALLS // 3 and raw_sent >= CALLS // 10
    assert server.proc.returncode == 0 and server.pending == {}  # served to the end; nothing answered twice
