"""Answers to client request ids: an MCP write repeated after a lost answer is not applied twice."""

from __future__ import annotations

from lyra_resources.schema.columns import table

MCP_REQUESTS = table(
    "mcp_requests",
    "one row per MCP write that carried a client `request_id`: a repeated id returns the stored answer",
    """
    request_id VARCHAR PRIMARY KEY -- the client's id for the write (1–100 characters, [A-Za-z0-9._:-])
    tool VARCHAR NOT NULL -- the tool called: create_task | stop_task | feedback
    args_hash VARCHAR NOT NULL -- sha256 of the call's other arguments as canonical JSON; another hash is refused
    answer_json VARCHAR -- the answer sent, as JSON; NULL while a create_task has not yet started its run
    created_at TIMESTAMP NOT NULL -- when the id was first seen (UTC)
    """,
    per_task=False,
)
