"""dagster-celery's executor with a watch on the workers executing a run's steps (profile `cluster`).

A step goes to Celery as a task that is acknowledged when a worker starts it (Celery's default,
`task_acks_late` off): a worker that dies mid-step (SIGKILL, a lost machine) takes the step with it,
nobody writes its result, and dagster-celery's executor would poll for that result forever. Re-running
the step elsewhere (`acks_late` and a redelivery) would run half-written work twice, so the run fails
instead, and the task keeps its previously published graph until it is run again.

The watch: each step's result reads STARTED with the executing worker's name (`task_track_started`);
the run's process pings that worker over the broker every `PING_EVERY_S`, and a worker that has not
answered for `WORKER_LOST_AFTER_S` is lost: its steps fail with `StepWorkerLost`, the steps still
waiting in the queue are revoked, and the run ends FAILED. A step process killed under a live worker
needs no watch: Celery reports it failed (`WorkerLostError`) at once.

This module imports dagster-celery (the `cluster` extra); the local profile never imports it.
"""

from __future__ import annotations

import time
from typing import Any

from celery.exceptions import TaskRevokedError
from dagster import Executor, executor, multiple_process_executor_requirements
from dagster_celery import celery_executor
from dagster_celery.core_execution_loop import core_celery_execution_loop

# dagster-celery's own step submission (the step's arguments, its Celery task and queue): it has no
# public name, and writing it again would copy Dagster's private step-argument types.
from dagster_celery.executor import CELERY_CONFIG, CeleryExecutor, _submit_task

PING_EVERY_S = 10.0
"""How often the run's process asks a worker executing one of its steps whether it is alive."""
PING_TIMEOUT_S = 3.0
"""How long one ping waits for the worker's answer."""
WORKER_LOST_AFTER_S = 45.0
"""How long a worker executing a step may stay silent before its steps fail: a killed worker's run
ends FAILED within about this plus one ping (under a minute)."""


class StepWorkerLost(RuntimeError):
    """The worker executing a step stopped answering: the step's outcome will never come."""


class WorkerWatch:
    """Which workers executing a run's steps still answer; shared by the run's step results."""

    def __init__(
        self, app: Any, lost_after_s: float = WORKER_LOST_AFTER_S, ping_every_s: float = PING_EVERY_S
    ):
        self.app, self.lost_after_s, self.ping_every_s = app, lost_after_s, ping_every_s
        self._answered: dict[str, float] = {}  # worker name → when it last answered (or was first seen)
        self._pinged: dict[str, float] = {}
        self.lost_workers: set[str] = set()

    def lost(self, worker: str) -> bool:
        """Whether ``worker`` has stopped answering; pings it when its last ping is old enough."""
        if worker in self.lost_workers:
            return True
        now = time.monotonic()
        self._answered.setdefault(worker, now)
        if now - self._pinged.get(worker, 0.0) >= self.ping_every_s:
            self._pinged[worker] = now
            if self.app.control.ping(destination=[worker], timeout=PING_TIMEOUT_S):
                self._answered[worker] = time.monotonic()
        if time.monotonic() - self._answered[worker] > self.lost_after_s:
            self.lost_workers.add(worker)
        return worker in self.lost_workers


class WatchedStep:
    """A step's Celery result that is also ready when the worker executing it is lost (``get``
    then raises ``StepWorkerLost``), or when another step's worker was lost while this one still
    waited in the queue (revoked: the run is failing)."""

    def __init__(self, result: Any, step_key: str, watch: WorkerWatch):
        self.result, self.step_key, self.watch = result, step_key, watch
        self._outcome: BaseException | None = None

    def ready(self) -> bool:
        if self._outcome is not None or self.result.ready():
            return True
        state, info = self.result.state, self.result.info
        if state == "STARTED" and isinstance(info, dict) and info.get("hostname"):
            worker = str(info["hostname"])
            if self.watch.lost(worker):
                self._outcome = StepWorkerLost(
                    f"step {self.step_key}: worker {worker} (pid {info.get('pid')}) stopped answering for "
                    f"{self.watch.lost_after_s:.0f}s while executing it; the step's outcome is lost"
                )
        elif state == "PENDING" and self.watch.lost_workers:
            self.result.revoke()
            self._outcome = TaskRevokedError(
                f"step {self.step_key} not started: a worker of this run was lost"
            )
        return self._outcome is not None

    def get(self) -> Any:
        if self._outcome is not None:
            raise self._outcome
        return self.result.get()

    def revoke(self) -> None:
        self.result.revoke()


class WatchedCeleryExecutor(Executor):
    """dagster-celery's executor (its broker, Celery settings and retry mode, as configured) whose
    step results fail when their worker is lost."""

    def __init__(self, celery: CeleryExecutor):
        self.celery = celery

    @property
    def retries(self):
        return self.celery.retries

    def app_args(self) -> dict[str, Any]:
        """The Celery app's arguments, which dagster-celery's execution loop builds its app from."""
        return self.celery.app_args()

    def execute(self, plan_context, execution_plan):
        watch: WorkerWatch | None = None

        def submit(app, context, step, queue, priority, known_state):
            nonlocal watch
            watch = watch or WorkerWatch(app)
            return WatchedStep(
                _submit_task(app, context, step, queue, priority, known_state), step.key, watch
            )

        return core_celery_execution_loop(plan_context, execution_plan, step_execution_fn=submit)


@executor(name="celery", config_schema=CELERY_CONFIG, requirements=multiple_process_executor_requirements())
def watched_celery_executor(init_context) -> WatchedCeleryExecutor:
    """dagster-celery's `celery` executor (the same config, read by dagster-celery itself) with the
    watch on its workers."""
    return WatchedCeleryExecutor(celery_executor.executor_creation_fn(init_context))
