"""The durable task store: runs own graphs of tasks; workers claim them atomically,
heartbeat, and complete or fail them under a fencing token; events wake idle workers.

Backends: SQLite (the embedded default; in memory for tests and demos) and PostgreSQL
(several processes or machines), chosen by URL in :func:`open_store`.
"""

from __future__ import annotations

from ralph.errors import (
    IssueLocked,
    LeaseLost,
    RunNotFound,
    StoreUnavailable,
    TaskBlocked,
    TaskNotClaimable,
    TaskNotFound,
    TaskStoreError,
)
from ralph.tasks._lifecycle import DEFAULT_LEASE_SECONDS, DEFAULT_MAX_ATTEMPTS, RetryPolicy
from ralph.tasks._model import (
    TERMINAL_STATUSES,
    Charge,
    Claim,
    Event,
    EventKind,
    GraphEdit,
    IssueLock,
    Message,
    MessageKind,
    Run,
    RunStatus,
    Task,
    TaskStatus,
)
from ralph.tasks._open import DEFAULT_STORE_URL, open_store, redact_url
from ralph.tasks._store import TaskStore

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_STORE_URL",
    "TERMINAL_STATUSES",
    "Charge",
    "Claim",
    "Event",
    "EventKind",
    "GraphEdit",
    "IssueLock",
    "IssueLocked",
    "LeaseLost",
    "Message",
    "MessageKind",
    "RetryPolicy",
    "Run",
    "RunNotFound",
    "RunStatus",
    "StoreUnavailable",
    "Task",
    "TaskBlocked",
    "TaskNotClaimable",
    "TaskNotFound",
    "TaskStatus",
    "TaskStore",
    "TaskStoreError",
    "open_store",
    "redact_url",
]
