"""The TaskStore interface: the one place orchestration keeps and coordinates work.

Guarantees every backend gives (the contract suite checks them on each):
- a graph of tasks is added with its dependencies in one transaction, or not at all;
- a task is claimable only when pending, past its not-before time, every dependency is
  done, the role matches, and no running task holds its serialisation key;
- a claim is atomic and fenced: each claim bumps the task's claim token, and every later
  write must present it (else LeaseLost, nothing written);
- completion, its result, and the event that wakes dependents' workers commit together;
- execution is at-least-once (a dead worker's task is run again after its lease), and
  completion is exactly-once.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from ralph.errors import GraphError
from ralph.graph import TaskSpec
from ralph.tasks._lifecycle import DEFAULT_LEASE_SECONDS, RetryPolicy
from ralph.tasks._model import (
    Charge,
    Claim,
    Event,
    GraphEdit,
    IssueLock,
    Message,
    MessageKind,
    Run,
    RunStatus,
    Task,
    TaskStatus,
)

__all__ = ["TaskStore", "validate_new_specs"]


def validate_new_specs(specs: Sequence[TaskSpec], existing_keys: Collection[str]) -> None:
    """New task keys must be unique in the run; dependencies must name a new or existing
    task; the new tasks must not form a cycle (existing tasks never depend on new ones)."""
    new_keys: dict[str, TaskSpec] = {}
    for spec in specs:
        if spec.key in new_keys or spec.key in existing_keys:
            raise GraphError(f"task key {spec.key!r} already exists in the run")
        new_keys[spec.key] = spec
    for spec in specs:
        unknown = [d for d in spec.deps if d not in new_keys and d not in existing_keys]
        if unknown:
            raise GraphError(f"task {spec.key!r} depends on unknown task(s): {unknown}")
    waiting = {key: {d for d in spec.deps if d in new_keys} for key, spec in new_keys.items()}
    while waiting:
        ready = [key for key, deps in waiting.items() if not deps]
        if not ready:
            raise GraphError(f"task dependencies form a cycle among: {sorted(waiting)}")
        for key in ready:
            del waiting[key]
        for deps in waiting.values():
            deps.difference_update(ready)


class TaskStore(abc.ABC):
    """Synchronous, safe to share between threads; SQL backends are safe to share
    between processes (and, on PostgreSQL, machines)."""

    #: How long a claim lasts without a heartbeat.
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    retry_policy: RetryPolicy = RetryPolicy()

    # -- runs ---------------------------------------------------------------------------

    @abc.abstractmethod
    def create_run(
        self,
        name: str,
        *,
        root_issue: int | None = None,
        mode: str = "team",
        config: Mapping[str, Any] | None = None,
    ) -> Run: ...

    @abc.abstractmethod
    def get_run(self, run_id: int) -> Run:
        """Raises RunNotFound."""

    @abc.abstractmethod
    def list_runs(
        self, *, status: RunStatus | None = None, root_issue: int | None = None
    ) -> list[Run]:
        """Newest first."""

    @abc.abstractmethod
    def finish_run(self, run_id: int, status: RunStatus = RunStatus.FINISHED) -> Run:
        """Close the run and append run_finished; pending and running tasks stay as they
        are (cancel_run cancels them)."""

    @abc.abstractmethod
    def request_shutdown(self, run_id: int) -> None:
        """Ask every worker of the run to stop; appends shutdown_requested."""

    # -- tasks --------------------------------------------------------------------------

    @abc.abstractmethod
    def add_tasks(self, run_id: int, specs: Iterable[TaskSpec]) -> list[Task]:
        """Insert tasks and their dependency rows in one transaction; raises GraphError
        (and writes nothing) for a duplicate key, an unknown dependency or a cycle."""

    @abc.abstractmethod
    def get_task(self, task_id: int) -> Task:
        """Raises TaskNotFound."""

    @abc.abstractmethod
    def list_tasks(
        self,
        run_id: int | None = None,
        *,
        status: TaskStatus | str | None = None,
        role: str | None = None,
        kind: str | None = None,
        issue: int | None = None,
    ) -> list[Task]:
        """In creation order."""

    @abc.abstractmethod
    def assign(self, task_id: int, worker: str) -> Task:
        """Mark a pending task as meant for ``worker``: its claims take it first."""

    @abc.abstractmethod
    def claim(self, run_id: int, worker: str, roles: Collection[str]) -> Claim | None:
        """Claim the oldest claimable task of the run for one of ``roles``, preferring
        tasks assigned to ``worker``. Expired leases in the run are reaped first."""

    @abc.abstractmethod
    def claim_task(self, task_id: int, worker: str) -> Claim:
        """Claim one task; raises TaskBlocked (naming the unfinished dependencies) or
        TaskNotClaimable."""

    @abc.abstractmethod
    def heartbeat(self, claim: Claim) -> None:
        """Extend the lease; raises LeaseLost."""

    @abc.abstractmethod
    def update_progress(
        self,
        claim: Claim,
        *,
        metadata: Mapping[str, Any] | None = None,
        description: str | None = None,
    ) -> Task:
        """Merge ``metadata`` into the task's metadata; raises LeaseLost."""

    @abc.abstractmethod
    def record_activity(self, claim: Claim, activity: Mapping[str, Any], summary: str) -> Task:
        """Keep what the claimed task's agent is doing as ``metadata["activity"]``
        (replacing what was there) and append task_activity with ``summary``, together;
        raises LeaseLost. Callers throttle it: every call is a write."""

    @abc.abstractmethod
    def complete(self, claim: Claim, result: Any = None, *, edit: GraphEdit | None = None) -> Task:
        """Mark done with a JSON result; raises LeaseLost. ``edit`` rewrites the graph in
        the same transaction (so no dependent can be claimed in between); it raises
        GraphError, and writes nothing, when it names a task that is not pending or adds
        an invalid task."""

    @abc.abstractmethod
    def supersede(self, claim: Claim, edit: GraphEdit) -> Task:
        """End the claimed task as canceled, its work replaced by ``edit`` (applied in the
        same transaction, checked as in complete)."""

    @abc.abstractmethod
    def fail(
        self,
        claim: Claim,
        error: str,
        *,
        retryable: bool = True,
        retry_after: float | None = None,
        cancel_dependents: bool = False,
    ) -> Task:
        """Retry after a backoff (or ``retry_after`` seconds) while attempts remain, then
        dead; not retryable: failed. ``cancel_dependents``: when the task ends for good
        (failed, or dead), the pending tasks that wait on it, and what waits on those,
        are canceled in the same transaction. Raises LeaseLost (nothing written)."""

    @abc.abstractmethod
    def escalate(self, claim: Claim, error: str, message: str, *, recipient: str = "lead") -> Task:
        """End the claimed task for good because only a person can go on, in one
        transaction: it fails (not retryable) with ``error``, the pending tasks that wait
        on it (and what waits on those) are canceled, and ``message`` goes to
        ``recipient`` as an escalation from the claim's worker. Raises LeaseLost, and
        writes nothing, when the claim was lost."""

    @abc.abstractmethod
    def defer(self, claim: Claim, *, until: float, waiting_for: str, for_person: bool) -> Task:
        """Hand the claimed task back to wait for something outside Ralph (``waiting_for``:
        checks to finish, a review, a person's merge): pending, not claimable before
        ``until``, its attempt given back, no owner; appends task_waiting. The metadata
        keeps ``waiting_for``, ``for_person``, ``waits`` (deferrals so far, for the
        backoff) and ``waiting_since``. Raises LeaseLost."""

    @abc.abstractmethod
    def wake(self, task_ids: Iterable[int]) -> list[Task]:
        """Make waiting tasks claimable now (what they wait for may have changed: a
        review posted, a rerun of the command); appends task_woken for each. Tasks that
        are not waiting, or are claimable already, are left alone. Returns those woken."""

    @abc.abstractmethod
    def release(self, claim: Claim) -> Task:
        """Back to pending, attempts kept (graceful shutdown); raises LeaseLost."""

    @abc.abstractmethod
    def reap(self, now: float | None = None) -> list[Task]:
        """Return running tasks whose lease ran out to pending, or to dead when their
        attempts are used up. Returns the tasks it changed."""

    @abc.abstractmethod
    def requeue_abandoned(self, task_id: int, owner: str) -> Task | None:
        """A running task whose claimer ``owner`` is known to be gone goes back to pending
        (or dead when its attempts are used up) without waiting for its lease. None when
        the task is not running under ``owner`` any more."""

    @abc.abstractmethod
    def reopen(self, task_id: int) -> Task:
        """A finished task (done, failed, dead, canceled) becomes pending again."""

    @abc.abstractmethod
    def cancel(self, task_id: int, *, with_dependents: bool = False) -> list[Task]:
        """Cancel a task that is not finished (and, optionally, everything that waits on
        it, transitively). Returns the tasks it canceled."""

    @abc.abstractmethod
    def cancel_run(self, run_id: int) -> list[Task]:
        """Cancel every unfinished task and close the run as canceled."""

    # -- events -------------------------------------------------------------------------

    @abc.abstractmethod
    def events(self, run_id: int, cursor: int = 0, limit: int | None = None) -> list[Event]:
        """Events of the run with an id above ``cursor``, oldest first."""

    @abc.abstractmethod
    def wait_for_events(self, run_id: int, cursor: int, timeout: float) -> list[Event]:
        """Like events(), but waits up to ``timeout`` seconds for one to arrive."""

    # -- messages -----------------------------------------------------------------------

    @abc.abstractmethod
    def send_message(
        self, run_id: int, sender: str, recipient: str, kind: MessageKind | str, body: str
    ) -> Message: ...

    @abc.abstractmethod
    def messages(
        self, run_id: int, *, recipient: str | None = None, unread_only: bool = False
    ) -> list[Message]: ...

    @abc.abstractmethod
    def mark_read(self, message_id: int) -> None: ...

    # -- the budget ledger ----------------------------------------------------------------

    @abc.abstractmethod
    def record_charge(
        self,
        run_id: int,
        task_id: int | None,
        usd: float,
        *,
        tokens: int = 0,
        turns: int = 0,
        seconds: float = 0.0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        refused: Sequence[str] = (),
        unpriced_model: str = "",
    ) -> Charge:
        """Add what one agent run cost to the ledger: ``tokens`` counts every token,
        cached input included; ``refused`` names the tool calls it was refused;
        ``unpriced_model`` a model it used whose price is unknown (its cost then is)."""

    @abc.abstractmethod
    def charges(self, run_id: int) -> list[Charge]:
        """The run's ledger, oldest first."""

    @abc.abstractmethod
    def spent(self, *, run_id: int | None = None, since: float | None = None) -> float:
        """US dollars charged to one run, or to every run, at or after ``since``."""

    @abc.abstractmethod
    def unpriced_models(
        self, *, run_id: int | None = None, since: float | None = None
    ) -> list[str]:
        """The models without a price among the charges ``spent`` counts, in the order
        first charged: while there is one, what was spent is unknown."""

    # -- issue locks --------------------------------------------------------------------

    @abc.abstractmethod
    def acquire_issue_lock(
        self,
        repo: str,
        number: int,
        owner: str,
        token: str,
        *,
        lease_seconds: float | None = None,
    ) -> IssueLock:
        """Take the issue, or refresh a lock this owner and token already hold. A lock
        whose lease ran out may be taken over. Raises IssueLocked."""

    @abc.abstractmethod
    def release_issue_lock(self, repo: str, number: int, owner: str, token: str) -> None:
        """Raises LeaseLost-like IssueLocked when another holder has it; releasing a
        lock nobody holds is a no-op."""

    @abc.abstractmethod
    def get_issue_lock(self, repo: str, number: int) -> IssueLock | None: ...

    @abc.abstractmethod
    def issue_locks(self, repo: str) -> list[IssueLock]:
        """Every lock held on ``repo``'s issues (expired ones too), by issue number: what a
        board shows beside its cards, in one read."""

    @abc.abstractmethod
    def break_issue_lock(self, repo: str, number: int, owner: str) -> bool:
        """Drop the lock if ``owner`` still holds it (for a holder known to be dead, such
        as a process on this machine that no longer exists). True when dropped."""

    @abc.abstractmethod
    def release_stale_issue_locks(
        self, holder_gone: Callable[[str], bool] | None = None
    ) -> list[IssueLock]:
        """Drop every lock whose lease ran out, and every lock whose holder
        ``holder_gone`` says no longer exists, whoever asks for the issue next or
        nobody; the locks dropped. A lock is otherwise only taken over by the next
        acquirer of its issue, and an issue nobody asks for again (its work finished by
        another process after the holder died) would keep it for good."""

    # -- checkpoints ----------------------------------------------------------------------

    @abc.abstractmethod
    def save_checkpoint(self, key: str, value: Mapping[str, Any]) -> None:
        """Keep ``value`` (JSON) under ``key``, replacing what was there. A phase saves its
        validated agent result here so a rerun after a crash applies it instead of asking
        the agent again."""

    @abc.abstractmethod
    def load_checkpoint(self, key: str) -> dict[str, Any] | None: ...

    @abc.abstractmethod
    def clear_checkpoint(self, key: str) -> None:
        """Forget ``key``; clearing a key that is not there is a no-op."""

    # -- branches -----------------------------------------------------------------------

    @abc.abstractmethod
    def record_branch(self, repo: str, branch: str, origin: str) -> None:
        """Note that Ralph may build on ``branch`` of ``repo``: it created the branch
        (origin "created") or a person let it take theirs ("adopted"). A branch recorded
        already keeps its first origin."""

    @abc.abstractmethod
    def branch_origin(self, repo: str, branch: str) -> str | None:
        """How ``branch`` became Ralph's (see record_branch); None when it is not."""

    # -- lifecycle ----------------------------------------------------------------------

    def migrate(self) -> list[int]:
        """Bring the schema up to date; returns the versions applied now."""
        return []

    def close(self) -> None:  # noqa: B027 - a store without resources has nothing to close
        """Release connections and background threads."""

    def __enter__(self) -> TaskStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
