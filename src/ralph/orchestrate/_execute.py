"""Running one claimed task: its phase through the phase runner, then the task's end in
the store, with any graph rewrite its outcome calls for in the same transaction.

A merge that finds feedback to address (a change request, review threads, a failed
required check) is superseded by an address round: the builder's address task, a code
review again when ``review_code`` asks for one, and a new merge after them.

Failure policy (the original's): a phase that escalates sends its issues
to Human Needed, its task fails for good, and only the tasks that wait for it are
canceled, so independent work goes on (one research escalating lets the others finish;
the plan waiting for all of them never starts). A phase that failed is retried by the
store's backoff; when its attempts are used up its dependents are canceled the same way
and its worktree is left as it was for a person to look at. A phase whose issue a person
moved while it ran (to Human Needed, say) ends the same way, the issue left where the
person put it and the phase's result kept for a later run; the report says so. An agent
that cannot work here at all (a refused key, an unknown model) hands its task back
untouched and stops the session: every other task would fail the same way.

Held is not failing either: a task whose issue a cap (or another check of
``_admission``) holds goes back untried before its phase runs, and the run ends.

An agent whose provider refuses for now (a rate limit, a usage window) is waited out,
never an attempt (``_provider_wait``): the task goes back untried until the reset, and
every task of that agent waits with it, unstarted, while other agents' tasks run.

Waiting is not failing: a phase not ready yet (checks running, a review missing) hands
its task back to the store to wait, with a wake-up time from the project's backoff
(``[merge]`` waits: 15 s doubling to 5 min by default) and no attempt charged; the
worker is free at once and no issue lock is kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from ralph._secrets import redact
from ralph._tracing import RunTrace, span
from ralph.artifacts import Verdict
from ralph.errors import GraphError, LeaseLost, NeedsPerson, RalphError
from ralph.graph import TaskKind
from ralph.orchestrate._activity import recording_activity
from ralph.orchestrate._admission import CAP_STOPPED, Held, admission, hold_issues, hold_line
from ralph.orchestrate._attempts import (
    ATTEMPT_MARK,
    best_of_from_config,
    is_attempt,
    is_selection,
)
from ralph.orchestrate._no_progress import no_progress
from ralph.orchestrate._outcome import ESCALATED
from ralph.orchestrate._planning import plan_from_tracker
from ralph.orchestrate._provider_wait import hear_limit, provider_wait_text
from ralph.orchestrate._rewrite import address_round, base_key, iterate, regraph
from ralph.orchestrate._run_files import RunFiles
from ralph.orchestrate._waiting import wait_policy
from ralph.phases import (
    FAST_TRACKED,
    AttemptOutcome,
    AttemptRecord,
    Busy,
    NeedsHuman,
    PhaseOutcome,
    PhaseRefused,
    PhaseRunner,
    PhaseStatus,
    ProviderLimited,
    Selection,
    Waiting,
    select_attempt,
)
from ralph.project import Project
from ralph.runtimes import ActivityFeed, AgentResult, AgentRuntime, StopSignal
from ralph.tasks import Claim, GraphEdit, ProviderWait, Run, Spend, Task, TaskStatus
from ralph.workflow import PHASE_SPECS

__all__ = [
    "EDIT_TRIES",
    "MAX_PLAN_ITERATIONS",
    "PHASE_OF_KIND",
    "REFUSED_RETRY_SECONDS",
    "WORKER_BROKE",
    "Execution",
    "ExecutionStatus",
    "TaskExecutor",
]

logger = logging.getLogger(__name__)

#: The phase each kind of task runs (every kind but the person's gate).
PHASE_OF_KIND = {TaskKind(s.kind): s.name for s in PHASE_SPECS}
_KINDS = frozenset(kind.value for kind in TaskKind)
#: The phases an agent runs: their tasks wait while their agent's provider refuses.
_AGENT_PHASES = frozenset(s.name for s in PHASE_SPECS if s.uses_agent)
#: Re-plans after NEEDS_ITERATION before the issues go to a person.
MAX_PLAN_ITERATIONS = 2
#: A phase that refused to start (an issue held by another run) is tried again after this.
REFUSED_RETRY_SECONDS = 5.0
#: Times a graph edit the store refused, because another worker's edit of the run landed
#: first (several triage tasks ending at once), is planned again from a fresh read.
EDIT_TRIES = 5
#: How a task's error begins when its worker broke on it (an exception no ending caught):
#: the task is handed back at once and the report counts it.
WORKER_BROKE = "the worker broke: "


class ExecutionStatus(enum.StrEnum):
    DONE = "done"
    ESCALATED = "escalated"
    #: Failed; the store retries it after a backoff, or it is dead.
    FAILED = "failed"
    #: Replaced by a rewrite: a group plan that became streams (before its phase ran), a
    #: merge that found feedback to address first (an address round, then a new merge).
    SUPERSEDED = "superseded"
    #: The claim was lost meanwhile (canceled, or reaped and claimed elsewhere).
    LOST = "lost"
    #: An issue was moved by someone else while the phase ran; their move stands.
    MOVED = "moved"
    #: Handed back untouched: nothing can go on until a person acts (NeedsPerson: the
    #: agent's setup, their checkout of the base branch, a remote that refuses us).
    STOPPED = "stopped"
    #: Not ready yet: back in the store to look again later (no attempt charged).
    WAITING = "waiting"
    #: Its issues are held (a cap reached, no progress): handed back untried, and the
    #: run ends saying why (``_admission``).
    HELD = "held"


@dataclass(frozen=True)
class Execution:
    task_id: int
    status: ExecutionStatus
    lines: tuple[str, ...] = ()
    error: str = ""
    rewrite: dict[str, Any] = field(default_factory=dict)


def run_trace(project: Project, run: Run) -> RunTrace:
    """The trace every span of ``run`` belongs to, whichever process works on it."""
    return RunTrace.of(project.config.repo, run.id, run.created_at)


class TaskExecutor:
    """Runs claimed tasks of one run for one worker (its name is the lock owner)."""

    def __init__(
        self,
        project: Project,
        runtime: AgentRuntime,
        run: Run,
        *,
        owner: str,
        attempts: int = 2,
        stop: Callable[[str], None] | None = None,
    ) -> None:
        """``stop`` is told why, when only a person can let any task go on (NeedsPerson)."""
        self.project = project
        self.store = project.store
        self.run = run
        self.stop = stop
        self.review_mode = str(run.config.get("review_mode", project.config.review_mode))
        self.wait_policy = wait_policy(project.config)
        self.files = RunFiles(project.config.root, run.id)
        #: The cap per task, which best of N's attempts share.
        self.budget_task_usd = project.config.budget_task_usd
        self.runner = PhaseRunner(
            project, runtime, owner=owner, max_attempts=attempts, review_mode=self.review_mode
        )
        self.runner.run_id = run.id
        self.runner.stop_trying = self._stop_trying
        #: The agent runs of the task being executed, by task id, for its log.
        self._agent_runs: dict[int, tuple[AgentResult, ...]] = {}

    def execute(self, claim: Claim, stop: StopSignal | None = None) -> Execution:
        """Run the claimed task; ``stop``, set from another thread, stops its agent."""
        task = claim.task
        attributes = {
            "ralph.run": self.run.id,
            "ralph.task": task.key,
            "ralph.task.kind": task.kind,
            "ralph.task.attempt": task.attempts,
            "ralph.issues": list(task.issues),
            "ralph.worker": claim.worker,
        }
        started = time.time()
        # This worker's runner runs one task at a time: its agents' transcripts go to
        # the task's folder of the run until the attempt ends.
        self.runner.transcripts = self.files.incoming(task.id)
        self.runner.task = task
        self.runner.claim = claim
        # Its agents' activity goes to the task as they work, for every view of the run.
        self.runner.activity = feed = ActivityFeed()
        with (
            span("ralph.task", attributes, run=run_trace(self.project, self.run)) as traced,
            recording_activity(self.store, claim, feed),
        ):
            try:
                execution = self._execute(claim, stop)
            except LeaseLost as lost:
                logger.warning("claim lost", extra={"task": claim.task_id, "reason": str(lost)})
                execution = Execution(claim.task_id, ExecutionStatus.LOST, error=str(lost))
            except Exception as exc:  # no task's ending may end its worker
                logger.exception("task broke its ending", extra={"task": task.key})
                execution = self._broke(claim, exc)
            traced.set("ralph.status", execution.status.value)
            if execution.error:
                traced.fail(execution.error)
        self.files.record_attempt(
            task.id,
            attempt=task.attempts,
            subject=task.subject,
            started=started,
            ending=execution.status.value,
            error=execution.error,
            lines=execution.lines,
            agent_runs=self._agent_runs.pop(task.id, ()),
        )
        return execution

    def _execute(self, claim: Claim, stop: StopSignal | None) -> Execution:
        task = claim.task
        kind = TaskKind(task.kind)
        paused = self._paused(claim, kind)
        if paused is not None:
            return paused
        streamed = "stream_id" in task.metadata
        with contextlib.ExitStack() as reading:
            shared = kind is TaskKind.PLAN and not streamed
            if shared:
                # The look for a cut-short apply, the re-plan and the run's checks read the
                # group once, together: one step until the run's agent turn ends it.
                reading.enter_context(self.project.tracker.snapshot())
                # A plan whose apply a killed run cut short finishes instead: planned
                # again from the tracker, its half-moved group would look like one in
                # review.
                if not self.runner.cut_short(PHASE_OF_KIND[kind], task.issues[0]):
                    replaced = self._replanned(claim)
                    if replaced is not None:
                        return replaced
            return self._execute_run(claim, kind, streamed, stop, reading if shared else None)

    def _execute_run(
        self,
        claim: Claim,
        kind: TaskKind,
        streamed: bool,
        stop: StopSignal | None,
        reading: contextlib.ExitStack | None,
    ) -> Execution:
        """The task's run; ``reading``: the snapshot its step read in so far (a plan's)."""
        task = claim.task
        held = admission(self.store, self.project.config, self.run, task)
        if held is not None:
            return self._held(claim, held)
        # A stream's tasks cover its issues only (an implement task names one of them).
        only = [int(n) for n in task.metadata.get("stream_members", task.issues)]
        if kind is TaskKind.IMPLEMENT and is_attempt(task.metadata):
            return self._attempt(claim, only if streamed else None, stop)
        selected: tuple[str, ...] = ()
        try:
            if kind is TaskKind.IMPLEMENT and is_selection(task.metadata):
                selection = self._select(claim, only if streamed else None)
                if isinstance(selection, Execution):
                    return selection
                selected = selection
            outcome = self.runner.run(
                PHASE_OF_KIND[kind],
                task.issues[0],
                only=only if streamed else None,
                stop=stop,
                reading=reading,
            )
        except ProviderLimited as limited:
            return self._limited(claim, limited)
        except Waiting as waiting:
            return self._waiting(claim, waiting.reason, for_person=waiting.for_person)
        except PhaseRefused as refused:
            if not refused.retryable:  # only a person can change the answer
                return self._escalated(claim, str(refused))
            # Its last: only a person can go on, unless another run holds the issue.
            if task.attempts >= task.max_attempts and not isinstance(refused, Busy):
                return self._out_of_attempts(claim, kind, str(refused))
            self.store.fail(claim, redact(str(refused)), retry_after=REFUSED_RETRY_SECONDS)
            return Execution(task.id, ExecutionStatus.FAILED, error=str(refused))
        except NeedsPerson as blocked:
            # Stop first: the release wakes idle workers, which must not take the task up.
            if self.stop is not None:
                self.stop(str(blocked))
            self.store.release(claim)
            return Execution(task.id, ExecutionStatus.STOPPED, error=str(blocked))
        except Exception as exc:  # the worker outlives any one task
            logger.exception("task crashed", extra={"task": task.key})
            error = str(exc) if isinstance(exc, RalphError) else f"{type(exc).__name__}: {exc}"
            # A lost claim is another worker's task now: its issues are not ours to move.
            if task.attempts >= task.max_attempts and not isinstance(exc, LeaseLost):
                return self._out_of_attempts(claim, kind, error)
            return self._failed(claim, error)
        self._charge(claim, outcome)
        self._note_breaches(claim, outcome)
        if (
            outcome.status is PhaseStatus.FAILED
            and stop is not None
            and stop.reason.startswith(CAP_STOPPED)
        ):
            # Stopped for a cap (budget_on_cap = "stop"), which held its issues already;
            # a phase that finished before the stop reached it ends as it finished.
            return self._handed_back(claim, stop.reason, outcome.lines)
        if outcome.status is PhaseStatus.FAILED:  # held rather than retried
            held = admission(self.store, self.project.config, self.run, task)
            if held is not None:
                return self._held(claim, held)
        if outcome.status is PhaseStatus.ESCALATED:
            return self._escalated(claim, outcome.error, outcome.lines)
        if outcome.status is PhaseStatus.MOVED:
            return self._moved(claim, outcome)
        if outcome.status is PhaseStatus.WAITING and outcome.limited is not None:
            return self._limited(claim, outcome.limited, outcome.lines)
        if outcome.status is PhaseStatus.WAITING:
            return self._waiting(
                claim, outcome.waiting_for, for_person=outcome.for_person, lines=outcome.lines
            )
        if outcome.status is PhaseStatus.ADDRESS:
            return self._address(claim, outcome)
        if outcome.status is PhaseStatus.FELL_BACK:
            return self._fell_back(claim, outcome)
        if not outcome.ok:
            return self._failed(claim, outcome.error, outcome.lines)
        if selected:
            outcome = dataclasses.replace(outcome, lines=(*selected, *outcome.lines))
        return self._done(claim, kind, outcome)

    def _stop_trying(self, runs: Sequence[AgentResult]) -> str:
        """Why the phase in hand may not try again: its issue spent past the
        no-progress breaker, counting the tries so far (not in the ledger yet)."""
        task = self.runner.task
        if task is None:
            return ""
        unrecorded = Spend(
            usd=sum(r.cost_usd for r in runs),
            tokens=sum(r.tokens for r in runs),
            sessions=len(runs),
        )
        return no_progress(self.store, self.project.config, task, unrecorded=unrecorded)

    # -- best of N ------------------------------------------------------------------------

    def _attempt(self, claim: Claim, only: list[int] | None, stop: StopSignal | None) -> Execution:
        """One attempt of best of N: done whatever the attempt's own outcome, with what
        Ralph measured as its result, so the selection after it always runs and a rerun
        never repeats it. An attempt that would overrun the task's budget (counting every
        attempt's spending before it) is not started."""
        task = claim.task
        attempt = int(task.metadata["best_of_try"])
        agent = str(task.metadata.get("best_of_agent", ""))
        over = self._attempts_over_budget(claim)
        if over:
            record = AttemptRecord(attempt=attempt, agent=agent, problems=(over,))
            return self._attempt_done(claim, AttemptOutcome(record, (f"Try {attempt}: {over}.",)))
        try:
            outcome = self.runner.run_attempt(
                task.issues[0], attempt, agent=agent, only=only, stop=stop
            )
        except ProviderLimited as limited:  # this attempt waits; it is not lost
            return self._limited(claim, limited)
        except PhaseRefused as refused:
            if not refused.retryable:
                return self._escalated(claim, str(refused))
            self.store.fail(claim, redact(str(refused)), retry_after=REFUSED_RETRY_SECONDS)
            return Execution(task.id, ExecutionStatus.FAILED, error=str(refused))
        except NeedsPerson as blocked:
            if self.stop is not None:
                self.stop(str(blocked))
            self.store.release(claim)
            return Execution(task.id, ExecutionStatus.STOPPED, error=str(blocked))
        except Exception as exc:  # a broken attempt loses; the others go on
            logger.exception("attempt crashed", extra={"task": task.key})
            error = str(exc) if isinstance(exc, RalphError) else f"{type(exc).__name__}: {exc}"
            record = AttemptRecord(attempt=attempt, agent=agent, problems=(redact(error),))
            outcome = AttemptOutcome(record, (f"Try {attempt} broke: {redact(error)}",))
        return self._attempt_done(claim, outcome)

    def _attempt_done(self, claim: Claim, outcome: AttemptOutcome) -> Execution:
        self._agent_runs[claim.task_id] = outcome.agent_runs  # for the task's log
        self._record_charges(claim, outcome.agent_runs)
        if outcome.breaches:
            found = [redact(line) for line in outcome.breaches]
            self.store.update_progress(claim, metadata={"breaches": found})
        lines = tuple(redact(line) for line in outcome.lines)
        record = outcome.record
        self.store.complete(
            claim,
            {
                "phase": "implement",
                "status": "done",
                "lines": list(lines),
                "result": {"attempt": record.to_dict()},
                "costUsd": record.cost_usd,
                "alreadyDone": outcome.already_done,
            },
        )
        return Execution(claim.task_id, ExecutionStatus.DONE, lines)

    def _attempts_over_budget(self, claim: Claim) -> str:
        """Why this attempt may not start: the task's budget is spent by the attempts
        of the same implementation before it ("" while some is left)."""
        cap = self.budget_task_usd
        if cap <= 0:
            return ""
        siblings = self._attempt_tasks(claim.task)
        ids = {t.id for t in siblings if t.id != claim.task_id}
        spent = sum(c.usd for c in self.store.charges(self.run.id) if c.task_id in ids)
        if spent >= cap:
            return (
                f"not started: the attempts before it spent ${spent:.2f} of the task's "
                f"${cap:.2f} budget"
            )
        return ""

    def _attempt_tasks(self, task: Task) -> list[Task]:
        """The attempts of the implementation ``task`` (an attempt or its selection)."""
        key = task.key.partition(ATTEMPT_MARK)[0]
        return [
            t
            for t in self.store.list_tasks(self.run.id, kind=TaskKind.IMPLEMENT.value)
            if t.key.partition(ATTEMPT_MARK)[0] == key and is_attempt(t.metadata)
        ]

    def _select(self, claim: Claim, only: list[int] | None) -> tuple[str, ...] | Execution:
        """Choose among the finished attempts and make the winner's branch the issue's;
        the choice is kept on the task first, so a rerun after a crash installs the same
        winner. Lines for the report, or the task's end when no attempt may win (the
        issue goes to a person, every attempt's branch kept)."""
        task = claim.task
        attempts = sorted(self._attempt_tasks(task), key=lambda t: int(t.metadata["best_of_try"]))
        records = [
            AttemptRecord.from_dict(t.result["result"]["attempt"])
            for t in attempts
            if t.status is TaskStatus.DONE and isinstance(t.result, dict)
        ]
        if any(isinstance(t.result, dict) and t.result.get("alreadyDone") for t in attempts):
            return ("The implementation was finished before the attempts began.",)
        kept = task.metadata.get("best_of_choice")
        if isinstance(kept, dict):
            selection = Selection(kept.get("winner"), str(kept.get("reason", "")))
        else:
            selection = select_attempt(records)
            if task.metadata.get("best_of_select") == "review" and selection.winner is not None:
                selection, reviewed = self.runner.review_attempts(
                    task.issues[0], records, selection
                )
                if reviewed is not None:
                    self._record_charges(claim, (reviewed,))
            self.store.update_progress(claim, metadata={"best_of_choice": selection.to_dict()})
        if selection.winner is None:
            reason = f"best of {len(attempts)}: {selection.reason}"
            lines = self.runner.escalate("implement", task.issues, reason)
            return self._escalated(claim, reason, lines)
        winner = next(r for r in records if r.attempt == selection.winner)
        try:
            branch = self.runner.install_attempt(task.issues[0], winner, len(attempts), only=only)
        except NeedsHuman as human:
            lines = self.runner.escalate("implement", task.issues, str(human))
            return self._escalated(claim, str(human), lines)
        return (
            f"Best of {len(attempts)}: {selection.reason}.",
            f"{branch} is try {winner.attempt}'s.",
        )

    # -- endings --------------------------------------------------------------------------

    def _done(self, claim: Claim, kind: TaskKind, outcome: PhaseOutcome) -> Execution:
        task = claim.task
        lines = outcome.lines
        if kind is TaskKind.REVIEW and _needs_iteration(outcome):
            reviews = [
                t
                for t in self.store.list_tasks(self.run.id, kind=TaskKind.REVIEW.value)
                if base_key(t.key) == base_key(task.key) and t.id != task.id
            ]
            if len(reviews) >= MAX_PLAN_ITERATIONS:
                reason = (
                    f"the plan still needs work after {MAX_PLAN_ITERATIONS} re-plans "
                    "(NEEDS_ITERATION each time)"
                )
                lines += self.runner.escalate("review", task.issues, reason)
                return self._escalated(claim, reason, lines)
        result = {
            "phase": outcome.phase,
            "status": outcome.status.value,
            "lines": list(lines),
            "result": outcome.result,
            "costUsd": outcome.cost_usd,
        }

        def plan() -> GraphEdit | None:
            if kind in (TaskKind.TRIAGE, TaskKind.SPLIT):
                edit, _ = self._regraph(
                    finished={task.id}, reason=f"planned again after {task.subject}"
                )
                return edit
            if kind is TaskKind.REVIEW and _needs_iteration(outcome):
                tasks = self.store.list_tasks(self.run.id)
                return iterate(tasks, task, reason=f"{task.key}: NEEDS_ITERATION")
            return None

        def commit(edit: GraphEdit | None) -> Execution:
            self.store.complete(claim, result, edit=edit or None)
            rewrite = _described(edit) if edit else {}
            return Execution(task.id, ExecutionStatus.DONE, lines, rewrite=rewrite)

        ended = self._edited(claim, plan, commit)
        assert ended is not None
        return ended

    def _replanned(self, claim: Claim) -> Execution | None:
        """A group plan claimed: the pipeline planned again from the tracker; the task is
        superseded when the new shape has no place for it (None: it goes on)."""
        survives = True

        def plan() -> GraphEdit:
            nonlocal survives
            edit, survives = self._regraph(
                replaceable={claim.task_id}, reason=f"{claim.task.key} replanned"
            )
            return edit

        def commit(edit: GraphEdit | None) -> Execution | None:
            if survives or edit is None:
                return None
            self.store.supersede(claim, edit)
            return Execution(claim.task_id, ExecutionStatus.SUPERSEDED, rewrite=_described(edit))

        return self._edited(claim, plan, commit)

    def _edited(
        self,
        claim: Claim,
        plan: Callable[[], GraphEdit | None],
        commit: Callable[[GraphEdit | None], Execution | None],
    ) -> Execution | None:
        """Plan a graph edit from a fresh read and commit it with the task's end. Workers
        ending tasks at once plan from the same tasks, and the store takes only the first
        edit: a refused one is a normal outcome of that, planned again from what is there
        now (the first edit included). A plan that cannot be made gives the task up."""
        for tried in range(1, EDIT_TRIES + 1):
            try:
                edit = plan()
            except RalphError as exc:
                return self._give_up(claim, f"could not plan the pipeline again: {exc}")
            try:
                return commit(edit)
            except GraphError as refused:
                logger.info(
                    "graph edit refused; planning again",
                    extra={"task": claim.task.key, "try": tried, "reason": str(refused)},
                )
                if tried == EDIT_TRIES:  # tried again later, with the store's backoff
                    return self._failed(claim, f"the graph kept changing underneath: {refused}")
        raise AssertionError("unreachable")

    def _broke(self, claim: Claim, exc: BaseException) -> Execution:
        """The task's ending raised: it is handed back at once (its attempt counted, so a
        task that always breaks goes dead), and the report counts it."""
        error = redact(f"{WORKER_BROKE}{type(exc).__name__}: {exc}")
        try:
            self.store.fail(claim, error, retry_after=0)
        except Exception:  # the claim was lost meanwhile, or the store is down: the lease
            logger.warning("could not hand the task back", exc_info=True)
        return Execution(claim.task_id, ExecutionStatus.FAILED, error=error)

    def _escalated(
        self,
        claim: Claim,
        reason: str,
        lines: tuple[str, ...] = (),
    ) -> Execution:
        task = claim.task
        reason = redact(reason)
        issues = ", ".join(f"#{n}" for n in task.issues)
        need = "needs" if len(task.issues) == 1 else "need"
        self.store.escalate(
            claim, f"{ESCALATED}{reason}", f"{task.subject}: {issues} {need} a person: {reason}"
        )
        return Execution(task.id, ExecutionStatus.ESCALATED, lines, error=reason)

    def _out_of_attempts(self, claim: Claim, kind: TaskKind, error: str) -> Execution:
        """The task failed or was refused on its last attempt: its issues go to Human
        Needed with the reason, as a phase that gives up sends them, so the board shows
        who must act (left where they were, they would look like work under way). Dead
        as before when the tracker cannot take the escalation either."""
        task = claim.task
        reason = f"{task.subject} gave up after {task.attempts} attempts: {error}"
        try:
            lines = self.runner.escalate(PHASE_OF_KIND[kind], task.issues, reason)
        except Exception:  # the tracker is what failed: the task still ends
            logger.warning("could not escalate", exc_info=True, extra={"task": task.key})
            return self._failed(claim, error)
        return self._escalated(claim, reason, lines)

    def _moved(self, claim: Claim, outcome: PhaseOutcome) -> Execution:
        """Someone moved an issue of the task meanwhile: it ends for good, what waits for
        it is canceled, and the report's "needs a person" says what happened."""
        task = claim.task
        outcome = dataclasses.replace(outcome, error=redact(outcome.error))
        self.store.escalate(claim, outcome.error, f"{task.subject}: {outcome.error}")
        return Execution(task.id, ExecutionStatus.MOVED, outcome.lines, error=outcome.error)

    def _waiting(
        self, claim: Claim, reason: str, *, for_person: bool, lines: tuple[str, ...] = ()
    ) -> Execution:
        """Back to the store until the backoff's next step (it grows with each wait of
        the task, across runs and reruns)."""
        reason = redact(reason)
        delay = self.wait_policy.delay(int(claim.task.metadata.get("waits", 0)))
        self.store.defer(
            claim, until=time.time() + delay, waiting_for=reason, for_person=for_person
        )
        return Execution(
            claim.task_id, ExecutionStatus.WAITING, lines, error=f"waiting for: {reason}"
        )

    def _held(self, claim: Claim, held: Held) -> Execution:
        """The task's issues are held: they stay where they are on the board, and the
        task goes back untried (the run ends; a later one takes it up)."""
        task = claim.task
        hold_issues(self.store, self.project.config.repo, task.issues, held, self.run.id)
        return self._handed_back(claim, hold_line(held, task.issues[0]))

    def _handed_back(self, claim: Claim, why: str, lines: tuple[str, ...] = ()) -> Execution:
        self.store.release(claim, untried=True)
        return Execution(claim.task_id, ExecutionStatus.HELD, lines, error=redact(why))

    def _paused(self, claim: Claim, kind: TaskKind) -> Execution | None:
        """The task's agent waits for its provider: the task goes back untried until
        the wait ends, its agent not started (None: it may run)."""
        phase = PHASE_OF_KIND.get(kind)
        if phase not in _AGENT_PHASES:
            return None
        named = str(claim.task.metadata.get("best_of_agent", "")).partition(":")[0]
        agent = named or self.runner.runtime.agent_for(phase)
        wait = self.store.provider_wait(agent)
        if wait is None:
            return None
        fallbacks = () if named else self.runner.fallbacks_for(phase)
        after = self.project.config.agent.fallback_after_seconds
        if fallbacks and wait.until - time.time() > after:
            # Past the threshold the phase goes on a fallback (phases._fallback): it
            # waits only while every one of them waits too, until the soonest.
            others = [self.store.provider_wait(spec.partition(":")[0]) for spec in fallbacks]
            if any(other is None for other in others):
                return None
            wait = min([wait, *(o for o in others if o is not None)], key=lambda w: w.until)
        logger.debug("waits for its provider", extra={"task": claim.task.key, "agent": agent})
        return self._until_provider(claim, wait)

    def _limited(
        self, claim: Claim, limited: ProviderLimited, lines: tuple[str, ...] = ()
    ) -> Execution:
        """The agent's provider refused: the wait is recorded for every worker and
        process (the agent's other tasks wait with this one), and the task goes back
        untried until it ends. What the refused run spent was charged already."""
        said = redact(limited.said)
        wait = hear_limit(self.store, limited.agent, limited.until, said)
        return self._until_provider(claim, wait, lines)

    def _until_provider(
        self, claim: Claim, wait: ProviderWait, lines: tuple[str, ...] = ()
    ) -> Execution:
        self.store.defer(
            claim, until=wait.until, waiting_for=f"the provider of {wait.agent}", for_person=False
        )
        said = provider_wait_text(wait, now=time.time())
        return Execution(claim.task_id, ExecutionStatus.WAITING, lines, error=said)

    def _address(self, claim: Claim, outcome: PhaseOutcome) -> Execution:
        """The merge found feedback for the builder: it is replaced, in one transaction,
        by an address task, a code review when the project asks for one, and a new merge
        after them (the merge policy counts the rounds and hands over to a person)."""

        def plan() -> GraphEdit:
            return address_round(
                self.store.list_tasks(self.run.id),
                claim.task,
                code_review=self.project.config.review_code,
                reason=redact(f"{claim.task.key}: {outcome.error}"),
            )

        def commit(edit: GraphEdit | None) -> Execution:
            assert edit is not None
            self.store.supersede(claim, edit)
            return Execution(
                claim.task_id, ExecutionStatus.SUPERSEDED, outcome.lines, rewrite=_described(edit)
            )

        ended = self._edited(claim, plan, commit)
        assert ended is not None
        return ended

    def _fell_back(self, claim: Claim, outcome: PhaseOutcome) -> Execution:
        """A fast-tracked implementation failed and its issue went back to Research
        Needed: the pipeline is planned again from the tracker (research, plan, review,
        then a new implementation, pull request and merge), replacing this task in one
        transaction. What was said about it stays on the task for the run's report."""
        notes = [redact(line) for line in outcome.lines if line.startswith(FAST_TRACKED)]
        self.store.update_progress(claim, metadata={"notes": notes})

        def plan() -> GraphEdit:
            edit, _ = self._regraph(
                replaceable={claim.task_id}, reason=f"{claim.task.key}: fast track abandoned"
            )
            return edit

        def commit(edit: GraphEdit | None) -> Execution:
            assert edit is not None
            self.store.supersede(claim, edit)
            lines = tuple(redact(line) for line in outcome.lines)
            return Execution(
                claim.task_id, ExecutionStatus.SUPERSEDED, lines, rewrite=_described(edit)
            )

        ended = self._edited(claim, plan, commit)
        assert ended is not None
        return ended

    def _failed(self, claim: Claim, error: str, lines: tuple[str, ...] = ()) -> Execution:
        error = redact(error)
        # Dead (its attempts used up): what waits on it is canceled with it.
        self.store.fail(claim, error, cancel_dependents=True)
        return Execution(claim.task_id, ExecutionStatus.FAILED, lines, error=error)

    def _give_up(self, claim: Claim, error: str) -> Execution:
        error = redact(error)
        self.store.fail(claim, error, retryable=False, cancel_dependents=True)
        return Execution(claim.task_id, ExecutionStatus.FAILED, error=error)

    # -- helpers --------------------------------------------------------------------------

    def _regraph(
        self, *, finished: Collection[int] = (), replaceable: Collection[int] = (), reason: str
    ) -> tuple[GraphEdit, bool]:
        root = self.run.root_issue
        assert root is not None, "an orchestrated run always has a root issue"
        best_of = best_of_from_config(
            self.run.config, self.project.config.agent.best_of_for("implement")
        )
        # The run's tasks before the board: a triage done by then has moved its issue, so
        # the board read after shows it (read the other way round, a triage ending in
        # between looked asked for again, and its issue's work was dropped).
        tasks = self.store.list_tasks(self.run.id)
        fresh = plan_from_tracker(self.project, root, self.review_mode, best_of).graph
        return regraph(
            tasks,
            fresh,
            finished=finished,
            replaceable=replaceable,
            reason=reason,
        )

    def _charge(self, claim: Claim, outcome: PhaseOutcome) -> None:
        self._agent_runs[claim.task_id] = outcome.agent_runs
        self._record_charges(claim, outcome.agent_runs)

    def _record_charges(self, claim: Claim, agent_runs: Sequence[AgentResult]) -> None:
        """What each agent run of the task spent, charged to the task and its first
        issue in the store, with the agent, phase and estimate it was for."""
        task = claim.task
        phase = PHASE_OF_KIND.get(TaskKind(task.kind), "") if task.kind in _KINDS else ""
        for agent_run in agent_runs:
            self.store.record_charge(
                self.run.id,
                claim.task_id,
                agent_run.cost_usd,
                tokens=agent_run.tokens,
                turns=agent_run.turns,
                seconds=agent_run.duration_seconds,
                cache_read_tokens=agent_run.cache_read_tokens,
                cache_write_tokens=agent_run.cache_write_tokens,
                refused=agent_run.denied_tools,
                unpriced_model=agent_run.unpriced_model,
                repo=self.project.config.repo,
                issue=task.issues[0] if task.issues else None,
                # The agent that ran: a phase may have continued on a fallback agent.
                agent=agent_run.agent_name
                or (self.runner.runtime.agent_for(phase) if phase else ""),
                phase=phase,
                estimate=str(task.metadata.get("estimate", "")),
            )

    def _note_breaches(self, claim: Claim, outcome: PhaseOutcome) -> None:
        """Where its agents wrote outside their working directory, kept on the task
        (every attempt's) for the run's report."""
        if outcome.breaches:
            earlier = list(claim.task.metadata.get("breaches", []))
            found = [redact(line) for line in outcome.breaches]
            self.store.update_progress(claim, metadata={"breaches": [*earlier, *found]})


def _described(edit: GraphEdit) -> dict[str, Any]:
    return {
        "added": [spec.key for spec in edit.add],
        "canceled": list(edit.cancel),
        "reason": edit.reason,
    }


def _needs_iteration(outcome: PhaseOutcome) -> bool:
    return outcome.result.get("verdict") == Verdict.NEEDS_ITERATION
