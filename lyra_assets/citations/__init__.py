"""The `citations` group: the task's papers' references and citing papers (``tracking``) and the
citation links between its pages (``edges``)."""
