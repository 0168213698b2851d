"""An idle worker woken by news that frees no task (another worker's claim, an agent's
activity) goes back to waiting without asking the store for work: a claim of a team's
ten workers would otherwise cost each idle one a run read, a holds read and a claim
query, round trips on PostgreSQL (issue 49). On every store backend."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate._execute import Execution
from ralph.orchestrate._worker import Worker
from ralph.runtimes import StopSignal
from ralph.tasks import Claim, EventKind, TaskStore

pytestmark = pytest.mark.timeout(60)

#: Bounds each wait; the worker reacts within milliseconds.
WAIT_SECONDS = 20.0
#: What a recorded call holds until it returns.
PENDING = object()


def _recorded(store: TaskStore, thread_name: str) -> list[list[Any]]:
    """The store calls the worker's own loop makes on thread ``thread_name``, as each
    starts (not those inside another: ``wait_for_events`` reads events), with what
    ``events`` returned once it has."""
    calls: list[list[Any]] = []
    inside = threading.local()
    for name in ("events", "wait_for_events", "get_run", "claim"):
        original = getattr(store, name)

        def recording(*args: Any, _name: str = name, _o: Any = original, **kwargs: Any) -> Any:
            if threading.current_thread().name != thread_name or getattr(inside, "on", False):
                return _o(*args, **kwargs)
            call: list[Any] = [_name, PENDING]
            calls.append(call)
            inside.on = True
            try:
                call[1] = _o(*args, **kwargs)
            finally:
                inside.on = False
            return call[1]

        setattr(store, name, recording)
    return calls


def test_another_workers_claim_wakes_no_claim(make_store):
    store = make_store()
    run = store.create_run("run", root_issue=1)
    store.add_tasks(
        run.id,
        [TaskSpec("research:1", TaskKind.RESEARCH, Role.ANALYST, (1,), "Research", "Researching")],
    )

    def execute(claim: Claim, stop: StopSignal) -> Execution:
        raise AssertionError("the builder has nothing to take")

    builder = Worker(store, run.id, "builder-1", ("builder",), execute, idle_seconds=WAIT_SECONDS)
    calls = _recorded(store, "builder-thread")
    thread = threading.Thread(target=builder.run, name="builder-thread", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while not any(name == "claim" and found is not PENDING for name, found in calls):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        claimed = store.claim(run.id, "analyst-1", ["analyst"])
        assert claimed is not None

        def woken_by_the_claim() -> int | None:
            for at, (name, found) in enumerate(calls):
                if name in ("events", "wait_for_events") and any(
                    e.kind is EventKind.TASK_CLAIMED for e in (() if found is PENDING else found)
                ):
                    return at
            return None

        while (at := woken_by_the_claim()) is None or len(calls) <= at + 1:
            assert time.monotonic() < deadline, calls
            time.sleep(0.01)
        assert calls[at + 1][0] == "wait_for_events", [name for name, _ in calls]
    finally:
        store.request_shutdown(run.id)
        thread.join(WAIT_SECONDS)
    assert not thread.is_alive()
    assert sum(name == "claim" for name, _ in calls) == 1


def test_the_news_a_wait_brings_is_not_read_again(make_store):
    store = make_store()
    run = store.create_run("run", root_issue=1)
    taken = threading.Event()

    def execute(claim: Claim, stop: StopSignal) -> Execution:
        taken.set()
        store.request_shutdown(run.id)
        raise AssertionError("ends the test")  # handed back; the shutdown ends the loop

    builder = Worker(store, run.id, "builder-1", ("builder",), execute, idle_seconds=WAIT_SECONDS)
    calls = _recorded(store, "builder-thread")
    thread = threading.Thread(target=builder.run, name="builder-thread", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while not any(name == "claim" and found is not PENDING for name, found in calls):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        store.add_tasks(
            run.id,
            [TaskSpec("implement:1", TaskKind.IMPLEMENT, Role.BUILDER, (1,), "Do", "Doing")],
        )
        assert taken.wait(WAIT_SECONDS)
    finally:
        store.request_shutdown(run.id)
        thread.join(WAIT_SECONDS)
    assert not thread.is_alive()
    names = [name for name, _ in calls]
    assert names[:6] == ["events", "get_run", "claim", "wait_for_events", "get_run", "claim"]
