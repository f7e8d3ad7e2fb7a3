"""What people and agents touch: the CLI, the MCP server, exploration queries, feedback."""
