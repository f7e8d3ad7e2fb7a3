"""Client request ids for MCP writes: a write repeated after a lost answer is applied once.

An agent whose connection drops cannot know whether its last write was stored. Every write tool
takes an optional ``request_id``; the first call with an id stores its answer in ``mcp_requests``
in the same transaction as the write itself, so a write is never stored without its id (a kill
between the two is impossible). A repeated id returns the stored answer and writes nothing; the
same id with other arguments is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field

from lyra_resources.store.sql import Connection, is_postgres

RequestId = Annotated[
    str | None,
    Field(
        None,
        min_length=1,
        max_length=100,
        pattern=r"^[A-Za-z0-9._:-]+$",
        description="optional id of this write chosen by the client (e.g. a UUID): sending the same id again "
        "(after a lost answer) returns the first answer and changes nothing",
    ),
]

M = TypeVar("M", bound=BaseModel)


class RequestIdError(ValueError):
    """A request id reused for another call; the message is one line."""


def args_hash(tool: str, args: Mapping[str, Any]) -> str:
    """sha256 of the call's arguments (the request id left out) as canonical JSON."""
    canonical = json.dumps(
        [tool, {k: v for k, v in args.items() if k != "request_id"}],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def claim(conn: Connection, request_id: str, tool: str, digest: str) -> tuple[bool, str | None]:
    """Within the caller's transaction: ``(seen, answer_json)`` for the id. An id seen with another
    tool or other arguments raises RequestIdError. In Postgres, concurrent calls with one id wait
    for each other here, so the second reads the first one's answer."""
    if is_postgres(conn):
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [f"lyra mcp request {request_id}"])
    row = conn.execute(
        "SELECT tool, args_hash, answer_json FROM mcp_requests WHERE request_id = ?", [request_id]
    ).fetchone()
    if row is None:
        return False, None
    if (row[0], row[1]) != (tool, digest):
        raise RequestIdError(
            f"request_id {request_id!r} was already used for another {row[0]} call with other "
            "arguments; send a new request_id for a new write"
        )
    return True, row[2]


def remember(conn: Connection, request_id: str, tool: str, digest: str, answer: BaseModel | None) -> None:
    """Within the caller's transaction: store (or complete) the id's answer."""
    answer_json = answer.model_dump_json() if answer is not None else None
    conn.execute(
        "INSERT INTO mcp_requests (request_id, tool, args_hash, answer_json, created_at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (request_id) DO UPDATE SET answer_json = excluded.answer_json",
        [request_id, tool, digest, answer_json, datetime.now(UTC).replace(tzinfo=None)],
    )


def once(
    conn: Connection,
    request_id: str | None,
    tool: str,
    args: Mapping[str, Any],
    model: type[M],
    write: Callable[[], M],
) -> M:
    """Within the caller's transaction: ``write()``'s answer, stored under ``request_id``; for an id
    already answered, the stored answer (``write`` is not called)."""
    if request_id is None:
        return write()
    digest = args_hash(tool, args)
    seen, stored = claim(conn, request_id, tool, digest)
    if seen and stored is not None:
        return model.model_validate_json(stored)
    answer = write()
    remember(conn, request_id, tool, digest, answer)
    return answer
