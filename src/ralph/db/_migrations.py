"""The migration runner: each owner of tables (the task store, the local tracker) keeps
its own schema history; the runner applies what a database lacks.

Versions are one numbering across owners, so a database that ran every history in one
list before keeps its version rows and re-runs nothing. A migration is a list of
statements with ``{id}`` standing for the dialect's auto-increment primary key and
``{float}`` for its double type; it commits with its version row while every other
migrator waits (SQLite's write lock, a PostgreSQL advisory lock), so concurrent
migrators are safe (docs/architecture.md, F8).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ralph.db._database import Database
from ralph.errors import StoreUnavailable

__all__ = [
    "NEWEST_VERSION",
    "Migration",
    "initialised",
    "is_current",
    "migrate",
    "schema_versions",
]

logger = logging.getLogger(__name__)

#: The last number of the one numbering, every owner's history together (a test keeps
#: it so): a database holding a later version was made by a newer Ralph, whose tables
#: and rows this one would misread.
NEWEST_VERSION = 15
#: The lock key migrators share.
_MIGRATION_LOCK = 0


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


def migrate(db: Database, *histories: Sequence[Migration]) -> list[int]:
    """Apply the migrations of ``histories`` that ``db`` lacks, in version order;
    returns the versions applied now."""
    wanted = sorted((m for history in histories for m in history), key=lambda m: m.version)
    versions = [m.version for m in wanted]
    if len(set(versions)) != len(versions):
        raise ValueError(f"two migrations share a version: {versions}")
    if versions and versions[-1] > NEWEST_VERSION:
        raise ValueError(f"migration {versions[-1]} is past NEWEST_VERSION; raise it")
    applied_now = []
    with db.write_transaction() as tx:
        db.lock(tx, _MIGRATION_LOCK)
        tx.run(
            "CREATE TABLE IF NOT EXISTS ralph_schema_version (version INTEGER PRIMARY KEY, "
            f"name TEXT NOT NULL, applied_at {db.float_column} NOT NULL)"
        )
        done = {r["version"] for r in tx.rows("SELECT version FROM ralph_schema_version")}
        newer = max(done, default=0)
        if newer > NEWEST_VERSION:
            raise StoreUnavailable(
                f"this store was made by a newer Ralph (schema version {newer}; this Ralph "
                f"knows up to {NEWEST_VERSION}); upgrade Ralph to use it"
            )
        for migration in wanted:
            if migration.version in done:
                continue
            for statement in migration.statements:
                tx.run(statement.format(id=db.id_column, float=db.float_column))
            tx.run(
                "INSERT INTO ralph_schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, time.time()),
            )
            applied_now.append(migration.version)
    if applied_now:
        logger.info("migrated", extra={"action": "migrate", "versions": applied_now})
    return applied_now


def initialised(db: Database) -> bool:
    """Whether ``db`` holds Ralph's schema (its version table)."""
    with db.read_transaction() as tx:
        return bool(tx.rows(db.schema_table_query))


def schema_versions(db: Database) -> list[int]:
    """The versions applied to ``db``, of every owner, in order."""
    with db.read_transaction() as tx:
        rows = tx.rows("SELECT version FROM ralph_schema_version ORDER BY version")
    return [row["version"] for row in rows]


def is_current(db: Database, *histories: Sequence[Migration]) -> bool:
    """Whether ``db`` holds every migration of ``histories`` and none this Ralph does not
    know: what ``migrate`` would leave as it is, asked without a write transaction."""
    if not initialised(db):
        return False
    versions = set(schema_versions(db))
    wanted = {m.version for history in histories for m in history}
    return wanted <= versions and max(versions, default=0) <= NEWEST_VERSION
