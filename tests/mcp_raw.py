"""A real `lyra mcp` stdio server process driven with raw JSON-RPC lines, for the tests that send
what no SDK client would (broken JSON, forged ids) or kill the server mid-conversation."""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from lyra_resources.settings import REPO_ROOT

ANSWER_TIMEOUT_S = 60  # generous on a loaded machine; a dropped request never answers at all


class NoAnswer(AssertionError):
    pass


class RawServer:
    """``python -m lyra_tools.mcp_server --home HOME`` over pipes; ``send`` a line, ``answer(id)``."""

    def __init__(self, home: str | Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lyra_tools.mcp_server", "--home", str(home)], cwd=str(REPO_ROOT),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})})
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stderr: list[bytes] = []
        self.pending: dict[Any, dict] = {}
        self.ids = itertools.count(1)
        self.pumps = [threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True),
                      threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr.append), daemon=True)]
        for pump in self.pumps:
            pump.start()
        init = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                           "clientInfo": {"name": "raw-test", "version": "1"}})
        assert "result" in init, init
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    @staticmethod
    def _pump(stream, put) -> None:
        for line in stream:
            put(line)

    def send(self, line: str | bytes) -> None:
        data = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def answer(self, request_id: Any, timeout_s: float = ANSWER_TIMEOUT_S) -> dict:
        """The answer to ``request_id`` (answers to other ids that arrive first are kept)."""
        while request_id not in self.pending:
            try:
                message = json.loads(self.lines.get(timeout=timeout_s))
            except queue.Empty:
                raise NoAnswer(f"no answer to request {request_id!r} within {timeout_s} s") from None
            if "id" in message:
                self.pending[message["id"]] = message
        return self.pending.pop(request_id)

    def request(self, method: str, params: Any, request_id: Any = None) -> dict:
        request_id = next(self.ids) if request_id is None else request_id
        self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}))
        return self.answer(request_id)

    def call(self, tool: str, arguments: Any) -> dict:
        """A tools/call's result (content, isError, structuredContent), or the JSON-RPC error."""
        message = self.request("tools/call", {"name": tool, "arguments": arguments})
        return message.get("result") or {"jsonrpc_error": message["error"]}

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(30)

    def close(self) -> str:
        """Close stdin (the server exits as at a client's end) and return its stderr."""
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()
        for pump in self.pumps:
            pump.join(10)
        return b"".join(self.stderr).decode("utf-8", "replace")


def text(result: dict) -> str:
    if "jsonrpc_error" in result:
        return result["jsonrpc_error"]["message"]
    return result["content"][0]["text"]
