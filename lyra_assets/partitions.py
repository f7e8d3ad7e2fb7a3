"""Every research task is one partition; the CLI and the MCP server add partitions as tasks arrive."""

from dagster import DynamicPartitionsDefinition

TASKS_PARTITION = "tasks"

task_partitions = DynamicPartitionsDefinition(name=TASKS_PARTITION)

# Run tags: every run of a task carries TASK_TAG (the CLI's, the MCP server's and the schedule's);
# runs the ``watched_tasks_schedule`` requests also carry TRIGGER_TAG = WATCH_TRIGGER.
TASK_TAG = "lyra/task_id"
TRIGGER_TAG = "lyra/trigger"
WATCH_TRIGGER = "watch"
