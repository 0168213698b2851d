"""Workers: claim a task of their roles, heartbeat while it runs, end it, claim again at
once; when there is nothing to claim, sleep on the store's events (never on messages,
never in an agent). A crew is a set of workers in one process, as threads.

A worker told the only phases whose tasks it may take (``ralph loop --only``) picks them
from the run's ready tasks and claims each by id; the others stay pending for a later run.

A cap reached or an issue of the run held stops claims too (the lead ends the session).

Stopping: the session's interrupt stopping means no new claims (tasks in hand finish); a
shutdown or a finished run in the store ends the loop too; ``release_claims`` hands
running tasks back (the second Ctrl-C). A worker the roster lets go (``retire``) ends
before its next claim; a task it already holds finishes first.

No exception ends a worker: one from a task's execution hands the task back at once
(its attempt counted, so one that always breaks goes dead), and one from the loop itself
(the store unreachable a moment) starts the loop again. A dead thread would leave its
task claimed until the lease ran out, and the run would stall that long.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

from ralph._secrets import redact
from ralph.errors import LeaseLost, TaskNotClaimable
from ralph.orchestrate._admission import holds_in_run
from ralph.orchestrate._execute import WORKER_BROKE, Execution
from ralph.orchestrate._options import SessionOptions
from ralph.runtimes import StopSignal
from ralph.tasks import Claim, Event, EventKind, RunStatus, TaskStatus, TaskStore

__all__ = ["Crew", "Worker", "WorkerStats", "heartbeating", "latest_event"]

logger = logging.getLogger(__name__)

#: How long an idle worker sleeps on the event stream before looking again (the floor
#: for noticing a retry backoff running out; every claimable change is an event).
IDLE_SECONDS = 1.0
#: How long a finished task waits for its heartbeat thread's store call to return.
HEARTBEAT_GRACE_SECONDS = 5.0
#: How long a worker whose loop broke waits before it starts again.
RESTART_SECONDS = 1.0
_ENDINGS = frozenset({EventKind.SHUTDOWN_REQUESTED, EventKind.RUN_FINISHED})
#: News that makes no task claimable: another task's agent at work, another worker's
#: claim. Each claim of a team would otherwise send every idle worker to read the run,
#: the holds and claim (round trips on PostgreSQL; issue 49).
_FREES_NOTHING = frozenset({EventKind.TASK_ACTIVITY, EventKind.TASK_CLAIMED})


def latest_event(store: TaskStore, run_id: int) -> int:
    """The id of the run's newest event (0 before any)."""
    history = store.events(run_id)
    return history[-1].id if history else 0


@contextmanager
def heartbeating(
    store: TaskStore, claim: Claim, every: float, stop: StopSignal | None = None
) -> Iterator[None]:
    """Keep ``claim``'s lease alive from a background thread while the block runs. A
    lease found lost stops the agent through ``stop``: the task is no longer this
    worker's (canceled, or handed to another), so nothing its agent does can be used."""
    done = threading.Event()

    def beat() -> None:
        while not done.wait(every):
            try:
                store.heartbeat(claim)
            except LeaseLost as lost:
                logger.warning("lease lost while running", extra={"task": claim.task_id})
                if stop is not None:
                    stop.stop(f"the task is no longer this worker's: {lost}")
                return
            except Exception:  # a store hiccup: the next beat may get through
                logger.warning("heartbeat failed", exc_info=True, extra={"task": claim.task_id})

    thread = threading.Thread(target=beat, name=f"heartbeat-{claim.task_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        # The beat wakes at once; a store call stuck in it is left to its daemon thread.
        thread.join(every + HEARTBEAT_GRACE_SECONDS)


@dataclass
class WorkerStats:
    claims: int = 0
    executions: list[Execution] = field(default_factory=list)
    #: How often the worker went to sleep on the event stream with nothing to do.
    idle_waits: int = 0
    #: Tasks handed back because their execution raised, and restarts of the loop.
    broke: int = 0
    restarts: int = 0


class Worker:
    def __init__(
        self,
        store: TaskStore,
        run_id: int,
        name: str,
        roles: Collection[str],
        execute: Callable[[Claim, StopSignal], Execution],
        options: SessionOptions | None = None,
        *,
        idle_seconds: float = IDLE_SECONDS,
        since: int | None = None,
    ) -> None:
        """``options``: the session's budget, interrupt (no claims once it is stopping)
        and phases (the only kinds of task to take; None: any of the roles'). Without
        them: no cap, never stopped from outside, any kind."""
        options = options or SessionOptions()
        self.store = store
        self.run_id = run_id
        self.name = name
        self.roles = tuple(roles)
        self.execute = execute
        self.budget = options.budget
        self.repo = options.repo
        self.interrupt = options.interrupt
        self.stopping = options.interrupt.stopping
        self.idle_seconds = idle_seconds
        self.kinds = options.phases
        self.stats = WorkerStats()
        self.current: Claim | None = None
        #: ``time.monotonic()`` when the task in hand was claimed.
        self.working_since = 0.0
        #: Stops the agent of the task in hand (``stop_agent``).
        self._stop = StopSignal()
        #: Set by ``retire``: the worker claims nothing more and ends.
        self.retired = threading.Event()
        # Shutdowns of earlier sessions of this run are history: the worker starts after
        # them. The cursor is taken here, not when the thread starts, so a shutdown of
        # this very session (the lead may end it before the thread runs) is seen.
        self.since = latest_event(store, run_id) if since is None else since

    def run(self) -> WorkerStats:
        cursor = self.since
        looked = 0.0
        # What a wait returned is the news of the next turn: read again, it was a second
        # query of each wake for every idle worker (issue 49). None: read it.
        news: list[Event] | None = None
        while not self.stopping.is_set() and not self.retired.is_set():
            if news is None:
                news = self.store.events(self.run_id, cursor)
            if news:
                cursor = news[-1].id
                if any(event.kind in _ENDINGS for event in news):
                    break
                if (
                    all(event.kind in _FREES_NOTHING for event in news)
                    and time.monotonic() - looked < self.idle_seconds
                ):
                    # The look an idle worker takes each interval (a backoff ran out)
                    # still comes.
                    news = self.store.wait_for_events(self.run_id, cursor, self.idle_seconds)
                    continue
            news = None
            looked = time.monotonic()
            if self.store.get_run(self.run_id).status is not RunStatus.ACTIVE:
                break
            if self.retired.is_set():
                break
            if not self.budget.exhausted(self.store, self.run_id) and not holds_in_run(
                self.store, self.repo, self.run_id
            ):
                claim = self._claim()
                if claim is not None and self.interrupt.unusable:
                    # The session stopped while this worker claimed because another
                    # worker's task needs a person: untouched, it goes back. (After a
                    # signal the task is in hand and finishes, as the first one promises.)
                    self.store.release(claim, untried=True)
                    break
                if claim is not None:
                    self._work(claim)
                    continue
            self.stats.idle_waits += 1
            news = self.store.wait_for_events(self.run_id, cursor, self.idle_seconds)
        return self.stats

    def _claim(self) -> Claim | None:
        if self.kinds is None:
            return self.store.claim(self.run_id, self.name, self.roles)
        self.store.claim(self.run_id, self.name, ())  # hands back expired leases; claims none
        tasks = self.store.list_tasks(self.run_id)
        done = {t.id for t in tasks if t.status is TaskStatus.DONE}
        for task in tasks:
            if (
                task.status is TaskStatus.PENDING
                and task.kind in self.kinds
                and task.role in self.roles
                and done.issuperset(task.deps)
            ):
                try:
                    return self.store.claim_task(task.id, self.name)
                except TaskNotClaimable:  # taken meanwhile, a backoff, a busy merge key
                    continue
        return None

    def _work(self, claim: Claim) -> None:
        self.stats.claims += 1
        self._stop = StopSignal()
        self.working_since = time.monotonic()
        self.current = claim
        logger.debug("claimed", extra={"worker": self.name, "task": claim.task.key})
        try:
            with heartbeating(self.store, claim, self.store.lease_seconds / 6, self._stop):
                self.stats.executions.append(self.execute(claim, self._stop))
        except Exception as exc:  # handed back now, not when its lease runs out
            logger.exception("task broke its worker", extra={"task": claim.task.key})
            self.stats.broke += 1
            error = redact(f"{WORKER_BROKE}{type(exc).__name__}: {exc}")
            try:
                self.store.fail(claim, error, retry_after=0)
            except Exception:  # lost meanwhile, or the store is down: the lease ends it
                logger.warning("could not hand the task back", exc_info=True)
        finally:
            self.current = None

    def stop_agent(self, task_id: int, reason: str) -> bool:
        """Stop the agent of task ``task_id`` if it is this worker's task in hand; the
        task then ends as its phase decides (a person's move stands). True if it was."""
        claim = self.current
        if claim is None or claim.task_id != task_id:
            return False
        self._stop.stop(reason)
        return True

    def retire(self) -> None:
        """Let the worker go: it ends before its next claim (within its idle wait when it
        sleeps on the event stream; after its task when it has one)."""
        self.retired.set()

    def release(self) -> None:
        """Give the task in hand back to the store (the worker's process is stopping)."""
        claim = self.current
        if claim is None:
            return
        with suppress(LeaseLost):
            self.store.release(claim)


class Crew:
    """Workers of one process, each on its own thread. A team's roster adds workers
    while the session runs (``add``) and retires idle ones; a retired worker stays in
    ``workers`` (its counts are the session's) but no longer in ``active``."""

    def __init__(self, workers: Sequence[Worker]) -> None:
        self.workers = list(workers)
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for worker in self.workers:
            self._start(worker)

    def add(self, worker: Worker) -> None:
        """A worker more, at work at once."""
        self.workers.append(worker)
        self._start(worker)

    def _start(self, worker: Worker) -> None:
        thread = threading.Thread(target=_keep, args=(worker,), name=worker.name, daemon=True)
        thread.start()
        self._threads.append(thread)

    @property
    def active(self) -> list[Worker]:
        """The workers not retired."""
        return [worker for worker in self.workers if not worker.retired.is_set()]

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds in all; True when every worker has stopped."""
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self._threads)

    @property
    def busy(self) -> bool:
        return any(worker.current is not None for worker in self.workers)

    def release_claims(self) -> None:
        for worker in self.workers:
            worker.release()


def _keep(worker: Worker) -> None:
    """Run ``worker`` until it ends; a loop that raised starts again after a moment."""
    while True:
        try:
            worker.run()
            return
        except Exception:
            logger.exception("worker broke; starting it again", extra={"worker": worker.name})
            worker.stats.restarts += 1
            if worker.stopping.wait(RESTART_SECONDS):
                return
