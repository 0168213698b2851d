"""PostgreSQL commits as SQLite's do here (WAL, ``synchronous = NORMAL``): once the
server has them, without waiting for the disk (issue 49: a team's commits waited a
third of its store time on it); what a commit wrote is there for every connection."""

from __future__ import annotations

import pytest

from ralph.db import PostgresDatabase

pytestmark = [pytest.mark.timeout(60), pytest.mark.postgres]


def test_a_commit_does_not_wait_for_the_disk_and_is_seen_at_once(pg_schema_url):
    db = PostgresDatabase(pg_schema_url, pool_size=2)
    other = PostgresDatabase(pg_schema_url, pool_size=1)
    try:
        with db.read_transaction() as tx:
            assert tx.one("SHOW synchronous_commit") == {"synchronous_commit": "off"}
        with db.write_transaction() as tx:
            tx.run("CREATE TABLE seen (n INTEGER)")
            tx.run("INSERT INTO seen VALUES (1)")
        with other.read_transaction() as tx:
            assert tx.rows("SELECT n FROM seen") == [{"n": 1}]
    finally:
        other.close()
        db.close()
