"""The task store's merge batches: each merge train's durable record, saved by its
conductor after every step, so a train whose conductor died is taken over where it
stood; and the merge tasks a conductor gathers its cars from."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ralph.errors import BatchNotFound, BatchRefused, RunNotFound, TaskNotFound
from ralph.tasks._core import StoreCore
from ralph.tasks._model import BatchStatus, MergeBatch, Task
from ralph.tasks._rows import StoreTx, to_batch, to_json

__all__ = ["BatchVerbs"]


def _like(text: str) -> str:
    """``text`` as a LIKE pattern that matches only itself (with ``ESCAPE '!'``)."""
    return text.replace("!", "!!").replace("%", "!%").replace("_", "!_")


class BatchVerbs(StoreCore):
    """Merge batches, and the tasks waiting on a serialisation key."""

    def open_batch(
        self, run_id: int, task_id: int, repo: str, train: Mapping[str, Any]
    ) -> MergeBatch:
        """Record a new train of ``repo``, running, conducted by ``task_id`` of
        ``run_id``. Raises BatchRefused while the repository has an unfinished batch
        (take that one over: ``unfinished_batch``), RunNotFound or TaskNotFound."""
        now = self._now()
        try:
            with self._write() as tx:
                if tx.one("SELECT id FROM ralph_runs WHERE id = ?", (run_id,)) is None:
                    raise RunNotFound(run_id)
                if tx.one("SELECT id FROM ralph_tasks WHERE id = ?", (task_id,)) is None:
                    raise TaskNotFound(task_id)
                running = self._running_batch(tx, repo)
                if running is not None:
                    raise BatchRefused(running.id, repo, "is still running")
                row = tx.one(
                    "INSERT INTO ralph_merge_batches (run_id, task_id, repo, train, status, "
                    "started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *",
                    (
                        run_id,
                        task_id,
                        repo,
                        to_json(dict(train)),
                        BatchStatus.RUNNING.value,
                        now,
                        now,
                    ),
                )
        except Exception as error:
            if self.db.unique_violation(error, "repo"):
                # Another conductor opened one between the look and the insert.
                raise BatchRefused(None, repo, "is still running") from error
            raise
        assert row is not None
        return to_batch(row)

    def save_batch(
        self,
        batch_id: int,
        train: Mapping[str, Any],
        status: BatchStatus | None = None,
        *,
        task_id: int | None = None,
        token: int | None = None,
    ) -> MergeBatch:
        """Keep the train as it stands now, and ``status`` when given (done or
        abandoned end it). ``task_id``: the conductor's task, and ``token`` its claim
        when given: the write is fenced, refused when another conductor took the
        batch over (``take_over_batch``) or the task was claimed again since, so two
        conductors never drive one batch. Raises BatchNotFound, or BatchRefused for
        a batch already ended (its record is kept as it ended) or fenced off."""
        with self._write() as tx:
            row = tx.one(
                f"SELECT * FROM ralph_merge_batches WHERE id = ? {self.db.lock_rows}", (batch_id,)
            )
            if row is None:
                raise BatchNotFound(batch_id)
            batch = to_batch(row)
            if batch.status is not BatchStatus.RUNNING:
                raise BatchRefused(batch_id, batch.repo, f"is {batch.status.value}")
            if task_id is not None:
                self._fence(tx, batch, task_id, token)
            row = tx.one(
                "UPDATE ralph_merge_batches SET train = ?, status = ?, updated_at = ? "
                "WHERE id = ? RETURNING *",
                (
                    to_json(dict(train)),
                    BatchStatus(status or batch.status).value,
                    self._now(),
                    batch_id,
                ),
            )
        assert row is not None
        return to_batch(row)

    def take_over_batch(self, batch_id: int, run_id: int, task_id: int) -> MergeBatch:
        """Make running batch ``batch_id`` conducted by ``task_id`` of ``run_id`` from
        now on, in one write: its former conductor's saves are refused after. Raises
        BatchNotFound, or BatchRefused for a batch that has ended."""
        with self._write() as tx:
            row = tx.one(
                "UPDATE ralph_merge_batches SET run_id = ?, task_id = ?, updated_at = ? "
                "WHERE id = ? AND status = ? RETURNING *",
                (run_id, task_id, self._now(), batch_id, BatchStatus.RUNNING.value),
            )
            if row is None:
                ended = tx.one("SELECT * FROM ralph_merge_batches WHERE id = ?", (batch_id,))
                if ended is None:
                    raise BatchNotFound(batch_id)
                batch = to_batch(ended)
                raise BatchRefused(batch_id, batch.repo, f"is {batch.status.value}")
        return to_batch(row)

    def batches(
        self, run_id: int | None = None, repo: str | None = None, *, since: float | None = None
    ) -> list[MergeBatch]:
        """The batches conducted in ``run_id``, of ``repo``, still at work at or after
        ``since`` (each filter when given), oldest first."""
        sql, params = "SELECT * FROM ralph_merge_batches WHERE 1 = 1", list[Any]()
        for clause, value in (
            ("run_id = ?", run_id),
            ("repo = ?", repo),
            ("updated_at >= ?", since),
        ):
            if value is not None:
                sql += f" AND {clause}"
                params.append(value)
        with self._reader() as tx:
            rows = tx.rows(sql, params)
        # Sorted here: an ORDER BY id would lead SQLite to walk the table in id order
        # rather than the index of the filter.
        return sorted((to_batch(row) for row in rows), key=lambda batch: batch.id)

    def unfinished_batch(self, repo: str) -> MergeBatch | None:
        """The batch of ``repo`` still running (its conductor at work, or dead at work:
        a new conductor takes it over), if any."""
        with self._reader() as tx:
            return self._running_batch(tx, repo)

    def rejection_of(self, repo: str, pr: int, head: str) -> dict[str, Any] | None:
        """Why the latest train of ``repo`` that sent pull request ``pr`` back on
        ``head`` did so (its rejection: ``pr``, ``head``, ``reason``, ``after``,
        ``conflict``); None when none did. A car left out for a textual conflict was
        not sent back: it does not count."""
        # Only the records that name the head at all are decoded, newest first.
        pattern = f"%{_like(json.dumps(head))}%"
        with self._reader() as tx:
            rows = tx.rows(
                "SELECT * FROM ralph_merge_batches WHERE repo = ? AND train LIKE ? ESCAPE '!' "
                "ORDER BY id DESC",
                (repo, pattern),
            )
        for row in rows:
            for rejection in json.loads(row["train"]).get("rejected", ()):
                if (
                    rejection.get("pr") == pr
                    and rejection.get("head") == head
                    and not rejection.get("conflict", False)
                ):
                    return dict(rejection)
        return None

    def waiting_on_key(self, serial_key: str) -> list[Task]:
        """The pending tasks of any run with ``serial_key`` whose dependencies are all
        done, in id order: what a train's conductor may take along. A deferred task
        (its not-before time ahead) is one too: a merge waiting to be looked at again
        may be ready now."""
        with self._reader() as tx:
            return self._load_tasks(
                tx,
                "serial_key = ? AND status = 'pending' AND NOT EXISTS (SELECT 1 FROM "
                "ralph_task_deps d JOIN ralph_tasks p ON p.id = d.depends_on "
                "WHERE d.task_id = ralph_tasks.id AND p.status <> 'done')",
                (serial_key,),
            )

    def _fence(self, tx: StoreTx, batch: MergeBatch, task_id: int, token: int | None) -> None:
        """Refuse a write by ``task_id`` (with claim ``token``) to a batch not its own."""
        if batch.task_id != task_id:
            raise BatchRefused(batch.id, batch.repo, f"is conducted by task {batch.task_id} now")
        if token is None:
            return
        task = tx.one("SELECT status, claim_token FROM ralph_tasks WHERE id = ?", (task_id,))
        if task is None or task["status"] != "running" or task["claim_token"] != token:
            raise BatchRefused(
                batch.id, batch.repo, f"is conducted by task {task_id} under another claim"
            )

    def _running_batch(self, tx: StoreTx, repo: str) -> MergeBatch | None:
        row = tx.one(
            "SELECT * FROM ralph_merge_batches WHERE repo = ? AND status = ?",
            (repo, BatchStatus.RUNNING.value),
        )
        return to_batch(row) if row is not None else None
