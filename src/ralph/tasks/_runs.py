"""The task store's runs and their graphs of tasks: created, read, listed, woken,
reopened and canceled."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ralph.errors import RunNotFound, TaskNotClaimable, TaskNotFound
from ralph.graph import TaskSpec
from ralph.tasks import _lifecycle as life
from ralph.tasks._core import StoreCore
from ralph.tasks._model import EventKind, Run, RunStatus, Task, TaskStatus
from ralph.tasks._rows import StoreTx, marks, to_json, to_run

__all__ = ["RunVerbs"]

#: A listing re-reads changed tasks by id up to this many; beyond, it reads them all.
_MAX_REREAD = 500
#: Tasks remembered for listings; past this the memory starts again, empty.
_MAX_KNOWN = 50_000


class RunVerbs(StoreCore):
    """Runs, and their tasks read, added, woken, reopened and canceled."""

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
        return to_run(row)

    def get_run(self, run_id: int) -> Run:
        """Raises RunNotFound."""
        with self._reader() as tx:
            row = tx.one("SELECT * FROM ralph_runs WHERE id = ?", (run_id,))
        if row is None:
            raise RunNotFound(run_id)
        return to_run(row)

    def list_runs(
        self, *, status: RunStatus | None = None, root_issue: int | None = None
    ) -> list[Run]:
        """Newest first."""
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
        return [to_run(row) for row in rows]

    def finish_run(self, run_id: int, status: RunStatus = RunStatus.FINISHED) -> Run:
        """Close the run and append run_finished; pending and running tasks stay as they
        are (cancel_run cancels them)."""
        with self._write() as tx:
            run = self._finish_run(tx, run_id, RunStatus(status))
        return run

    def request_shutdown(self, run_id: int) -> None:
        """Ask every worker of the run to stop; appends shutdown_requested."""
        with self._write() as tx:
            self._locked_run(tx, run_id)
            tx.run(
                "UPDATE ralph_runs SET shutdown_requested = 1, updated_at = ? WHERE id = ?",
                (self._now(), run_id),
            )
            tx.emit(run_id, EventKind.SHUTDOWN_REQUESTED)

    # -- tasks ----------------------------------------------------------------------------

    def add_tasks(self, run_id: int, specs: Iterable[TaskSpec]) -> list[Task]:
        """Insert tasks and their dependency rows in one transaction; raises GraphError
        (and writes nothing) for a duplicate key, an unknown dependency or a cycle."""
        specs = list(specs)
        with self._write() as tx:
            self._locked_run(tx, run_id)
            return self._insert(tx, run_id, specs)

    def get_task(self, task_id: int) -> Task:
        """Raises TaskNotFound."""
        with self._reader() as tx:
            found = self._load_tasks(tx, "id = ?", (task_id,))
        if not found:
            raise TaskNotFound(task_id)
        return found[0]

    def key_holders(self, run_id: int) -> dict[int, Task]:
        """The run's tasks ready but for their serialisation key (pending, past their
        not-before time, every dependency done), each with the running task, of any run,
        that holds the key."""
        with self._reader() as tx:
            rows = tx.rows(
                "SELECT w.id AS waiting, r.id AS holder FROM ralph_tasks w "
                "JOIN ralph_tasks r ON r.serial_key = w.serial_key AND r.status = 'running' "
                "WHERE w.run_id = ? AND w.status = 'pending' AND w.not_before <= ? "
                "AND NOT EXISTS (SELECT 1 FROM ralph_task_deps d "
                "JOIN ralph_tasks p ON p.id = d.depends_on "
                "WHERE d.task_id = w.id AND p.status <> 'done') ORDER BY w.id",
                (run_id, self._now()),
            )
            ids = sorted({row["holder"] for row in rows})
            found = self._load_tasks(tx, f"id IN ({marks(ids)})", ids) if ids else []
        holders = {task.id: task for task in found}
        return {row["waiting"]: holders[row["holder"]] for row in rows}

    def list_tasks(
        self,
        run_id: int | None = None,
        *,
        status: TaskStatus | str | None = None,
        role: str | None = None,
        kind: str | None = None,
        issue: int | None = None,
    ) -> list[Task]:
        """In creation order."""
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
            fresh = self._load_tasks(tx, f"id IN ({marks(stale)})", stale)
        else:
            fresh = []
        revisions: dict[int, int] = dict(heads)
        for task in fresh:
            known[task.id] = (revisions.get(task.id, -1), task)
        # A task gone between the two reads (its run deleted meanwhile) is left out.
        return [known[task_id][1] for task_id, _ in heads if task_id in known]

    def assign(self, task_id: int, worker: str) -> Task:
        """Mark a pending task as meant for ``worker``: its claims take it first."""
        with self._write() as tx:
            task = self._locked_task(tx, task_id)
            if task.status is not TaskStatus.PENDING:
                raise TaskNotClaimable(f"task {task_id} is {task.status.value}, not pending")
            tx.run(
                "UPDATE ralph_tasks SET owner = ?, revision = revision + 1 WHERE id = ?",
                (worker, task_id),
            )
        return self.get_task(task_id)

    def wake(self, task_ids: Iterable[int]) -> list[Task]:
        """Make waiting tasks claimable now (what they wait for may have changed: a
        review posted, a rerun of the command); appends task_woken for each. Tasks that
        are not waiting, or are claimable already, are left alone. Returns those woken."""
        ids = sorted(set(task_ids))
        if not ids:
            return []
        with self._write() as tx:
            now = self._now()
            woken = []
            for task in self._load_tasks(tx, f"id IN ({marks(ids)})", ids, lock=self.db.lock_rows):
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

    def reopen(self, task_id: int) -> Task:
        """A finished task (done, failed, dead, canceled) becomes pending again."""
        with self._write() as tx:
            task = self._locked_task(tx, task_id)
            reopened = life.reopen(task, now=self._now())
            self._store_task(tx, reopened, token=task.claim_token, status=task.status)
            tx.emit(reopened.run_id, EventKind.TASK_REOPENED, reopened.id)
        return reopened

    def cancel(self, task_id: int, *, with_dependents: bool = False) -> list[Task]:
        """Cancel a task that is not finished (and, optionally, everything that waits on
        it, transitively). Returns the tasks it canceled."""
        with self._write() as tx:
            ids = self._with_dependents(tx, [task_id]) if with_dependents else [task_id]
            tasks = self._load_tasks(tx, f"id IN ({marks(ids)})", ids, lock=self.db.lock_rows)
            if task_id not in {t.id for t in tasks}:
                raise TaskNotFound(task_id)
            return self._cancel_all(tx, tasks)

    def cancel_run(self, run_id: int) -> list[Task]:
        """Cancel every unfinished task and close the run as canceled."""
        with self._write() as tx:
            self._locked_run(tx, run_id)
            tasks = self._load_tasks(tx, "run_id = ?", (run_id,), lock=self.db.lock_rows)
            canceled = self._cancel_all(tx, tasks)
            self._finish_run(tx, run_id, RunStatus.CANCELED)
        return canceled
