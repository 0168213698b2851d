"""SQLite write discipline (T5) and concurrent migrations (T9) on both SQL backends."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading

import pytest

from ralph.db import SqliteDatabase
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.tasks import TASK_STORE_MIGRATIONS, TaskStore

WRITES = ("INSERT", "UPDATE", "DELETE", "CREATE")


def test_t5_every_write_transaction_begins_immediate(tmp_path):
    statements: list[str] = []
    store = TaskStore(SqliteDatabase(tmp_path / "r.db", trace=statements.append))
    run = store.create_run("r")
    store.add_tasks(
        run.id,
        [
            TaskSpec("a", TaskKind.RESEARCH, Role.ANALYST, (1,), "A", "A"),
            TaskSpec("b", TaskKind.PLAN, Role.BUILDER, (1,), "B", "B", ("a",)),
        ],
    )
    claim = store.claim(run.id, "w", ["analyst"])
    assert claim is not None
    store.heartbeat(claim)
    store.update_progress(claim, metadata={"x": 1})
    store.complete(claim, {"ok": True})
    store.reap()
    store.acquire_issue_lock("o/r", 1, "w", "t")
    store.close()

    opened = None
    writes = 0
    for statement in statements:
        word = statement.strip().split()[0].upper()
        if word == "BEGIN":
            opened = statement.strip().upper()
        elif word in ("COMMIT", "ROLLBACK"):
            opened = None
        elif word in WRITES:
            writes += 1
            assert opened == "BEGIN IMMEDIATE", f"write outside BEGIN IMMEDIATE: {statement}"
    assert writes > 10


def test_f4_a_deferred_read_then_write_fails_at_once_under_contention(tmp_path):
    """The regression this discipline guards against: busy_timeout does not help a
    deferred transaction that upgrades to a write after another connection wrote."""
    path = tmp_path / "f4.db"
    setup = sqlite3.connect(path, isolation_level=None)
    setup.execute("PRAGMA journal_mode = WAL")
    setup.execute("CREATE TABLE t (x INTEGER)")
    setup.execute("INSERT INTO t VALUES (1)")
    reader = sqlite3.connect(path, isolation_level=None, timeout=5)
    reader.execute("BEGIN")
    reader.execute("SELECT * FROM t").fetchall()
    setup.execute("UPDATE t SET x = 2")  # another connection commits a write
    with pytest.raises(sqlite3.OperationalError, match=r"locked|busy"):
        reader.execute("UPDATE t SET x = 3")
    reader.execute("ROLLBACK")
    reader.close()
    setup.close()


MIGRATE = """
import sys
from ralph.tasks import open_store
store = open_store(sys.argv[1], migrate=False)
store.migrate()
print(",".join(map(str, store.schema_versions())))
store.close()
"""


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def fresh_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/fresh.db"
    return request.getfixturevalue("pg_schema_url")


def test_t9_concurrent_migrations_all_succeed_and_apply_once(fresh_url):
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", MIGRATE, fresh_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    outputs = [p.communicate(timeout=120) for p in processes]
    for process, (out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err
        assert out.strip() == ",".join(str(m.version) for m in TASK_STORE_MIGRATIONS)


def test_threads_share_one_sqlite_store(tmp_path):
    store = TaskStore(SqliteDatabase(tmp_path / "t.db"))
    run = store.create_run("r")
    errors: list[BaseException] = []

    def add(prefix):
        try:
            for i in range(20):
                spec = TaskSpec(f"{prefix}{i}", TaskKind.RESEARCH, Role.ANALYST, (1,), "s", "s")
                store.add_tasks(run.id, [spec])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(p,)) for p in "abcd"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store.list_tasks(run.id)) == 80
    store.close()
