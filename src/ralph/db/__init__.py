"""Ralph's SQL database (SQLite, in a file or in memory, or PostgreSQL): transactions,
the dialect's clauses, change notification, and the migration runner that applies each
owner's schema history. The task store and the local tracker keep their tables here as
peers; neither knows the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph.db._database import Columns, Database, Row, Tx
from ralph.db._migrations import Migration, initialised, is_current, migrate, schema_versions
from ralph.db._open import open_database
from ralph.db._redact import redact_store_text, redact_url
from ralph.db._sqlite import IN_MEMORY, SqliteDatabase

if TYPE_CHECKING:
    from ralph.db._postgres import PostgresDatabase

__all__ = [
    "IN_MEMORY",
    "Columns",
    "Database",
    "Migration",
    "PostgresDatabase",
    "Row",
    "SqliteDatabase",
    "Tx",
    "initialised",
    "is_current",
    "migrate",
    "open_database",
    "redact_store_text",
    "redact_url",
    "schema_versions",
]


def __getattr__(name: str) -> object:
    # psycopg loads only for a PostgreSQL database, not with every command.
    if name == "PostgresDatabase":
        from ralph.db._postgres import PostgresDatabase

        return PostgresDatabase
    raise AttributeError(name)
