"""The task store over SQL, on any ``ralph.db`` database (SQLite, in a file or in
memory, or PostgreSQL).

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
import functools
import json
import logging
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, cast

from ralph.db import Columns, Database, Row, Tx, migrate, schema_versions
from ralph.errors import (
    GraphError,
    IssueLocked,
    LeaseLost,
    RunNotFound,
    TaskBlocked,
    TaskNotClaimable,
    TaskNotFound,
)
from ralph.graph import TaskSpec
from ralph.tasks import _lifecycle as life
from ralph.tasks._model import (
    TERMINAL_STATUSES,
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
from ralph.tasks._schema import TASK_STORE_MIGRATIONS
from ralph.tasks._store import TaskStore, validate_new_specs

__all__ = ["REAP_INTERVAL_SECONDS", "SERIAL_QUEUE_PATIENCE_SECONDS", "SqlStore"]

logger = logging.getLogger(__name__)

#: (run id, kind, task id, data) of an event a transaction will append.
PendingEvent = tuple[int, EventKind, int | None, Mapping[str, Any]]

#: A claim reaps its run's expired leases at most this often per store; an expired task
#: waits at most this long (plus its lease) before it is handed out again.
REAP_INTERVAL_SECONDS = 1.0
#: How long a task ready for a serialisation key keeps its place ahead of tasks that
#: became ready after it (its run's workers are woken when the key frees, and take it
#: within moments); past this its run is taken to be gone or not claiming it (stopped,
#: or run with ``--only`` other kinds), and it no longer holds the others back.
SERIAL_QUEUE_PATIENCE_SECONDS = 30.0
#: A listing re-reads changed tasks by id up to this many; beyond, it reads them all.
_MAX_REREAD = 500
#: Tasks remembered for listings; past this the memory starts again, empty.
_MAX_KNOWN = 50_000

_GUARDED_COLUMNS = ("status", "owner", "lease_expires_at", "not_before", "result", "error")
_TASK_COLUMNS = (
    "status, owner, claim_token, attempts, lease_expires_at, not_before, result, error, "
    "metadata, description, updated_at"
)


class StoreTx(Tx):
    """A task-store transaction: a database one that also collects the events to append at
    its end."""

    def __init__(self, tx: Tx) -> None:
        self._tx = tx
        self.pending_events: list[PendingEvent] = []

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return self._tx.rows(sql, params)

    def columns(self, sql: str, params: Sequence[Any] = ()) -> Columns:
        return self._tx.columns(sql, params)

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self._tx.run(sql, params)

    def emit(self, run_id: int, kind: EventKind, task_id: int | None = None, **data: Any) -> None:
        self.pending_events.append((run_id, kind, task_id, data))


def to_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _task(row: Row, deps: Sequence[int]) -> Task:
    return _cached_task(tuple(row), tuple(row.values()), tuple(deps))


@functools.lru_cache(maxsize=4096)
def _cached_task(columns: tuple[str, ...], values: tuple[Any, ...], deps: tuple[int, ...]) -> Task:
    """The task a row holds. Rows are read far more often than they change (a lead
    lists a run's tasks at every event), and decoding is most of a read's cost; a Task
    is immutable, so an unchanged row gives back the Task built before."""
    row = dict(zip(columns, values, strict=True))
    return Task(
        id=row["id"],
        run_id=row["run_id"],
        key=row["key"],
        kind=row["kind"],
        role=row["role"],
        issues=tuple(json.loads(row["issues"])),
        subject=row["subject"],
        active_form=row["active_form"],
        description=row["description"],
        metadata=json.loads(row["metadata"]),
        status=TaskStatus(row["status"]),
        owner=row["owner"],
        claim_token=row["claim_token"],
        attempts=row["attempts"],
        max_attempts=row["max_attempts"],
        lease_expires_at=row["lease_expires_at"],
        not_before=row["not_before"],
        serial_key=row["serial_key"],
        result=json.loads(row["result"]) if row["result"] is not None else None,
        error=row["error"],
        deps=tuple(deps),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _run(row: Row) -> Run:
    return Run(
        id=row["id"],
        name=row["name"],
        root_issue=row["root_issue"],
        mode=row["mode"],
        config=json.loads(row["config"]),
        status=RunStatus(row["status"]),
        shutdown_requested=bool(row["shutdown_requested"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _event(row: Row) -> Event:
    return Event(
        id=row["id"],
        run_id=row["run_id"],
        kind=EventKind(row["kind"]),
        task_id=row["task_id"],
        data=json.loads(row["data"]),
        at=row["at"],
    )


def _message(row: Row) -> Message:
    return Message(
        id=row["id"],
        run_id=row["run_id"],
        sender=row["sender"],
        recipient=row["recipient"],
        kind=MessageKind(row["kind"]),
        body=row["body"],
        read=bool(row["is_read"]),
        created_at=row["created_at"],
    )


def _charge(row: Row) -> Charge:
    return Charge(**{**row, "refused": tuple(json.loads(row["refused"]))})


def _charges_where(run_id: int | None, since: float | None) -> tuple[str, list[Any]]:
    """The ledger's lines of one run (or all), at or after ``since``: a WHERE clause."""
    sql, params = " WHERE 1 = 1", list[Any]()
    if run_id is not None:
        sql += " AND run_id = ?"
        params.append(run_id)
    if since is not None:
        sql += " AND at >= ?"
        params.append(since)
    return sql, params


def _marks(values: Collection[Any]) -> str:
    return ", ".join("?" for _ in values)


class SqlStore(TaskStore):
    """The task store on ``db``, which it owns: closing the store closes the database.
    With ``migrate`` the store's tables are brought up to date at once."""

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

    def __repr__(self) -> str:
        return f"SqlStore({self.db!r})"

    def _now(self) -> float:
        return self._clock()

    def close(self) -> None:
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
        return [_cached_task(columns, row, tuple(deps[row[at]])) for row in rows]

    def _locked_task(self, tx: StoreTx, task_id: int) -> Task:
        found = self._load_tasks(tx, "id = ?", (task_id,), lock=self.db.lock_rows)
        if not found:
            raise TaskNotFound(task_id)
        return found[0]

    def _locked_run(self, tx: StoreTx, run_id: int) -> Run:
        row = tx.one(f"SELECT * FROM ralph_runs WHERE id = ? {self.db.lock_rows}", (run_id,))
        if row is None:
            raise RunNotFound(run_id)
        return _run(row)

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
        return _task(row, before.deps)

    def _claimed_task(self, tx: StoreTx, claim: Claim) -> Task:
        task = self._locked_task(tx, claim.task_id)
        life.check_claim(task, claim.token)
        return task

    # -- runs -----------------------------------------------------------------------------

    def create_run(
        self,
        name: str,
        *,
        root_issue: int | None = None,
        mode: str = "team",
        config: Mapping[str, Any] | None = None,
    ) -> Run:
        now = self._now()
        with self._write() as tx:
            row = tx.one(
                "INSERT INTO ralph_runs (name, root_issue, mode, config, status, "
                "shutdown_requested, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?) "
                "RETURNING *",
                (
                    name,
                    root_issue,
                    mode,
                    to_json(dict(config or {})),
                    RunStatus.ACTIVE.value,
                    now,
                    now,
                ),
            )
        assert row is not None
        return _run(row)

    def get_run(self, run_id: int) -> Run:
        with self._reader() as tx:
            row = tx.one("SELECT * FROM ralph_runs WHERE id = ?", (run_id,))
        if row is None:
            raise RunNotFound(run_id)
        return _run(row)

    def list_runs(
        self, *, status: RunStatus | None = None, root_issue: int | None = None
    ) -> list[Run]:
        where: list[str] = ["1 = 1"]
        params: list[Any] = []
        if status is not None:
            where.append("status = ?")
            params.append(RunStatus(status).value)
        if root_issue is not None:
            where.append("root_issue = ?")
            params.append(root_issue)
        with self._reader() as tx:
            rows = tx.rows(
                f"SELECT * FROM ralph_runs WHERE {' AND '.join(where)} ORDER BY id DESC", params
            )
        return [_run(row) for row in rows]

    def finish_run(self, run_id: int, status: RunStatus = RunStatus.FINISHED) -> Run:
        with self._write() as tx:
            run = self._finish_run(tx, run_id, RunStatus(status))
        return run

    def _finish_run(self, tx: StoreTx, run_id: int, status: RunStatus) -> Run:
        self._locked_run(tx, run_id)
        row = tx.one(
            "UPDATE ralph_runs SET status = ?, updated_at = ? WHERE id = ? RETURNING *",
            (status.value, self._now(), run_id),
        )
        assert row is not None
        tx.emit(run_id, EventKind.RUN_FINISHED, status=status.value)
        return _run(row)

    def request_shutdown(self, run_id: int) -> None:
        with self._write() as tx:
            self._locked_run(tx, run_id)
            tx.run(
                "UPDATE ralph_runs SET shutdown_requested = 1, updated_at = ? WHERE id = ?",
                (self._now(), run_id),
            )
            tx.emit(run_id, EventKind.SHUTDOWN_REQUESTED)

    # -- tasks ----------------------------------------------------------------------------

    def add_tasks(self, run_id: int, specs: Iterable[TaskSpec]) -> list[Task]:
        specs = list(specs)
        with self._write() as tx:
            self._locked_run(tx, run_id)
            return self._insert(tx, run_id, specs)

    def _insert(self, tx: StoreTx, run_id: int, specs: list[TaskSpec]) -> list[Task]:
        now = self._now()
        ids = {
            row["key"]: row["id"]
            for row in tx.rows("SELECT id, key FROM ralph_tasks WHERE run_id = ?", (run_id,))
        }
        validate_new_specs(specs, ids)
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
            added.append(_task(row, deps))
            tx.emit(run_id, EventKind.TASK_ADDED, row["id"], key=spec.key, role=spec.role)
        return added

    def _apply_edit(self, tx: StoreTx, run_id: int, edit: GraphEdit) -> None:
        """Cancel the edit's tasks (each must be pending in the run) and add its specs.
        The caller holds the run's row lock, so a concurrent edit of the run (planned from
        the same tasks) is refused here as a GraphError, never a key violation."""
        if edit.cancel:
            ids = list(edit.cancel)
            tasks = self._load_tasks(tx, f"id IN ({_marks(ids)})", ids, lock=self.db.lock_rows)
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

    def get_task(self, task_id: int) -> Task:
        with self._reader() as tx:
            found = self._load_tasks(tx, "id = ?", (task_id,))
        if not found:
            raise TaskNotFound(task_id)
        return found[0]

    def list_tasks(
        self,
        run_id: int | None = None,
        *,
        status: TaskStatus | str | None = None,
        role: str | None = None,
        kind: str | None = None,
        issue: int | None = None,
    ) -> list[Task]:
        where: list[str] = ["1 = 1"]
        params: list[Any] = []
        for column, value in (("run_id", run_id), ("role", role), ("kind", kind)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if status is not None:
            where.append("status = ?")
            params.append(TaskStatus(status).value)
        with self._reader() as tx:
            tasks = self._listed(tx, " AND ".join(where), params)
        return [t for t in tasks if issue is None or issue in t.issues]

    def _listed(self, tx: StoreTx, where: str, params: Sequence[Any]) -> list[Task]:
        """The tasks ``where`` selects, reading in full only those whose revision this
        store has not seen: a lead lists a run at every event, and most rows are as
        they were (every UPDATE of a task bumps its revision; dependencies never change)."""
        _, heads = tx.columns(
            f"SELECT id, revision FROM ralph_tasks WHERE {where} ORDER BY id", params
        )
        known = self._known
        if len(known) > _MAX_KNOWN:
            known.clear()
        stale = [
            task_id
            for task_id, revision in heads
            if (seen := known.get(task_id)) is None or seen[0] != revision
        ]
        if len(stale) > _MAX_REREAD:
            fresh = self._load_tasks(tx, where, params)
        elif stale:
            fresh = self._load_tasks(tx, f"id IN ({_marks(stale)})", stale)
        else:
            fresh = []
        revisions: dict[int, int] = dict(heads)
        for task in fresh:
            known[task.id] = (revisions.get(task.id, -1), task)
        # A task gone between the two reads (its run deleted meanwhile) is left out.
        return [known[task_id][1] for task_id, _ in heads if task_id in known]

    def assign(self, task_id: int, worker: str) -> Task:
        with self._write() as tx:
            task = self._locked_task(tx, task_id)
            if task.status is not TaskStatus.PENDING:
                raise TaskNotClaimable(f"task {task_id} is {task.status.value}, not pending")
            tx.run(
                "UPDATE ralph_tasks SET owner = ?, revision = revision + 1 WHERE id = ?",
                (worker, task_id),
            )
        return self.get_task(task_id)

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

    def claim(self, run_id: int, worker: str, roles: Collection[str]) -> Claim | None:
        roles = sorted(set(roles))
        now = self._now()
        try:
            with self._write() as tx:
                if now - self._last_reap.get(run_id, float("-inf")) >= REAP_INTERVAL_SECONDS:
                    self._reap_in(tx, now, run_id)
                    self._last_reap[run_id] = now
                if not roles:
                    return None
                candidate = (
                    "SELECT t.id FROM ralph_tasks t"
                    " WHERE t.run_id = ? AND t.status = 'pending' AND t.not_before <= ?"
                    f" AND t.role IN ({_marks(roles)}) {{assigned}}"
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
                task = _task(row, sorted(int(d) for d in dep_ids.split(",") if d))
                tx.emit(run_id, EventKind.TASK_CLAIMED, task.id, worker=worker)
        except Exception as error:
            if self.db.unique_violation(error, "serial_key"):
                # Two claimers picked tasks sharing a serialisation key at once; the
                # index let one through. This one simply found nothing to do.
                return None
            raise
        return Claim(task=task, token=task.claim_token, worker=worker)

    def claim_task(self, task_id: int, worker: str) -> Claim:
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
        with self._write() as tx:
            task = self._claimed_task(tx, claim)
            updated = dataclasses.replace(
                task, metadata={**task.metadata, "activity": dict(activity)}
            )
            stored = self._store_task(tx, updated, token=claim.token, status=TaskStatus.RUNNING)
            tx.emit(stored.run_id, EventKind.TASK_ACTIVITY, stored.id, summary=summary)
        return stored

    def complete(self, claim: Claim, result: Any = None, *, edit: GraphEdit | None = None) -> Task:
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
            if cancel_dependents:
                self._locked_run(tx, claim.task.run_id)  # as an edit does: it cancels tasks
            return self._fail_in(tx, claim, failed, kind, cancel_dependents=cancel_dependents)

    def escalate(self, claim: Claim, error: str, message: str, *, recipient: str = "lead") -> Task:
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
            # The run first, as every write that cancels tasks of the run takes it.
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

    def wake(self, task_ids: Iterable[int]) -> list[Task]:
        ids = sorted(set(task_ids))
        if not ids:
            return []
        with self._write() as tx:
            now = self._now()
            woken = []
            for task in self._load_tasks(tx, f"id IN ({_marks(ids)})", ids, lock=self.db.lock_rows):
                changed = life.wake(task, now=now)
                if changed is None:
                    continue
                woken.append(
                    self._store_task(tx, changed, token=task.claim_token, status=TaskStatus.PENDING)
                )
                tx.emit(
                    changed.run_id, EventKind.TASK_WOKEN, changed.id, waiting_for=task.waiting_for
                )
        return woken

    def release(self, claim: Claim) -> Task:
        released = life.release(claim.task, claim.token, now=self._now())
        with self._write() as tx:
            stored = self._apply(tx, claim.task, released, token=claim.token)
            tx.emit(stored.run_id, EventKind.TASK_RELEASED, stored.id)
        return stored

    def reap(self, now: float | None = None) -> list[Task]:
        with self._write() as tx:
            return self._reap_in(tx, self._now() if now is None else now, None)

    def reopen(self, task_id: int) -> Task:
        with self._write() as tx:
            task = self._locked_task(tx, task_id)
            reopened = life.reopen(task, now=self._now())
            self._store_task(tx, reopened, token=task.claim_token, status=task.status)
            tx.emit(reopened.run_id, EventKind.TASK_REOPENED, reopened.id)
        return reopened

    def cancel(self, task_id: int, *, with_dependents: bool = False) -> list[Task]:
        with self._write() as tx:
            ids = self._with_dependents(tx, [task_id]) if with_dependents else [task_id]
            tasks = self._load_tasks(tx, f"id IN ({_marks(ids)})", ids, lock=self.db.lock_rows)
            if task_id not in {t.id for t in tasks}:
                raise TaskNotFound(task_id)
            return self._cancel_all(tx, tasks)

    def _with_dependents(self, tx: StoreTx, task_ids: list[int]) -> list[int]:
        """``task_ids`` and every task that waits on one of them, transitively."""
        ids, frontier = list(task_ids), list(task_ids)
        while frontier:
            found = tx.rows(
                f"SELECT task_id FROM ralph_task_deps WHERE depends_on IN ({_marks(frontier)})",
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
        return self._load_tasks(tx, f"id IN ({_marks(ids)})", ids, lock=self.db.lock_rows)

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

    def cancel_run(self, run_id: int) -> list[Task]:
        with self._write() as tx:
            self._locked_run(tx, run_id)
            tasks = self._load_tasks(tx, "run_id = ?", (run_id,), lock=self.db.lock_rows)
            canceled = self._cancel_all(tx, tasks)
            self._finish_run(tx, run_id, RunStatus.CANCELED)
        return canceled

    # -- events ---------------------------------------------------------------------------

    def events(self, run_id: int, cursor: int = 0, limit: int | None = None) -> list[Event]:
        sql = "SELECT * FROM ralph_events WHERE run_id = ? AND id > ? ORDER BY id"
        params: list[Any] = [run_id, cursor]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._reader() as tx:
            return [_event(row) for row in tx.rows(sql, params)]

    def wait_for_events(self, run_id: int, cursor: int, timeout: float) -> list[Event]:
        deadline = time.monotonic() + timeout
        seen = self.db.wait_for_change(0, 0.0)
        while True:
            found = self.events(run_id, cursor)
            remaining = deadline - time.monotonic()
            if found or remaining <= 0:
                return found
            seen = self.db.wait_for_change(seen, remaining)

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
        unpriced_model: str = "",
    ) -> Charge:
        with self._write() as tx:
            self._locked_run(tx, run_id)
            row = tx.one(
                "INSERT INTO ralph_charges (run_id, task_id, usd, tokens, turns, seconds, at, "
                "cache_read_tokens, cache_write_tokens, refused, unpriced_model) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (
                    run_id,
                    task_id,
                    usd,
                    tokens,
                    turns,
                    seconds,
                    self._now(),
                    cache_read_tokens,
                    cache_write_tokens,
                    json.dumps(list(refused)),
                    unpriced_model,
                ),
            )
        assert row is not None
        return _charge(row)

    def charges(self, run_id: int) -> list[Charge]:
        with self._reader() as tx:
            rows = tx.rows("SELECT * FROM ralph_charges WHERE run_id = ? ORDER BY id", (run_id,))
        return [_charge(row) for row in rows]

    def spent(self, *, run_id: int | None = None, since: float | None = None) -> float:
        where, params = _charges_where(run_id, since)
        with self._reader() as tx:
            row = tx.one(f"SELECT COALESCE(SUM(usd), 0) AS total FROM ralph_charges{where}", params)
        return float(row["total"]) if row is not None else 0.0

    def unpriced_models(
        self, *, run_id: int | None = None, since: float | None = None
    ) -> list[str]:
        where, params = _charges_where(run_id, since)
        sql = (
            f"SELECT unpriced_model, MIN(id) AS first FROM ralph_charges{where} "
            "AND unpriced_model <> '' GROUP BY unpriced_model ORDER BY first"
        )
        with self._reader() as tx:
            rows = tx.rows(sql, params)
        return [str(row["unpriced_model"]) for row in rows]

    # -- messages -------------------------------------------------------------------------

    def send_message(
        self, run_id: int, sender: str, recipient: str, kind: MessageKind | str, body: str
    ) -> Message:
        with self._write() as tx:
            self._locked_run(tx, run_id)
            return self._insert_message(tx, run_id, sender, recipient, MessageKind(kind), body)

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
        return _message(row)

    def messages(
        self, run_id: int, *, recipient: str | None = None, unread_only: bool = False
    ) -> list[Message]:
        sql = "SELECT * FROM ralph_messages WHERE run_id = ?"
        params: list[Any] = [run_id]
        if recipient is not None:
            sql += " AND recipient = ?"
            params.append(recipient)
        if unread_only:
            sql += " AND is_read = 0"
        with self._reader() as tx:
            return [_message(row) for row in tx.rows(sql + " ORDER BY id", params)]

    def mark_read(self, message_id: int) -> None:
        with self._write() as tx:
            tx.run("UPDATE ralph_messages SET is_read = 1 WHERE id = ?", (message_id,))

    # -- issue locks ----------------------------------------------------------------------

    def _held_lock(self, tx: StoreTx, repo: str, number: int) -> Row | None:
        return tx.one(
            f"SELECT * FROM ralph_issue_locks WHERE repo = ? AND number = ? {self.db.lock_rows}",
            (repo, number),
        )

    def acquire_issue_lock(
        self,
        repo: str,
        number: int,
        owner: str,
        token: str,
        *,
        lease_seconds: float | None = None,
    ) -> IssueLock:
        now = self._now()
        expires = now + (lease_seconds or self.lease_seconds)
        with self._write() as tx:
            # Insert-or-nothing, then lock the row: a concurrent first acquirer makes this
            # wait for its commit and then see its lock, never a key violation.
            tx.run(
                "INSERT INTO ralph_issue_locks (repo, number, owner, token, acquired_at, "
                "expires_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (repo, number) DO NOTHING",
                (repo, number, owner, token, now, expires),
            )
            held = self._held_lock(tx, repo, number)
            assert held is not None
            mine = (held["owner"], held["token"]) == (owner, token)
            if not mine and held["expires_at"] > now:
                raise IssueLocked(repo, number, held["owner"])
            acquired = held["acquired_at"] if mine else now
            tx.run(
                "UPDATE ralph_issue_locks SET owner = ?, token = ?, acquired_at = ?, "
                "expires_at = ? WHERE repo = ? AND number = ?",
                (owner, token, acquired, expires, repo, number),
            )
        return IssueLock(
            repo=repo,
            number=number,
            owner=owner,
            token=token,
            acquired_at=acquired,
            expires_at=expires,
        )

    def release_issue_lock(self, repo: str, number: int, owner: str, token: str) -> None:
        with self._write() as tx:
            held = self._held_lock(tx, repo, number)
            if held is None:
                return
            if (held["owner"], held["token"]) != (owner, token):
                raise IssueLocked(repo, number, held["owner"])
            tx.run("DELETE FROM ralph_issue_locks WHERE repo = ? AND number = ?", (repo, number))

    def get_issue_lock(self, repo: str, number: int) -> IssueLock | None:
        with self._reader() as tx:
            row = tx.one(
                "SELECT * FROM ralph_issue_locks WHERE repo = ? AND number = ?", (repo, number)
            )
        return IssueLock(**row) if row is not None else None

    def issue_locks(self, repo: str) -> list[IssueLock]:
        with self._reader() as tx:
            rows = tx.rows(
                "SELECT * FROM ralph_issue_locks WHERE repo = ? ORDER BY number", (repo,)
            )
        return [IssueLock(**row) for row in rows]

    def break_issue_lock(self, repo: str, number: int, owner: str) -> bool:
        with self._write() as tx:
            held = self._held_lock(tx, repo, number)
            if held is None or held["owner"] != owner:
                return False
            tx.run("DELETE FROM ralph_issue_locks WHERE repo = ? AND number = ?", (repo, number))
            return True

    def release_stale_issue_locks(
        self, holder_gone: Callable[[str], bool] | None = None
    ) -> list[IssueLock]:
        now = self._now()
        with self._write() as tx:
            rows = tx.rows(
                f"SELECT * FROM ralph_issue_locks ORDER BY repo, number {self.db.lock_rows}"
            )
            stale = [
                IssueLock(**row)
                for row in rows
                if row["expires_at"] < now
                or (holder_gone is not None and holder_gone(row["owner"]))
            ]
            for lock in stale:
                tx.run(
                    "DELETE FROM ralph_issue_locks WHERE repo = ? AND number = ? AND token = ?",
                    (lock.repo, lock.number, lock.token),
                )
        if stale:
            logger.info("released stale issue locks", extra={"locks": len(stale)})
        return stale

    # -- branches -----------------------------------------------------------------------

    def record_branch(self, repo: str, branch: str, origin: str) -> None:
        with self._write() as tx:
            tx.run(
                "INSERT INTO ralph_branches (repo, name, origin, recorded_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (repo, name) DO NOTHING",
                (repo, branch, origin, self._now()),
            )

    def branch_origin(self, repo: str, branch: str) -> str | None:
        with self._reader() as tx:
            row = tx.one(
                "SELECT origin FROM ralph_branches WHERE repo = ? AND name = ?", (repo, branch)
            )
        return str(row["origin"]) if row is not None else None

    # -- checkpoints ----------------------------------------------------------------------

    def save_checkpoint(self, key: str, value: Mapping[str, Any]) -> None:
        with self._write() as tx:
            tx.run(
                "INSERT INTO ralph_checkpoints (key, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (key, to_json(dict(value)), self._now()),
            )

    def load_checkpoint(self, key: str) -> dict[str, Any] | None:
        with self._reader() as tx:
            row = tx.one("SELECT value FROM ralph_checkpoints WHERE key = ?", (key,))
        return cast(dict[str, Any], json.loads(row["value"])) if row is not None else None

    def clear_checkpoint(self, key: str) -> None:
        with self._write() as tx:
            tx.run("DELETE FROM ralph_checkpoints WHERE key = ?", (key,))
