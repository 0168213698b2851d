"""Ending a task for good in one transaction: an escalation (fail, cancel what waits on
the task, tell the lead) and a failure that cancels its dependents, on every backend."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

from ralph.db import Columns, Row, Tx
from ralph.errors import StoreUnavailable
from ralph.tasks import EventKind, LeaseLost, MessageKind, TaskStatus
from tests.integration.tasks.test_store_contract import chain, spec


class Refusing(Tx):
    """A transaction whose database refuses any statement naming ``table``."""

    def __init__(self, tx: Tx, table: str) -> None:
        self._tx = tx
        self._table = table

    def _check(self, sql: str) -> None:
        if self._table in sql:
            raise StoreUnavailable(f"injected: the database refused a write to {self._table}")

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        self._check(sql)
        return self._tx.rows(sql, params)

    def columns(self, sql: str, params: Sequence[Any] = ()) -> Columns:
        self._check(sql)
        return self._tx.columns(sql, params)

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        self._check(sql)
        return self._tx.run(sql, params)

    def run_last(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._check(sql)
        self._tx.run_last(sql, params)


def refuse_writes_to(store, monkeypatch, table: str) -> None:
    original = store.db.write_transaction

    @contextmanager
    def refusing() -> Iterator[Tx]:
        with original() as tx:
            yield Refusing(tx, table)

    monkeypatch.setattr(store.db, "write_transaction", refusing)


def a_graph(store):
    """``a`` with ``b`` and ``c`` waiting on it in a chain, and ``x`` independent."""
    run = store.create_run("r", root_issue=1)
    tasks = store.add_tasks(run.id, [spec("a"), spec("b", ["a"]), spec("c", ["b"]), spec("x")])
    return run, {t.key: t for t in tasks}


def statuses(store, run_id):
    return {t.key: t.status for t in store.list_tasks(run_id)}


class TestEscalation:
    def test_an_escalation_fails_the_task_cancels_its_dependents_and_tells_the_lead(self, store):
        run, tasks = a_graph(store)
        claim = store.claim_task(tasks["a"].id, "W")
        escalated = store.escalate(claim, "escalated: out of scope", "a: #1 needs a person")
        assert escalated.status is TaskStatus.FAILED
        assert escalated.error == "escalated: out of scope"
        assert statuses(store, run.id) == {
            "a": TaskStatus.FAILED,
            "b": TaskStatus.CANCELED,
            "c": TaskStatus.CANCELED,
            "x": TaskStatus.PENDING,
        }
        [message] = store.messages(run.id, recipient="lead")
        assert (message.sender, message.kind, message.body) == (
            "W",
            MessageKind.ESCALATION,
            "a: #1 needs a person",
        )
        kinds = [e.kind for e in store.events(run.id)][-4:]
        assert kinds == [
            EventKind.TASK_DEAD,  # what a final failure announces
            EventKind.TASK_CANCELED,
            EventKind.TASK_CANCELED,
            EventKind.MESSAGE,
        ]

    def test_an_escalation_refused_midway_leaves_nothing_half_done(self, store, monkeypatch):
        run, tasks = a_graph(store)
        claim = store.claim_task(tasks["a"].id, "W")
        cursor = store.events(run.id)[-1].id
        # The task's failure and the cancellations are written before the message.
        refuse_writes_to(store, monkeypatch, "ralph_messages")
        with pytest.raises(StoreUnavailable):
            store.escalate(claim, "escalated: out of scope", "a: #1 needs a person")
        monkeypatch.undo()
        assert statuses(store, run.id) == {
            "a": TaskStatus.RUNNING,
            "b": TaskStatus.PENDING,
            "c": TaskStatus.PENDING,
            "x": TaskStatus.PENDING,
        }
        assert store.messages(run.id) == []
        assert store.events(run.id, cursor) == []
        # The claim still holds: the worker can end its task once the database is back.
        assert store.escalate(claim, "escalated: again", "a: #1").status is TaskStatus.FAILED

    def test_a_late_completion_of_an_escalated_task_is_refused(self, store):
        run, tasks = a_graph(store)
        claim = store.claim_task(tasks["a"].id, "W")
        store.escalate(claim, "escalated: no", "a: #1 needs a person")
        with pytest.raises(LeaseLost):
            store.complete(claim, {"late": True})
        assert store.get_task(tasks["a"].id).status is TaskStatus.FAILED
        assert statuses(store, run.id)["b"] is TaskStatus.CANCELED

    def test_escalating_a_lost_claim_writes_nothing(self, store):
        run, tasks = a_graph(store)
        claim = store.claim_task(tasks["a"].id, "W")
        store.cancel(tasks["a"].id)
        with pytest.raises(LeaseLost):
            store.escalate(claim, "escalated: too late", "a: #1 needs a person")
        assert store.messages(run.id) == []
        assert statuses(store, run.id)["b"] is TaskStatus.PENDING

    def test_an_escalation_spares_dependents_that_already_finished(self, store):
        run, tasks = a_graph(store)
        done = store.claim_task(tasks["a"].id, "W")
        store.complete(done, "first")
        store.complete(store.claim_task(tasks["b"].id, "W"), "built on a")
        store.reopen(tasks["a"].id)
        claim = store.claim_task(tasks["a"].id, "W")
        store.escalate(claim, "escalated: second look", "a: #1 needs a person")
        found = statuses(store, run.id)
        assert (found["b"], found["c"]) == (TaskStatus.DONE, TaskStatus.PENDING)


class TestFailingWithDependents:
    def test_a_dead_task_takes_its_dependents_with_it(self, make_store, clock):
        store = make_store(clock=clock)
        run = store.create_run("r", root_issue=1)
        a, b, x = store.add_tasks(run.id, [spec("a", max_attempts=1), spec("b", ["a"]), spec("x")])
        dead = store.fail(store.claim_task(a.id, "W"), "broke", cancel_dependents=True)
        assert dead.status is TaskStatus.DEAD
        assert store.get_task(b.id).status is TaskStatus.CANCELED
        assert store.get_task(x.id).status is TaskStatus.PENDING

    def test_a_failure_that_will_be_retried_keeps_its_dependents(self, store):
        _run, tasks = chain(store, "a", "b")
        failed = store.fail(store.claim_task(tasks["a"].id, "W"), "529", cancel_dependents=True)
        assert failed.status is TaskStatus.PENDING
        assert store.get_task(tasks["b"].id).status is TaskStatus.PENDING

    def test_a_final_failure_refused_midway_cancels_nothing(self, store, monkeypatch):
        run, tasks = chain(store, "a", "b", "c")
        claim = store.claim_task(tasks["a"].id, "W")
        # The failure is written first; the events, last, are refused.
        refuse_writes_to(store, monkeypatch, "ralph_events")
        with pytest.raises(StoreUnavailable):
            store.fail(claim, "out of scope", retryable=False, cancel_dependents=True)
        monkeypatch.undo()
        assert statuses(store, run.id) == {
            "a": TaskStatus.RUNNING,
            "b": TaskStatus.PENDING,
            "c": TaskStatus.PENDING,
        }
