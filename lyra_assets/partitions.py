"""Every research task is one partition; the CLI and the MCP server add partitions as tasks arrive
(``lyra_assets.execution.runs.register_partition``)."""

from dagster import DynamicPartitionsDefinition

TASKS_PARTITION = "tasks"

task_partitions = DynamicPartitionsDefinition(name=TASKS_PARTITION)
