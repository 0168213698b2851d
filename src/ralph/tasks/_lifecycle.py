"""The task lifecycle as pure functions: (task, event) -> (new task, event kind).

::

    pending --claim--> running --complete--> done
       ^                 |  \\--defer(until t)------------------> pending (waiting, not before t)
       |                 |  \\--fail(retryable, attempts left)--> pending (not before t)
       |                 |  \\--fail(not retryable)-----------> failed
       |                 |  \\--fail(no attempts left)--------> dead
       |                 |  \\--lease expired, attempts left--> pending
       |                 |  \\--lease expired, none left------> dead
       +----release------+
    any non-terminal --cancel--> canceled;   done|failed|dead|canceled --reopen--> pending
    pending, waiting --wake--> pending, claimable now

Every write by a worker presents its claim token; a token that is not the task's
current one, or a task that is no longer running, raises LeaseLost (zombie fencing).
Backends apply these decisions with an UPDATE guarded by the token they checked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from ralph.errors import GraphError, LeaseLost, TaskNotClaimable
from ralph.graph import TaskSpec
from ralph.tasks._model import TERMINAL_STATUSES, EventKind, Task, TaskStatus

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "DEFAULT_MAX_ATTEMPTS",
    "RetryPolicy",
    "WaitPolicy",
    "abandon",
    "cancel",
    "check_claim",
    "claim",
    "claimable",
    "complete",
    "defer",
    "expire",
    "fail",
    "hand_back_from_the_gone",
    "heartbeat",
    "release",
    "reopen",
    "validate_new_specs",
    "wake",
]

#: A worker heartbeats every lease/6 (10 s for the default); three missed beats and more
#: pass before the lease runs out. Far above SQLite's busy timeout (10 s), so a worker
#: waiting for the write lock does not lose its task (docs/architecture.md, F2).
DEFAULT_LEASE_SECONDS = 60.0
#: Agent tasks are expensive; after three attempts a person should look (F5).
DEFAULT_MAX_ATTEMPTS = 3

_S = TaskStatus


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: ``base * 2**(attempts-1)``, capped. No jitter, so tests and
    reports are reproducible; claims are spread by the workers' own timing."""

    base_seconds: float = 30.0
    cap_seconds: float = 3600.0

    def delay(self, attempts: int) -> float:
        return float(min(self.cap_seconds, self.base_seconds * 2 ** max(0, attempts - 1)))


@dataclass(frozen=True)
class WaitPolicy:
    """How long a waiting task sleeps before it looks again: ``first_seconds`` doubling
    with each wait, capped at ``max_seconds`` (15 s to 5 min by default: a check that
    turns green is seen within a step, and a review that takes a day costs a look every
    five minutes)."""

    first_seconds: float = 15.0
    max_seconds: float = 300.0

    def delay(self, waits: int) -> float:
        """The pause after ``waits`` earlier waits (0 for the first)."""
        return float(min(self.max_seconds, self.first_seconds * 2 ** min(max(0, waits), 64)))


def claimable(
    task: Task, *, now: float, roles: Collection[str], deps_done: bool, serial_busy: bool
) -> bool:
    return (
        task.status is _S.PENDING
        and task.not_before <= now
        and task.role in roles
        and deps_done
        and not serial_busy
    )


def claim(task: Task, worker: str, *, now: float, lease_seconds: float) -> Task:
    if task.status is not _S.PENDING:
        raise TaskNotClaimable(f"task {task.id} is {task.status.value}, not pending")
    return dataclasses.replace(
        task,
        status=_S.RUNNING,
        owner=worker,
        claim_token=task.claim_token + 1,
        attempts=task.attempts + 1,
        lease_expires_at=now + lease_seconds,
        updated_at=now,
    )


def check_claim(task: Task, token: int) -> None:
    """Raise LeaseLost unless ``token`` is the live claim on a running task."""
    if task.claim_token != token:
        raise LeaseLost(task.id, token, f"the task was claimed again (token {task.claim_token})")
    if task.status is not _S.RUNNING:
        raise LeaseLost(task.id, token, f"the task is {task.status.value}")


def heartbeat(task: Task, token: int, *, now: float, lease_seconds: float) -> Task:
    check_claim(task, token)
    return dataclasses.replace(task, lease_expires_at=now + lease_seconds, updated_at=now)


def complete(task: Task, token: int, result: Any, *, now: float) -> tuple[Task, EventKind]:
    check_claim(task, token)
    done = dataclasses.replace(
        task, status=_S.DONE, result=result, error=None, lease_expires_at=None, updated_at=now
    )
    return done, EventKind.TASK_DONE


def fail(
    task: Task,
    token: int,
    error: str,
    *,
    retryable: bool,
    retry_after: float | None,
    now: float,
    policy: RetryPolicy,
) -> tuple[Task, EventKind]:
    check_claim(task, token)
    if not retryable:
        status, kind, not_before = _S.FAILED, EventKind.TASK_DEAD, task.not_before
    elif task.attempts >= task.max_attempts:
        status, kind, not_before = _S.DEAD, EventKind.TASK_DEAD, task.not_before
    else:
        delay = retry_after if retry_after is not None else policy.delay(task.attempts)
        status, kind, not_before = _S.PENDING, EventKind.TASK_FAILED, now + delay
    changed = dataclasses.replace(
        task,
        status=status,
        error=error,
        not_before=not_before,
        owner=None if status is _S.PENDING else task.owner,
        lease_expires_at=None,
        updated_at=now,
    )
    return changed, kind


def defer(
    task: Task, token: int, *, until: float, waiting_for: str, for_person: bool, now: float
) -> tuple[Task, EventKind]:
    """Hand the task back to wait for something outside Ralph (checks to finish, a
    review): pending again, not claimable before ``until``. Waiting is not failing: the
    claim's attempt is given back, and nothing of the claim stays (owner, lease). The
    metadata says what it waits for, for whom, how often it has waited (the backoff's
    count) and since when; ``waiting_token`` ties that to this claim, so the task stops
    counting as waiting once claimed again (see ``Task.waiting_for``)."""
    check_claim(task, token)
    meta = dict(task.metadata)
    # Since when: kept while the task goes on waiting for the same thing, claim after
    # claim; a wait for something else starts a new stretch.
    same = meta.get("waiting_token") == token - 1 and meta.get("waiting_for") == waiting_for
    since = meta.get("waiting_since") if same and meta.get("waiting_since") else now
    meta.update(
        waiting_for=waiting_for,
        for_person=for_person,
        waits=int(meta.get("waits", 0)) + 1,
        waiting_since=since,
        waiting_token=token,
    )
    waiting = dataclasses.replace(
        task,
        status=_S.PENDING,
        owner=None,
        attempts=max(0, task.attempts - 1),
        lease_expires_at=None,
        not_before=until,
        error=None,
        metadata=meta,
        updated_at=now,
    )
    return waiting, EventKind.TASK_WAITING


def wake(task: Task, *, now: float) -> Task | None:
    """A waiting task made claimable now (what it waits for may have changed). None
    when it is not waiting, or is claimable already."""
    if task.waiting_for is None or task.not_before <= now:
        return None
    return dataclasses.replace(task, not_before=now, updated_at=now)


def release(task: Task, token: int, *, now: float, untried: bool = False) -> Task:
    """Give the task back (graceful shutdown). Attempts are kept: the work was tried;
    ``untried``: claimed and handed back before any of it ran, the attempt given back."""
    check_claim(task, token)
    attempts = task.attempts - 1 if untried and task.attempts > 0 else task.attempts
    return dataclasses.replace(
        task,
        status=_S.PENDING,
        owner=None,
        lease_expires_at=None,
        updated_at=now,
        attempts=attempts,
    )


def expire(task: Task, *, now: float) -> tuple[Task, EventKind] | None:
    """The reaper's decision for one task: None unless it is running past its lease."""
    if task.status is not _S.RUNNING or task.lease_expires_at is None:
        return None
    if task.lease_expires_at >= now:
        return None
    reason = f"lease expired (owner {task.owner}, attempt {task.attempts})"
    if task.attempts >= task.max_attempts:
        dead = dataclasses.replace(
            task, status=_S.DEAD, error=reason, lease_expires_at=None, updated_at=now
        )
        return dead, EventKind.TASK_DEAD
    pending = dataclasses.replace(
        task, status=_S.PENDING, owner=None, error=reason, lease_expires_at=None, updated_at=now
    )
    return pending, EventKind.TASK_EXPIRED


def abandon(task: Task, owner: str, *, now: float) -> tuple[Task, EventKind] | None:
    """A running task whose claimer is known to be gone (a process of this machine that
    no longer exists) is treated as expired at once. None unless ``owner`` still runs it."""
    if task.status is not _S.RUNNING or task.owner != owner:
        return None
    decision = expire(dataclasses.replace(task, lease_expires_at=float("-inf")), now=now)
    assert decision is not None
    changed, kind = decision
    reason = f"claimer {owner} is gone (attempt {task.attempts})"
    return dataclasses.replace(changed, error=reason), kind


def hand_back_from_the_gone(task: Task, waiting_for: str, *, now: float, until: float) -> Task:
    """A task handed back because its claimer's process is gone waits for its run to be
    run again (``waiting_for`` says so, for a person): not claimable before ``until`` (a
    session resuming the run wakes its waiting tasks at once), so meanwhile it keeps no
    other run's task for its serialisation key waiting behind it."""
    meta = dict(task.metadata)
    meta.update(
        waiting_for=waiting_for,
        for_person=True,
        waiting_since=now,
        waiting_token=task.claim_token,
    )
    return dataclasses.replace(task, not_before=until, metadata=meta, updated_at=now)


def cancel(task: Task, *, now: float) -> Task | None:
    """None when the task is already finished (nothing to cancel)."""
    if task.status in TERMINAL_STATUSES:
        return None
    return dataclasses.replace(task, status=_S.CANCELED, lease_expires_at=None, updated_at=now)


def reopen(task: Task, *, now: float) -> Task:
    """Run a finished task again (graph rewrites: re-plan after NEEDS_ITERATION).
    Attempts start over; the claim token keeps counting so old claims stay fenced."""
    if task.status not in TERMINAL_STATUSES:
        raise TaskNotClaimable(f"task {task.id} is {task.status.value}; only finished tasks reopen")
    return dataclasses.replace(
        task,
        status=_S.PENDING,
        owner=None,
        attempts=0,
        result=None,
        error=None,
        not_before=now,
        lease_expires_at=None,
        updated_at=now,
    )


def validate_new_specs(specs: Sequence[TaskSpec], existing_keys: Collection[str]) -> None:
    """New task keys must be unique in the run; dependencies must name a new or existing
    task; the new tasks must not form a cycle (existing tasks never depend on new ones)."""
    new_keys: dict[str, TaskSpec] = {}
    for spec in specs:
        if spec.key in new_keys or spec.key in existing_keys:
            raise GraphError(f"task key {spec.key!r} already exists in the run")
        new_keys[spec.key] = spec
    for spec in specs:
        unknown = [d for d in spec.deps if d not in new_keys and d not in existing_keys]
        if unknown:
            raise GraphError(f"task {spec.key!r} depends on unknown task(s): {unknown}")
    waiting = {key: {d for d in spec.deps if d in new_keys} for key, spec in new_keys.items()}
    while waiting:
        ready = [key for key, deps in waiting.items() if not deps]
        if not ready:
            raise GraphError(f"task dependencies form a cycle among: {sorted(waiting)}")
        for key in ready:
            del waiting[key]
        for deps in waiting.values():
            deps.difference_update(ready)
