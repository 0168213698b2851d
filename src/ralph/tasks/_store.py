"""The task store: the one place orchestration keeps and coordinates work, over a
``ralph.db`` database (SQLite, in a file or in memory, or PostgreSQL). The database is
the seam that varies; the store is one class, its verbs grouped by what they touch.

Guarantees on every database (the contract suite checks them on each):
- a graph of tasks is added with its dependencies in one transaction, or not at all;
- a task is claimable only when pending, past its not-before time, every dependency is
  done, the role matches, and no running task holds its serialisation key;
- a claim is atomic and fenced: each claim bumps the task's claim token, and every later
  write must present it (else LeaseLost, nothing written);
- completion, its result, and the event that wakes dependents' workers commit together;
  so do an escalation's failure, the cancellation of what waits on the task, and its
  message to the lead;
- execution is at-least-once (a dead worker's task is run again after its lease), and
  completion is exactly-once;
- a repository has at most one unfinished merge batch, and an ended batch's record is
  kept as it ended; a batch is written only by the conductor that holds it
  (take_over_batch passes it on, atomically).
"""

from __future__ import annotations

from pathlib import Path

from ralph.tasks._batches import BatchVerbs
from ralph.tasks._claims import ClaimVerbs
from ralph.tasks._holds import HoldVerbs
from ralph.tasks._keeping import KeepingVerbs
from ralph.tasks._ledger import LedgerVerbs
from ralph.tasks._messages import MessageVerbs
from ralph.tasks._runs import RunVerbs

__all__ = ["TaskStore"]


class TaskStore(
    RunVerbs, ClaimVerbs, MessageVerbs, LedgerVerbs, KeepingVerbs, BatchVerbs, HoldVerbs
):
    """The task store on ``db``, which it owns: closing the store closes the database.
    With ``migrate`` the store's tables are brought up to date at once. Synchronous and
    safe to share between threads, and between processes (on PostgreSQL, machines)."""

    def __repr__(self) -> str:
        return f"TaskStore({self.db!r})"

    @property
    def path(self) -> Path | None:
        """The SQLite file the store keeps (which Ralph writes while agents run); None
        in memory or on PostgreSQL."""
        return self.db.file

    def __enter__(self) -> TaskStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
