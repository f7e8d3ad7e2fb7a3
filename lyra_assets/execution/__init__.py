"""Lyra's run machinery, apart from the assets it runs: the names of the jobs and run tags and the
Dagster instance of a Lyra home (``runs``), running a task's or a training job's run in this
process, stopping and deleting a task's runs (``run_control``), following a run's progress asset by
asset (``run_progress``), asking the cluster for a task's run and the sensor that creates it (``run_queue``), where a
run's steps execute and the Celery executor that watches their workers (``step_workers``,
``celery_steps``), the schedule that re-runs watched tasks (``schedules``) and the sensor that keeps
each task's row in step with its runs (``task_status``), and how a run stopped with Ctrl-C is told
from a failure and kept out of the console log (``interrupts``)."""
