"""The schema history is one numbering across the database's owners: a database made
when the task store and the local tracker shared one list of migrations opens and
migrates without re-running anything, and each owner brings only its own tables."""

from __future__ import annotations

import pytest

from ralph.db import Database, SqliteDatabase, migrate, open_database, schema_versions
from ralph.tasks import TASK_STORE_MIGRATIONS, TaskStore
from ralph.tracker import LOCAL_TRACKER_MIGRATIONS, LocalCodeHost, LocalTracker, ReviewEvent

#: The combined history as earlier versions of Ralph applied it, in one list.
COMBINED = {
    1: "runs, tasks, dependencies, events, messages, issue locks",
    2: "local tracker: issues, relations, comments, pull requests",
    3: "phase checkpoints",
    4: "the budget ledger",
    5: "branches Ralph created or a person let it adopt",
    6: "cached tokens and refused tools in the ledger",
}
#: Every version today's owners bring: the combined history and what came after it.
CURRENT = sorted(m.version for m in (*TASK_STORE_MIGRATIONS, *LOCAL_TRACKER_MIGRATIONS))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request, tmp_path):
    url = (
        f"sqlite:///{tmp_path}/ralph.db"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_schema_url")
    )
    with open_database(url) as opened:
        yield opened


def tables(db: Database) -> set[str]:
    query = (
        "SELECT name FROM sqlite_master WHERE type = 'table'"
        if isinstance(db, SqliteDatabase)
        else "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()"
    )
    with db.read_transaction() as tx:
        return {row["name"] for row in tx.rows(query)}


def test_the_owners_histories_keep_the_combined_numbering_and_names():
    owned = {m.version: m.name for m in (*TASK_STORE_MIGRATIONS, *LOCAL_TRACKER_MIGRATIONS)}
    assert {v: owned[v] for v in COMBINED} == COMBINED


def test_a_database_that_ran_the_combined_history_reruns_nothing(db):
    # The combined list, in version order, as one migrator applied it before.
    by_version = sorted(
        (m for m in (*TASK_STORE_MIGRATIONS, *LOCAL_TRACKER_MIGRATIONS) if m.version in COMBINED),
        key=lambda m: m.version,
    )
    assert migrate(db, by_version) == sorted(COMBINED)

    store = TaskStore(db, migrate=False)
    assert store.migrate() == [
        m.version for m in TASK_STORE_MIGRATIONS if m.version not in COMBINED
    ]
    tracker = LocalTracker(db, repo="acme")
    assert schema_versions(db) == CURRENT
    assert tracker.create_issue("Still works").number == 1
    assert store.create_run("still works").id == 1


def test_each_owner_brings_only_its_tables_and_the_other_adds_its_own_later(db):
    TaskStore(db, migrate=False).migrate()
    assert "ralph_tasks" in tables(db)
    assert "ralph_issues" not in tables(db)
    LocalTracker(db, repo="acme")
    assert "ralph_issues" in tables(db)
    assert schema_versions(db) == CURRENT


def test_a_database_made_before_pull_request_reviews_and_checks_opens_and_keeps_its_prs(db):
    """Made by a Ralph whose local tracker had no reviews, threads or check runs (before
    version 8): it opens, its pull requests keep everything, and they take reviews."""
    before = [m for m in (*TASK_STORE_MIGRATIONS, *LOCAL_TRACKER_MIGRATIONS) if m.version < 8]
    migrate(db, before)
    with db.write_transaction() as tx:
        tx.run(
            "INSERT INTO ralph_pull_requests (repo, number, title, body, head, base, state, "
            "created_at) VALUES ('acme', 1, 'Old', 'Closes #9', 'feature/GH-9', 'main', "
            "'open', 1.0)"
        )

    tracker = LocalTracker(db, repo="acme")
    host = LocalCodeHost(db, repo="acme", tracker=tracker)

    # The tracker brings its own versions (the task store's later ones come with it).
    owned = {m.version for m in (*before, *LOCAL_TRACKER_MIGRATIONS)}
    assert schema_versions(db) == sorted(owned)
    pr = host.get_pull_request(1)
    assert (pr.title, pr.closes, pr.author, pr.reviews, pr.checks) == ("Old", (9,), "ralph", (), ())
    review = host.submit_review(1, ReviewEvent.APPROVE, author="alice")
    assert host.get_pull_request(1).reviews == (review,)
    assert {"ralph_pr_reviews", "ralph_pr_threads", "ralph_pr_checks"} <= tables(db)
