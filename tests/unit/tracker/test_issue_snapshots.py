"""Issue snapshots: a write forgets what it changed in every thread's open snapshot."""

from __future__ import annotations

import threading

from ralph.tracker._model import Issue
from ralph.tracker._snapshot import IssueSnapshots
from ralph.workflow import WorkflowState


def _issue(number: int) -> Issue:
    return Issue(number=number, title=f"issue {number}", workflow_state=WorkflowState.BACKLOG)


def test_forgetting_by_a_generator_reaches_every_threads_snapshot() -> None:
    snapshots = IssueSnapshots()
    kept_in_other_thread = threading.Event()
    forgotten = threading.Event()
    seen: list[Issue | None] = []

    def other() -> None:
        with snapshots.scope():
            snapshots.keep(_issue(7))
            kept_in_other_thread.set()
            forgotten.wait(10)
            seen.append(snapshots.get(7))

    thread = threading.Thread(target=other)
    thread.start()
    assert kept_in_other_thread.wait(10)
    with snapshots.scope():
        snapshots.keep(_issue(7))
        snapshots.forget(n for n in (7,))
        assert snapshots.get(7) is None
    forgotten.set()
    thread.join(10)
    assert seen == [None]
