"""A SQL database: transactions, the dialect's clauses, and a way to wait for commits."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, ClassVar, Literal

from ralph.errors import InvalidInput

__all__ = ["Columns", "Database", "Row", "Tx", "storable"]

Row = dict[str, Any]
#: A result's column names with its rows as tuples, for reads of many rows.
Columns = tuple[tuple[str, ...], list[tuple[Any, ...]]]


class Tx(abc.ABC):
    """One open transaction. Statements use ``?`` placeholders on every dialect."""

    @abc.abstractmethod
    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abc.abstractmethod
    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Execute; return the number of rows changed."""

    def columns(self, sql: str, params: Sequence[Any] = ()) -> Columns:
        """The column names and the rows as tuples: no dict per row, where a read of
        many rows would spend its time building them."""
        found = self.rows(sql, params)
        names = tuple(found[0]) if found else ()
        return names, [tuple(row.values()) for row in found]

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def run_last(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run ``sql`` as this write transaction's last statement, once however often it
        is asked: a row every writer updates (a counter) is then locked for the commit
        only, not while the transaction does its work, and after every other row it
        locks, so writers holding it wait for nothing. Several run in their sorted
        order, the same in every transaction (no two lock each other's first). A Tx
        that wraps another passes this on to it: only the database's own runs them."""
        # Made on first use: a Tx of another's making (a wrapper, a test's) need not
        # know of it.
        held: dict[tuple[str, tuple[Any, ...]], None] = vars(self).setdefault("_last", {})
        held[(sql, tuple(params))] = None

    def run_held_back(self) -> None:
        """Run what ``run_last`` held back; the database's write transaction calls it
        just before it commits."""
        held: dict[tuple[str, tuple[Any, ...]], None] = vars(self).pop("_last", {})
        for sql, params in sorted(held, key=repr):
            self.run(sql, params)


class Database(abc.ABC):
    dialect: ClassVar[Literal["sqlite", "postgresql"]]
    #: Appended to a SELECT that must lock the rows it reads ("" where the transaction
    #: already holds the database's only write lock, as on SQLite).
    lock_rows: ClassVar[str] = ""
    #: Appended to a SELECT of candidates: skip rows other transactions hold.
    skip_locked: ClassVar[str] = ""
    #: The dialect's auto-increment primary key and double-precision types.
    id_column: ClassVar[str]
    float_column: ClassVar[str]
    #: Returns a row when the schema's version table exists.
    schema_table_query: ClassVar[str]
    #: Whether the database lives in this process only, gone when it closes.
    in_memory: bool = False
    #: The file the database keeps (SQLite); None in memory or on a server.
    file: Path | None = None

    @abc.abstractmethod
    def write_transaction(self) -> AbstractContextManager[Tx]:
        """A write transaction, committed when the block ends without an exception.
        Not reentrant: one per thread at a time."""

    @abc.abstractmethod
    def read_transaction(self) -> AbstractContextManager[Tx]:
        """A consistent read."""

    @abc.abstractmethod
    def wait_for_change(
        self, last_seen: int, timeout: float, *, every: float = 0.0, topic: str | None = None
    ) -> int:
        """Block up to ``timeout`` seconds until the database may have changed since
        ``last_seen`` (a value this method returned before with the same ``topic``, or
        0); return the new one. ``every``: where changes are found by looking (SQLite in
        a file), look no more often than this (a waiter that can be late saves the CPU of
        looking). ``topic``: wake only for changes notified under it (PostgreSQL: the
        notification's payload, as the task store's events name their run) or that may
        have been missed; where changes are not notified (SQLite), for any."""

    def notify_change(self, tx: Tx) -> None:  # noqa: B027 - SQLite has nothing to add
        """Wake the waiters of every process (``wait_for_change``) when ``tx`` commits,
        where a commit alone does not (PostgreSQL's waiters wake on a notification; on
        SQLite every commit changes what they watch)."""

    def lock(self, tx: Tx, key: int) -> None:  # noqa: B027 - SQLite has nothing to add
        """Hold ``key`` until ``tx`` ends, keeping other transactions that lock it out
        (beyond what a write transaction already does)."""

    @abc.abstractmethod
    def concat_ids(self, column: str) -> str:
        """An aggregate giving ``column``'s integers comma-separated."""

    @abc.abstractmethod
    def unique_violation(self, error: Exception, naming: str) -> bool:
        """True when ``error`` is a unique index refusing a row, and its message names
        ``naming`` (a column of the index)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release connections and background threads."""

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: The range of the 64-bit integer columns, on SQLite and PostgreSQL alike.
_INT_RANGE = (-(2**63), 2**63 - 1)


def storable(params: Sequence[Any]) -> tuple[Any, ...]:
    """``params`` as a tuple, once each is a value both dialects store: an integer
    beyond 64 bits or text with a NUL byte is InvalidInput here, the same on SQLite
    (which would raise OverflowError, or keep the NUL) and on PostgreSQL (which
    would find nothing, or raise DataError)."""
    for value in params:
        if isinstance(value, int) and not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
            raise InvalidInput(
                f"{value} is too large a number; numbers here go up to {_INT_RANGE[1]}"
            )
        if isinstance(value, str) and "\x00" in value:
            raise InvalidInput("the text contains a NUL byte, which cannot be stored; remove it")
    return tuple(params)
