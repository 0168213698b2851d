"""Task tools over the store: the primitives agents inside Claude Code need, correct by
construction. A claim is atomic and refuses blocked tasks; every later write presents
the claim token and fails once the lease was lost (fencing)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.mcp._context import ToolContext
from ralph.runtimes import Activity
from ralph.tasks import Claim, Task

__all__ = ["register_task_tools", "task_dict"]

TaskId = Annotated[int, Field(description="Task id")]
Token = Annotated[int, Field(description="The claim token task_claim returned")]
Worker = Annotated[str, Field(min_length=1, description="Who works on the task")]


def task_dict(task: Task) -> dict[str, Any]:
    """A task without its claim token: only task_claim hands that out, to the claimer;
    with its agent's activity in one line (``activitySummary``), where it has one."""
    data = task.to_dict()
    del data["claimToken"]
    activity = Activity.from_dict(task.metadata.get("activity"))
    data["activitySummary"] = activity.summary() if activity is not None else None
    return data


def register_task_tools(tools: ToolContext) -> None:
    store = tools.project.store

    def claim_of(task_id: int, token: int, worker: str) -> Claim:
        return Claim(task=store.get_task(task_id), token=token, worker=worker)

    @tools.read("list tasks")
    def task_list(
        runId: int | None = None,
        status: Annotated[str | None, Field(description="pending, running, done...")] = None,
        role: str | None = None,
        issue: int | None = None,
    ) -> dict[str, Any]:
        """A run's tasks (every run's without ``runId``), in creation order."""
        tasks = store.list_tasks(runId, status=status, role=role, issue=issue)
        return {"tasks": [task_dict(t) for t in tasks], "count": len(tasks)}

    @tools.read("get task")
    def task_get(taskId: TaskId) -> dict[str, Any]:
        """One task with its status, owner, dependencies, result and error."""
        return task_dict(store.get_task(taskId))

    @tools.write("claim task")
    def task_claim(
        worker: Worker,
        taskId: Annotated[int | None, Field(description="This task, or...")] = None,
        runId: Annotated[int | None, Field(description="...the oldest claimable one")] = None,
        roles: Annotated[list[str] | None, Field(description="Roles to claim for")] = None,
    ) -> dict[str, Any]:
        """Claim a task atomically. A blocked task is refused, naming its unfinished
        dependencies. Returns the claim token every later call must present."""
        if taskId is not None:
            claim = store.claim_task(taskId, worker)
        elif runId is not None:
            found = store.claim(runId, worker, roles or ())
            if found is None:
                return {"claimed": False, "task": None}
            claim = found
        else:
            raise ValueError("give taskId, or runId (with roles) to claim the next task")
        return {"claimed": True, "claimToken": claim.token, "task": task_dict(claim.task)}

    @tools.write("heartbeat task")
    def task_heartbeat(taskId: TaskId, claimToken: Token, worker: Worker) -> dict[str, Any]:
        """Extend the claim's lease; fails if the claim was lost."""
        store.heartbeat(claim_of(taskId, claimToken, worker))
        return {"taskId": taskId, "leaseExpiresAt": store.get_task(taskId).lease_expires_at}

    @tools.write("complete task")
    def task_complete(
        taskId: TaskId, claimToken: Token, worker: Worker, result: Any = None
    ) -> dict[str, Any]:
        """Mark a claimed task done with its result."""
        return task_dict(store.complete(claim_of(taskId, claimToken, worker), result))

    @tools.write("fail task")
    def task_fail(
        taskId: TaskId,
        claimToken: Token,
        worker: Worker,
        error: Annotated[str, Field(min_length=1)],
        retryable: bool = True,
    ) -> dict[str, Any]:
        """Fail a claimed task: retried later while attempts remain (when retryable)."""
        task = store.fail(claim_of(taskId, claimToken, worker), error, retryable=retryable)
        return task_dict(task)
