"""SQLite: the embedded default, safe for several processes on one host; or, in memory,
a database private to one process.

WAL lets readers run beside the one writer. Every write transaction starts with
``BEGIN IMMEDIATE``: a deferred transaction that reads and then writes fails at once
with "database is locked" instead of waiting (docs/architecture.md, F4). Each thread
gets its own connection. Waiters are woken by one watch per database of ``PRAGMA
data_version``, which changes when another connection commits: a hundred idle workers
cost one look every few milliseconds, and nothing looks while nobody waits.

In memory (``memory://``) the database is one connection, private to its opener and
gone with it, that the process's threads take in turns under a lock; a commit wakes
waiters through a condition, since ``data_version`` only sees other connections'
commits.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ralph.db._database import Columns, Database, Row, Tx, storable
from ralph.db._sqlite_refusals import refusal
from ralph.errors import StoreUnreachable

__all__ = ["BUSY_TIMEOUT_SECONDS", "IN_MEMORY", "POLL_SECONDS", "SqliteDatabase"]

logger = logging.getLogger(__name__)

#: How long a writer waits for the write lock. Far below a task's lease (F2).
BUSY_TIMEOUT_SECONDS = 10.0
#: How often a waiter looks at data_version: the wake-up latency floor.
POLL_SECONDS = 0.005
#: The path of a database that lives in memory for as long as it is open.
IN_MEMORY = ":memory:"


class _SqliteTx(Tx):
    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        cursor = self._connection.execute(sql, storable(params))
        if cursor.description is None:
            return []
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]

    def columns(self, sql: str, params: Sequence[Any] = ()) -> Columns:
        cursor = self._connection.execute(sql, storable(params))
        if cursor.description is None:
            return (), []
        return tuple(column[0] for column in cursor.description), cursor.fetchall()

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self._connection.execute(sql, storable(params)).rowcount


class _ChangeWatch:
    """One connection that watches ``PRAGMA data_version`` for every waiter of the
    process: waiters block on a condition instead of each polling the database, so a
    hundred idle workers cost one poll, and nothing polls while nobody waits. It looks
    as often as its most impatient waiter asks (``POLL_SECONDS`` at most)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], first: int = 1) -> None:
        self._connect = connect
        self._connection: sqlite3.Connection | None = None
        self._connection_lock = threading.Lock()
        self.changed = threading.Condition()
        #: Counts the changes seen; what waiters are given and give back.
        self.generation = first
        self._version: int | None = None
        #: How often each current waiter wants the database looked at.
        self._paces: list[float] = []
        self._closed = False
        self._thread: threading.Thread | None = None

    def poll(self) -> int:
        """Look now; the generation, moved on if the database changed since the last look
        (another connection, of this process or another, committed)."""
        with self._connection_lock:
            if self._connection is None:
                self._connection = self._connect()
            version = int(self._connection.execute("PRAGMA data_version").fetchone()[0])
        with self.changed:
            if version != self._version:
                if self._version is not None:
                    self.generation += 1
                    self.changed.notify_all()
                self._version = version
            return self.generation

    def wait(self, last_seen: int, timeout: float, every: float) -> int:
        with self.changed:
            watched = bool(self._paces)  # then the watcher's generation is current
            generation = self.generation
        if not watched:
            generation = self.poll()
        if generation != last_seen or timeout <= 0:
            return generation
        deadline = time.monotonic() + timeout
        pace = max(every, POLL_SECONDS)
        with self.changed:
            self._paces.append(pace)
            self._start()
            self.changed.notify_all()  # the watcher may need to look more often now
            try:
                while self.generation == last_seen and not self._closed:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self.changed.wait(remaining)
            finally:
                self._paces.remove(pace)
            return self.generation

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="ralph-sqlite-watch", daemon=True
            )
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self.changed:
                while not self._paces and not self._closed:
                    self.changed.wait(1.0)  # nobody waits: nothing to look for
                if self._closed:
                    return
                pace = min(self._paces)
            try:
                self.poll()
            except sqlite3.Error:  # closed under it, or a hiccup: the next look tells
                logger.debug("data_version look failed", exc_info=True)
            time.sleep(pace)

    def close(self) -> None:
        with self.changed:
            self._closed = True
            self.changed.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        with self._connection_lock:
            self._connection = None  # the database closes it with its others


def _write_ahead(connection: sqlite3.Connection) -> None:
    """Put the database in WAL mode. Several processes opening a new database at once
    all ask, and SQLite answers "database is locked" at once to all but one (a journal
    mode change does not wait on the busy timeout): ask again within that timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class SqliteDatabase(Database):
    dialect = "sqlite"
    schema_table_query = (
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'ralph_schema_version'"
    )
    id_column = "INTEGER PRIMARY KEY AUTOINCREMENT"
    float_column = "REAL"

    def __init__(self, path: str | Path, *, trace: Callable[[str], None] | None = None) -> None:
        self.in_memory = str(path) == IN_MEMORY
        self.path = Path(path)
        self.file = None if self.in_memory else self.path
        self._trace = trace
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        # In memory: one connection, taken in turns; each commit bumps the generation.
        self._turn = threading.RLock()
        self._committed = threading.Condition()
        self._generation = 1
        self._shared: sqlite3.Connection | None = None
        # In a file: one watch of data_version for every waiter.
        self._watch = _ChangeWatch(self._connect)
        try:
            if not self.in_memory:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._plainly():
                self._connection()
        except (OSError, sqlite3.Error) as exc:
            raise StoreUnreachable(f"cannot open SQLite database {self.path}: {exc}") from None

    def __repr__(self) -> str:
        return f"SqliteDatabase({str(self.path)!r})"

    # -- connections ----------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self.in_memory:
            if self._shared is None:
                self._shared = self._connect()
            return self._shared
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._connect()
            self._local.connection = connection
        return connection

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: no implicit (deferred) transactions; we BEGIN ourselves.
        connection = sqlite3.connect(
            IN_MEMORY if self.in_memory else self.path,
            timeout=BUSY_TIMEOUT_SECONDS,
            isolation_level=None,
            check_same_thread=False,
        )
        if self._trace is not None:
            connection.set_trace_callback(self._trace)
        connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        if not self.in_memory:
            _write_ahead(connection)
            connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute("PRAGMA foreign_keys = ON")
        with self._connections_lock:
            self._connections.append(connection)
        return connection

    @contextmanager
    def _plainly(self) -> Iterator[None]:
        """SQLite's refusals a person can act on (locked by another process, a damaged
        file) as one line saying so; every other error as it is."""
        try:
            yield
        except sqlite3.Error as exc:
            said = None if self.in_memory else refusal(exc, self.path, BUSY_TIMEOUT_SECONDS)
            if said is None:
                raise
            raise said from None

    @contextmanager
    def _my_turn(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection; in memory, the one connection, held to the end."""
        if not self.in_memory:
            yield self._connection()
            return
        with self._turn:
            yield self._connection()

    # -- transactions ---------------------------------------------------------------------

    @contextmanager
    def write_transaction(self) -> Iterator[Tx]:
        with self._plainly(), self._my_turn() as connection:
            connection.execute("BEGIN IMMEDIATE")
            try:
                tx = _SqliteTx(connection)
                yield tx
                tx.run_held_back()
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        if self.in_memory:
            with self._committed:
                self._generation += 1
                self._committed.notify_all()

    @contextmanager
    def read_transaction(self) -> Iterator[Tx]:
        with self._plainly(), self._my_turn() as connection:
            # A read-only transaction gives a consistent snapshot across its statements.
            connection.execute("BEGIN")
            try:
                yield _SqliteTx(connection)
            finally:
                connection.execute("COMMIT")

    def wait_for_change(
        self, last_seen: int, timeout: float, *, every: float = 0.0, topic: str | None = None
    ) -> int:
        # Every commit changes what the waiters watch here: ``topic`` narrows nothing.
        if self.in_memory:
            with self._committed:
                if self._generation == last_seen and timeout > 0:
                    self._committed.wait(timeout)
                return self._generation
        return self._watch.wait(last_seen, timeout, every)

    # -- the dialect ----------------------------------------------------------------------

    # The write transaction itself (BEGIN IMMEDIATE) keeps every other writer out: lock()
    # has nothing to add.

    def concat_ids(self, column: str) -> str:
        return f"group_concat({column})"

    def unique_violation(self, error: Exception, naming: str) -> bool:
        return isinstance(error, sqlite3.IntegrityError) and naming in str(error)

    def close(self) -> None:
        self._watch.close()
        # The database may be used again: its count goes on from here, never back, so a
        # count a waiter kept from before (or a read shared at one) is never taken for
        # a later one.
        self._watch = _ChangeWatch(self._connect, first=self._watch.generation + 1)
        with self._connections_lock:
            for connection in self._connections:
                connection.close()
            self._connections.clear()
        self._local = threading.local()
        self._shared = None
