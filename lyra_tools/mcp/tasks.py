"""The MCP server's task control: creating a task (and starting its run) and stopping one.

Both take the client's optional ``request_id`` (``lyra_resources.store.request_ids``). create_task records
the id with the new task's id before the task row exists, so a call repeated after any failure
finishes that same task instead of making a second: the row is created if missing, the run started
if the task was never started, and the first complete answer is returned from then on.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lyra_resources.environment import child_environment
from lyra_resources.home import HomeLayout
from lyra_resources.settings.services import ClusterSettings
from lyra_resources.store import request_ids
from lyra_resources.store.lyra_store import StoreError
from lyra_resources.task_input import MCP_LABELS, TaskInputError, check_task_input
from lyra_tools.mcp.server_store import ServerStore


class CreatedTask(BaseModel):
    task_id: str
    status: str
    log_path: str | None = Field(
        description="the run's output on this machine (none when queued on the cluster)"
    )
    pid: int | None
    run_id: str | None = Field(
        None,
        description="the Dagster run, when one exists yet (on the cluster the daemon creates it moments later; "
        "get_status names it)",
    )
    notes: list[str] = Field(
        default_factory=list,
        description="what the input check says about the task, as "
        "`lyra run` prints it: a question not in English or too vague to judge, lines "
        "repaired in a corpus",
    )


class StoppedTask(BaseModel):
    task_id: str
    stopped_runs: list[str]
    status: str
    message: str


Launcher = Callable[[str, Path], tuple[int | None, Path]]


def task_run_command(task_id: str, home: Path) -> list[str]:
    return [sys.executable, "-m", "lyra_tools.cli", "task", "run", task_id, "--home", str(home)]


def spawn_task_run(task_id: str, home: Path) -> tuple[int | None, Path]:
    """Start ``lyra task run`` for the task in its own session, detached from this server: the run
    outlives the agent's connection, and its output goes to ``<home>/logs/<task>.log``."""
    log_path = HomeLayout(root=home).run_log(task_id)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as out:
        proc = subprocess.Popen(
            task_run_command(task_id, home),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            env=child_environment(LYRA_HOME=str(home)),
        )
    return proc.pid, log_path


class TaskControl:
    """create_task and stop_task over one home; ``dagster_instance`` opens the home's instance once."""

    def __init__(
        self,
        store: ServerStore,
        root: Path,
        launcher: Launcher | None,
        dagster_instance: Callable[[], Any],
        synced: Callable[[str], None],
        cluster: ClusterSettings,
    ) -> None:
        self.store, self.root, self.launcher = store, root, launcher
        self.dagster_instance, self.synced, self.cluster = dagster_instance, synced, cluster

    def _stored(
        self, request_id: str | None, tool: str, digest: str, model: type[request_ids.M]
    ) -> request_ids.M | None:
        """The answer already stored under ``request_id`` (None: a new id, or one still pending)."""
        if request_id is None:
            return None

        def read(conn: Any) -> str | None:
            try:
                return request_ids.claim(conn, request_id, tool, digest)[1]
            except request_ids.RequestIdError as exc:
                raise StoreError(str(exc)) from None

        stored = self.store.transaction(read)
        return model.model_validate_json(stored) if stored else None

    def _remember(self, request_id: str | None, tool: str, digest: str, answer: BaseModel) -> None:
        if request_id is not None:
            self.store.transaction(lambda conn: request_ids.remember(conn, request_id, tool, digest, answer))

    def create(
        self,
        query: str,
        options: dict[str, Any] | None,
        request_id: str | None,
        corpus_roots: Sequence[Path] | None,
    ) -> CreatedTask:
        digest = request_ids.args_hash("create_task", {"query": query, "options": options})
        answer = self._stored(request_id, "create_task", digest, CreatedTask)
        if answer is not None and answer.status != "created":
            return answer
        try:  # the same check as `lyra run`, before any row, partition or run exists
            checked = check_task_input(
                query, options or {}, self.root, labels=MCP_LABELS, corpus_roots=corpus_roots
            )
        except TaskInputError as exc:
            raise StoreError(f"create_task: {exc}") from None
        stored_options = checked.options.model_dump(exclude_none=True, exclude_defaults=True)
        task_id = f"task_{uuid.uuid4().hex[:8]}"
        if request_id is not None:

            def reserve(conn: Any) -> str:
                seen, stored = request_ids.claim(conn, request_id, "create_task", digest)
                if seen and stored:
                    return CreatedTask.model_validate_json(stored).task_id
                request_ids.remember(
                    conn,
                    request_id,
                    "create_task",
                    digest,
                    CreatedTask(task_id=task_id, status="created", log_path=None, pid=None),
                )
                return task_id

            task_id = self.store.transaction(reserve)
        task = self.store.get_task(task_id) or self.store.create_task(
            checked.query, stored_options, task_id=task_id
        )
        if task.status == "created":
            answer = self._start(task).model_copy(update={"notes": checked.notes})
        else:  # an earlier try started the run and was cut off before it could record the answer
            answer = CreatedTask(
                task_id=task.id,
                status=task.status,
                pid=None,
                run_id=task.last_run_id,
                log_path=str(HomeLayout(root=self.root).run_log(task.id)),
                notes=checked.notes,
            )
        self._remember(request_id, "create_task", digest, answer)
        return answer

    def _start(self, task: Any) -> CreatedTask:
        from lyra_assets.execution.runs import is_cluster, register_partition
        from lyra_assets.execution.task_status import record_handover

        register_partition(self.dagster_instance(), task.id)
        if self.launcher is None and is_cluster(self.cluster):
            # the daemon (`lyra daemon`) starts it
            from lyra_assets.execution.run_queue import request_task_run

            record_handover(self.store, task.id, "queued")
            request_task_run(self.store, task.id)
            return CreatedTask(task_id=task.id, status="queued", log_path=None, pid=None, run_id=None)
        record_handover(self.store, task.id, "queued")
        pid, log_path = (self.launcher or spawn_task_run)(task.id, self.root)
        return CreatedTask(task_id=task.id, status="queued", log_path=str(log_path), pid=pid)

    def stop(self, task_id: str, request_id: str | None) -> StoppedTask:
        from lyra_assets.execution import run_control

        digest = request_ids.args_hash("stop_task", {"task_id": task_id})
        if (answer := self._stored(request_id, "stop_task", digest, StoppedTask)) is not None:
            return answer
        self.store.require_task(task_id)
        self.synced(task_id)
        with self.store.exclusive():  # run_control.stop_task opens the database with its own LyraStore
            stopped = run_control.stop_task(task_id, self.root, cluster=self.cluster)
        status = self.store.require_task(task_id).status
        message = (
            f"stopped {len(stopped)} run(s); the graph readers see is unchanged"
            if stopped
            else f"nothing to stop: {task_id} has no run in progress (status {status}, left unchanged)"
        )
        answer = StoppedTask(task_id=task_id, stopped_runs=stopped, status=status, message=message)
        self._remember(request_id, "stop_task", digest, answer)
        return answer
