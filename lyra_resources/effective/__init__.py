"""A task's *effective* graph as every reader sees it: the model's rows of its published generation
with human feedback applied (corrected edges, rejected claims, blocked domains, scores recomputed).
MCP, the CLI, the exports and the ``task_report`` asset all read it through these modules."""
