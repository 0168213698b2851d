"""Opening a task store from a URL: ``memory://``, ``sqlite:///path``, ``postgresql://...``."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from ralph.errors import StoreUnavailable
from ralph.tasks import _lifecycle as life
from ralph.tasks._memory import MemoryStore
from ralph.tasks._store import TaskStore

__all__ = ["DEFAULT_STORE_URL", "open_store", "redact_url"]

#: The embedded default: a SQLite file inside the project.
DEFAULT_STORE_URL = "sqlite:///.ralph/ralph.db"

_SCHEMES = "memory://, sqlite:///relative/path, sqlite:////absolute/path or postgresql://..."


def redact_url(url: str) -> str:
    """The URL with any password replaced, for messages and logs."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


def open_store(
    url: str = DEFAULT_STORE_URL,
    *,
    lease_seconds: float = life.DEFAULT_LEASE_SECONDS,
    clock: Callable[[], float] | None = None,
    create: bool = True,
    migrate: bool = True,
) -> TaskStore:
    """Open (and migrate, on first use) the store at ``url``.

    ``sqlite:///x.db`` is relative to the working directory, ``sqlite:////tmp/x.db``
    absolute (SQLAlchemy's convention). With ``create=False`` a missing SQLite file is
    an error instead of a new store. Raises StoreUnavailable naming the problem.
    """
    clock = clock or time.time
    if url == "memory://" or url == "memory:":
        return MemoryStore(lease_seconds=lease_seconds, clock=clock)
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        if not path:
            raise StoreUnavailable(f"store URL {url!r} names no file; use {_SCHEMES}")
        from ralph.tasks._sqlite import SqliteStore

        if not create and not Path(path).exists():
            raise StoreUnavailable(
                f"no task store at {path} (nothing has run here yet); "
                "pass --store URL or run `ralph db migrate` to create one"
            )
        return SqliteStore(Path(path), lease_seconds=lease_seconds, clock=clock, migrate=migrate)
    if url.startswith(("postgresql://", "postgres://")):
        from ralph.tasks._postgres import PostgresStore

        return PostgresStore(url, lease_seconds=lease_seconds, clock=clock, migrate=migrate)
    raise StoreUnavailable(f"unsupported store URL {redact_url(url)!r}; use {_SCHEMES}")
