"""Reconciliation: a person's move on the board stops the agents it makes useless.

When a person moves an issue to Canceled, Done or Human Needed, closes it, or takes it
off the board while a task of it runs, the task's agent is stopped (its worktree stays
as it was). The phase then ends as a phase whose issue was moved meanwhile does: the
person's move stands, the task fails for good, what waits for it is canceled, and the
run's report says so ("#2 was moved to Canceled by a person while research ran; its
agent was stopped"). An issue moved back later is a root like any other: the next pass
over the board (``ralph serve``'s next read) picks it up.

The board is read once per period per process, however many sessions and workers it
holds (``BoardReads`` is shared): on GitHub that is one board read per poll, never one
per task. ``ralph serve`` reads the board on its poll and the sessions it runs use that
read; ``ralph hero``, ``team``, ``loop`` and ``worker`` read it themselves every
``RECONCILE_SECONDS`` while an agent of theirs runs.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ralph.orchestrate._worker import Crew
from ralph.tracker import Issue, IssueQuery, Tracker
from ralph.workflow import WorkflowState

__all__ = [
    "RECONCILE_SECONDS",
    "WITHDRAWN_STATES",
    "BoardRead",
    "BoardReads",
    "Reconciler",
    "withdrawn",
]

logger = logging.getLogger(__name__)

#: How often a session with agents running reads the board to reconcile: the cadence of
#: its heartbeats (a sixth of the default task lease).
RECONCILE_SECONDS = 10.0
#: States a person moves an issue to when its pipeline's work is no longer wanted.
WITHDRAWN_STATES = frozenset(
    {WorkflowState.CANCELED, WorkflowState.DONE, WorkflowState.HUMAN_NEEDED}
)


def withdrawn(issue: Issue | None) -> str:
    """Why the work of a running task on ``issue`` can no longer be used ("" when it
    can): the issue is gone, closed, off the board (no workflow state), or in a state
    outside the pipeline's hands."""
    if issue is None:
        return "is not on the board any more"
    if not issue.is_open:
        return "was closed"
    if issue.workflow_state is None:
        return "was taken off the board"
    if issue.workflow_state in WITHDRAWN_STATES:
        return f"was moved to {issue.workflow_state.value}"
    return ""


@dataclass(frozen=True)
class BoardRead:
    #: Counts the reads of one ``BoardReads``: a reader knows a read it has seen.
    generation: int
    #: ``time.monotonic()`` when the read started: it says nothing of later changes.
    started: float
    issues: Mapping[int, Issue]


class BoardReads:
    """The board as last read, shared by everything of a process that looks at it (the
    service's poll, each session's reconciliation), so that one read serves them all."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker
        self._lock = threading.Lock()
        #: Held while a read runs: a second reader that finds it taken uses the last read.
        self._reading = threading.Lock()
        self._last: BoardRead | None = None

    def read(self) -> list[Issue]:
        """Read the board now (open and closed issues); raises what the tracker raises."""
        started = time.monotonic()
        issues = self.tracker.list_issues(IssueQuery(status=None, board=True))
        with self._lock:
            generation = self._last.generation + 1 if self._last is not None else 1
            self._last = BoardRead(generation, started, {i.number: i for i in issues})
        return issues

    def latest(self, max_age: float | None) -> BoardRead | None:
        """The last read, read again first when it is older than ``max_age`` seconds
        (None: never read here; only what others read). None before any read, or when
        the board cannot be read now."""
        with self._lock:
            last = self._last
        stale = max_age is not None and (last is None or time.monotonic() - last.started > max_age)
        if stale and self._reading.acquire(blocking=False):  # else another thread reads it
            try:
                self.read()
            except Exception as exc:  # a board that cannot be read is tried next time
                logger.warning("cannot read the board to reconcile", extra={"error": str(exc)})
            finally:
                self._reading.release()
            with self._lock:
                last = self._last
        return last


class Reconciler:
    """Stops the agents of one crew (or several) whose issues a person took away."""

    def __init__(self, board: BoardReads, every: float | None = RECONCILE_SECONDS) -> None:
        """``every``: how old a read may be before this reconciler reads the board again
        (None: it only uses reads made by others, as sessions of ``ralph serve`` do)."""
        self.board = board
        self.every = every
        self._seen = 0

    def look(self, crews: Iterable[Crew]) -> list[str]:
        """Stop the agents whose issues are withdrawn on a read of the board newer than
        the last one looked at; returns what was stopped and why, a line each."""
        busy = [w for crew in crews for w in crew.workers if w.current is not None]
        if not busy:
            return []
        read = self.board.latest(self.every)
        if read is None or read.generation == self._seen:
            return []
        self._seen = read.generation
        said = []
        for worker in busy:
            claim, since = worker.current, worker.working_since
            # A task taken after the read started may already see a later board.
            if claim is None or since > read.started:
                continue
            for number in claim.task.issues:
                why = withdrawn(read.issues.get(number))
                if why and worker.stop_agent(claim.task_id, f"#{number} {why}"):
                    line = f"#{number} {why}: stopping the agent of {claim.task.key}"
                    logger.info(line, extra={"task": claim.task.key, "issue": number})
                    said.append(line)
                    break
        return said
