"""Lyra's Dagster asset graph: one partition of every per-task asset per research task."""

from lyra_resources import dagster_resources as _dagster_resources  # noqa: F401 (before any asset: the store and settings are resources)
