"""The task store's rows: a transaction that collects the events to append at its end,
and the model objects each table's rows decode to."""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ralph.db import Columns, Row, Tx
from ralph.tasks._model import (
    BatchStatus,
    Charge,
    Event,
    EventKind,
    MergeBatch,
    Message,
    MessageKind,
    Run,
    RunStatus,
    Task,
    TaskStatus,
)

__all__ = [
    "PendingEvent",
    "StoreTx",
    "cached_task",
    "marks",
    "to_batch",
    "to_charge",
    "to_event",
    "to_json",
    "to_message",
    "to_run",
    "to_task",
]

#: (run id, kind, task id, data) of an event a transaction will append.
PendingEvent = tuple[int, EventKind, int | None, Mapping[str, Any]]


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

    def run_last(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._tx.run_last(sql, params)

    def emit(self, run_id: int, kind: EventKind, task_id: int | None = None, **data: Any) -> None:
        self.pending_events.append((run_id, kind, task_id, data))


def to_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def to_task(row: Row, deps: Sequence[int]) -> Task:
    return cached_task(tuple(row), tuple(row.values()), tuple(deps))


@functools.lru_cache(maxsize=4096)
def cached_task(columns: tuple[str, ...], values: tuple[Any, ...], deps: tuple[int, ...]) -> Task:
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


def to_run(row: Row) -> Run:
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


def to_event(row: Row) -> Event:
    return Event(
        id=row["id"],
        run_id=row["run_id"],
        kind=EventKind(row["kind"]),
        task_id=row["task_id"],
        data=json.loads(row["data"]),
        at=row["at"],
    )


def to_message(row: Row) -> Message:
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


def to_charge(row: Row) -> Charge:
    return Charge(**{**row, "refused": tuple(json.loads(row["refused"]))})


def to_batch(row: Row) -> MergeBatch:
    return MergeBatch(
        id=row["id"],
        run_id=row["run_id"],
        task_id=row["task_id"],
        repo=row["repo"],
        train=json.loads(row["train"]),
        status=BatchStatus(row["status"]),
        started_at=row["started_at"],
        updated_at=row["updated_at"],
    )


def marks(values: Collection[Any]) -> str:
    return ", ".join("?" for _ in values)
