"""A SQLite database closed and used again goes on counting its changes from where it
was: a count a waiter kept from before, or a read of a run's events shared at one, is
never taken for a later one (``SharedEventReads``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.db import open_database

pytestmark = pytest.mark.timeout(30)


def test_the_change_count_goes_on_after_the_database_is_closed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/changes.db"
    db, other = open_database(url), open_database(url)
    try:
        with db.write_transaction() as tx:
            tx.run("CREATE TABLE seen (x INTEGER)")
        first = db.wait_for_change(0, 0.0)
        with other.write_transaction() as tx:  # another connection's commit
            tx.run("INSERT INTO seen (x) VALUES (1)")
        before_close = db.wait_for_change(first, 10.0)
        assert before_close > first
        db.close()
        assert db.wait_for_change(0, 0.0) > before_close
    finally:
        db.close()
        other.close()
