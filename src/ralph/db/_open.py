"""Opening the database a URL names: ``memory://``, ``sqlite:///path``,
``postgresql://...``."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from ralph.db._database import Database
from ralph.db._migrations import initialised
from ralph.db._redact import redact_url
from ralph.errors import StoreUnavailable

__all__ = ["open_database"]

_SCHEMES = "memory://, sqlite:///relative/path, sqlite:////absolute/path or postgresql://..."


def _names_database(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.path.strip("/")) or "dbname" in parse_qs(parts.query)


def open_database(url: str, *, create: bool = True) -> Database:
    """Open the database at ``url``.

    ``sqlite:///x.db`` is relative to the working directory, ``sqlite:////tmp/x.db``
    absolute (SQLAlchemy's convention); ``memory://`` is new at every opening. With
    ``create=False`` a database that holds no Ralph schema (a missing or empty SQLite
    file, a PostgreSQL database without Ralph's tables) is an error instead of a new
    empty one: only ``ralph init`` and ``ralph db migrate`` create one. Raises
    StoreUnavailable naming the problem.
    """
    if url in ("memory://", "memory:"):
        from ralph.db._sqlite import IN_MEMORY, SqliteDatabase

        # Nothing to find: a database in memory is always new, so always made.
        return SqliteDatabase(IN_MEMORY)
    db: Database
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        if not path:
            raise StoreUnavailable(f"store URL {url!r} names no file; use {_SCHEMES}")
        from ralph.db._sqlite import SqliteDatabase

        if not create:
            _require_sqlite_file(Path(path))
        db, where = SqliteDatabase(Path(path)), str(Path(path))
    elif url.startswith(("postgresql://", "postgres://")):
        from ralph.db._postgres import PostgresDatabase

        if not _names_database(url):
            raise StoreUnavailable(
                f"store URL {redact_url(url)!r} names no database; add it to the URL "
                "(postgresql://user@host:5432/DBNAME)"
            )
        db, where = PostgresDatabase(url), f"PostgreSQL at {redact_url(url)}"
    else:
        raise StoreUnavailable(f"unsupported store URL {redact_url(url)!r}; use {_SCHEMES}")
    try:
        if not create and not initialised(db):
            raise StoreUnavailable(
                f"{where} has no Ralph store (no ralph_* tables); run `ralph db migrate` "
                "there to create one, or check the store URL"
            )
    except BaseException:
        db.close()
        raise
    return db


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
