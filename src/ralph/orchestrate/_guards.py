"""The guards a claimed task passes before its phase spends anything: the no-progress
breaker and the look before spending. Each is an admission check, ``(store, config,
run, task) -> Hold | None``: the hold to put on the task's issue, or None to go on."""

from __future__ import annotations

from typing import Protocol

from ralph.config import Config
from ralph.orchestrate._look_ahead import look_ahead_hold
from ralph.orchestrate._no_progress import no_progress_hold
from ralph.tasks import Hold, Run, Task, TaskStore

__all__ = ["GUARDS", "AdmissionCheck", "first_hold"]


class AdmissionCheck(Protocol):
    def __call__(self, store: TaskStore, config: Config, run: Run, task: Task, /) -> Hold | None:
        """The hold to put on ``task``'s issue before its phase starts, or None."""


GUARDS: tuple[AdmissionCheck, ...] = (no_progress_hold, look_ahead_hold)


def first_hold(
    checks: tuple[AdmissionCheck, ...], store: TaskStore, config: Config, run: Run, task: Task
) -> Hold | None:
    """The first hold one of ``checks`` asks for, in their order."""
    for check in checks:
        hold = check(store, config, run, task)
        if hold is not None:
            return hold
    return None
