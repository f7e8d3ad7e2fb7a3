"""The `graph` group: the task's published graph (``publish``) and its report (``report``)."""
