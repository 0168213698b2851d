"""What every verb of the task store stands on: its database, transactions that append
their events last, task rows loaded and written back under the claim token and status
that were checked, and the graph writes several verbs share.

Statements are written once, with ``?`` placeholders; the database supplies
transactions, its row-locking clauses and its wake-up mechanism. Lifecycle decisions
come from ``_lifecycle`` and are written back with an UPDATE guarded by the claim token
and status that were checked, so a concurrent change turns into LeaseLost instead of a
lost write.

Events are appended as the last step of a write transaction. On PostgreSQL the store
takes a per-run advisory lock first, so event ids are assigned in commit order and a
reader's cursor never skips an event that commits late.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ralph.db import Database, migrate, schema_versions
from ralph.errors import GraphError, LeaseLost, RunNotFound, TaskNotFound
from ralph.graph import TaskSpec
from ralph.tasks import _lifecycle as life
from ralph.tasks._event_reads import SharedEventReads
from ralph.tasks._model import (
    Claim,
    EventKind,
    GraphEdit,
    Message,
    MessageKind,
    Run,
    RunStatus,
    Task,
    TaskStatus,
)
from ralph.tasks._rows import (
    PendingEvent,
    StoreTx,
    cached_task,
    marks,
    to_json,
    to_message,
    to_run,
    to_task,
)
from ralph.tasks._schema import TASK_STORE_MIGRATIONS

__all__ = ["StoreCore"]

_GUARDED_COLUMNS = (
    "status",
    "owner",
    "attempts",
    "lease_expires_at",
    "not_before",
    "result",
    "error",
)
_TASK_COLUMNS = (
    "status, owner, claim_token, attempts, lease_expires_at, not_before, result, error, "
    "metadata, description, updated_at"
)


class StoreCore:
    """What the store's verb groups share: the database (the store owns it), the lease
    and retry policy, the clock, and the claim's queries in the database's dialect."""

    def __init__(
        self,
        db: Database,
        *,
        lease_seconds: float = life.DEFAULT_LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
        retry_policy: life.RetryPolicy | None = None,
        migrate: bool = True,
    ) -> None:
        self.db = db
        #: The last revision of each task this store read in full, with its Task.
        self._known: dict[int, tuple[int, Task]] = {}
        self._event_reads = SharedEventReads()
        self.lease_seconds = lease_seconds
        self.retry_policy = retry_policy or life.RetryPolicy()
        self._clock = clock
        self._last_reap: dict[int, float] = {}
        #: A claim's query for a returned task row's dependency ids, comma-separated.
        self._deps_of_row = (
            f"(SELECT {db.concat_ids('depends_on')} FROM ralph_task_deps "
            "WHERE task_id = ralph_tasks.id)"
        )
        greatest = "MAX" if db.dialect == "sqlite" else "GREATEST"

        def ready_at(task: str) -> str:
            # When the task could first be claimed: added, every dependency done, and
            # past its not-before time (a retry's backoff, a wait).
            return (
                f"{greatest}({task}.created_at, {task}.not_before, COALESCE((SELECT "
                "MAX(p.updated_at) FROM ralph_task_deps d JOIN ralph_tasks p "
                f"ON p.id = d.depends_on WHERE d.task_id = {task}.id), 0))"
            )

        #: A claim's condition (params: now, now - patience) that no other task of an
        #: active run, claimable on the same serialisation key, became ready before
        #: candidate ``t`` (ties: the older id): a freed key goes to the first in line,
        #: whichever run's worker asks first.
        self._first_in_line = (
            "(t.serial_key IS NULL OR NOT EXISTS (SELECT 1 FROM ralph_tasks o"
            " JOIN ralph_runs ru ON ru.id = o.run_id"
            " WHERE o.serial_key = t.serial_key AND o.status = 'pending' AND o.id <> t.id"
            " AND ru.status = 'active' AND ru.shutdown_requested = 0 AND o.not_before <= ?"
            " AND NOT EXISTS (SELECT 1 FROM ralph_task_deps od"
            "   JOIN ralph_tasks op ON op.id = od.depends_on"
            "   WHERE od.task_id = o.id AND op.status <> 'done')"
            f" AND {ready_at('o')} > ?"
            f" AND ({ready_at('o')} < {ready_at('t')}"
            f"   OR ({ready_at('o')} = {ready_at('t')} AND o.id < t.id))))"
        )
        if migrate:
            self.migrate()

    def _now(self) -> float:
        return self._clock()

    def close(self) -> None:
        """Release connections and background threads."""
        self.db.close()

    # -- schema ---------------------------------------------------------------------------

    def migrate(self) -> list[int]:
        """Apply the task store's missing migrations; returns the versions applied now."""
        return migrate(self.db, TASK_STORE_MIGRATIONS)

    def schema_versions(self) -> list[int]:
        return schema_versions(self.db)

    # -- transactions ---------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[StoreTx]:
        with self.db.write_transaction() as db_tx:
            tx = StoreTx(db_tx)
            yield tx
            if tx.pending_events:
                self._insert_events(tx, tx.pending_events, self._now())

    @contextmanager
    def _reader(self) -> Iterator[StoreTx]:
        with self.db.read_transaction() as db_tx:
            yield StoreTx(db_tx)

    def _insert_events(self, tx: StoreTx, events: Sequence[PendingEvent], now: float) -> None:
        """Append the transaction's events (its last statements before COMMIT)."""
        if self.db.dialect == "postgresql":
            self._insert_events_in_commit_order(tx, events, now)
            return
        for run_id, kind, task_id, data in events:
            tx.run(
                "INSERT INTO ralph_events (run_id, task_id, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                (run_id, task_id, kind.value, to_json(dict(data)), now),
            )

    def _insert_events_in_commit_order(
        self, tx: StoreTx, events: Sequence[PendingEvent], now: float
    ) -> None:
        # PostgreSQL: one statement per run takes the run's advisory lock (held to
        # commit, so event ids of a run are assigned in commit order), inserts, and
        # notifies listeners.
        from ralph.db import PostgresDatabase

        for run_id in sorted({event[0] for event in events}):
            own = [e for e in events if e[0] == run_id]
            values = ", ".join("(?::integer, ?::integer, ?, ?, ?::double precision)" for _ in own)
            params: list[Any] = [PostgresDatabase.LOCK_CLASS, run_id]
            for _, kind, task_id, data in own:
                params += [run_id, task_id, kind.value, to_json(dict(data)), now]
            tx.rows(
                "WITH locked AS (SELECT pg_advisory_xact_lock(?, ?)), "
                "added AS (INSERT INTO ralph_events (run_id, task_id, kind, data, at) "
                "SELECT v.* FROM locked, (VALUES "
                f"{values}) AS v (run_id, task_id, kind, data, at) RETURNING id) "
                "SELECT pg_notify(?, ?) WHERE EXISTS (SELECT 1 FROM added)",
                [*params, PostgresDatabase.CHANNEL, str(run_id)],
            )

    # -- loading --------------------------------------------------------------------------

    def _load_tasks(
        self, tx: StoreTx, where: str, params: Sequence[Any], *, lock: str = ""
    ) -> list[Task]:
        """The tasks ``where`` selects, each with its dependency ids."""
        columns, rows = tx.columns(
            f"SELECT * FROM ralph_tasks WHERE {where} ORDER BY id {lock}", params
        )
        if not rows:
            return []
        at = columns.index("id")
        deps: dict[int, list[int]] = {row[at]: [] for row in rows}
        _, links = tx.columns(
            "SELECT task_id, depends_on FROM ralph_task_deps "
            f"WHERE task_id IN (SELECT id FROM ralph_tasks WHERE {where}) "
            "ORDER BY task_id, depends_on",
            params,
        )
        for task_id, depends_on in links:
            # A task added after the first SELECT may show up here; it is not ours.
            if task_id in deps:
                deps[task_id].append(depends_on)
        return [cached_task(columns, row, tuple(deps[row[at]])) for row in rows]

    def _locked_task(self, tx: StoreTx, task_id: int) -> Task:
        found = self._load_tasks(tx, "id = ?", (task_id,), lock=self.db.lock_rows)
        if not found:
            raise TaskNotFound(task_id)
        return found[0]

    def _locked_run(self, tx: StoreTx, run_id: int) -> Run:
        row = tx.one(f"SELECT * FROM ralph_runs WHERE id = ? {self.db.lock_rows}", (run_id,))
        if row is None:
            raise RunNotFound(run_id)
        return to_run(row)

    def _store_task(self, tx: StoreTx, task: Task, *, token: int, status: TaskStatus) -> Task:
        """Write ``task``'s mutable columns if the row still has ``token`` and ``status``."""
        changed = tx.run(
            f"UPDATE ralph_tasks SET ({_TASK_COLUMNS}) = (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), "
            "revision = revision + 1 WHERE id = ? AND claim_token = ? AND status = ?",
            (
                task.status.value,
                task.owner,
                task.claim_token,
                task.attempts,
                task.lease_expires_at,
                task.not_before,
                to_json(task.result) if task.result is not None else None,
                task.error,
                to_json(dict(task.metadata)),
                task.description,
                task.updated_at,
                task.id,
                token,
                status.value,
            ),
        )
        if changed != 1:
            raise LeaseLost(task.id, token, "the task changed underneath this write")
        if status is TaskStatus.RUNNING and task.status is not TaskStatus.RUNNING:
            self._announce_freed_key(tx, task)
        return task

    def _announce_freed_key(self, tx: StoreTx, task: Task) -> None:
        """``task`` stopped running: if it held a serialisation key, wake the other runs
        with a task pending on that key (their workers sleep on their own run's events,
        and would otherwise notice only at their idle timeout). Its own run learns from
        the task's own event."""
        if task.serial_key is None:
            return
        for row in tx.rows(
            "SELECT DISTINCT run_id FROM ralph_tasks WHERE serial_key = ? "
            "AND status = 'pending' AND run_id <> ? ORDER BY run_id",
            (task.serial_key, task.run_id),
        ):
            tx.emit(row["run_id"], EventKind.KEY_FREED, key=task.serial_key)

    def _apply(self, tx: StoreTx, before: Task, after: Task, *, token: int) -> Task:
        """Write the columns a lifecycle decision changed (``before`` -> ``after``), if the
        row still carries the claim ``token`` and is running. The decision was taken on
        the claim's snapshot; the guard makes that safe: while the token holds, nothing
        but this claim's holder has written the task."""
        changes = {
            column: getattr(after, column)
            for column in _GUARDED_COLUMNS
            if getattr(after, column) != getattr(before, column)
        }
        changes["updated_at"] = after.updated_at
        if "result" in changes:
            changes["result"] = to_json(after.result) if after.result is not None else None
        if "status" in changes:
            changes["status"] = after.status.value
        assignments = ", ".join(f"{column} = ?" for column in changes)
        assignments += ", revision = revision + 1"
        row = tx.one(
            f"UPDATE ralph_tasks SET {assignments} "
            "WHERE id = ? AND claim_token = ? AND status = 'running' RETURNING *",
            (*changes.values(), before.id, token),
        )
        if row is None:
            raise LeaseLost(
                before.id, token, "the task was reclaimed, reaped, canceled or finished"
            )
        if after.status is not TaskStatus.RUNNING:
            self._announce_freed_key(tx, before)
        return to_task(row, before.deps)

    def _claimed_task(self, tx: StoreTx, claim: Claim) -> Task:
        task = self._locked_task(tx, claim.task_id)
        life.check_claim(task, claim.token)
        return task

    def _finish_run(self, tx: StoreTx, run_id: int, status: RunStatus) -> Run:
        self._locked_run(tx, run_id)
        row = tx.one(
            "UPDATE ralph_runs SET status = ?, updated_at = ? WHERE id = ? RETURNING *",
            (status.value, self._now(), run_id),
        )
        assert row is not None
        tx.emit(run_id, EventKind.RUN_FINISHED, status=status.value)
        return to_run(row)

    def _insert(self, tx: StoreTx, run_id: int, specs: list[TaskSpec]) -> list[Task]:
        now = self._now()
        ids = {
            row["key"]: row["id"]
            for row in tx.rows("SELECT id, key FROM ralph_tasks WHERE run_id = ?", (run_id,))
        }
        life.validate_new_specs(specs, ids)
        added = []
        for spec in specs:
            row = tx.one(
                "INSERT INTO ralph_tasks (run_id, key, kind, role, issues, subject, "
                "active_form, description, metadata, status, owner, claim_token, attempts, "
                "max_attempts, lease_expires_at, not_before, serial_key, result, error, "
                "created_at, updated_at) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, 0, ?, NULL, 0, ?, NULL, NULL, ?, ?) "
                "RETURNING *",
                (
                    run_id,
                    spec.key,
                    spec.kind.value,
                    spec.role.value,
                    to_json(list(spec.issues)),
                    spec.subject,
                    spec.active_form,
                    spec.description,
                    to_json(dict(spec.metadata)),
                    TaskStatus.PENDING.value,
                    spec.max_attempts or life.DEFAULT_MAX_ATTEMPTS,
                    spec.serial_key,
                    now,
                    now,
                ),
            )
            assert row is not None
            ids[spec.key] = row["id"]
            deps = [ids[d] for d in spec.deps]
            for dep in deps:
                tx.run(
                    "INSERT INTO ralph_task_deps (task_id, depends_on) VALUES (?, ?)",
                    (row["id"], dep),
                )
            added.append(to_task(row, deps))
            tx.emit(run_id, EventKind.TASK_ADDED, row["id"], key=spec.key, role=spec.role)
        return added

    def _apply_edit(self, tx: StoreTx, run_id: int, edit: GraphEdit) -> None:
        """Cancel the edit's tasks (each must be pending in the run) and add its specs.
        The caller holds the run's row lock, so a concurrent edit of the run (planned from
        the same tasks) is refused here as a GraphError, never a key violation."""
        if edit.cancel:
            ids = list(edit.cancel)
            tasks = self._load_tasks(tx, f"id IN ({marks(ids)})", ids, lock=self.db.lock_rows)
            found = {t.id: t for t in tasks}
            now = self._now()
            for task_id in ids:
                task = found.get(task_id)
                if task is None or task.run_id != run_id or task.status is not TaskStatus.PENDING:
                    state = task.status.value if task is not None else "missing"
                    raise GraphError(
                        "a graph edit may only cancel pending tasks of its run; "
                        f"task {task_id} is {state}"
                    )
                changed = life.cancel(task, now=now)
                assert changed is not None
                changed = dataclasses.replace(changed, error=edit.reason or None)
                self._store_task(tx, changed, token=task.claim_token, status=task.status)
                tx.emit(run_id, EventKind.TASK_CANCELED, task_id, reason=edit.reason)
        self._insert(tx, run_id, list(edit.add))

    def _reap_in(self, tx: StoreTx, now: float, run_id: int | None) -> list[Task]:
        where = "status = 'running' AND lease_expires_at < ?"
        params: list[Any] = [now]
        if run_id is not None:
            where = f"run_id = ? AND {where}"
            params.insert(0, run_id)
        changed = []
        for task in self._load_tasks(tx, where, params, lock=self.db.skip_locked):
            decision = life.expire(task, now=now)
            if decision is None:
                continue
            expired, kind = decision
            changed.append(
                self._store_task(tx, expired, token=task.claim_token, status=TaskStatus.RUNNING)
            )
            # ``expired`` tells a lease that ran out from a failure (both may end in dead).
            tx.emit(expired.run_id, kind, expired.id, error=expired.error, expired=True)
        return changed

    def _with_dependents(self, tx: StoreTx, task_ids: list[int]) -> list[int]:
        """``task_ids`` and every task that waits on one of them, transitively."""
        ids, frontier = list(task_ids), list(task_ids)
        while frontier:
            found = tx.rows(
                f"SELECT task_id FROM ralph_task_deps WHERE depends_on IN ({marks(frontier)})",
                frontier,
            )
            frontier = [r["task_id"] for r in found if r["task_id"] not in ids]
            ids += frontier
        return ids

    def _waiting_on(self, tx: StoreTx, task_id: int) -> list[Task]:
        """The pending tasks that wait on ``task_id`` and everything that waits on those,
        locked: what can never run once ``task_id`` ended without being done."""
        direct = tx.rows(
            "SELECT d.task_id FROM ralph_task_deps d JOIN ralph_tasks t ON t.id = d.task_id "
            "WHERE d.depends_on = ? AND t.status = 'pending' ORDER BY d.task_id",
            (task_id,),
        )
        ids = self._with_dependents(tx, [r["task_id"] for r in direct])
        if not ids:
            return []
        return self._load_tasks(tx, f"id IN ({marks(ids)})", ids, lock=self.db.lock_rows)

    def _cancel_all(self, tx: StoreTx, tasks: Iterable[Task]) -> list[Task]:
        canceled = []
        now = self._now()
        for task in tasks:
            changed = life.cancel(task, now=now)
            if changed is not None:
                canceled.append(
                    self._store_task(tx, changed, token=task.claim_token, status=task.status)
                )
                tx.emit(changed.run_id, EventKind.TASK_CANCELED, changed.id)
        return canceled

    def _insert_message(
        self, tx: StoreTx, run_id: int, sender: str, recipient: str, kind: MessageKind, body: str
    ) -> Message:
        row = tx.one(
            "INSERT INTO ralph_messages (run_id, sender, recipient, kind, body, is_read, "
            "created_at) VALUES (?, ?, ?, ?, ?, 0, ?) RETURNING *",
            (run_id, sender, recipient, kind.value, body, self._now()),
        )
        assert row is not None
        tx.emit(run_id, EventKind.MESSAGE, message_id=row["id"], recipient=recipient)
        return to_message(row)
