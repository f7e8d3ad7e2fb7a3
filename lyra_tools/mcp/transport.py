"""Every line an MCP client sends over stdio gets an answer, and every error is one short line.

The SDK's stdio transport drops a line it cannot parse or validate (it logs it at debug level and
answers nothing), so a client that sent a non-JSON line, a lone surrogate (``"\\ud800"``), JSON
nested thousands deep or ``"method": 5`` waits forever; it takes a request whose id is no string or
integer (``null``, ``1.5``, ``true``, an object) for a notification and answers nothing either. Lyra
reads stdin itself, checks each line as the SDK will, and answers the lines the SDK would drop with
a JSON-RPC error of its own: -32700 (parse error) or -32600 (invalid request), carrying the
request's id where one can be read and written back (an id holding a lone surrogate cannot be
written as UTF-8: the answer's id is null, as JSON-RPC 2.0 has it for an id that cannot be
determined). Valid lines go on to the SDK unchanged, and every message the server writes is one the
SDK's writer can serialise (:class:`WritableMessages`): a message it could not write would stop the
server.

A request sent before ``initialize`` is answered "the session is not initialised" rather than the
SDK's "Invalid request parameters" (:class:`InitializeFirst`).

Tool arguments the SDK refuses come back as pydantic's multi-line report with a URL; the server
answers ``limit must be a whole number (got 'ten')`` instead.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import AsyncIterator
from typing import IO, Any

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from lyra_core.validation import describe
from lyra_tools.mcp.output_schemas import light_schema

MAX_LINE_BYTES = 4_000_000  # a tool call's arguments are a few KB; feedback args are capped at 16 KB
MAX_DEPTH = 64  # the deepest real message (create_task with verify_claims) nests about 8 levels


class LineRefused(Exception):
    """A line the server answers itself; ``error`` is the JSON-RPC error to send."""

    def __init__(self, code: int, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.error = types.JSONRPCError(
            jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
        )


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_ID_VALUE = re.compile(r'\s*:\s*("(?:[^"\\]|\\.)*"|-?\d{1,18})\s*[,}]')
SALVAGE_CHARS = 1_000_000


def salvage_id(text: str) -> str | int | None:
    """The top-level ``"id"`` of a line that does not parse (cut short, nested too deep), where it
    can be read, so the client learns which of its requests failed."""
    depth, i, end = 0, 0, min(len(text), SALVAGE_CHARS)
    while i < end:
        c = text[i]
        if c == '"':
            key = _STRING.match(text, i)
            if key is None:
                return None
            if depth == 1 and key.group() == '"id"' and (value := _ID_VALUE.match(text, key.end())):
                with contextlib.suppress(ValueError):
                    return answerable_id(json.loads(value.group(1)))
            i = key.end()
            continue
        depth += 1 if c in "{[" else -1 if c in "}]" else 0
        i += 1
    return None


def answerable_id(value: Any) -> str | int | None:
    """``value`` if an answer can carry it as its id: a string of valid Unicode (no lone surrogate,
    which the SDK's writer cannot encode) or an integer (not a boolean); else None."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return value if _lone_surrogate(value) is None else None


def _json_kind(value: Any) -> str:
    """What a JSON value is, for a message: ``null``, a boolean, a number with a fraction, an object …"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return "a number with a fraction or an exponent"
    return "an object" if isinstance(value, dict) else "an array" if isinstance(value, list) else "text"


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _depth(value: Any) -> int:
    """How deep ``value`` nests (an object or array counts one level), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:
                stack.extend(
                    (child, level + 1) for child in (node.values() if isinstance(node, dict) else node)
                )
    return deepest


def _lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) holding a lone UTF-16 surrogate, which no UTF-8 text can carry."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return node
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def _invalid_message(data: Any, exc: ValidationError) -> str:
    """What is wrong with a parsed message that is no JSON-RPC message, in one line."""
    if not isinstance(data, dict):
        kind = "an array (batches are not supported)" if isinstance(data, list) else type(data).__name__
        return f"a JSON-RPC message must be an object, not {kind}"
    if data.get("jsonrpc") != "2.0":
        return 'a JSON-RPC message needs "jsonrpc": "2.0"'
    if "method" in data and not isinstance(data["method"], str):
        return f'"method" must be a string (got {json.dumps(data["method"])[:40]})'
    if "id" in data and (isinstance(data["id"], bool) or not isinstance(data["id"], str | int | None)):
        return '"id" must be a string or an integer'
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"][1:]) or "message"
    return f"not a JSON-RPC request, notification or response: {where}: {first['msg']}"


def check_line(text: str) -> str:
    """``text`` if the SDK will accept it as a JSON-RPC message; else LineRefused with the answer."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise LineRefused(
            types.PARSE_ERROR, f"parse error: JSON nested more than {MAX_DEPTH} levels deep", salvage_id(text)
        ) from None
    except ValueError as exc:
        raise LineRefused(
            types.PARSE_ERROR, f"parse error: the line is not JSON ({exc})", salvage_id(text)
        ) from None
    raw_id = data.get("id") if isinstance(data, dict) else None
    request_id = answerable_id(raw_id)
    if _depth(data) > MAX_DEPTH:
        raise LineRefused(
            types.INVALID_REQUEST,
            f"invalid request: JSON nested more than {MAX_DEPTH} levels deep",
            request_id,
        )
    if (bad := _lone_surrogate(data)) is not None:
        raise LineRefused(
            types.PARSE_ERROR,
            f"parse error: a string holds a lone UTF-16 surrogate "
            f"({bad[:40].encode('utf-8', 'backslashreplace').decode()}); "
            "send valid Unicode",
            request_id,
        )
    if isinstance(data, dict) and "id" in data and "result" not in data and "error" not in data:
        if request_id is None:  # the SDK would take it for a notification and answer nothing
            raise LineRefused(
                types.INVALID_REQUEST,
                f'invalid request: "id" must be a string or an integer, not {_json_kind(raw_id)} '
                '(leave "id" out for a notification)',
            )
    try:
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        raise LineRefused(
            types.INVALID_REQUEST, f"invalid request: {_invalid_message(data, exc)}", request_id
        ) from None
    return text


class CheckedLines:
    """stdin as the SDK's transport reads it (``async for line``), yielding only the lines it accepts;
    the others' errors go to ``refusals``."""

    def __init__(self, source: IO[bytes], refusals: MemoryObjectSendStream[types.JSONRPCError]) -> None:
        self.source, self.refusals = source, refusals

    def _read(self) -> tuple[bytes, bool]:
        """The next line and whether it was cut at MAX_LINE_BYTES (its rest is skipped)."""
        line = self.source.readline(MAX_LINE_BYTES + 1)
        if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
            return line, False
        while (rest := self.source.readline(1 << 20)) and not rest.endswith(b"\n"):
            pass
        return line, True

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self.refusals:
            while True:
                line, cut = await anyio.to_thread.run_sync(self._read, abandon_on_cancel=True)
                if not line:
                    return
                if cut:
                    await self.refusals.send(
                        LineRefused(
                            types.PARSE_ERROR,
                            f"parse error: the line is longer than {MAX_LINE_BYTES:,} bytes",
                        ).error
                    )
                    continue
                text = line.decode("utf-8", errors="replace")  # as the SDK decodes stdin
                if not text.strip():
                    continue
                try:
                    yield check_line(text)
                except LineRefused as refused:
                    await self.refusals.send(refused.error)


def _valid_unicode(value: Any) -> Any:
    """``value`` with every lone surrogate of its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_valid_unicode(k): _valid_unicode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_valid_unicode(v) for v in value]
    return value


def writable(message: SessionMessage) -> SessionMessage:
    """``message`` if the SDK's writer can serialise it; else the same message with its lone
    surrogates replaced, so an answer is written rather than the writer failing and the server stopping."""
    try:
        message.message.model_dump_json(by_alias=True, exclude_unset=True)
    except PydanticSerializationError:
        data = _valid_unicode(message.message.model_dump(by_alias=True, exclude_unset=True))
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(data, by_name=False))
    return message


class WritableMessages:
    """The SDK's write stream, sent only messages its writer can serialise (:func:`writable`)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    async def send(self, message: SessionMessage) -> None:
        await self.stream.send(writable(message))

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> WritableMessages:
        await self.stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self.stream.__aexit__(*exc)


class InitializeFirst:
    """Server middleware: a request the SDK refuses because ``initialize`` has not been sent yet is
    answered -32600 saying so, not -32602 "Invalid request parameters" (which sends a client looking
    for a fault in its parameters)."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        try:
            return await call_next(ctx)
        except MCPError as exc:
            if (
                exc.code == types.INVALID_PARAMS
                and exc.data == ""
                and ctx.request_id is not None
                and ctx.session.client_params is None
            ):
                raise MCPError(
                    code=types.INVALID_REQUEST,
                    message=f"the session is not initialised: send initialize (then "
                    f"notifications/initialized) before {str(ctx.method)[:60]}",
                ) from None
            raise


class LyraMCPServer(MCPServer):
    """The SDK's server with every stdio line answered and argument errors on one line."""

    def __init__(self, *args: Any, light_schemas: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.middleware.append(InitializeFirst())
        self.light_schemas = light_schemas

    async def list_tools(self) -> list[types.Tool]:
        """The tools with output schemas a client checks at the top level only (:mod:`.output_schemas`)."""
        tools = await super().list_tools()
        if not self.light_schemas:
            return tools
        return [tool.model_copy(update={"output_schema": light_schema(tool.output_schema)}) for tool in tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {name}: {describe(exc.__cause__)}") from exc.__cause__
            raise

    async def run_stdio_async(self) -> None:
        send_refusals, refusals = anyio.create_memory_object_stream[types.JSONRPCError](64)
        lines = CheckedLines(sys.stdin.buffer, send_refusals)
        async with stdio_server(stdin=lines) as (read_stream, sdk_write_stream):  # type: ignore[arg-type]
            write_stream = WritableMessages(sdk_write_stream)
            async with anyio.create_task_group() as tg:

                async def answer_refused() -> None:
                    async with refusals:
                        async for error in refusals:
                            await write_stream.send(SessionMessage(error))

                tg.start_soon(answer_refused)
                await self._lowlevel_server.run(
                    read_stream,
                    write_stream,  # type: ignore[arg-type]
                    self._lowlevel_server.create_initialization_options(),
                )
                tg.cancel_scope.cancel()
