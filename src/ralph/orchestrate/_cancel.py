"""A person cancels a run: no task of it starts again, its pending and running tasks are
canceled (a running agent's late result is fenced off by the store), and the run is
closed as canceled. A process still serving it stops claiming at once (its shutdown is
requested first) and ends when its tasks in hand do."""

from __future__ import annotations

from ralph.errors import InvalidInput
from ralph.tasks import RunStatus, Task, TaskStore

__all__ = ["cancel_run"]


def cancel_run(store: TaskStore, run_id: int) -> list[Task]:
    """The tasks it canceled. RunNotFound for a run the store lacks; InvalidInput for
    one that is no longer active (nothing changed)."""
    run = store.get_run(run_id)
    if run.status is not RunStatus.ACTIVE:
        raise InvalidInput(f"run {run_id} is {run.status.value}; only an active run is canceled")
    store.request_shutdown(run_id)
    return store.cancel_run(run_id)
