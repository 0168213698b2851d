"""The durable task store: runs own graphs of tasks; workers claim them atomically,
heartbeat, and complete or fail them under a fencing token; events wake idle workers.

One class, :class:`TaskStore`, over a ``ralph.db`` database chosen by URL in
:func:`open_store`: SQLite (the embedded default; in memory for tests and demos) or
PostgreSQL (several processes or machines).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.db import redact_url
    from ralph.errors import (
        BatchNotFound,
        BatchRefused,
        IssueLocked,
        LeaseLost,
        RunNotFound,
        StoreUnavailable,
        TaskBlocked,
        TaskNotClaimable,
        TaskNotFound,
        TaskStoreError,
    )
    from ralph.tasks._database_reads import has_refused_charge, read_checkpoint
    from ralph.tasks._holds import LONGEST_PROVIDER_WAIT
    from ralph.tasks._lifecycle import (
        DEFAULT_LEASE_SECONDS,
        DEFAULT_MAX_ATTEMPTS,
        RetryPolicy,
        WaitPolicy,
    )
    from ralph.tasks._model import (
        TERMINAL_STATUSES,
        BatchStatus,
        Charge,
        Claim,
        Event,
        EventKind,
        GraphEdit,
        Hold,
        HoldReason,
        IssueLock,
        MergeBatch,
        Message,
        MessageKind,
        ProviderWait,
        Run,
        RunStatus,
        Spend,
        Task,
        TaskStatus,
    )
    from ralph.tasks._open import DEFAULT_STORE_URL, open_store
    from ralph.tasks._schema import TASK_STORE_MIGRATIONS
    from ralph.tasks._store import TaskStore
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_STORE_URL",
    "LONGEST_PROVIDER_WAIT",
    "TASK_STORE_MIGRATIONS",
    "TERMINAL_STATUSES",
    "BatchNotFound",
    "BatchRefused",
    "BatchStatus",
    "Charge",
    "Claim",
    "Event",
    "EventKind",
    "GraphEdit",
    "Hold",
    "HoldReason",
    "IssueLock",
    "IssueLocked",
    "LeaseLost",
    "MergeBatch",
    "Message",
    "MessageKind",
    "ProviderWait",
    "RetryPolicy",
    "Run",
    "RunNotFound",
    "RunStatus",
    "Spend",
    "StoreUnavailable",
    "Task",
    "TaskBlocked",
    "TaskNotClaimable",
    "TaskNotFound",
    "TaskStatus",
    "TaskStore",
    "TaskStoreError",
    "WaitPolicy",
    "has_refused_charge",
    "open_store",
    "read_checkpoint",
    "redact_url",
]
