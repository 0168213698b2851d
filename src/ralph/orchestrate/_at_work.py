"""What the agents of a run's running tasks are doing, for the views machines read
(``ralph serve``'s status file, the MCP tools): per running task, its worker and its
agent's activity so far (turns, tokens, cost in dollars, last tool call, a one-line
summary), in keys of one word, which read the same in the status file's snake_case and
MCP's camelCase."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ralph.runtimes import Activity
from ralph.tasks import Task, TaskStatus

__all__ = ["at_work"]


def at_work(tasks: Sequence[Task]) -> list[dict[str, Any]]:
    """One entry per running task, in creation order; ``activity`` is None until its
    agent has reported something (the worker keeps it on the task as it goes)."""
    found = []
    for task in tasks:
        if task.status is not TaskStatus.RUNNING:
            continue
        activity = Activity.from_dict(task.metadata.get("activity"))
        found.append(
            {
                "task": task.key,
                "subject": task.subject,
                "issue": task.issues[0] if task.issues else None,
                "worker": str(task.owner or "").rpartition("/")[2] or None,
                "activity": None
                if activity is None
                else {
                    "summary": activity.summary(),
                    "agent": activity.agent,
                    "turns": activity.turns,
                    "tokens": activity.tokens,
                    "cost": round(activity.cost_usd, 6),
                    "tool": activity.tool,
                    "at": activity.at,
                },
            }
        )
    return found
