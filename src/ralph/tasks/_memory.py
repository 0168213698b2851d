"""The in-memory task store: the whole contract in one process, for tests and demos.

One lock guards everything, so every operation is trivially atomic; a condition on the
same lock wakes event waiters.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from ralph.errors import (
    GraphError,
    IssueLocked,
    RunNotFound,
    TaskBlocked,
    TaskNotClaimable,
    TaskNotFound,
)
from ralph.graph import TaskSpec
from ralph.tasks import _lifecycle as life
from ralph.tasks._model import (
    Charge,
    Claim,
    Event,
    EventKind,
    GraphEdit,
    IssueLock,
    Message,
    MessageKind,
    Run,
    RunStatus,
    Task,
    TaskStatus,
)
from ralph.tasks._store import TaskStore, validate_new_specs

__all__ = ["MemoryStore"]


class MemoryStore(TaskStore):
    def __init__(
        self,
        *,
        lease_seconds: float = life.DEFAULT_LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
        retry_policy: life.RetryPolicy | None = None,
    ) -> None:
        self.lease_seconds = lease_seconds
        self.retry_policy = retry_policy or life.RetryPolicy()
        self._clock = clock
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._runs: dict[int, Run] = {}
        self._tasks: dict[int, Task] = {}
        self._events: list[Event] = []
        self._messages: dict[int, Message] = {}
        self._locks: dict[tuple[str, int], IssueLock] = {}
        self._checkpoints: dict[str, dict[str, Any]] = {}
        self._branches: dict[tuple[str, str], str] = {}
        self._charges: list[Charge] = []

    # -- helpers --------------------------------------------------------------------------

    def _emit(self, run_id: int, kind: EventKind, task_id: int | None = None, **data: Any) -> None:
        event = Event(
            id=len(self._events) + 1,
            run_id=run_id,
            kind=kind,
            task_id=task_id,
            data=data,
            at=self._clock(),
        )
        self._events.append(event)
        self._changed.notify_all()

    def _run(self, run_id: int) -> Run:
        try:
            return self._runs[run_id]
        except KeyError:
            raise RunNotFound(run_id) from None

    def _task(self, task_id: int) -> Task:
        try:
            return self._tasks[task_id]
        except KeyError:
            raise TaskNotFound(task_id) from None

    def _save(self, task: Task) -> Task:
        self._tasks[task.id] = task
        return task

    def _unfinished_deps(self, task: Task) -> list[Task]:
        return [self._tasks[d] for d in task.deps if self._tasks[d].status is not TaskStatus.DONE]

    def _serial_busy(self, task: Task) -> bool:
        return task.serial_key is not None and any(
            t.serial_key == task.serial_key and t.status is TaskStatus.RUNNING
            for t in self._tasks.values()
        )

    def _claimable(self, task: Task, roles: Collection[str], now: float) -> bool:
        return life.claimable(
            task,
            now=now,
            roles=roles,
            deps_done=not self._unfinished_deps(task),
            serial_busy=self._serial_busy(task),
        )

    def _claim(self, task: Task, worker: str, now: float) -> Claim:
        claimed = self._save(life.claim(task, worker, now=now, lease_seconds=self.lease_seconds))
        self._emit(claimed.run_id, EventKind.TASK_CLAIMED, claimed.id, worker=worker)
        return Claim(task=claimed, token=claimed.claim_token, worker=worker)

    def _reap(self, now: float, run_id: int | None = None) -> list[Task]:
        changed = []
        for task in list(self._tasks.values()):
            if run_id is not None and task.run_id != run_id:
                continue
            decision = life.expire(task, now=now)
            if decision is not None:
                expired, kind = decision
                changed.append(self._save(expired))
                self._emit(expired.run_id, kind, expired.id, error=expired.error)
        return changed

    # -- runs -----------------------------------------------------------------------------

    def create_run(
        self,
        name: str,
        *,
        root_issue: int | None = None,
        mode: str = "team",
        config: Mapping[str, Any] | None = None,
    ) -> Run:
        with self._lock:
            now = self._clock()
            run = Run(
                id=len(self._runs) + 1,
                name=name,
                root_issue=root_issue,
                mode=mode,
                config=dict(config or {}),
                created_at=now,
                updated_at=now,
            )
            self._runs[run.id] = run
            return run

    def get_run(self, run_id: int) -> Run:
        with self._lock:
            return self._run(run_id)

    def list_runs(
        self, *, status: RunStatus | None = None, root_issue: int | None = None
    ) -> list[Run]:
        with self._lock:
            runs = [
                r
                for r in self._runs.values()
                if (status is None or r.status == status)
                and (root_issue is None or r.root_issue == root_issue)
            ]
            return sorted(runs, key=lambda r: r.id, reverse=True)

    def finish_run(self, run_id: int, status: RunStatus = RunStatus.FINISHED) -> Run:
        with self._lock:
            run = dataclasses.replace(
                self._run(run_id), status=RunStatus(status), updated_at=self._clock()
            )
            self._runs[run_id] = run
            self._emit(run_id, EventKind.RUN_FINISHED, status=run.status.value)
            return run

    def request_shutdown(self, run_id: int) -> None:
        with self._lock:
            self._runs[run_id] = dataclasses.replace(
                self._run(run_id), shutdown_requested=True, updated_at=self._clock()
            )
            self._emit(run_id, EventKind.SHUTDOWN_REQUESTED)

    # -- tasks ----------------------------------------------------------------------------

    def add_tasks(self, run_id: int, specs: Iterable[TaskSpec]) -> list[Task]:
        specs = list(specs)
        with self._lock:
            self._run(run_id)
            self._check_specs(run_id, specs)
            return self._insert(run_id, specs)

    def _check_specs(self, run_id: int, specs: list[TaskSpec]) -> None:
        validate_new_specs(specs, {t.key for t in self._tasks.values() if t.run_id == run_id})

    def _insert(self, run_id: int, specs: list[TaskSpec]) -> list[Task]:
        ids = {t.key: t.id for t in self._tasks.values() if t.run_id == run_id}
        now = self._clock()
        added = []
        for offset, spec in enumerate(specs, start=1):
            ids[spec.key] = len(self._tasks) + offset
        for spec in specs:
            task = Task(
                id=ids[spec.key],
                run_id=run_id,
                key=spec.key,
                kind=spec.kind.value,
                role=spec.role.value,
                issues=spec.issues,
                subject=spec.subject,
                active_form=spec.active_form,
                description=spec.description,
                metadata=dict(spec.metadata),
                max_attempts=spec.max_attempts or life.DEFAULT_MAX_ATTEMPTS,
                serial_key=spec.serial_key,
                deps=tuple(ids[d] for d in spec.deps),
                not_before=0.0,
                created_at=now,
                updated_at=now,
            )
            added.append(task)
        for task in added:
            self._save(task)
            self._emit(run_id, EventKind.TASK_ADDED, task.id, key=task.key, role=task.role)
        return added

    def _check_edit(self, run_id: int, edit: GraphEdit) -> None:
        for task_id in edit.cancel:
            task = self._task(task_id)
            if task.run_id != run_id or task.status is not TaskStatus.PENDING:
                raise GraphError(
                    f"a graph edit may only cancel pending tasks of its run; "
                    f"task {task_id} ({task.key}) is {task.status.value}"
                )
        self._check_specs(run_id, list(edit.add))

    def _apply_edit(self, run_id: int, edit: GraphEdit) -> None:
        now = self._clock()
        for task_id in edit.cancel:
            changed = life.cancel(self._task(task_id), now=now)
            assert changed is not None
            self._save(dataclasses.replace(changed, error=edit.reason or None))
            self._emit(run_id, EventKind.TASK_CANCELED, task_id, reason=edit.reason)
        self._insert(run_id, list(edit.add))

    def get_task(self, task_id: int) -> Task:
        with self._lock:
            return self._task(task_id)

    def list_tasks(
        self,
        run_id: int | None = None,
        *,
        status: TaskStatus | str | None = None,
        role: str | None = None,
        kind: str | None = None,
        issue: int | None = None,
    ) -> list[Task]:
        with self._lock:
            return [
                t
                for t in sorted(self._tasks.values(), key=lambda t: t.id)
                if (run_id is None or t.run_id == run_id)
                and (status is None or t.status == status)
                and (role is None or t.role == role)
                and (kind is None or t.kind == kind)
                and (issue is None or issue in t.issues)
            ]

    def assign(self, task_id: int, worker: str) -> Task:
        with self._lock:
            task = self._task(task_id)
            if task.status is not TaskStatus.PENDING:
                raise TaskNotClaimable(f"task {task_id} is {task.status.value}, not pending")
            return self._save(dataclasses.replace(task, owner=worker))

    def claim(self, run_id: int, worker: str, roles: Collection[str]) -> Claim | None:
        with self._lock:
            self._run(run_id)
            now = self._clock()
            self._reap(now, run_id)
            candidates = [
                t
                for t in sorted(self._tasks.values(), key=lambda t: t.id)
                if t.run_id == run_id and self._claimable(t, roles, now)
            ]
            if not candidates:
                return None
            mine = [t for t in candidates if t.owner == worker]
            return self._claim((mine or candidates)[0], worker, now)

    def claim_task(self, task_id: int, worker: str) -> Claim:
        with self._lock:
            task = self._task(task_id)
            now = self._clock()
            if task.status is not TaskStatus.PENDING:
                raise TaskNotClaimable(f"task {task_id} is {task.status.value}, not pending")
            unfinished = self._unfinished_deps(task)
            if unfinished:
                raise TaskBlocked(task_id, [(t.key, t.status.value) for t in unfinished])
            if task.not_before > now:
                raise TaskNotClaimable(f"task {task_id} waits for a retry backoff")
            if self._serial_busy(task):
                raise TaskNotClaimable(
                    f"task {task_id}: another task holding {task.serial_key!r} is running"
                )
            return self._claim(task, worker, now)

    def heartbeat(self, claim: Claim) -> None:
        with self._lock:
            task = self._task(claim.task_id)
            self._save(
                life.heartbeat(
                    task, claim.token, now=self._clock(), lease_seconds=self.lease_seconds
                )
            )

    def update_progress(
        self,
        claim: Claim,
        *,
        metadata: Mapping[str, Any] | None = None,
        description: str | None = None,
    ) -> Task:
        with self._lock:
            task = self._task(claim.task_id)
            life.check_claim(task, claim.token)
            return self._save(
                dataclasses.replace(
                    task,
                    metadata={**task.metadata, **(metadata or {})},
                    description=task.description if description is None else description,
                    updated_at=self._clock(),
                )
            )

    def complete(self, claim: Claim, result: Any = None, *, edit: GraphEdit | None = None) -> Task:
        with self._lock:
            done, kind = life.complete(
                self._task(claim.task_id), claim.token, result, now=self._clock()
            )
            if edit:
                self._check_edit(done.run_id, edit)
            self._save(done)
            self._emit(done.run_id, kind, done.id)
            if edit:
                self._apply_edit(done.run_id, edit)
            return done

    def supersede(self, claim: Claim, edit: GraphEdit) -> Task:
        with self._lock:
            task = self._task(claim.task_id)
            life.check_claim(task, claim.token)
            self._check_edit(task.run_id, edit)
            canceled = life.cancel(task, now=self._clock())
            assert canceled is not None
            self._save(dataclasses.replace(canceled, error=edit.reason or None))
            self._emit(task.run_id, EventKind.TASK_CANCELED, task.id, reason=edit.reason)
            self._apply_edit(task.run_id, edit)
            return self._tasks[task.id]

    def requeue_abandoned(self, task_id: int, owner: str) -> Task | None:
        with self._lock:
            decision = life.abandon(self._task(task_id), owner, now=self._clock())
            if decision is None:
                return None
            changed, kind = decision
            self._save(changed)
            self._emit(changed.run_id, kind, changed.id, error=changed.error)
            return changed

    def fail(
        self,
        claim: Claim,
        error: str,
        *,
        retryable: bool = True,
        retry_after: float | None = None,
    ) -> Task:
        with self._lock:
            failed, kind = life.fail(
                self._task(claim.task_id),
                claim.token,
                error,
                retryable=retryable,
                retry_after=retry_after,
                now=self._clock(),
                policy=self.retry_policy,
            )
            self._save(failed)
            self._emit(failed.run_id, kind, failed.id, error=error, status=failed.status.value)
            return failed

    def release(self, claim: Claim) -> Task:
        with self._lock:
            released = life.release(self._task(claim.task_id), claim.token, now=self._clock())
            self._save(released)
            self._emit(released.run_id, EventKind.TASK_RELEASED, released.id)
            return released

    def reap(self, now: float | None = None) -> list[Task]:
        with self._lock:
            return self._reap(self._clock() if now is None else now)

    def reopen(self, task_id: int) -> Task:
        with self._lock:
            reopened = self._save(life.reopen(self._task(task_id), now=self._clock()))
            self._emit(reopened.run_id, EventKind.TASK_REOPENED, reopened.id)
            return reopened

    def cancel(self, task_id: int, *, with_dependents: bool = False) -> list[Task]:
        with self._lock:
            targets = [self._task(task_id)]
            if with_dependents:
                seen = {task_id}
                frontier = [task_id]
                while frontier:
                    current = frontier.pop()
                    for t in self._tasks.values():
                        if current in t.deps and t.id not in seen:
                            seen.add(t.id)
                            frontier.append(t.id)
                            targets.append(t)
            return self._cancel_all(targets)

    def _cancel_all(self, targets: Iterable[Task]) -> list[Task]:
        canceled = []
        now = self._clock()
        for task in sorted(targets, key=lambda t: t.id):
            changed = life.cancel(task, now=now)
            if changed is not None:
                canceled.append(self._save(changed))
                self._emit(changed.run_id, EventKind.TASK_CANCELED, changed.id)
        return canceled

    def cancel_run(self, run_id: int) -> list[Task]:
        with self._lock:
            self._run(run_id)
            canceled = self._cancel_all(t for t in self._tasks.values() if t.run_id == run_id)
            self.finish_run(run_id, RunStatus.CANCELED)
            return canceled

    # -- events ---------------------------------------------------------------------------

    def events(self, run_id: int, cursor: int = 0, limit: int | None = None) -> list[Event]:
        with self._lock:
            found = [e for e in self._events[cursor:] if e.run_id == run_id]
            return found[:limit] if limit is not None else found

    def wait_for_events(self, run_id: int, cursor: int, timeout: float) -> list[Event]:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = self.events(run_id, cursor)
                remaining = deadline - time.monotonic()
                if found or remaining <= 0:
                    return found
                self._changed.wait(remaining)

    # -- the budget ledger ----------------------------------------------------------------

    def record_charge(
        self,
        run_id: int,
        task_id: int | None,
        usd: float,
        *,
        tokens: int = 0,
        turns: int = 0,
        seconds: float = 0.0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        refused: Sequence[str] = (),
    ) -> Charge:
        with self._lock:
            self._run(run_id)
            charge = Charge(
                id=len(self._charges) + 1,
                run_id=run_id,
                task_id=task_id,
                usd=usd,
                tokens=tokens,
                turns=turns,
                seconds=seconds,
                at=self._clock(),
                cache_read_tokens=cache_read_tokens,
                cache_write_tokens=cache_write_tokens,
                refused=tuple(refused),
            )
            self._charges.append(charge)
            return charge

    def charges(self, run_id: int) -> list[Charge]:
        with self._lock:
            return [c for c in self._charges if c.run_id == run_id]

    def spent(self, *, run_id: int | None = None, since: float | None = None) -> float:
        with self._lock:
            return sum(
                c.usd
                for c in self._charges
                if (run_id is None or c.run_id == run_id) and (since is None or c.at >= since)
            )

    # -- messages -------------------------------------------------------------------------

    def send_message(
        self, run_id: int, sender: str, recipient: str, kind: MessageKind | str, body: str
    ) -> Message:
        with self._lock:
            self._run(run_id)
            message = Message(
                id=len(self._messages) + 1,
                run_id=run_id,
                sender=sender,
                recipient=recipient,
                kind=MessageKind(kind),
                body=body,
                created_at=self._clock(),
            )
            self._messages[message.id] = message
            self._emit(run_id, EventKind.MESSAGE, message_id=message.id, recipient=recipient)
            return message

    def messages(
        self, run_id: int, *, recipient: str | None = None, unread_only: bool = False
    ) -> list[Message]:
        with self._lock:
            return [
                m
                for m in self._messages.values()
                if m.run_id == run_id
                and (recipient is None or m.recipient == recipient)
                and not (unread_only and m.read)
            ]

    def mark_read(self, message_id: int) -> None:
        with self._lock:
            message = self._messages.get(message_id)
            if message is not None:
                self._messages[message_id] = dataclasses.replace(message, read=True)

    # -- issue locks ----------------------------------------------------------------------

    def acquire_issue_lock(
        self,
        repo: str,
        number: int,
        owner: str,
        token: str,
        *,
        lease_seconds: float | None = None,
    ) -> IssueLock:
        with self._lock:
            now = self._clock()
            held = self._locks.get((repo, number))
            mine = held is not None and (held.owner, held.token) == (owner, token)
            if held is not None and not mine and held.expires_at > now:
                raise IssueLocked(repo, number, held.owner)
            lock = IssueLock(
                repo=repo,
                number=number,
                owner=owner,
                token=token,
                acquired_at=held.acquired_at if mine and held else now,
                expires_at=now + (lease_seconds or self.lease_seconds),
            )
            self._locks[(repo, number)] = lock
            return lock

    def release_issue_lock(self, repo: str, number: int, owner: str, token: str) -> None:
        with self._lock:
            held = self._locks.get((repo, number))
            if held is None:
                return
            if (held.owner, held.token) != (owner, token):
                raise IssueLocked(repo, number, held.owner)
            del self._locks[(repo, number)]

    def get_issue_lock(self, repo: str, number: int) -> IssueLock | None:
        with self._lock:
            return self._locks.get((repo, number))

    def break_issue_lock(self, repo: str, number: int, owner: str) -> bool:
        with self._lock:
            held = self._locks.get((repo, number))
            if held is None or held.owner != owner:
                return False
            del self._locks[(repo, number)]
            return True

    # -- checkpoints ----------------------------------------------------------------------

    def save_checkpoint(self, key: str, value: Mapping[str, Any]) -> None:
        with self._lock:
            self._checkpoints[key] = copy.deepcopy(dict(value))

    def load_checkpoint(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            value = self._checkpoints.get(key)
            return copy.deepcopy(value) if value is not None else None

    def clear_checkpoint(self, key: str) -> None:
        with self._lock:
            self._checkpoints.pop(key, None)

    # -- branches -----------------------------------------------------------------------

    def record_branch(self, repo: str, branch: str, origin: str) -> None:
        with self._lock:
            self._branches.setdefault((repo, branch), origin)

    def branch_origin(self, repo: str, branch: str) -> str | None:
        with self._lock:
            return self._branches.get((repo, branch))
