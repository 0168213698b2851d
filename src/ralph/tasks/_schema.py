"""The task store's schema history, applied by ``ralph.db.migrate``.

Versions are numbered across every owner of the database: version 2 is the local
tracker's (``tracker/local/_schema.py``), so a new migration here takes the next number
free in both.
"""

from __future__ import annotations

from ralph.db import Migration

__all__ = ["TASK_STORE_MIGRATIONS"]

TASK_STORE_MIGRATIONS: tuple[Migration, ...] = (
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
    Migration(
        7,
        "a revision on each task, so a listing decodes only the tasks that changed",
        ("ALTER TABLE ralph_tasks ADD COLUMN revision INTEGER NOT NULL DEFAULT 0",),
    ),
    Migration(
        # Versions are shared with the local tracker's migrations (8 to 10 are theirs).
        11,
        "a charge whose cost is unknown names the model without a price",
        ("ALTER TABLE ralph_charges ADD COLUMN unpriced_model TEXT NOT NULL DEFAULT ''",),
    ),
    Migration(
        12,
        "merge batches: each merge train's durable record",
        (
            """CREATE TABLE ralph_merge_batches (
                id {id},
                run_id INTEGER NOT NULL REFERENCES ralph_runs (id),
                task_id INTEGER NOT NULL REFERENCES ralph_tasks (id),
                repo TEXT NOT NULL,
                train TEXT NOT NULL,
                status TEXT NOT NULL,
                started_at {float} NOT NULL,
                updated_at {float} NOT NULL
            )""",
            "CREATE INDEX ralph_merge_batches_by_run ON ralph_merge_batches (run_id, id)",
            "CREATE INDEX ralph_merge_batches_by_repo ON ralph_merge_batches (repo, status, id)",
            # A run's report looks for the batches at work since the run began.
            "CREATE INDEX ralph_merge_batches_by_time ON ralph_merge_batches (updated_at)",
            # One train per repository at a time, as one merge task holds its key: the
            # database keeps it, as it keeps one running task per serialisation key.
            """CREATE UNIQUE INDEX ralph_merge_batches_one_running_per_repo
                ON ralph_merge_batches (repo) WHERE status = 'running'""",
            # The tasks waiting on a serialisation key, for a train's conductor to gather.
            """CREATE INDEX ralph_tasks_by_serial_key ON ralph_tasks (serial_key, status, id)
                WHERE serial_key IS NOT NULL""",
        ),
    ),
    Migration(
        # 13 is the local tracker's.
        14,
        "spend by issue, agent and phase; holds on issues; waits for a provider's limit",
        (
            # Which issue (of which repository) an agent run worked on, which agent CLI
            # did it, and for which phase of what estimate: caps per issue across runs,
            # the no-progress breaker and the look before spending read them.
            "ALTER TABLE ralph_charges ADD COLUMN repo TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE ralph_charges ADD COLUMN issue INTEGER",
            "ALTER TABLE ralph_charges ADD COLUMN agent TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE ralph_charges ADD COLUMN phase TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE ralph_charges ADD COLUMN estimate TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX ralph_charges_by_issue ON ralph_charges (repo, issue, at)",
            "CREATE INDEX ralph_charges_by_phase ON ralph_charges (repo, phase, estimate, id)",
            # An issue Ralph stopped spending on (a cap, no progress) until the hold is
            # lifted: the board says "held: REASON"; no task of it starts meanwhile.
            """CREATE TABLE ralph_holds (
                repo TEXT NOT NULL,
                number INTEGER NOT NULL,
                reason TEXT NOT NULL,
                detail TEXT NOT NULL,
                lift TEXT NOT NULL,
                run_id INTEGER,
                at {float} NOT NULL,
                PRIMARY KEY (repo, number)
            )""",
            # An agent CLI whose provider refuses for now: its work waits until then.
            """CREATE TABLE ralph_provider_waits (
                agent TEXT PRIMARY KEY,
                until {float} NOT NULL,
                said TEXT NOT NULL,
                at {float} NOT NULL
            )""",
        ),
    ),
)
