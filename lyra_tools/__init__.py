"""What people and agents touch, by interface: the command line (``cli``), the MCP server
(``mcp``), the read tools both answer with (``explore``), the files ``lyra export`` writes
(``exports``), and the feedback both take (``feedback``)."""
