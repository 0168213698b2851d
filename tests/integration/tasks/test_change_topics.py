"""A wait for one run's events is woken by that run's notifications only, not by a
board's change (on PostgreSQL every idle worker of a team read the events again at each
of them; issue 49); a wait for any change still wakes on every one."""

from __future__ import annotations

import time

import pytest

from ralph.db import PostgresDatabase

pytestmark = [pytest.mark.timeout(60), pytest.mark.postgres]

#: Bounds each wait; a notification arrives within milliseconds.
WAIT_SECONDS = 20.0


def _moved(db: PostgresDatabase, seen: int, topic: str | None) -> int:
    deadline = time.monotonic() + WAIT_SECONDS
    while (now := db.wait_for_change(seen, 1.0, topic=topic)) == seen:
        assert time.monotonic() < deadline, f"no change under {topic!r}"
    return now


def _notify(db: PostgresDatabase, payload: str) -> None:
    with db.write_transaction() as tx:
        tx.rows("SELECT pg_notify(?, ?)", (PostgresDatabase.CHANNEL, payload))


def _listening(db: PostgresDatabase) -> int:
    """Once the database's listener hears notifications: what a wait for any sees."""
    seen = db.wait_for_change(0, 0.0)
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        _notify(db, "warm-up")
        now = db.wait_for_change(seen, 0.5)
        if now != seen:
            return now
        assert time.monotonic() < deadline, "the listener never heard a notification"


def test_a_wait_for_a_runs_changes_sleeps_through_the_boards(pg_schema_url):
    db = PostgresDatabase(pg_schema_url)
    try:
        anything = _listening(db)
        run = db.wait_for_change(0, 0.0, topic="7")
        with db.write_transaction() as tx:
            db.notify_change(tx)  # what a board write sends
        anything = _moved(db, anything, None)
        assert db.wait_for_change(run, 0.0, topic="7") == run
        _notify(db, "8")  # another run's events
        anything = _moved(db, anything, None)
        assert db.wait_for_change(run, 0.0, topic="7") == run
        _notify(db, "7")
        assert _moved(db, run, "7") != run
    finally:
        db.close()
