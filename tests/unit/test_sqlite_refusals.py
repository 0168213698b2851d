"""Which of SQLite's errors are a person's to act on: a lock held too long and a damaged
file; a constraint or a mistake in a statement stays the driver's error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ralph.db._sqlite_refusals import refusal
from ralph.errors import StoreDamaged, StoreUnreachable

DB = Path("/nowhere/ralph.db")


def test_a_lock_held_too_long_may_pass_later():
    said = refusal(sqlite3.OperationalError("database is locked"), DB, 10.0)
    assert isinstance(said, StoreUnreachable)
    assert str(said) == (
        "the database /nowhere/ralph.db is locked by another process, which did not let go "
        "of it within 10 s; let it finish or stop it, then run this again"
    )


def test_a_damaged_file_says_to_restore_it():
    for words in ("database disk image is malformed", "file is not a database"):
        said = refusal(sqlite3.DatabaseError(words), DB, 10.0)
        assert isinstance(said, StoreDamaged)
        assert str(said).startswith(f"the database /nowhere/ralph.db is damaged ({words}): ")


def test_a_constraint_or_a_bad_statement_is_not_the_persons():
    assert refusal(sqlite3.IntegrityError("UNIQUE constraint failed: t.x"), DB, 10.0) is None
    assert refusal(sqlite3.OperationalError('near "SELEC": syntax error'), DB, 10.0) is None


def test_a_missing_table_or_column_is_a_damaged_store():
    for words in ("no such table: ralph_comments", "no such column: t.x"):
        said = refusal(sqlite3.OperationalError(words), DB, 10.0)
        assert isinstance(said, StoreDamaged)
        assert "ralph db migrate" in str(said)
