"""The task store's claims: a worker takes a task, keeps its lease, reports progress,
and ends it (done, failed, escalated, superseded, waiting, handed back) under the claim's
fencing token."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Any

from ralph._process import Holder, holder_is_gone
from ralph.errors import TaskBlocked, TaskNotClaimable
from ralph.tasks import _lifecycle as life
from ralph.tasks._core import StoreCore
from ralph.tasks._model import (
    TERMINAL_STATUSES,
    Claim,
    EventKind,
    GraphEdit,
    MessageKind,
    Task,
    TaskStatus,
)
from ralph.tasks._rows import StoreTx, marks, to_task

__all__ = [
    "GONE_HOLDER_WAIT_SECONDS",
    "REAP_INTERVAL_SECONDS",
    "SERIAL_QUEUE_PATIENCE_SECONDS",
    "ClaimVerbs",
]

#: A claim reaps its run's expired leases at most this often per store; an expired task
#: waits at most this long (plus its lease) before it is handed out again.
REAP_INTERVAL_SECONDS = 1.0
#: How long a task ready for a serialisation key keeps its place ahead of tasks that
#: became ready after it (its run's workers are woken when the key frees, and take it
#: within moments); past this its run is taken to be gone or not claiming it (stopped,
#: or run with ``--only`` other kinds), and it no longer holds the others back.
SERIAL_QUEUE_PATIENCE_SECONDS = 30.0
#: A key holder handed back because its process is gone waits this long for its run to
#: be run again (which wakes it at once) before it is claimable: meanwhile it keeps no
#: other run's task for the key waiting behind it.
GONE_HOLDER_WAIT_SECONDS = 300.0


class ClaimVerbs(StoreCore):
    """Claims and how they end, each fenced by the claim's token."""

    def claim(self, run_id: int, worker: str, roles: Collection[str]) -> Claim | None:
        """Claim the oldest claimable task of the run for one of ``roles``, preferring
        tasks assigned to ``worker``. Expired leases in the run are reaped first."""
        roles = sorted(set(roles))
        now = self._now()
        try:
            with self._write() as tx:
                if now - self._last_reap.get(run_id, float("-inf")) >= REAP_INTERVAL_SECONDS:
                    self._reap_in(tx, now, run_id)
                    self._take_back_keys(tx, now, run_id)
                    self._last_reap[run_id] = now
                if not roles:
                    return None
                candidate = (
                    "SELECT t.id FROM ralph_tasks t"
                    " WHERE t.run_id = ? AND t.status = 'pending' AND t.not_before <= ?"
                    f" AND t.role IN ({marks(roles)}) {{assigned}}"
                    " AND NOT EXISTS (SELECT 1 FROM ralph_task_deps d"
                    "   JOIN ralph_tasks p ON p.id = d.depends_on"
                    "   WHERE d.task_id = t.id AND p.status <> 'done')"
                    " AND (t.serial_key IS NULL OR NOT EXISTS (SELECT 1 FROM ralph_tasks r"
                    "   WHERE r.serial_key = t.serial_key AND r.status = 'running'))"
                    f" AND {self._first_in_line}"
                    f" ORDER BY t.id LIMIT 1 {self.db.skip_locked}"
                )
                in_line = (now, now - SERIAL_QUEUE_PATIENCE_SECONDS)
                # Tasks assigned to this worker first, then the oldest: two index walks in
                # id order (COALESCE stops at the first that finds one), never a sort.
                row = tx.one(
                    "UPDATE ralph_tasks SET status = 'running', owner = ?, "
                    "claim_token = claim_token + 1, attempts = attempts + 1, "
                    "lease_expires_at = ?, updated_at = ?, revision = revision + 1 "
                    "WHERE status = 'pending' AND id = COALESCE("
                    f"({candidate.format(assigned='AND t.owner = ?')}), "
                    f"({candidate.format(assigned='')})"
                    f") RETURNING *, {self._deps_of_row} AS dep_ids",
                    (
                        worker,
                        now + self.lease_seconds,
                        now,
                        *(run_id, now, *roles, worker, *in_line),
                        *(run_id, now, *roles, *in_line),
                    ),
                )
                if row is None:
                    return None
                dep_ids = str(row.pop("dep_ids") or "")
                task = to_task(row, sorted(int(d) for d in dep_ids.split(",") if d))
                tx.emit(run_id, EventKind.TASK_CLAIMED, task.id, worker=worker)
        except Exception as error:
            if self.db.unique_violation(error, "serial_key"):
                # Two claimers picked tasks sharing a serialisation key at once; the
                # index let one through. This one simply found nothing to do.
                return None
            raise
        return Claim(task=task, token=task.claim_token, worker=worker)

    def claim_task(self, task_id: int, worker: str) -> Claim:
        """Claim one task; raises TaskBlocked (naming the unfinished dependencies) or
        TaskNotClaimable."""
        now = self._now()
        with self._write() as tx:
            task = self._locked_task(tx, task_id)
            if task.status is not TaskStatus.PENDING:
                raise TaskNotClaimable(f"task {task_id} is {task.status.value}, not pending")
            unfinished = tx.rows(
                "SELECT p.key, p.status FROM ralph_task_deps d "
                "JOIN ralph_tasks p ON p.id = d.depends_on "
                "WHERE d.task_id = ? AND p.status <> 'done' ORDER BY p.id",
                (task_id,),
            )
            if unfinished:
                raise TaskBlocked(task_id, [(r["key"], r["status"]) for r in unfinished])
            if task.not_before > now:
                raise TaskNotClaimable(f"task {task_id} waits for a retry backoff")
            if task.serial_key is not None and tx.one(
                "SELECT id FROM ralph_tasks WHERE serial_key = ? AND status = 'running'",
                (task.serial_key,),
            ):
                raise TaskNotClaimable(
                    f"task {task_id}: another task holding {task.serial_key!r} is running"
                )
            if task.serial_key is not None and not tx.one(
                f"SELECT t.id FROM ralph_tasks t WHERE t.id = ? AND {self._first_in_line}",
                (task_id, now, now - SERIAL_QUEUE_PATIENCE_SECONDS),
            ):
                raise TaskNotClaimable(
                    f"task {task_id}: another task waiting for {task.serial_key!r} was ready first"
                )
            claimed = life.claim(task, worker, now=now, lease_seconds=self.lease_seconds)
            self._store_task(tx, claimed, token=task.claim_token, status=TaskStatus.PENDING)
            tx.emit(task.run_id, EventKind.TASK_CLAIMED, task.id, worker=worker)
        return Claim(task=claimed, token=claimed.claim_token, worker=worker)

    def heartbeat(self, claim: Claim) -> None:
        """Extend the lease; raises LeaseLost."""
        beat = life.heartbeat(
            claim.task, claim.token, now=self._now(), lease_seconds=self.lease_seconds
        )
        with self._write() as tx:
            self._apply(tx, claim.task, beat, token=claim.token)

    def update_progress(
        self,
        claim: Claim,
        *,
        metadata: Mapping[str, Any] | None = None,
        description: str | None = None,
    ) -> Task:
        """Merge ``metadata`` into the task's metadata; raises LeaseLost."""
        with self._write() as tx:
            task = self._claimed_task(tx, claim)
            updated = dataclasses.replace(
                task,
                metadata={**task.metadata, **(metadata or {})},
                description=task.description if description is None else description,
                updated_at=self._now(),
            )
            return self._store_task(tx, updated, token=claim.token, status=TaskStatus.RUNNING)

    def record_activity(self, claim: Claim, activity: Mapping[str, Any], summary: str) -> Task:
        """Keep what the claimed task's agent is doing as ``metadata["activity"]``
        (replacing what was there) and append task_activity with ``summary``, together;
        raises LeaseLost. Callers throttle it: every call is a write."""
        with self._write() as tx:
            task = self._claimed_task(tx, claim)
            updated = dataclasses.replace(
                task, metadata={**task.metadata, "activity": dict(activity)}
            )
            stored = self._store_task(tx, updated, token=claim.token, status=TaskStatus.RUNNING)
            tx.emit(stored.run_id, EventKind.TASK_ACTIVITY, stored.id, summary=summary)
        return stored

    def complete(self, claim: Claim, result: Any = None, *, edit: GraphEdit | None = None) -> Task:
        """Mark done with a JSON result; raises LeaseLost. ``edit`` rewrites the graph in
        the same transaction (so no dependent can be claimed in between); it raises
        GraphError, and writes nothing, when it names a task that is not pending or adds
        an invalid task."""
        done, kind = life.complete(claim.task, claim.token, result, now=self._now())
        with self._write() as tx:
            if edit:
                self._locked_run(tx, claim.task.run_id)  # edits of one run, one at a time
            stored = self._apply(tx, claim.task, done, token=claim.token)
            tx.emit(stored.run_id, kind, stored.id)
            if edit:
                self._apply_edit(tx, stored.run_id, edit)
        return stored

    def supersede(self, claim: Claim, edit: GraphEdit) -> Task:
        """End the claimed task as canceled, its work replaced by ``edit`` (applied in the
        same transaction, checked as in complete)."""
        life.check_claim(claim.task, claim.token)
        canceled = life.cancel(claim.task, now=self._now())
        assert canceled is not None
        canceled = dataclasses.replace(canceled, error=edit.reason or None)
        with self._write() as tx:
            self._locked_run(tx, claim.task.run_id)
            stored = self._apply(tx, claim.task, canceled, token=claim.token)
            tx.emit(stored.run_id, EventKind.TASK_CANCELED, stored.id, reason=edit.reason)
            self._apply_edit(tx, stored.run_id, edit)
        return stored

    def requeue_abandoned(self, task_id: int, owner: str) -> Task | None:
        """A running task whose claimer ``owner`` is known to be gone goes back to pending
        (or dead when its attempts are used up) without waiting for its lease. None when
        the task is not running under ``owner`` any more."""
        with self._write() as tx:
            task = self._locked_task(tx, task_id)
            decision = life.abandon(task, owner, now=self._now())
            if decision is None:
                return None
            changed, kind = decision
            self._store_task(tx, changed, token=task.claim_token, status=TaskStatus.RUNNING)
            tx.emit(changed.run_id, kind, changed.id, error=changed.error, expired=True)
        return changed

    def fail(
        self,
        claim: Claim,
        error: str,
        *,
        retryable: bool = True,
        retry_after: float | None = None,
        cancel_dependents: bool = False,
    ) -> Task:
        """Retry after a backoff (or ``retry_after`` seconds) while attempts remain, then
        dead; not retryable: failed. ``cancel_dependents``: when the task ends for good
        (failed, or dead), the pending tasks that wait on it, and what waits on those,
        are canceled in the same transaction. Raises LeaseLost (nothing written)."""
        failed, kind = life.fail(
            claim.task,
            claim.token,
            error,
            retryable=retryable,
            retry_after=retry_after,
            now=self._now(),
            policy=self.retry_policy,
        )
        with self._write() as tx:
            if cancel_dependents:  # the run's row first, as escalate's (below)
                self._locked_run(tx, claim.task.run_id)
            return self._fail_in(tx, claim, failed, kind, cancel_dependents=cancel_dependents)

    def escalate(self, claim: Claim, error: str, message: str, *, recipient: str = "lead") -> Task:
        """End the claimed task for good because only a person can go on, in one
        transaction: it fails (not retryable) with ``error``, the pending tasks that wait
        on it (and what waits on those) are canceled, and ``message`` goes to
        ``recipient`` as an escalation from the claim's worker. Raises LeaseLost, and
        writes nothing, when the claim was lost."""
        failed, kind = life.fail(
            claim.task,
            claim.token,
            error,
            retryable=False,
            retry_after=None,
            now=self._now(),
            policy=self.retry_policy,
        )
        with self._write() as tx:
            # The run's row before the task's, as complete and supersede with a graph edit
            # lock them: one order, so two enders of the run's tasks cannot deadlock.
            self._locked_run(tx, claim.task.run_id)
            stored = self._fail_in(tx, claim, failed, kind, cancel_dependents=True)
            self._insert_message(
                tx, stored.run_id, claim.worker, recipient, MessageKind.ESCALATION, message
            )
        return stored

    def _fail_in(
        self, tx: StoreTx, claim: Claim, failed: Task, kind: EventKind, *, cancel_dependents: bool
    ) -> Task:
        stored = self._apply(tx, claim.task, failed, token=claim.token)
        tx.emit(stored.run_id, kind, stored.id, error=stored.error, status=stored.status.value)
        if cancel_dependents and stored.status in TERMINAL_STATUSES:
            self._cancel_all(tx, self._waiting_on(tx, stored.id))
        return stored

    def defer(self, claim: Claim, *, until: float, waiting_for: str, for_person: bool) -> Task:
        """Hand the claimed task back to wait for something outside Ralph (``waiting_for``:
        checks to finish, a review, a person's merge): pending, not claimable before
        ``until``, its attempt given back, no owner; appends task_waiting. The metadata
        keeps ``waiting_for``, ``for_person``, ``waits`` (deferrals so far, for the
        backoff) and ``waiting_since``. Raises LeaseLost."""
        with self._write() as tx:
            # Read afresh under the lock: the metadata may have grown since the claim.
            task = self._claimed_task(tx, claim)
            waiting, kind = life.defer(
                task,
                claim.token,
                until=until,
                waiting_for=waiting_for,
                for_person=for_person,
                now=self._now(),
            )
            self._store_task(tx, waiting, token=claim.token, status=TaskStatus.RUNNING)
            tx.emit(
                waiting.run_id,
                kind,
                waiting.id,
                worker=claim.worker,
                waiting_for=waiting_for,
                for_person=for_person,
                until=until,
            )
        return waiting

    def release(self, claim: Claim, *, untried: bool = False) -> Task:
        """Back to pending, attempts kept (graceful shutdown); ``untried``: nothing of
        it ran, so the claim's attempt is given back. Raises LeaseLost."""
        released = life.release(claim.task, claim.token, now=self._now(), untried=untried)
        with self._write() as tx:
            stored = self._apply(tx, claim.task, released, token=claim.token)
            tx.emit(stored.run_id, EventKind.TASK_RELEASED, stored.id)
        return stored

    def _take_back_keys(self, tx: StoreTx, now: float, run_id: int) -> list[Task]:
        """Free the serialisation keys the run's pending tasks wait for from holders that
        will never end them: a lease that ran out (of any run: only the holder's own run
        reaps its leases otherwise, and a killed run never comes back to), or a claimer
        that is a process of this machine known to be gone (at once: the lease is for
        other machines). The holder goes back to pending for its own run (or dead, its
        attempts used up), not ready before now, so the waiting task comes first in line
        and takes the key in this very claim. One whose process is gone waits for its run
        to be run again (``hand_back_from_the_gone``), out of the others' line."""
        # Only for a task ready but for the key: one that became ready before the holder
        # was handed back is ahead of it in line.
        holders = self._load_tasks(
            tx,
            "status = 'running' AND serial_key IN (SELECT w.serial_key FROM ralph_tasks w "
            "WHERE w.run_id = ? AND w.status = 'pending' AND w.serial_key IS NOT NULL "
            "AND w.not_before <= ? AND NOT EXISTS (SELECT 1 FROM ralph_task_deps d "
            "JOIN ralph_tasks p ON p.id = d.depends_on "
            "WHERE d.task_id = w.id AND p.status <> 'done'))",
            (run_id, now),
            lock=self.db.skip_locked,
        )
        freed = []
        for task in holders:
            decision = life.expire(task, now=now)
            gone = decision is None and task.owner is not None and holder_is_gone(task.owner)
            if gone:
                decision = life.abandon(task, task.owner or "", now=now)
            if decision is None:
                continue
            changed, kind = decision
            changed = dataclasses.replace(changed, not_before=max(changed.not_before, now))
            if gone and changed.status is TaskStatus.PENDING:
                pid = Holder.parse(task.owner or "").pid
                changed = life.hand_back_from_the_gone(
                    changed,
                    f"its run to be run again (its process, pid {pid}, is gone)",
                    now=now,
                    until=now + GONE_HOLDER_WAIT_SECONDS,
                )
            freed.append(
                self._store_task(tx, changed, token=task.claim_token, status=TaskStatus.RUNNING)
            )
            tx.emit(changed.run_id, kind, changed.id, error=changed.error, expired=True)
        return freed

    def reap(self, now: float | None = None) -> list[Task]:
        """Return running tasks whose lease ran out to pending, or to dead when their
        attempts are used up. Returns the tasks it changed."""
        with self._write() as tx:
            return self._reap_in(tx, self._now() if now is None else now, None)
