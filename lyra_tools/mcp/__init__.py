"""Lyra's MCP server and what its answers are made of: the response models every tool returns
(:mod:`.models`) and the paging that keeps each answer small (:mod:`.paging`: limits, cursors
bound to their query, a byte budget)."""
