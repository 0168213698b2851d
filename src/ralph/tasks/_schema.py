"""Versioned schema migrations of the Ralph database (SQLite and PostgreSQL): the task
store's tables and, from version 2, the local tracker's, so both share one history.

Each migration is a list of statements with ``{id}`` standing for the dialect's
auto-increment primary key and ``{float}`` for its double type. A migration and its
version row commit together; the runner holds the database's write lock (SQLite
``BEGIN IMMEDIATE``, PostgreSQL an advisory lock) so concurrent migrators are safe.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MIGRATIONS", "Migration"]


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "runs, tasks, dependencies, events, messages, issue locks",
        (
            """CREATE TABLE ralph_runs (
                id {id},
                name TEXT NOT NULL,
                root_issue INTEGER,
                mode TEXT NOT NULL,
                config TEXT NOT NULL,
                status TEXT NOT NULL,
                shutdown_requested INTEGER NOT NULL DEFAULT 0,
                created_at {float} NOT NULL,
                updated_at {float} NOT NULL
            )""",
            """CREATE TABLE ralph_tasks (
                id {id},
                run_id INTEGER NOT NULL REFERENCES ralph_runs (id),
                key TEXT NOT NULL,
                kind TEXT NOT NULL,
                role TEXT NOT NULL,
                issues TEXT NOT NULL,
                subject TEXT NOT NULL,
                active_form TEXT NOT NULL,
                description TEXT NOT NULL,
                metadata TEXT NOT NULL,
                status TEXT NOT NULL,
                owner TEXT,
                claim_token INTEGER NOT NULL,
                attempts INTEGER NOT NULL,
                max_attempts INTEGER NOT NULL,
                lease_expires_at {float},
                not_before {float} NOT NULL,
                serial_key TEXT,
                result TEXT,
                error TEXT,
                created_at {float} NOT NULL,
                updated_at {float} NOT NULL,
                UNIQUE (run_id, key)
            )""",
            "CREATE INDEX ralph_tasks_claimable ON ralph_tasks (run_id, status, id)",
            "CREATE INDEX ralph_tasks_lease ON ralph_tasks (status, lease_expires_at)",
            # The database itself keeps one running task per serialisation key (F7).
            """CREATE UNIQUE INDEX ralph_tasks_one_running_per_serial_key
                ON ralph_tasks (serial_key)
                WHERE status = 'running' AND serial_key IS NOT NULL""",
            """CREATE TABLE ralph_task_deps (
                task_id INTEGER NOT NULL REFERENCES ralph_tasks (id),
                depends_on INTEGER NOT NULL REFERENCES ralph_tasks (id),
                PRIMARY KEY (task_id, depends_on)
            )""",
            "CREATE INDEX ralph_task_deps_depends_on ON ralph_task_deps (depends_on)",
            """CREATE TABLE ralph_events (
                id {id},
                run_id INTEGER NOT NULL,
                task_id INTEGER,
                kind TEXT NOT NULL,
                data TEXT NOT NULL,
                at {float} NOT NULL
            )""",
            "CREATE INDEX ralph_events_by_run ON ralph_events (run_id, id)",
            """CREATE TABLE ralph_messages (
                id {id},
                run_id INTEGER NOT NULL REFERENCES ralph_runs (id),
                sender TEXT NOT NULL,
                recipient TEXT NOT NULL,
                kind TEXT NOT NULL,
                body TEXT NOT NULL,
                is_read INTEGER NOT NULL DEFAULT 0,
                created_at {float} NOT NULL
            )""",
            """CREATE TABLE ralph_issue_locks (
                repo TEXT NOT NULL,
                number INTEGER NOT NULL,
                owner TEXT NOT NULL,
                token TEXT NOT NULL,
                acquired_at {float} NOT NULL,
                expires_at {float} NOT NULL,
                PRIMARY KEY (repo, number)
            )""",
        ),
    ),
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
        3,
        "phase checkpoints",
        (
            """CREATE TABLE ralph_checkpoints (
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL,
                updated_at {float} NOT NULL
            )""",
        ),
    ),
    Migration(
        4,
        "the budget ledger",
        (
            """CREATE TABLE ralph_charges (
                id {id},
                run_id INTEGER NOT NULL REFERENCES ralph_runs (id),
                task_id INTEGER,
                usd {float} NOT NULL,
                tokens INTEGER NOT NULL,
                turns INTEGER NOT NULL,
                seconds {float} NOT NULL,
                at {float} NOT NULL
            )""",
            "CREATE INDEX ralph_charges_by_run ON ralph_charges (run_id)",
            "CREATE INDEX ralph_charges_by_time ON ralph_charges (at)",
        ),
    ),
    Migration(
        5,
        "branches Ralph created or a person let it adopt",
        (
            """CREATE TABLE ralph_branches (
                repo TEXT NOT NULL,
                name TEXT NOT NULL,
                origin TEXT NOT NULL,
                recorded_at {float} NOT NULL,
                PRIMARY KEY (repo, name)
            )""",
        ),
    ),
    Migration(
        6,
        "cached tokens and refused tools in the ledger",
        (
            "ALTER TABLE ralph_charges ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE ralph_charges ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE ralph_charges ADD COLUMN refused TEXT NOT NULL DEFAULT '[]'",
        ),
    ),
)
