"""Tasks that wait for something outside Ralph (checks to finish, a review, a person's
merge): the backoff they sleep by (ralph.toml's ``[merge]`` waits), and waking them
when what they wait for may have changed, so they look again at once: a rerun of the
command that started their run, or a tracker change for their issues (a review posted
from ``ralph pr review`` in another process)."""

from __future__ import annotations

from collections.abc import Collection

from ralph.config import Config
from ralph.tasks import RunStatus, Task, TaskStatus, TaskStore, WaitPolicy

__all__ = ["wait_policy", "wake_waiting"]


def wait_policy(config: Config) -> WaitPolicy:
    """The project's backoff for waiting tasks."""
    return WaitPolicy(config.merge.wait_seconds, config.merge.max_wait_seconds)


def wake_waiting(
    store: TaskStore, *, run_id: int | None = None, issues: Collection[int] = ()
) -> list[Task]:
    """Wake the waiting tasks of ``run_id`` (every active run when None), only those about
    one of ``issues`` when some are named; returns those woken."""
    runs = (
        [run_id]
        if run_id is not None
        else [run.id for run in store.list_runs(status=RunStatus.ACTIVE)]
    )
    wanted = set(issues)
    found = [
        task.id
        for run in runs
        for task in store.list_tasks(run, status=TaskStatus.PENDING)
        if task.waiting_for is not None and (not wanted or wanted.intersection(task.issues))
    ]
    return store.wake(found)
