"""The ``defs`` that ``dagster dev`` loads (workspace.yaml, ``[tool.dagster]``).

Built here rather than in ``lyra_assets.definitions``, so importing the definitions (the CLI
does, at start) never reads the settings file: a broken one is then reported in one line by the
command that needs it, not as a traceback at import.
"""

from lyra_assets.definitions import build_definitions

defs = build_definitions()
