"""Opening a task store from a URL: ``memory://``, ``sqlite:///path``, ``postgresql://...``."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from ralph._secrets import url_passwords
from ralph.errors import StoreUnavailable
from ralph.tasks import _lifecycle as life
from ralph.tasks._sql import SqlStore
from ralph.tasks._store import TaskStore

__all__ = ["DEFAULT_STORE_URL", "open_store", "redact_store_text", "redact_url"]

#: The embedded default: a SQLite file inside the project.
DEFAULT_STORE_URL = "sqlite:///.ralph/ralph.db"

_SCHEMES = "memory://, sqlite:///relative/path, sqlite:////absolute/path or postgresql://..."


_USERINFO_PASSWORD = re.compile(r"(://[^:/@\s]*:)([^@/\s]*)@")
#: ``?password=...`` in a URL, or ``password=...`` in a key=value connection string.
_KEYED_PASSWORD = re.compile(r"(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s]*)")


def redact_url(url: str) -> str:
    """The URL (or key=value connection string) with any password replaced, for
    messages and logs."""
    return _KEYED_PASSWORD.sub(r"\1***", _USERINFO_PASSWORD.sub(r"\1***@", url))


def redact_store_text(text: str, url: str) -> str:
    """``text`` (a driver's error, say) without the store URL's password in any form:
    as written, percent-decoded, or quoted."""
    for secret in sorted(url_passwords(url) - {"", "***"}, key=len, reverse=True):
        for form in {secret, unquote(secret)}:
            if len(form) >= 3:
                text = text.replace(form, "***")
    return redact_url(text)


def _names_database(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.path.strip("/")) or "dbname" in parse_qs(parts.query)


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
    absolute (SQLAlchemy's convention). With ``create=False`` the store must exist
    already: a missing or empty SQLite file, or a database without Ralph's tables, is
    an error instead of a new empty store (only ``ralph init`` and ``ralph db migrate``
    create one); an existing store is still brought up to the current schema. Raises
    StoreUnavailable naming the problem.
    """
    clock = clock or time.time
    if url == "memory://" or url == "memory:":
        from ralph.tasks._sqlite import IN_MEMORY, SqliteStore

        # Nothing to find: a store in memory is always new, so always made.
        return SqliteStore(IN_MEMORY, lease_seconds=lease_seconds, clock=clock, migrate=migrate)
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        if not path:
            raise StoreUnavailable(f"store URL {url!r} names no file; use {_SCHEMES}")
        from ralph.tasks._sqlite import SqliteStore

        if not create:
            _require_sqlite_file(Path(path))
        sqlite = SqliteStore(Path(path), lease_seconds=lease_seconds, clock=clock, migrate=False)
        return _ready(sqlite, str(Path(path)), create=create, migrate=migrate)
    if url.startswith(("postgresql://", "postgres://")):
        from ralph.tasks._postgres import PostgresStore

        if not _names_database(url):
            raise StoreUnavailable(
                f"store URL {redact_url(url)!r} names no database; add it to the URL "
                "(postgresql://user@host:5432/DBNAME)"
            )
        postgres = PostgresStore(url, lease_seconds=lease_seconds, clock=clock, migrate=False)
        return _ready(postgres, f"PostgreSQL at {redact_url(url)}", create=create, migrate=migrate)
    raise StoreUnavailable(f"unsupported store URL {redact_url(url)!r}; use {_SCHEMES}")


def _require_sqlite_file(path: Path) -> None:
    if not path.exists():
        raise StoreUnavailable(
            f"no Ralph store at {path}; check `store` in ralph.toml (or --store), or run "
            "`ralph init` to start a new project (`ralph db migrate` creates just the store)"
        )
    if path.is_file() and path.stat().st_size == 0:
        raise StoreUnavailable(
            f"{path} is empty, not a Ralph store (was it truncated?); restore it from a "
            "backup, or delete it and run `ralph db migrate` to start an empty one"
        )


def _ready(store: SqlStore, where: str, *, create: bool, migrate: bool) -> TaskStore:
    """A store whose schema exists (made only when ``create``), migrated when asked."""
    try:
        if not create and not store.initialised():
            raise StoreUnavailable(
                f"{where} has no Ralph store (no ralph_* tables); run `ralph db migrate` "
                "there to create one, or check the store URL"
            )
        if migrate:
            store.migrate()
    except BaseException:
        store.close()
        raise
    return store
