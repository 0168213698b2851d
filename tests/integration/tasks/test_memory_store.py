"""``memory://``: SQLite in memory, private to the store that opened it, shared by the
threads of its process, and gone when it closes."""

from __future__ import annotations

import threading
import time

from ralph.graph import Role, TaskKind, TaskSpec
from ralph.tasks import open_store

SPEC = TaskSpec("a", TaskKind.RESEARCH, Role.ANALYST, (1,), "A", "")


def test_a_store_in_memory_writes_nothing_to_disk(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open_store("memory://") as store:
        store.add_tasks(store.create_run("r").id, [SPEC])
    assert list(tmp_path.iterdir()) == []


def test_two_stores_in_memory_are_two_databases():
    with open_store("memory://") as first, open_store("memory://") as second:
        first.create_run("r")
        assert second.list_runs() == []


def test_a_waiter_in_another_thread_wakes_at_once_on_a_write():
    with open_store("memory://", create=False) as store:
        run = store.create_run("r")
        woke: list[float] = []

        def wait() -> None:
            store.wait_for_events(run.id, 0, timeout=10.0)
            woke.append(time.monotonic())

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.1)  # the waiter is asleep by now
        added = time.monotonic()
        store.add_tasks(run.id, [SPEC])
        waiter.join(timeout=10.0)
        assert woke, "the waiter did not wake within 10 s"
        assert woke[0] - added < 1.0
