"""No exception ends a worker thread: a task whose execution raised is handed back at once
(not when its lease runs out, a minute later) and the worker goes on; a worker whose own
loop raised is started again. On every store backend."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate import load_report
from ralph.orchestrate._execute import WORKER_BROKE, Execution, ExecutionStatus
from ralph.orchestrate._worker import Crew, Worker
from ralph.runtimes import StopSignal
from ralph.tasks import Claim, EventKind, TaskStatus, TaskStore

#: Far longer than any wait below: a task that waited for its lease would fail the test.
LEASE_SECONDS = 600.0
#: Bounds each wait; the work itself takes milliseconds.
WAIT_SECONDS = 30.0


def _specs(*keys: str) -> list[TaskSpec]:
    return [
        TaskSpec(
            key, TaskKind.RESEARCH, Role.ANALYST, (1,), f"Research {key}", f"Researching {key}"
        )
        for key in keys
    ]


def _finish(store: TaskStore, run_id: int, crew: Crew) -> None:
    """Wait until every task of the run is done, then end the run's workers."""
    deadline = time.monotonic() + WAIT_SECONDS
    cursor = 0
    while any(t.status is not TaskStatus.DONE for t in store.list_tasks(run_id)):
        assert time.monotonic() < deadline, [t.status for t in store.list_tasks(run_id)]
        news = store.wait_for_events(run_id, cursor, 1.0)
        cursor = news[-1].id if news else cursor
    store.request_shutdown(run_id)
    assert crew.join(WAIT_SECONDS)


def _crew(store: TaskStore, run_id: int, execute: Callable[[Claim, StopSignal], Execution]) -> Crew:
    worker = Worker(store, run_id, "analyst-1", ("analyst",), execute)
    return Crew([worker])


def test_a_task_whose_ending_raises_is_handed_back_at_once_and_the_worker_goes_on(make_store):
    store = make_store(lease_seconds=LEASE_SECONDS)
    run = store.create_run("run", root_issue=1)
    first, _ = store.add_tasks(run.id, _specs("research:1", "research:2"))
    broke = threading.Event()

    def execute(claim: Claim, stop: StopSignal) -> Execution:
        if claim.task_id == first.id and not broke.is_set():
            broke.set()
            raise OSError("disk full")  # as a store write in a task's ending may
        store.complete(claim, {})
        return Execution(claim.task_id, ExecutionStatus.DONE)

    crew = _crew(store, run.id, execute)
    crew.start()
    _finish(store, run.id, crew)

    (worker,) = crew.workers
    assert worker.stats.broke == 1
    events = store.events(run.id)
    failed = [e for e in events if e.kind is EventKind.TASK_FAILED]
    assert [e.data["error"] for e in failed] == [f"{WORKER_BROKE}OSError: disk full"]
    assert not [e for e in events if e.kind is EventKind.TASK_EXPIRED]
    assert store.get_task(first.id).attempts == 2  # the broken attempt counted
    report = load_report(store, run.id)
    assert (report.counters.worker_broke, report.counters.leases_expired) == (1, 0)


def test_a_task_that_always_breaks_its_worker_goes_dead_and_the_rest_are_done(make_store):
    store = make_store(lease_seconds=LEASE_SECONDS)
    run = store.create_run("run", root_issue=1)
    broken, other = store.add_tasks(run.id, _specs("research:1", "research:2"))

    def execute(claim: Claim, stop: StopSignal) -> Execution:
        if claim.task_id == broken.id:
            raise RuntimeError("always")
        store.complete(claim, {})
        return Execution(claim.task_id, ExecutionStatus.DONE)

    crew = _crew(store, run.id, execute)
    crew.start()
    deadline = time.monotonic() + WAIT_SECONDS
    while not (
        store.get_task(broken.id).status is TaskStatus.DEAD
        and store.get_task(other.id).status is TaskStatus.DONE
    ):
        assert time.monotonic() < deadline
        store.wait_for_events(run.id, 0, 1.0)
    store.request_shutdown(run.id)
    assert crew.join(WAIT_SECONDS)
    assert store.get_task(broken.id).attempts == broken.max_attempts


def test_a_worker_whose_loop_raised_starts_again(make_store, monkeypatch: pytest.MonkeyPatch):
    store = make_store(lease_seconds=LEASE_SECONDS)
    run = store.create_run("run", root_issue=1)
    store.add_tasks(run.id, _specs("research:1"))

    def execute(claim: Claim, stop: StopSignal) -> Execution:
        store.complete(claim, {})
        return Execution(claim.task_id, ExecutionStatus.DONE)

    crew = _crew(store, run.id, execute)
    (worker,) = crew.workers
    real = worker.run
    calls: list[int] = []

    def run_once_broken() -> object:
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("the store went away a moment")
        return real()

    monkeypatch.setattr(worker, "run", run_once_broken)
    crew.start()
    _finish(store, run.id, crew)
    assert worker.stats.restarts == 1
    assert len(calls) == 2
