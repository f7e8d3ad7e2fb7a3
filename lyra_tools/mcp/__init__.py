"""Lyra's MCP server (:mod:`.server`: the tools, each a small named handler) and what it stands on:
the stdio transport that answers every line (:mod:`.transport`), the store it shares across calls
(:mod:`.server_store`), task control (:mod:`.tasks`), the background writer of the 'returned'
relevance signals (:mod:`.relevance_returns`), and what its answers are made of: the response
models every tool returns (:mod:`.models`) and the paging that keeps each answer small
(:mod:`.paging`: limits, cursors bound to their query, a byte budget)."""
