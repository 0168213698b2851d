"""``ralph loop``: one pass that drains the board. The board's roots come in the
original loop's order (``pipeline.order_roots``); each runs as a hero or team session
(``run_session``, so it resumes the root's active run after a crash, never starting a
second one), up to ``max_roots`` at once, every agent of every root through one set of
agent slots. A root runs at most once per pass: what it leaves (an escalation, a plan
to approve) waits for a person, and the pass ends when no root it has not run is left.

Sessions on one project run side by side as hero's workers do: each has its own run in
the store and its own lead; the store serialises merges across runs (``merge:<repo>``),
worktrees are per issue and git adds them one at a time.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ralph.graph import ReviewMode
from ralph.orchestrate._admission import hold_line, lift_unbound
from ralph.orchestrate._lead import Ending
from ralph.orchestrate._options import SessionOptions
from ralph.orchestrate._planning import _as_planned
from ralph.orchestrate._reconcile import RECONCILE_SECONDS, BoardReads, Reconciler
from ralph.orchestrate._session import (
    LOOK_SECONDS,
    SessionResult,
    hero_crew,
    run_session,
    suggested_team,
    team_crew,
)
from ralph.orchestrate._slots import AgentSlots
from ralph.phases import MergeLooks
from ralph.pipeline import BoardIssue, BoardQueue, IssueRelations, QueuedRoot, order_roots
from ralph.project import Project
from ralph.runtimes import AgentRuntime
from ralph.tasks import RunStatus
from ralph.tracker import Issue, IssueQuery

__all__ = ["LoopResult", "RootRun", "RootSessions", "board_queue", "run_loop"]

#: The phase that takes a plan in review on, per review mode (None: a person approves).
logger = logging.getLogger(__name__)

_GATE_PHASE = {ReviewMode.AUTO: "review", ReviewMode.SKIP: "implement"}


@dataclass(frozen=True)
class RootRun:
    root: QueuedRoot
    result: SessionResult


@dataclass(frozen=True)
class LoopResult:
    runs: tuple[RootRun, ...]
    #: The board after the pass.
    left: BoardQueue


def board_queue(
    project: Project,
    review_mode: ReviewMode,
    phases: Collection[str] | None = None,
    issues: Sequence[Issue] | None = None,
) -> BoardQueue:
    """The board's roots as a pass would run them now, and who waits for a person;
    ``issues``: the board as just read (else it is read here)."""
    if issues is None:
        issues = project.tracker.list_issues(IssueQuery(status=None, board=True))
    board = [
        BoardIssue(
            _as_planned(issue),
            IssueRelations(
                issue.number,
                issue.title,
                issue.parent,
                issue.sub_issues,
                issue.blocked_by,
                issue.blocking,
            ),
            priority=issue.priority.value if issue.priority else None,
            created_at=issue.created_at,
            is_open=issue.is_open,
        )
        for issue in issues
    ]
    active = {
        run.root_issue: [int(n) for n in run.config.get("group", [run.root_issue])]
        for run in project.store.list_runs(status=RunStatus.ACTIVE)
        if run.root_issue is not None
    }
    return order_roots(
        board, active_runs=active, gate_phase=_GATE_PHASE.get(review_mode), phases=phases
    )


class RootSessions:
    """Roots running side by side, each a hero or team session on its own thread, every
    agent through one set of agent slots and one budget. ``ralph loop`` and ``ralph
    serve`` start roots through it and collect them as they end."""

    def __init__(
        self,
        project: Project,
        runtime: AgentRuntime,
        options: SessionOptions,
        *,
        reconcile_every: float | None = RECONCILE_SECONDS,
        on_note: Callable[[str], None] | None = None,
    ) -> None:
        """``options``: every session's, passed on unchanged (its interrupt stops them
        all, its observer is given every session's events from that session's thread).
        ``reconcile_every``: how often the sessions read the board to stop agents
        whose issues a person took away (None: only the reads of ``board()``, as
        ``ralph serve`` makes them on its poll). One read serves every session.
        ``on_note``: told what each read's look at merges finished or sent back."""
        self.project = project
        self.options = options
        self.slots = AgentSlots(runtime, options.max_agents, options.phase_caps)
        self.reads = BoardReads(project.tracker)
        self.reconcile_every = reconcile_every
        self.merges = MergeLooks(project)
        self.note = on_note or (lambda text: logger.info(text))
        self.running: dict[int, tuple[QueuedRoot, threading.Thread, list[SessionResult]]] = {}
        #: Set whenever a session ends: a waiting caller wakes at once.
        self.changed = threading.Event()
        #: Held roots already said (``_unheld``).
        self._said_held: set[int] = set()

    def board(self) -> BoardQueue:
        """Read the board: the roots to run, in order (the sessions reconcile with it).
        A merge the read shows left half-way is finished or sent back first
        (``phases.MergeLooks``), and the board read again when it moved anything."""
        options = self.options
        issues = self.reads.read()
        looked = [synced for synced in self.merges.look(issues) if synced.changed]
        for synced in looked:
            for line in synced.lines:
                self.note(line)
        if looked:
            issues = self.reads.read()
        queue = board_queue(self.project, options.review_mode, options.phases, issues)
        return dataclasses.replace(queue, roots=self._unheld(queue.roots))

    def _unheld(self, roots: Sequence[QueuedRoot]) -> tuple[QueuedRoot, ...]:
        """``roots`` but those with a held issue, which are said once: a session started
        for one would end at once (``ralph serve`` would start it every poll). Budget
        holds whose cap no longer binds are lifted first, as a session opening the run
        would lift them."""
        store, repo = self.project.store, self.project.config.repo
        holds = store.holds(repo)
        if not holds:
            return tuple(roots)
        runs = {hold.run_id for hold in holds}
        for run in store.list_runs(status=RunStatus.ACTIVE):
            if run.id in runs:
                lift_unbound(store, self.project.config, self.options.budget, run)
        held = {hold.number: hold for hold in store.holds(repo)}
        kept = []
        for queued in roots:
            hold = next((held[n] for n in (queued.root, *queued.members) if n in held), None)
            if hold is None:
                kept.append(queued)
            elif queued.root not in self._said_held:
                self._said_held.add(queued.root)
                self.note(f"{hold_line(hold, hold.number)} (root #{queued.root} not started)")
        return tuple(kept)

    def start(self, queued: QueuedRoot) -> None:
        # Its session says its own holds when it ends: a read after that does not again.
        self._said_held.add(queued.root)
        out: list[SessionResult] = []
        thread = threading.Thread(
            target=self._session, args=(queued, out), name=f"root-{queued.root}", daemon=True
        )
        self.running[queued.root] = (queued, thread, out)
        thread.start()

    def _session(self, queued: QueuedRoot, out: list[SessionResult]) -> None:
        try:
            options = self.options
            team = suggested_team(self.project, queued.root, options.review_mode)
            hero = options.mode == "hero"
            crew = hero_crew(self._width(queued, team)) if hero else team_crew(team)
            reconciler = Reconciler(self.reads, self.reconcile_every)
            out.append(
                run_session(
                    self.project, queued.root, self.slots, options, crew=crew, reconciler=reconciler
                )
            )
        except Exception as exc:  # one root's broken pipeline does not stop the others
            out.append(SessionResult(None, Ending.BROKEN, f"#{queued.root}: {exc}"))
        finally:
            self.changed.set()

    def _width(self, queued: QueuedRoot, team: dict[str, int]) -> int:
        """Hero workers for one root: as many of its tasks as can ever run at once (one
        per issue of its group while research fans out, a builder per work stream it
        may have), within the agents allowed. Idle workers are not free when many roots
        run: each one wakes on every change of the store."""
        width = max(len(queued.members), *team.values())
        return max(1, min(self.options.max_agents, width))

    def ended(self) -> list[RootRun]:
        """The sessions that ended since the last call, no longer running."""
        done = []
        for root, (queued, thread, out) in list(self.running.items()):
            # A result is the session's last act: its thread is as good as ended.
            if out or not thread.is_alive():
                del self.running[root]
                result = out[0] if out else SessionResult(None, Ending.INTERRUPTED, "stopped")
                done.append(RootRun(queued, result))
        return done

    def wake(self) -> None:
        """End a ``wait`` now (something besides a session's end needs a look)."""
        self.changed.set()

    def wait(self, timeout: float) -> None:
        """Until a session ends, or ``timeout`` seconds. Sessions end within their
        agents' limits (or at once after a second Ctrl-C)."""
        if self.changed.wait(max(0.0, timeout)):
            self.changed.clear()


def run_loop(
    project: Project,
    runtime: AgentRuntime,
    options: SessionOptions,
    *,
    on_start: Callable[[QueuedRoot], None] | None = None,
    on_end: Callable[[RootRun], None] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> LoopResult:
    """Run the board's roots, ``options.max_roots`` at once, until none is left that
    this pass has not run, or until ``options.interrupt`` stops it. ``on_start`` and
    ``on_end`` are called from this thread. ``options.wait``: a root whose tasks wait
    for a person (a review) keeps running until they are done, instead of ending its
    session. ``on_note`` is told what a read of the board found (a held root not
    started, a merge finished)."""
    interrupt, max_roots = options.interrupt, options.max_roots
    sessions = RootSessions(project, runtime, options, on_note=on_note)
    started: set[int] = set()
    runs: list[RootRun] = []
    look_again = True
    while True:
        for done in sessions.ended():
            runs.append(done)
            look_again = True
            if on_end is not None:
                on_end(done)
        if look_again and not interrupt.stopping.is_set() and len(sessions.running) < max_roots:
            look_again = False
            for queued in sessions.board().roots:
                if len(sessions.running) >= max_roots:
                    break
                if queued.root in started:
                    continue
                started.add(queued.root)
                if on_start is not None:
                    on_start(queued)
                sessions.start(queued)
        if not sessions.running:
            break
        sessions.wait(LOOK_SECONDS)
    return LoopResult(tuple(runs), sessions.board())
