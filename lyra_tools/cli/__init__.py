"""The ``lyra`` command line: :mod:`.entry_point` builds the app from one module per command group
(:mod:`.run`, :mod:`.tasks`, :mod:`.serve`, :mod:`.models`, :mod:`.browse`, :mod:`.search`,
:mod:`.corpus`, :mod:`.feedback`, :mod:`.worker`, :mod:`.store`); :mod:`.common` holds what they
share (the home, the store, the one-line error), :mod:`.progress_view` what a run shows while it
materializes and :mod:`.verify` a claims file's check and results.

``app`` and ``main`` (in :mod:`.entry_point`) are looked up here on first use (the console script is
``lyra_tools.cli:main``), so importing one command's module does not build the whole app."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("app", "main"):
        from lyra_tools.cli import entry_point

        return getattr(entry_point, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
