"""What every MCP tool handler shares: the home's store (attached once per read), the writer of the
'returned' relevance signals, the home's Dagster instance (opened on first use), task control, and
how a handler's answer or error reaches the agent (:func:`guard`)."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import anyio.to_thread
import duckdb
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from lyra_resources.settings.loading import effective_cluster_settings
from lyra_resources.store.lyra_store import StoreBusyError, StoreError
from lyra_resources.store.reviewed_graph.records import ExploreError
from lyra_tools.feedback.results import FeedbackError
from lyra_tools.mcp.dagster_reads import cached_runs
from lyra_tools.mcp.relevance_returns import ReturnsRecorder
from lyra_tools.mcp.server_store import NotInSnapshot, ServerStore
from lyra_tools.mcp.tasks import Launcher, TaskControl

M = TypeVar("M", bound=BaseModel)
logger = logging.getLogger("lyra_tools.mcp.server")


def answer(model: BaseModel) -> CallToolResult:
    """Compact JSON as the text block (the SDK's default indents it, doubling the size an agent
    reads) and the same object as structured content."""
    return CallToolResult(
        content=[TextContent(type="text", text=model.model_dump_json())],
        structured_content=model.model_dump(mode="json"),
    )


def guard(fn: Callable[[], M]) -> CallToolResult:
    """Run a tool body; Lyra's own errors become tool errors with their specific message."""
    try:
        return answer(fn())
    except StoreBusyError as exc:
        raise ToolError(
            f"the Lyra database stayed busy (another process is writing); try again: {exc}"
        ) from exc
    except (ExploreError, FeedbackError, StoreError) as exc:
        raise ToolError(str(exc)) from exc
    except Exception as exc:  # a bug: one line for the agent, the traceback on stderr for the operator
        logger.exception("unexpected error in a tool")
        raise ToolError(f"internal error ({type(exc).__name__}); the server's log has the details") from exc


class ToolContext:
    """One server's shared state over the Lyra home ``root``; ``launcher`` starts a task's run
    (default: a detached ``lyra task run`` process; in the cluster profile the run queue)."""

    def __init__(
        self, root: os.PathLike[str], launcher: Launcher | None = None, *, snapshot_reads: bool = True
    ) -> None:
        self.root = root
        # where the store and the runs are: read once, for the server's life (its store cannot move)
        self.cluster = effective_cluster_settings()
        self.store = ServerStore(
            home=str(root), store_url=self.cluster.store_url(), snapshot_reads=snapshot_reads
        )
        self.returns = ReturnsRecorder(self.store)
        self._dagster: dict[str, Any] = {}
        self._dagster_lock = threading.Lock()
        self.tasks = TaskControl(self.store, root, launcher, self.dagster_instance, self.synced, self.cluster)

    def read(self, fn: Callable[[], M], task_id: str | None = None) -> CallToolResult:
        """A read tool's body under :func:`guard`: from the in-memory copy of the home and of
        ``task_id``'s generation where it holds the answer, else with the database attached once for
        the whole call."""

        def held() -> M:
            try:
                with self.store.reading(task_id if isinstance(task_id, str) else None) as copied:
                    if copied:
                        return fn()
            except NotInSnapshot:
                pass  # answered from the file below, as it stands now
            with self.store.held():
                return fn()

        return guard(held)

    def claim_task(self, claim_id: str) -> str | None:
        """The task holding ``claim_id`` by the server's claim index; None where it cannot tell
        (then the read looks the claim up itself and says what it finds)."""
        try:
            return self.store.task_of_claim(claim_id)
        except (duckdb.Error, StoreError, OSError):  # a busy or damaged store: the read itself will say so
            logger.debug("claim index not read", exc_info=True)
            return None

    def dagster_instance(self) -> Any:
        """The home's Dagster instance, opened once: opening one checks its storage schema (~0.2 s)."""
        with self._dagster_lock:
            if "instance" not in self._dagster:
                from lyra_assets.execution.runs import prepared_instance  # Dagster: only once needed

                self._dagster["instance"] = prepared_instance(self.store.layout.root, self.cluster)
            return self._dagster["instance"]

    def dagster_runs(self) -> Any:
        """The instance as get_status reads it: runs and event logs read again only when Dagster's
        files changed (:mod:`.dagster_reads`)."""
        instance = self.dagster_instance()
        if not self.store.snapshot_reads:
            return instance
        with self._dagster_lock:
            if "runs" not in self._dagster:
                self._dagster["runs"] = cached_runs(instance, self.store.layout.dagster_home)
            return self._dagster["runs"]

    def synced(self, task_id: str) -> None:
        """A task whose row reads running or queued takes its Dagster run's outcome (a killed run reads failed)."""
        task = self.store.get_task(task_id) if isinstance(task_id, str) and 0 < len(task_id) <= 100 else None
        if task is not None and task.status in ("running", "queued"):
            from lyra_assets.execution import run_control

            run_control.sync_task_status(self.store, self.dagster_instance(), task_id)

    @contextlib.asynccontextmanager
    async def lifespan(self, _server: MCPServer) -> AsyncIterator[dict]:
        try:
            yield {}
        finally:  # a session's queued relevance signals are written when it ends
            await anyio.to_thread.run_sync(self.returns.flush)

    def shutdown(self) -> None:
        """At a normal exit: write what the last interval queued, then let go of the database file."""
        self.returns.close()
        self.store.close()
