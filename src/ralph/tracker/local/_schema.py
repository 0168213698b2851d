"""The local tracker's schema history, applied by ``ralph.db.migrate``.

Versions are numbered across every owner of the database (the task store's are in
``tasks/_schema.py``), so a new migration here takes the next number free in both.
"""

from __future__ import annotations

from ralph.db import Migration, Tx

__all__ = [
    "LOCAL_TRACKER_MIGRATIONS",
    "allocate_number",
    "board_changes",
    "count_board_change",
]


def allocate_number(tx: Tx, repo: str) -> int:
    """The next number of ``repo``, shared by its issues and pull requests (as on GitHub)."""
    tx.run(
        "INSERT INTO ralph_tracker_numbers (repo, last_number) VALUES (?, 0) "
        "ON CONFLICT (repo) DO NOTHING",
        (repo,),
    )
    row = tx.one(
        "UPDATE ralph_tracker_numbers SET last_number = last_number + 1 "
        "WHERE repo = ? RETURNING last_number",
        (repo,),
    )
    assert row is not None
    return int(row["last_number"])


def count_board_change(tx: Tx, repo: str) -> None:
    """Count a change to ``repo``'s issues or dependencies (any column of either), so a
    reader that kept the board can tell, with one lookup, whether it still holds. Every
    write to those tables calls it, in its transaction; the count moves once, as the
    transaction's last statement (``Tx.run_last``): on PostgreSQL the counter's row is
    then locked for the commit only, so writers of a repository do not queue behind
    each other's whole transaction for it."""
    tx.run_last(
        "INSERT INTO ralph_board_changes (repo, changes) VALUES (?, 1) ON CONFLICT (repo) "
        "DO UPDATE SET changes = ralph_board_changes.changes + 1",
        (repo,),
    )


def board_changes(tx: Tx, repo: str) -> int:
    """How many changes ``count_board_change`` has counted for ``repo``."""
    row = tx.one("SELECT changes FROM ralph_board_changes WHERE repo = ?", (repo,))
    return 0 if row is None else int(row["changes"])


LOCAL_TRACKER_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        2,
        "local tracker: issues, relations, comments, pull requests",
        (
            """CREATE TABLE ralph_tracker_numbers (
                repo TEXT PRIMARY KEY,
                last_number INTEGER NOT NULL
            )""",
            """CREATE TABLE ralph_issues (
                repo TEXT NOT NULL,
                number INTEGER NOT NULL,
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                workflow_state TEXT,
                estimate TEXT,
                priority TEXT,
                labels TEXT NOT NULL,
                assignees TEXT NOT NULL,
                status TEXT NOT NULL,
                close_reason TEXT,
                parent INTEGER,
                created_at {float} NOT NULL,
                updated_at {float} NOT NULL,
                closed_at {float},
                PRIMARY KEY (repo, number)
            )""",
            "CREATE INDEX ralph_issues_by_parent ON ralph_issues (repo, parent)",
            """CREATE TABLE ralph_issue_deps (
                repo TEXT NOT NULL,
                blocked INTEGER NOT NULL,
                blocking INTEGER NOT NULL,
                position {float} NOT NULL,
                PRIMARY KEY (repo, blocked, blocking)
            )""",
            "CREATE INDEX ralph_issue_deps_by_blocking ON ralph_issue_deps (repo, blocking)",
            """CREATE TABLE ralph_comments (
                id {id},
                repo TEXT NOT NULL,
                number INTEGER NOT NULL,
                author TEXT NOT NULL,
                body TEXT NOT NULL,
                created_at {float} NOT NULL
            )""",
            "CREATE INDEX ralph_comments_by_issue ON ralph_comments (repo, number, id)",
            """CREATE TABLE ralph_pull_requests (
                repo TEXT NOT NULL,
                number INTEGER NOT NULL,
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                head TEXT NOT NULL,
                base TEXT NOT NULL,
                state TEXT NOT NULL,
                merge_commit TEXT,
                created_at {float} NOT NULL,
                merged_at {float},
                PRIMARY KEY (repo, number)
            )""",
            """CREATE TABLE ralph_pull_request_closes (
                repo TEXT NOT NULL,
                pull_request INTEGER NOT NULL,
                issue INTEGER NOT NULL,
                PRIMARY KEY (repo, pull_request, issue)
            )""",
            """CREATE INDEX ralph_pull_request_closes_by_issue
                ON ralph_pull_request_closes (repo, issue)""",
        ),
    ),
    Migration(
        8,
        "local tracker: pull request authors, reviews, review threads, check runs",
        (
            "ALTER TABLE ralph_pull_requests ADD COLUMN author TEXT NOT NULL DEFAULT 'ralph'",
            """CREATE TABLE ralph_pr_reviews (
                id {id},
                repo TEXT NOT NULL,
                pull_request INTEGER NOT NULL,
                author TEXT NOT NULL,
                state TEXT NOT NULL,
                body TEXT NOT NULL,
                head_oid TEXT NOT NULL,
                submitted_at {float} NOT NULL
            )""",
            "CREATE INDEX ralph_pr_reviews_by_pr ON ralph_pr_reviews (repo, pull_request, id)",
            """CREATE TABLE ralph_pr_threads (
                id {id},
                repo TEXT NOT NULL,
                pull_request INTEGER NOT NULL,
                review INTEGER NOT NULL,
                path TEXT NOT NULL,
                line INTEGER,
                diff_hunk TEXT NOT NULL,
                resolved INTEGER NOT NULL DEFAULT 0
            )""",
            "CREATE INDEX ralph_pr_threads_by_pr ON ralph_pr_threads (repo, pull_request, id)",
            """CREATE TABLE ralph_pr_thread_comments (
                id {id},
                repo TEXT NOT NULL,
                thread INTEGER NOT NULL,
                author TEXT NOT NULL,
                body TEXT NOT NULL,
                created_at {float} NOT NULL
            )""",
            """CREATE INDEX ralph_pr_thread_comments_by_thread
                ON ralph_pr_thread_comments (repo, thread, id)""",
            """CREATE TABLE ralph_pr_checks (
                repo TEXT NOT NULL,
                pull_request INTEGER NOT NULL,
                head_oid TEXT NOT NULL,
                name TEXT NOT NULL,
                status TEXT NOT NULL,
                conclusion TEXT,
                required INTEGER NOT NULL,
                summary TEXT NOT NULL,
                url TEXT NOT NULL,
                recorded_at {float} NOT NULL,
                PRIMARY KEY (repo, pull_request, head_oid, name)
            )""",
        ),
    ),
    Migration(
        9,
        "local tracker: archived issues and the board's status updates",
        (
            "ALTER TABLE ralph_issues ADD COLUMN archived_at {float}",
            """CREATE TABLE ralph_status_updates (
                id {id},
                repo TEXT NOT NULL,
                status TEXT,
                body TEXT NOT NULL,
                start_date TEXT,
                target_date TEXT,
                author TEXT NOT NULL,
                created_at {float} NOT NULL,
                updated_at {float} NOT NULL
            )""",
            "CREATE INDEX ralph_status_updates_by_repo ON ralph_status_updates (repo, id)",
        ),
    ),
    Migration(
        10,
        "local tracker: the board's settings, item positions and linked repositories",
        (
            """CREATE TABLE ralph_board_settings (
                repo TEXT NOT NULL,
                name TEXT NOT NULL,
                value TEXT NOT NULL,
                PRIMARY KEY (repo, name)
            )""",
            """CREATE TABLE ralph_board_positions (
                repo TEXT NOT NULL,
                number INTEGER NOT NULL,
                position {float} NOT NULL,
                PRIMARY KEY (repo, number)
            )""",
            """CREATE TABLE ralph_board_repositories (
                repo TEXT NOT NULL,
                linked TEXT NOT NULL,
                PRIMARY KEY (repo, linked)
            )""",
        ),
    ),
    Migration(
        # 11 and 12 are the task store's; versions are shared.
        13,
        "local tracker: per-issue lookups by index at any board size",
        (
            # Children in number order, and the pull requests closing an issue in theirs,
            # straight from an index: SQLite's planner otherwise walked the primary key
            # (the whole repository) to save the sort.
            "DROP INDEX ralph_issues_by_parent",
            "CREATE INDEX ralph_issues_by_parent ON ralph_issues (repo, parent, number)",
            "DROP INDEX ralph_pull_request_closes_by_issue",
            """CREATE INDEX ralph_pull_request_closes_by_issue
                ON ralph_pull_request_closes (repo, issue, pull_request)""",
            # The board's last change (``board_version``, which ``ralph serve`` polls)
            # without reading every issue.
            "CREATE INDEX ralph_issues_by_update ON ralph_issues (repo, updated_at)",
            # Every change to a repository's issues counted (``count_board_change``):
            # the board read for the dashboard is kept while the count stands.
            """CREATE TABLE ralph_board_changes (
                repo TEXT PRIMARY KEY,
                changes INTEGER NOT NULL
            )""",
        ),
    ),
    Migration(
        15,
        "local tracker: board changes counted on PostgreSQL too",
        (
            # A board is now kept on PostgreSQL while the count stands, so every writer
            # must count: this version makes a Ralph that did not (on PostgreSQL)
            # refuse the database rather than write changes no kept board would see.
            # Moving every count lets no board kept before it stand.
            "UPDATE ralph_board_changes SET changes = changes + 1",
        ),
    ),
)
