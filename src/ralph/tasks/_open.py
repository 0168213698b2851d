"""Opening a task store from a URL: ``memory://``, ``sqlite:///path``, ``postgresql://...``."""

from __future__ import annotations

import time
from collections.abc import Callable

from ralph.db import open_database
from ralph.tasks import _lifecycle as life
from ralph.tasks._store import TaskStore

__all__ = ["DEFAULT_STORE_URL", "open_store"]

#: The embedded default: a SQLite file inside the project.
DEFAULT_STORE_URL = "sqlite:///.ralph/ralph.db"


def open_store(
    url: str = DEFAULT_STORE_URL,
    *,
    lease_seconds: float = life.DEFAULT_LEASE_SECONDS,
    clock: Callable[[], float] | None = None,
    retry_policy: life.RetryPolicy | None = None,
    create: bool = True,
    migrate: bool = True,
) -> TaskStore:
    """Open (and migrate, on first use) the store at ``url``.

    ``sqlite:///x.db`` is relative to the working directory, ``sqlite:////tmp/x.db``
    absolute (SQLAlchemy's convention); ``memory://`` is a new store in memory, gone
    when it closes. With ``create=False`` the store must exist already: a missing or
    empty SQLite file, or a database without Ralph's tables, is an error instead of a
    new empty store (only ``ralph init`` and ``ralph db migrate`` create one); an
    existing store is still brought up to the current schema. Raises StoreUnavailable
    naming the problem.
    """
    db = open_database(url, create=create)
    try:
        return TaskStore(
            db,
            lease_seconds=lease_seconds,
            clock=clock or time.time,
            retry_policy=retry_policy,
            migrate=migrate,
        )
    except BaseException:
        db.close()
        raise
