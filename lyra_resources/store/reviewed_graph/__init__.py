"""The reviewed graph: a task's evidence graph as every reader sees it, the model's rows of its
published generation with human feedback applied (corrected edges, rejected claims, blocked domains,
scores recomputed). MCP, the CLI, the exports and the ``task_report`` asset all read it through
these modules: :mod:`.overlay` (the feedback and the scores it recomputes), :mod:`.queries` and
:mod:`.papers` (the SQL over the model's rows), :mod:`.answer` (the answer to the question, feedback
applied), :mod:`.report` (the report read from it, and its files written) and :mod:`.records` (what
the readers hand out, and the error a read cannot answer)."""
