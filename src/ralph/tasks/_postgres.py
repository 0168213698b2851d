"""The PostgreSQL task store: workers in many processes, on many machines.

Claims lock their candidate with ``FOR UPDATE SKIP LOCKED`` so concurrent claimers
never wait on each other; a partial unique index keeps one running task per
serialisation key. Waiters are woken by LISTEN/NOTIFY through one listening connection
per store; polling every second stays as the fallback, because a notification sent
while nobody listens is lost (docs/architecture.md, F9).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ralph.errors import StoreUnavailable, StoreUnreachable
from ralph.tasks import _lifecycle as life
from ralph.tasks._open import redact_store_text, redact_url
from ralph.tasks._sql import PendingEvent, Row, SqlStore, Tx, storable, to_json

__all__ = ["CHANNEL", "FALLBACK_POLL_SECONDS", "PostgresStore"]

logger = logging.getLogger(__name__)

CHANNEL = "ralph_events"
#: Waiters re-check this often even when no notification arrives.
FALLBACK_POLL_SECONDS = 1.0
#: First key of the advisory locks Ralph takes ("RALP").
_LOCK_CLASS = 0x52414C50
_MIGRATION_LOCK = 0


@functools.lru_cache(maxsize=512)
def _placeholders(sql: str) -> str:
    return sql.replace("?", "%s")


class _PgTx(Tx):
    def __init__(self, connection: psycopg.Connection[dict[str, Any]]) -> None:
        super().__init__()
        self._connection = connection

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        cursor = self._connection.execute(_placeholders(sql), storable(params))
        return cursor.fetchall() if cursor.description is not None else []

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self._connection.execute(_placeholders(sql), storable(params)).rowcount


class _Listener:
    """One LISTEN connection; counts notifications and wakes waiters on each."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self.generation = 1
        self.changed = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="ralph-pg-listen", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    self._bump()  # anything may have happened while we were not listening
                    while not self._stop.is_set():
                        for _ in connection.notifies(timeout=0.25, stop_after=64):
                            self._bump()
            except psycopg.Error as exc:
                logger.warning(
                    "listen connection lost; waiters fall back to polling",
                    extra={"action": "listen_lost", "error": type(exc).__name__},
                )
                self._stop.wait(FALLBACK_POLL_SECONDS)

    def _bump(self) -> None:
        with self.changed:
            self.generation += 1
            self.changed.notify_all()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)


class PostgresStore(SqlStore):
    schema_table_query = "SELECT 1 WHERE to_regclass('ralph_schema_version') IS NOT NULL"
    lock_rows = "FOR UPDATE"
    skip_locked = "FOR UPDATE SKIP LOCKED"
    deps_of_row = (
        "(SELECT string_agg(depends_on::text, ',') FROM ralph_task_deps "
        "WHERE task_id = ralph_tasks.id)"
    )

    def __init__(
        self,
        url: str,
        *,
        lease_seconds: float = life.DEFAULT_LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
        retry_policy: life.RetryPolicy | None = None,
        pool_size: int = 4,
        connect_timeout: float = 5.0,
        migrate: bool = True,
    ) -> None:
        self.url = url
        self.lease_seconds = lease_seconds
        self.retry_policy = retry_policy or life.RetryPolicy()
        self._clock = clock
        self._listener: _Listener | None = None
        self._listener_lock = threading.Lock()
        self._last_reap = {}
        try:
            # A direct connection first: a clear error at once instead of pool retries.
            psycopg.connect(url, connect_timeout=max(1, int(connect_timeout))).close()
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            reason = redact_store_text(reason, url)
            # A URL psycopg cannot parse is the person's to fix; a server that does not
            # answer may answer later.
            kind = (
                StoreUnavailable if isinstance(exc, psycopg.ProgrammingError) else StoreUnreachable
            )
            raise kind(f"cannot connect to PostgreSQL at {redact_url(url)}: {reason}") from None
        self._pool: ConnectionPool[psycopg.Connection[dict[str, Any]]] = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True, "row_factory": dict_row},
            open=False,
            name="ralph-tasks",
        )
        try:
            self._pool.open(wait=True, timeout=connect_timeout)
        except (PoolTimeout, psycopg.Error) as exc:
            self._pool.close()
            raise StoreUnreachable(
                f"cannot connect to PostgreSQL at {redact_url(url)}: "
                f"{redact_store_text(str(exc), url)}"
            ) from None
        if migrate:
            self.migrate()

    def __repr__(self) -> str:
        return f"PostgresStore({redact_url(self.url)!r})"

    @contextmanager
    def _transaction(self) -> Iterator[Tx]:
        with self._pool.connection() as connection, connection.transaction():
            yield _PgTx(connection)

    @contextmanager
    def _reader(self) -> Iterator[Tx]:
        with self._pool.connection() as connection:
            yield _PgTx(connection)

    def _now(self) -> float:
        return self._clock()

    def _insert_events(self, tx: Tx, events: Sequence[PendingEvent], now: float) -> None:
        # One statement per run: take the run's advisory lock (held to commit, so event
        # ids of a run are assigned in commit order), insert, and notify listeners.
        for run_id in sorted({event[0] for event in events}):
            own = [e for e in events if e[0] == run_id]
            values = ", ".join("(?::integer, ?::integer, ?, ?, ?::double precision)" for _ in own)
            params: list[Any] = [_LOCK_CLASS, run_id]
            for _, kind, task_id, data in own:
                params += [run_id, task_id, kind.value, to_json(dict(data)), now]
            tx.rows(
                "WITH locked AS (SELECT pg_advisory_xact_lock(?, ?)), "
                "added AS (INSERT INTO ralph_events (run_id, task_id, kind, data, at) "
                "SELECT v.* FROM locked, (VALUES "
                f"{values}) AS v (run_id, task_id, kind, data, at) RETURNING id) "
                "SELECT pg_notify(?, ?) WHERE EXISTS (SELECT 1 FROM added)",
                [*params, CHANNEL, str(run_id)],
            )

    def _wait_for_change(self, last_seen: int, timeout: float) -> int:
        listener = self._ensure_listener()
        with listener.changed:
            if listener.generation == last_seen and timeout > 0:
                listener.changed.wait(min(timeout, FALLBACK_POLL_SECONDS))
            return listener.generation

    def _ensure_listener(self) -> _Listener:
        with self._listener_lock:
            if self._listener is None:
                self._listener = _Listener(self.url)
            return self._listener

    def _claim_conflict(self, error: Exception) -> bool:
        return isinstance(error, pg_errors.UniqueViolation) and "serial_key" in str(error)

    id_column = "INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    float_column = "DOUBLE PRECISION"

    def _lock_schema(self, tx: Tx) -> None:
        tx.rows("SELECT pg_advisory_xact_lock(?, ?)", (_LOCK_CLASS, _MIGRATION_LOCK))

    def close(self) -> None:
        with self._listener_lock:
            if self._listener is not None:
                self._listener.stop()
                self._listener = None
        self._pool.close()
