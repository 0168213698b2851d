"""How a run ended, in words a person understands, and how far its tasks got.

One pure function over the run and its tasks, so ``ralph runs list|show``, the web Runs
and run pages, the JSON API and the end of ``ralph hero|team`` all say the same thing:
succeeded (every task of its graph done), needs a person (an escalation, a plan to
approve, a review only a person can give), failed (a task broke for good), stopped
(interrupted; the same command resumes it), canceled, or still running.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ralph.graph import Role
from ralph.tasks import Run, RunStatus, Task, TaskStatus

__all__ = [
    "ESCALATED",
    "Outcome",
    "Tally",
    "is_escalated",
    "replaced",
    "run_outcome",
    "tally",
]

#: How an escalated task's error starts (``TaskExecutor`` fails it with this prefix).
ESCALATED = "escalated: "


class Outcome(enum.StrEnum):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    NEEDS_PERSON = "needs_person"
    FAILED = "failed"
    STOPPED = "stopped"
    CANCELED = "canceled"

    @property
    def words(self) -> str:
        """What a person reads: "needs a person" rather than ``needs_person``."""
        return "needs a person" if self is Outcome.NEEDS_PERSON else self.value


class _Ended(Protocol):
    """A task or a report's line of one: enough to tell a replaced task."""

    @property
    def status(self) -> str: ...
    @property
    def attempts(self) -> int: ...
    @property
    def error(self) -> str | None: ...


def replaced(task: _Ended) -> bool:
    """Canceled by a graph rewrite before it ever ran (its error is the rewrite's reason)."""
    return task.status == TaskStatus.CANCELED and not task.attempts and bool(task.error)


@dataclass(frozen=True)
class Tally:
    """Tasks done of those that count: a task a re-plan replaced is not work left."""

    done: int
    total: int
    replaced: int

    def __str__(self) -> str:
        # The replaced tasks never ran: they are the re-plan's history, not the work.
        return f"{self.done}/{self.total} done"


def tally(tasks: Sequence[_Ended]) -> Tally:
    gone = sum(1 for task in tasks if replaced(task))
    done = sum(1 for task in tasks if task.status == TaskStatus.DONE)
    return Tally(done=done, total=len(tasks) - gone, replaced=gone)


def is_escalated(task: Task) -> bool:
    """The task failed because its phase sent its issues to Human Needed."""
    return task.status is TaskStatus.FAILED and (task.error or "").startswith(ESCALATED)


def _waits_for_person(task: Task) -> bool:
    gate = task.role == Role.HUMAN and task.status is TaskStatus.PENDING
    return gate or task.waiting_for_person or is_escalated(task)


def run_outcome(run: Run, tasks: Sequence[Task]) -> Outcome:
    """The run's outcome. A run some process still works on is running; otherwise what
    broke comes first (failed), then what waits for a person, then success, and a run
    left with work to do is stopped."""
    if run.status is RunStatus.CANCELED:
        return Outcome.CANCELED
    working = any(task.status is TaskStatus.RUNNING for task in tasks)
    if run.status is RunStatus.ACTIVE and (working or not run.shutdown_requested):
        return Outcome.RUNNING
    if any(t.status in (TaskStatus.FAILED, TaskStatus.DEAD) and not is_escalated(t) for t in tasks):
        return Outcome.FAILED
    if any(_waits_for_person(task) for task in tasks):
        return Outcome.NEEDS_PERSON
    live = [task for task in tasks if task.status is not TaskStatus.CANCELED]
    if run.status is RunStatus.FINISHED and all(t.status is TaskStatus.DONE for t in live):
        return Outcome.SUCCEEDED
    return Outcome.STOPPED
