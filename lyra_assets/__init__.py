"""Lyra's Dagster asset graph: one partition of every per-task asset per research task."""
