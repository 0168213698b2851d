"""The phase runner: every mechanical step of a phase, in order, around one agent call.

preflight -> lock (store lock row + lock state) -> gather context -> run the agent ->
validate (schema, files, confinement) -> checkpoint -> apply (persist, comment, move)
-> release. The validated result is checkpointed in the store before anything is
applied, so a rerun after a crash applies the same result instead of asking the agent
again, and every apply step is idempotent. A failed attempt is retried; when attempts
run out, or the agent asks for a person, the issues go to Human Needed with an
``Escalation:`` comment. A failure while applying puts the lock state back and keeps
the checkpoint for the rerun.

Waiting is not failing: a phase that raises ``Waiting`` (checks still running, a review
missing) ends with status ``waiting``, its issues where they were (a lock state put
back), its locks released and any agent result kept as the checkpoint; the caller looks
again later (an orchestrated task is deferred in the store, freeing its worker).

A person's move wins: the phase applies its result only while its issues are still in
the state it left them in, and its own moves are compare-and-sets from there. An issue
moved meanwhile (to Human Needed, say) stays where it was put; the phase stops with
status ``moved`` and keeps the result as its checkpoint for a later run to apply. An
agent stopped on the way (the orchestration saw the move on the board and set the
brief's stop signal) ends the same way at once, without a result to keep, and its
workspace (an implementation's worktree) stays as the agent left it.

What only a person can clear (NeedsPerson: an agent that cannot work here at all, a
checkout of the base branch with uncommitted changes in the way, a remote that refuses
us) is no attempt: the lock state goes back and the error says what to fix, without a
retry, an escalation or a traceback.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ralph._debuglog import debug_enabled, debug_log_dir, record_event
from ralph._jsonschema import schema_errors
from ralph._process import holder_is_gone, process_owner
from ralph._reason import fenced, one_line, split_reason
from ralph._tracing import Span, span
from ralph.config import BestOf
from ralph.errors import AgentUnusable, IssueLocked, NeedsPerson, RalphError
from ralph.git import Confinement, changed_between, working_changes
from ralph.graph import ReviewMode
from ralph.notify import escalated
from ralph.phases._attempt import (
    ImplementAttempt,
    install_winner,
    measure_attempt,
    remove_attempt_worktrees,
    selection_brief,
)
from ralph.phases._best_of_score import AttemptRecord, Selection, select_attempt
from ralph.phases._context import MovedMeanwhile, PhaseContext
from ralph.phases._fallback import FallbackChain
from ralph.phases._implement import implementation_problems
from ralph.phases._phase import (
    AlreadyDone,
    Attempt,
    Busy,
    FeedbackToAddress,
    NeedsHuman,
    Phase,
    PhaseRefused,
    ProviderLimited,
    Waiting,
    Workspace,
)
from ralph.phases._prompts import load_override
from ralph.phases._registry import get_phase
from ralph.project import Project
from ralph.runtimes import (
    ActivityFeed,
    AgentBrief,
    AgentResult,
    AgentRuntime,
    AgentStatus,
    Limits,
    StopSignal,
)
from ralph.tasks import Claim, Task
from ralph.tracker import Issue
from ralph.workflow import WorkflowState

__all__ = ["AttemptOutcome", "PhaseOutcome", "PhaseRunner", "PhaseStatus"]

logger = logging.getLogger(__name__)


class _AgentStopped(Exception):
    """The agent was stopped through its brief's stop signal: no retry, no escalation."""


class PhaseStatus(enum.StrEnum):
    DONE = "done"
    ALREADY_DONE = "already_done"
    ESCALATED = "escalated"
    FAILED = "failed"
    #: Someone else moved an issue while the phase ran; the result is kept for later.
    MOVED = "moved"
    #: Not ready yet (checks running, a review missing): to be looked at again later.
    WAITING = "waiting"
    #: The pull request has feedback for the builder first: an address round, then merge.
    ADDRESS = "address"
    #: A fast-tracked implementation failed: the issue goes through the full pipeline.
    FELL_BACK = "fell_back"


@dataclass(frozen=True)
class PhaseOutcome:
    phase: str
    issues: tuple[int, ...]
    status: PhaseStatus
    #: What the phase did, as lines for a person.
    lines: tuple[str, ...] = ()
    agent_runs: tuple[AgentResult, ...] = ()
    error: str = ""
    #: The validated agent result (empty for phases without an agent).
    result: dict[str, object] = field(default_factory=dict)
    #: Where its agents wrote outside their working directory, one line each (the
    #: attempt failed; run reports show them).
    breaches: tuple[str, ...] = ()
    #: While waiting: what for ("review", "checks (2 pending)"), and whether only a
    #: person can end the wait.
    waiting_for: str = ""
    for_person: bool = False
    #: While waiting for an agent's provider: its limit (the agent, the reset, what
    #: the provider said), for the caller to wait out.
    limited: ProviderLimited | None = None

    @property
    def ok(self) -> bool:
        return self.status in (PhaseStatus.DONE, PhaseStatus.ALREADY_DONE)

    @property
    def cost_usd(self) -> float:
        return sum(run.cost_usd for run in self.agent_runs)


@dataclass(frozen=True)
class AttemptOutcome:
    """One attempt of best of N: what Ralph measured, and what it cost."""

    record: AttemptRecord
    lines: tuple[str, ...] = ()
    agent_runs: tuple[AgentResult, ...] = ()
    breaches: tuple[str, ...] = ()
    #: The issue's implementation was finished before this attempt began.
    already_done: bool = False


def escalation_mention(project: Project, issue: Issue) -> str:
    """Whom an escalation notifies, as the comment's opening (the original wrote
    ``@owner Escalation: ...``): ``escalate_to`` from ralph.toml, else the issue's
    assignees, else whom the tracker names (on GitHub the repository's owner)."""
    handles = project.config.escalate_to.split()
    if not handles:
        handles = [f"@{login}" for login in issue.assignees]
    if not handles:
        handles = list(project.tracker.escalation_handles())
    return f"{' '.join(handles)} " if handles else ""


def escalation_comment(mention: str, phase: str, number: int, reason: str) -> str:
    """The ``Escalation:`` comment: the reason on its first line (what the board and the
    original's readers parse), the output that proves it fenced (test output is no
    Markdown), then the one recovery named everywhere."""
    output = split_reason(reason)[1]
    proof = f"{fenced(output)}\n\n" if output else ""
    return (
        f"{mention}Escalation: {one_line(reason)}\n\n{proof}"
        f"Phase `{phase}` stopped and needs a person. Resolve the problem, then run "
        f"`ralph issue retry {number}` and `ralph hero {number}` (or let `ralph serve` "
        "pick it up)."
    )


def _trace_agent_run(traced: Span, result: AgentResult) -> None:
    traced.set("ralph.status", result.status.value)
    traced.set("ralph.cost_usd", result.cost_usd)
    traced.set("ralph.turns", result.turns)
    traced.set("ralph.tokens.input", result.input_tokens)
    traced.set("ralph.tokens.output", result.output_tokens)
    traced.set("ralph.tokens.cache_read", result.cache_read_tokens)
    if not result.ok:
        traced.fail(result.error or result.status.value)


def _record_agent_run(
    brief: AgentBrief, runtime: str, result: AgentResult, breaches: Sequence[str]
) -> None:
    """One agent run and how it ended, in the debug log."""
    fields: dict[str, object] = {
        "phase": brief.phase,
        "issues": [issue.number for issue in brief.issues],
        "runtime": runtime,
        "model": brief.model,
        "status": result.status.value,
        "ok": result.ok and not breaches,
        "durationMs": round(result.duration_seconds * 1000),
        "costUsd": result.cost_usd,
        "turns": result.turns,
        # Not "tokens": a field named like a secret is redacted whole.
        "usage": {
            "input": result.input_tokens,
            "output": result.output_tokens,
            "cacheRead": result.cache_read_tokens,
            "cacheWrite": result.cache_write_tokens,
        },
    }
    if result.error or breaches:
        fields["error"] = "; ".join(filter(None, [result.error, *breaches]))
    if result.denied_tools:
        fields["deniedTools"] = list(result.denied_tools)
    if result.transcript:
        fields["transcript"] = result.transcript
    record_event("agent", **fields)


class PhaseRunner:
    def __init__(
        self,
        project: Project,
        runtime: AgentRuntime,
        *,
        owner: str | None = None,
        max_attempts: int = 2,
        limits: Limits | None = None,
        today: Callable[[], date] = date.today,
        review_mode: ReviewMode | str | None = None,
        transcripts: Path | None = None,
    ) -> None:
        """``transcripts``: where agents' runtimes may keep each run's transcript (a
        run's folder, for the task's log); None: only where the agent keeps one."""
        self.project = project
        self.runtime = runtime
        self.owner = owner or process_owner()
        self.max_attempts = max_attempts
        #: How plans are approved (a run's --review-mode); None: ralph.toml's.
        self.review_mode = ReviewMode(review_mode) if review_mode else None
        #: Limits for every phase; None takes each phase's from ralph.toml's [agent].
        self.limits = limits
        self.transcripts = transcripts
        #: Where the agents of the task in hand report what they do (the worker keeps it
        #: in the store); one per task, like ``transcripts``.
        self.activity = ActivityFeed()
        #: The run whose tasks this runner works on (None outside a run: ``ralph run``),
        #: named by the escalations it sends to the notifier.
        self.run_id: int | None = None
        #: The task in hand (None outside a run): the merge train's conductor finds the
        #: other merges waiting on its serialisation key through it.
        self.task: Task | None = None
        #: The worker's claim of ``task``: phases that write for the task (the merge
        #: train) check it still holds.
        self.claim: Claim | None = None
        #: Why no further try of the phase in hand may start, given its agent runs so
        #: far ("" to go on): the worker's no-progress breaker.
        self.stop_trying: Callable[[Sequence[AgentResult]], str] | None = None
        self._today = today

    @property
    def _repo(self) -> str:
        return self.project.repo_name

    def run(
        self,
        phase_name: str,
        number: int,
        *,
        only: Sequence[int] | None = None,
        stop: StopSignal | None = None,
        reading: contextlib.ExitStack | None = None,
    ) -> PhaseOutcome:
        """Run one phase on issue ``number`` (a group phase on its whole group, or on the
        members in ``only``: a work stream). Raises PhaseRefused when a precondition
        does not hold. ``stop``, set from another thread, stops the phase's agent (a
        person took an issue away): the phase ends as ``moved`` when an issue it holds
        was moved or closed, else as failed, without a retry either way. ``reading``:
        the caller's snapshot of the step so far (its reads are the run's first), which
        the run ends before an agent's turn as it ends its own."""
        started = time.monotonic()
        attributes = {"ralph.phase": phase_name, "ralph.issue": number}
        with span("ralph.phase", attributes) as traced:
            outcome = self._traced_run(phase_name, number, only, stop, started, reading)
            traced.set("ralph.status", outcome.status.value)
            traced.set("ralph.issues", list(outcome.issues))
            traced.set("ralph.cost_usd", outcome.cost_usd)
            if outcome.error:
                traced.fail(outcome.error)
            return outcome

    def _traced_run(
        self,
        phase_name: str,
        number: int,
        only: Sequence[int] | None,
        stop: StopSignal | None,
        started: float,
        reading: contextlib.ExitStack | None = None,
    ) -> PhaseOutcome:
        try:
            outcome = self._run(phase_name, number, only, stop, reading)
        except PhaseRefused as refused:
            if debug_enabled():
                record_event(
                    "phase",
                    phase=phase_name,
                    issue=number,
                    blocked=True,
                    ok=False,
                    error=str(refused),
                    retryable=refused.retryable,
                    durationMs=round((time.monotonic() - started) * 1000),
                )
            raise
        if debug_enabled():
            fields: dict[str, object] = {"error": outcome.error} if outcome.error else {}
            record_event(
                "phase",
                phase=outcome.phase,
                issue=number,
                issues=list(outcome.issues),
                status=outcome.status.value,
                ok=outcome.ok or outcome.status is PhaseStatus.MOVED,
                durationMs=round((time.monotonic() - started) * 1000),
                **fields,
            )
        return outcome

    def _run(
        self,
        phase_name: str,
        number: int,
        only: Sequence[int] | None,
        stop: StopSignal | None,
        outer: contextlib.ExitStack | None = None,
    ) -> PhaseOutcome:
        phase = get_phase(phase_name)
        ctx = PhaseContext(
            self.project,
            self._today(),
            # A phase without an agent (a pull request's) names every agent of the run.
            agent=self.runtime.describe(phase.name)
            if phase.uses_agent
            else self.runtime.description,
            stream=tuple(sorted(only)) if only is not None else (),
            review_mode=self.review_mode,
            # Checked before anything is locked: a malformed override is one line, not a
            # run whose agent gets a broken brief.
            prompt_override=(
                load_override(self.project.config, phase.name) if phase.uses_agent else None
            ),
            task=self.task,
            claim=self.claim,
        )
        with contextlib.ExitStack() as own:
            # One snapshot of the group's issues until the agent's turn (_run_locked
            # ends it): its detection, gates and lock moves read each issue once. A
            # caller's (``outer``) holds what its step read already, and is ended alike.
            reading = outer if outer is not None else own
            reading.enter_context(self.project.tracker.snapshot())
            members = phase.members(ctx, self.project.tracker.get_issue(number))
            if only is not None:
                members = [issue for issue in members if issue.number in only]
            numbers = tuple(issue.number for issue in members)
            # A run killed part way through applying a group's result left some members
            # moved on and the others not: the checks would call it done (or refuse it)
            # and the group would stay split; the saved result is applied again instead,
            # which finishes it (each of its writes happens once).
            finishing = self._cut_short(phase, numbers, members)
            try:
                if not finishing:
                    phase.check(ctx, members)
            except AlreadyDone as done:
                return PhaseOutcome(phase.name, numbers, PhaseStatus.ALREADY_DONE, (str(done),))
            except Waiting as waiting:
                return self._waiting(phase, ctx, numbers, [], waiting)
            token = uuid.uuid4().hex
            held = self._lock_rows(phase.name, numbers, token)
            try:
                return self._run_locked(
                    phase, ctx, numbers, stop or StopSignal(), reading, finishing=finishing
                )
            finally:
                for n in held:
                    self.project.store.release_issue_lock(self._repo, n, self.owner, token)

    def cut_short(self, phase_name: str, number: int) -> bool:
        """Whether an earlier run's apply of the phase on issue ``number``'s group was cut
        short (see ``_cut_short``): running the phase again finishes it."""
        phase = get_phase(phase_name)
        ctx = PhaseContext(self.project, self._today())
        with self.project.tracker.snapshot():
            members = phase.members(ctx, self.project.tracker.get_issue(number))
        numbers = [issue.number for issue in members]
        return self._cut_short(phase, numbers, members)

    def _checkpoint_key(self, phase: Phase, numbers: Sequence[int]) -> str:
        return f"{self._repo}#{numbers[0]}:{phase.name}"

    def _cut_short(self, phase: Phase, numbers: Sequence[int], members: Sequence[Issue]) -> bool:
        """Whether an earlier run's apply of ``phase`` on these issues was cut short: the
        group is part applied and there is its result to apply again (an agent's, saved;
        a phase without an agent has nothing to save)."""
        if len(members) < 2 or not phase.part_applied(members):
            return False
        key = self._checkpoint_key(phase, numbers)
        return not phase.uses_agent or self.project.store.load_checkpoint(key) is not None

    def limits_for(self, phase: str) -> Limits:
        if self.limits is not None:
            return self.limits
        own = self.project.config.agent.for_phase(phase)
        return Limits(
            max_turns=own.max_turns or Limits.max_turns,
            max_usd=own.max_usd or self.project.config.budget_task_usd,
            timeout_seconds=own.timeout_seconds or Limits.timeout_seconds,
            stall_seconds=own.stall_seconds or Limits.stall_seconds,
        )

    def _lock_rows(self, phase: str, numbers: Sequence[int], token: str) -> list[int]:
        held: list[int] = []
        lease = self.limits_for(phase).timeout_seconds * self.max_attempts + 600
        try:
            for n in sorted(numbers):  # one order everywhere: no deadlock between runners
                self._acquire(n, token, lease)
                held.append(n)
        except IssueLocked as locked:
            for n in held:
                self.project.store.release_issue_lock(self._repo, n, self.owner, token)
            raise Busy(f"{locked}; wait for that run to finish") from None
        return held

    def _acquire(self, number: int, token: str, lease: float) -> None:
        store = self.project.store
        try:
            store.acquire_issue_lock(self._repo, number, self.owner, token, lease_seconds=lease)
        except IssueLocked as locked:
            if not holder_is_gone(locked.holder):
                raise
            store.break_issue_lock(self._repo, number, locked.holder)
            logger.info("took the lock of a crashed run", extra={"holder": locked.holder})
            store.acquire_issue_lock(self._repo, number, self.owner, token, lease_seconds=lease)

    def _run_locked(
        self,
        phase: Phase,
        ctx: PhaseContext,
        numbers: tuple[int, ...],
        stop: StopSignal,
        reading: contextlib.ExitStack,
        *,
        finishing: bool = False,
    ) -> PhaseOutcome:
        """``reading``: the snapshot the checks read in, ended before an agent's turn;
        ``finishing``: an apply cut short is done again, its issues left where they are."""
        tracker = self.project.tracker
        if phase.lock_state is not None and not finishing:  # together: one request
            tracker.set_states(numbers, "__LOCK__", command=phase.command)
        for n in numbers:
            issue = tracker.get_issue(n)
            if issue.workflow_state is not None:
                ctx.held[n] = issue.workflow_state
            if issue.is_open:
                ctx.held_open.add(n)
        key = self._checkpoint_key(phase, numbers)
        runs: list[AgentResult] = []
        saved = self.project.store.load_checkpoint(key)
        try:
            if saved is not None:
                attempt = Attempt.from_checkpoint(saved)
                ctx.say("Resuming with the agent result saved by an interrupted run.")
            elif phase.uses_agent:
                # The snapshot ends once the agent's brief has read the issues.
                attempt = self._ask_agent(phase, ctx, numbers, runs, stop, reading)
                self.project.store.save_checkpoint(key, attempt.to_checkpoint())
            else:  # no agent ran: nothing outside this process wrote; the snapshot holds
                attempt = Attempt({}, {})
            with tracker.snapshot():  # after an agent's turn: read afresh, once
                tracker.prefetch(numbers)
                ctx.still_held()
                phase.apply(ctx, [tracker.get_issue(n) for n in numbers], attempt)
        except FeedbackToAddress as feedback:
            ctx.say(f"Feedback to address on pull request #{feedback.number}:")
            for reason in feedback.reasons:
                ctx.say(f"- {reason}")
            ctx.say(f"Next: ralph run address {numbers[0]}, then ralph run merge {numbers[0]}.")
            return self._outcome(phase, ctx, numbers, PhaseStatus.ADDRESS, runs, str(feedback))
        except NeedsHuman as human:
            self.project.store.clear_checkpoint(key)
            if human.falls_back and self._fell_back(phase, ctx, numbers, str(human)):
                return self._outcome(phase, ctx, numbers, PhaseStatus.FELL_BACK, runs, str(human))
            self._escalate(phase, ctx, numbers, str(human))
            return self._outcome(phase, ctx, numbers, PhaseStatus.ESCALATED, runs, str(human))
        except Waiting as waiting:  # not ready yet: the checkpoint stays for the next look
            for n in numbers:
                tracker.release(n, command=phase.command)
            return self._waiting(phase, ctx, numbers, runs, waiting)
        except MovedMeanwhile as moved:  # their move wins; the checkpoint stays
            kept = "its result is kept" if phase.uses_agent else "it stopped there"
            error = f"{moved} while {phase.name} ran; {kept}"
            ctx.say(f"Stopped: {error}. Move it back and run {phase.name} again to apply it.")
            return self._outcome(phase, ctx, numbers, PhaseStatus.MOVED, runs, error)
        except _AgentStopped as stopped:
            return self._stopped(phase, ctx, numbers, runs, str(stopped))
        except NeedsPerson:
            for n in numbers:  # the issues stay where they were
                tracker.release(n, command=phase.command)
            raise
        except Exception as exc:
            if isinstance(exc, RalphError):  # its message says it all: no traceback
                logger.error(
                    "phase failed",
                    extra={"phase": phase.name, "issues": numbers, "error": str(exc)},
                )
            else:
                logger.exception("phase failed", extra={"phase": phase.name, "issues": numbers})
            for n in numbers:
                if tracker.release(n, command=phase.command) is not None:
                    ctx.say(f"Released #{n} back to {tracker.get_issue(n).workflow_state}.")
            error = str(exc) if isinstance(exc, RalphError) else f"{type(exc).__name__}: {exc}"
            ctx.say(f"{phase.name} failed: {error}. Run it again to resume.")
            return self._outcome(phase, ctx, numbers, PhaseStatus.FAILED, runs, error)
        self.project.store.clear_checkpoint(key)
        result = dict(attempt.result)
        return self._outcome(phase, ctx, numbers, PhaseStatus.DONE, runs, "", result)

    def _fell_back(
        self, phase: Phase, ctx: PhaseContext, numbers: tuple[int, ...], why: str
    ) -> bool:
        """Whether the phase sent its issues elsewhere instead of escalating; a fall
        back that breaks escalates."""
        try:
            return phase.fall_back(ctx, [self.project.tracker.get_issue(n) for n in numbers], why)
        except Exception:
            logger.exception("fall back failed", extra={"phase": phase.name, "issues": numbers})
            return False

    def _waiting(
        self,
        phase: Phase,
        ctx: PhaseContext,
        numbers: tuple[int, ...],
        runs: list[AgentResult],
        waiting: Waiting,
    ) -> PhaseOutcome:
        ctx.say(f"Not ready, {waiting}.")
        outcome = self._outcome(phase, ctx, numbers, PhaseStatus.WAITING, runs, str(waiting))
        limited = waiting if isinstance(waiting, ProviderLimited) else None
        return dataclasses.replace(
            outcome, waiting_for=waiting.reason, for_person=waiting.for_person, limited=limited
        )

    def _stopped(
        self,
        phase: Phase,
        ctx: PhaseContext,
        numbers: tuple[int, ...],
        runs: list[AgentResult],
        reason: str,
    ) -> PhaseOutcome:
        """The agent was stopped: ``moved`` when an issue it held was taken away (their
        move stands, the other issues go back), else failed (the store may retry it).
        Its workspace stays as the agent left it."""
        tracker = self.project.tracker
        try:
            ctx.still_held()
        except MovedMeanwhile as moved:
            error = f"{moved} while {phase.name} ran; its agent was stopped"
            status = PhaseStatus.MOVED
        else:
            error = f"the agent was stopped ({reason}), though its issues are where it left them"
            status = PhaseStatus.FAILED
        for n in numbers:
            if tracker.release(n, command=phase.command) is not None:
                ctx.say(f"Released #{n} back to {tracker.get_issue(n).workflow_state}.")
        ctx.say(f"Stopped: {error}.")
        return self._outcome(phase, ctx, numbers, status, runs, error)

    def _outcome(
        self,
        phase: Phase,
        ctx: PhaseContext,
        numbers: tuple[int, ...],
        status: PhaseStatus,
        runs: list[AgentResult],
        error: str,
        result: dict[str, object] | None = None,
    ) -> PhaseOutcome:
        return PhaseOutcome(
            phase.name,
            numbers,
            status,
            tuple(ctx.said),
            tuple(runs),
            error,
            result or {},
            tuple(ctx.breaches),
        )

    # -- the agent ----------------------------------------------------------------------

    def _ask_agent(
        self,
        phase: Phase,
        ctx: PhaseContext,
        numbers: tuple[int, ...],
        runs: list[AgentResult],
        stop: StopSignal,
        reading: contextlib.ExitStack,
    ) -> Attempt:
        """``reading``: the snapshot so far, ended once the first brief has the issues."""
        problems: list[str] = []
        #: Why earlier attempts were rejected: the next brief says so.
        rejections: list[str] = []
        chain = self._fallback_chain(phase, ctx)
        for number in range(1, self.max_attempts + 1):
            with self.project.tracker.snapshot():
                self.project.tracker.prefetch(numbers)
                members = [self.project.tracker.get_issue(n) for n in numbers]
            with phase.workspace(ctx, members) as space:
                reading.close()  # what the agent writes is read afresh
                # The chain adds the agent: the phase's own, or a fallback.
                attempt, problems = chain.run(
                    functools.partial(
                        self._attempt, phase, ctx, members, space, runs, stop, list(rejections)
                    )
                )
            if attempt is not None:
                return attempt
            if runs and runs[-1].status is AgentStatus.STOPPED:
                raise _AgentStopped(runs[-1].error or stop.reason)
            ctx.say(f"Attempt {number} of {self.max_attempts} failed: {'; '.join(problems)}")
            rejections += [f"Attempt {number}: {problem}" for problem in problems]
            if runs[-1].denied_tools:
                rejections.append(
                    f"Attempt {number}: these tool calls were refused: "
                    f"{', '.join(runs[-1].denied_tools)} (this phase may use "
                    f"{', '.join(phase.tools)}, and only inside its working directory)"
                )
            why = self.stop_trying(runs) if self.stop_trying and number < self.max_attempts else ""
            if why:
                raise _AgentStopped(why)
        raise NeedsHuman(
            f"{phase.name} failed {self.max_attempts} time(s); last: {'; '.join(problems)}"
        )

    def fallbacks_for(self, phase: str) -> tuple[str, ...]:
        """The agents (``codex`` or ``codex:o3``) ``phase`` continues on, in order, when
        its own is limited or unusable: ralph.toml's that this runtime opened (``--agent``,
        one agent for every phase, opens none). A wait for the phase's own agent holds
        the phase only when each of these is waiting too."""
        return tuple(
            spec
            for spec in self.project.config.agent.fallbacks_for(phase)
            if self.runtime.runs_agent(spec.partition(":")[0])
        )

    def _fallback_chain(self, phase: Phase, ctx: PhaseContext) -> FallbackChain:
        return FallbackChain(
            self.runtime.agent_for(phase.name),
            self.fallbacks_for(phase.name),
            after_seconds=self.project.config.agent.fallback_after_seconds,
            store=self.project.store,
            say=ctx.say,
        )

    def _attempt(
        self,
        phase: Phase,
        ctx: PhaseContext,
        members: list[Issue],
        space: Workspace,
        runs: list[AgentResult],
        stop: StopSignal,
        rejections: Sequence[str] = (),
        agent: str = "",
    ) -> tuple[Attempt | None, list[str]]:
        """One agent run and its validation; ``agent`` (``codex`` or ``codex:o3``) puts
        another of the opened agents on it (an attempt of best of N)."""
        git = self.project.git
        confinement = Confinement(
            git,
            space.workdir,
            live=self._live_store(),
            sandboxed=self.runtime.agent_sandboxed(phase.name, agent.partition(":")[0]),
        )
        space_before = working_changes(git, space.workdir) if space.may_change is not None else {}
        web = self.project.config.research_web
        brief = AgentBrief(
            phase=phase.name,
            role=phase.role.value,
            issues=tuple(ctx.issue_context(i, children=phase.name == "split") for i in members),
            instructions=phase.instructions(ctx, members, space),
            workdir=space.workdir,
            tools=phase.spec.tools_with(web=web),
            tracker_tools=phase.spec.tracker_tools,
            helpers=phase.spec.helpers,
            web=web and phase.spec.may_use_web,
            limits=self.limits_for(phase.name),
            # The models ralph.toml names for the agent that runs it (--agent may have
            # put another than ralph.toml's on it).
            model=agent.partition(":")[2]
            or self.project.config.agent.for_phase(
                phase.name, agent.partition(":")[0] or self.runtime.agent_for(phase.name)
            ).model
            or "",
            agent=agent.partition(":")[0],
            result_schema=phase.result_schema,
            outputs=space.outputs,
            facts={**space.facts, "repository": str(git.path)},
            trusted=phase.trusted_documents(ctx, members),
            rejections=tuple(rejections),
            feedback=phase.feedback(ctx, members),
            transcripts=self.transcripts,
            stop=stop,
            activity=self.activity,
        )
        self.activity.begin(agent.partition(":")[0] or self.runtime.agent_for(phase.name))
        confinement.before()
        attributes = {
            "ralph.phase": phase.name,
            "ralph.issues": [issue.number for issue in members],
            "ralph.agent": agent or self.runtime.describe(phase.name),
            "ralph.model": brief.model,
        }
        with span("ralph.agent", attributes) as traced:
            try:
                result = self.runtime.run(brief)
            except BaseException:  # a broken runtime's agent may have planted a hook too
                confinement.after()
                raise
            for tool in result.denied_tools:
                self.activity.refused(tool)
            self.activity.ended(turns=result.turns, tokens=result.tokens, cost_usd=result.cost_usd)
            found = confinement.after(wrote=result.wrote)
            breaches = found.problems()
            _trace_agent_run(traced, result)
        # The charge is the agent's that ran (a best-of attempt's, a fallback's).
        result = dataclasses.replace(
            result, agent_name=agent.partition(":")[0] or self.runtime.agent_for(phase.name)
        )
        for warning in found.warnings():
            logger.warning("checkout changed while an agent ran", extra={"warning": warning})
            ctx.say(warning)
        ctx.breaches += breaches
        if debug_enabled():
            who = agent or self.runtime.describe(phase.name)
            _record_agent_run(brief, who, result, breaches)
        if result.status is AgentStatus.MISCONFIGURED:
            who = agent.partition(":")[0] or self.runtime.describe(phase.name)
            raise AgentUnusable(f"the agent ({who}) cannot work: {result.error}")
        if result.status is AgentStatus.RATE_LIMITED:
            # Not the work's fault: waited out, never an attempt; what it spent is charged.
            runs.append(result)
            raise ProviderLimited(result.agent_name, result.resets_at, result.error)
        runs.append(result)
        if result.denied_tools:
            ctx.say(f"The agent was refused: {', '.join(result.denied_tools)}")
        logger.info(
            "agent finished",
            extra={"phase": phase.name, "status": result.status.value, "cost": result.cost_usd},
        )
        if not result.ok:
            return None, [f"the agent ended with {result.status.value}: {result.error}", *breaches]
        payload = dict(result.result or {})
        if payload.get("escalate"):
            raise NeedsHuman(f"the agent says: {payload['escalate']}")
        problems = [*schema_errors(payload, phase.result_schema), *breaches]
        if space.may_change is not None:
            allowed = [*space.outputs.values(), *space.may_change]
            stray = changed_between(
                space_before, working_changes(git, space.workdir), allowed=allowed
            )
            if stray:
                problems.append(f"the agent changed files it was not asked to: {', '.join(stray)}")
        if not problems:
            problems = phase.validate(ctx, members, space, result)
        if problems:
            return None, problems
        files = {
            path: (space.workdir / path).read_text()
            for path in space.outputs.values()
            if (space.workdir / path).is_file()
        }
        return Attempt(payload, files), []

    def _live_store(self) -> list[Path]:
        """The files Ralph itself writes while an agent runs: the store's, the debug log's
        folder (its tool calls are events) and a status file."""
        path = self.project.store.path  # a SQLite store's file
        live = [path] if path is not None else []
        logs = debug_log_dir()
        return [*live, *([logs] if logs is not None else []), *self.project.live_files]

    # -- best of N ----------------------------------------------------------------------

    def run_attempt(
        self,
        number: int,
        attempt: int,
        *,
        agent: str = "",
        only: Sequence[int] | None = None,
        stop: StopSignal | None = None,
    ) -> AttemptOutcome:
        """Attempt ``attempt`` of issue ``number``'s implementation on its own branch:
        the implement phase's brief and checks, up to ``max_attempts`` agent runs, no
        state move and no issue lock (the other attempts run beside it). Never
        escalates: an attempt that cannot finish is measured as such and loses. Raises
        PhaseRefused when the implementation may not start, AgentUnusable as a phase
        does."""
        started = time.monotonic()
        phase = ImplementAttempt(attempt)
        ctx = PhaseContext(
            self.project,
            self._today(),
            agent=agent or self.runtime.describe(phase.name),
            stream=tuple(sorted(only)) if only is not None else (),
            review_mode=self.review_mode,
            prompt_override=load_override(self.project.config, phase.name),
        )
        members = phase.members(ctx, self.project.tracker.get_issue(number))
        if only is not None:
            members = [issue for issue in members if issue.number in only]
        try:
            phase.check(ctx, members)
        except AlreadyDone as done:
            record = AttemptRecord(attempt=attempt, agent=agent, problems=(str(done),))
            return AttemptOutcome(record, (str(done),), already_done=True)
        stop = stop or StopSignal()
        runs: list[AgentResult] = []
        problems: list[str] = []
        rejections: list[str] = []
        # A run that stopped after the agent finished (a crash) measures its work again
        # instead of asking for it again.
        finished = not implementation_problems(ctx, members, phase.worktree(ctx, members))
        if finished:
            with phase.workspace(ctx, members) as space:
                problems = phase.validate(ctx, members, space, AgentResult(status=AgentStatus.OK))
            ctx.say(f"Try {attempt} was finished before; measured again.")
        with span("ralph.attempt", {"ralph.issue": number, "ralph.attempt": attempt}):
            for tried in range(1, 0 if finished else self.max_attempts + 1):
                try:
                    with phase.workspace(ctx, members) as space:
                        got, problems = self._attempt(
                            phase, ctx, members, space, runs, stop, rejections, agent
                        )
                except NeedsHuman as human:  # this attempt gives up; another may win
                    problems = [str(human)]
                    break
                if got is not None:
                    break
                if runs and runs[-1].status is AgentStatus.STOPPED:
                    break
                rejections += [f"Attempt {tried}: {problem}" for problem in problems]
        record = measure_attempt(
            ctx,
            members,
            phase,
            agent=agent or self.runtime.describe(phase.name),
            runs=runs,
            problems=problems,
            seconds=time.monotonic() - started,
        )
        verdict = "finished" if record.finished else "did not finish"
        ctx.say(
            f"Try {attempt} {verdict} on {record.branch}: tests {record.tests}, "
            f"{record.checks_done} of {record.checks_total} plan checks, "
            f"{record.diff_lines} line(s) changed, {record.cost}."
        )
        return AttemptOutcome(record, tuple(ctx.said), tuple(runs), tuple(ctx.breaches))

    def run_best_of(
        self, number: int, best_of: BestOf, *, stop: StopSignal | None = None
    ) -> PhaseOutcome:
        """``ralph run implement N --best-of K``: the attempts side by side (a thread
        each), the choice, the winner installed, then the implement phase, which finds
        the implementation finished and moves on as after a single attempt."""
        with ThreadPoolExecutor(best_of.count, thread_name_prefix="attempt") as pool:
            futures = [
                pool.submit(self.run_attempt, number, k, agent=best_of.agent_of(k), stop=stop)
                for k in range(1, best_of.count + 1)
            ]
            attempts = [future.result() for future in futures]
        lines = [line for a in attempts for line in a.lines]
        runs = [run for a in attempts for run in a.agent_runs]
        installed = False
        if not any(a.already_done for a in attempts):
            records = [a.record for a in attempts]
            selection = select_attempt(records)
            if best_of.select == "review" and selection.winner is not None:
                selection, reviewed = self.review_attempts(number, records, selection)
                runs += [reviewed] if reviewed is not None else []
            if selection.winner is None:
                reason = f"best of {best_of.count}: {selection.reason}"
                lines += self.escalate("implement", [number], reason)
                return PhaseOutcome(
                    "implement", (number,), PhaseStatus.ESCALATED, tuple(lines), tuple(runs), reason
                )
            winner = next(r for r in records if r.attempt == selection.winner)
            branch = self.install_attempt(number, winner, best_of.count)
            lines += [
                f"Best of {best_of.count}: {selection.reason}.",
                f"{branch} is try {winner.attempt}'s.",
            ]
            installed = True
        outcome = self.run("implement", number, stop=stop)
        # The implement phase finds the winner's work finished; that is this run's doing,
        # not a rerun's no-op.
        if installed and outcome.status is PhaseStatus.ALREADY_DONE:
            outcome = dataclasses.replace(outcome, status=PhaseStatus.DONE)
        return dataclasses.replace(
            outcome,
            lines=(*lines, *outcome.lines),
            agent_runs=(*runs, *outcome.agent_runs),
            breaches=(*(b for a in attempts for b in a.breaches), *outcome.breaches),
        )

    def install_attempt(
        self, number: int, winner: AttemptRecord, count: int, *, only: Sequence[int] | None = None
    ) -> str:
        """Make the winning attempt's branch issue ``number``'s and remove the
        attempts' worktrees (their branches stay until the issue is Done)."""
        ctx = PhaseContext(self.project, self._today(), agent=self.runtime.description)
        members = get_phase("implement").members(ctx, self.project.tracker.get_issue(number))
        if only is not None:
            members = [issue for issue in members if issue.number in only]
        branch = install_winner(ctx, members, winner)
        remove_attempt_worktrees(ctx, members, count)
        # With review_mode = "skip" the attempts took the plan from Plan in Review; the
        # implementation's lock moves it to In Progress, as a single attempt's does.
        for issue in members:
            if issue.workflow_state is WorkflowState.PLAN_IN_REVIEW:
                self.project.tracker.set_state(issue.number, "__LOCK__", command="ralph_impl")
        return branch

    def review_attempts(
        self, number: int, records: Sequence[AttemptRecord], scored: Selection
    ) -> tuple[Selection, AgentResult | None]:
        """``select = "review"``: a validator agent reads the diffs of the attempts the
        score left eligible and chooses one with a written reason. The score's choice
        stands when fewer than two are eligible, or when the agent's answer is unusable
        (the reason says so)."""
        eligible = [r for r in records if r.eligible]
        if len(eligible) < 2:
            return scored, None
        ctx = PhaseContext(self.project, self._today(), agent=self.runtime.describe("select"))
        members = get_phase("implement").members(ctx, self.project.tracker.get_issue(number))
        brief_of = selection_brief(ctx, members, eligible, scored)
        with ctx.worktrees.scratch(f"select-GH-{number}", ctx.base) as workdir:
            brief = brief_of(workdir, self.limits_for("code_review"))
            result = self.runtime.run(brief)
        if result.status is AgentStatus.MISCONFIGURED:
            raise AgentUnusable(f"the validator cannot work: {result.error}")
        answer = dict(result.result or {}) if result.ok else {}
        problems = schema_errors(answer, brief.result_schema) if result.ok else [result.error]
        winner = answer.get("winner")
        if not problems and winner not in [r.attempt for r in eligible]:
            problems = [f"it chose try {winner}, which may not win"]
        if problems:
            reason = (
                f"{scored.reason}; the validator's choice was unusable "
                f"({'; '.join(str(p) for p in problems)[:300]}), so the score decides"
            )
            return Selection(scored.winner, reason, scored.ranking), result
        said = " ".join(str(answer.get("reason", "")).split())[:500]
        reason = f"the validator chose try {winner}: {said} (by the score: {scored.reason})"
        return Selection(int(str(winner)), reason, scored.ranking), result

    # -- escalation ---------------------------------------------------------------------

    def escalate(self, phase_name: str, numbers: Sequence[int], reason: str) -> tuple[str, ...]:
        """Send ``numbers`` to Human Needed with an ``Escalation:`` comment, as a phase
        that gives up does; returns what was done, as lines for a person."""
        ctx = PhaseContext(self.project, self._today(), agent=self.runtime.description)
        self._escalate(get_phase(phase_name), ctx, numbers, reason)
        return tuple(ctx.said)

    def _escalate(
        self, phase: Phase, ctx: PhaseContext, numbers: Sequence[int], reason: str
    ) -> None:
        tracker = self.project.tracker
        for n in numbers:
            issue = tracker.get_issue(n)
            if issue.workflow_state is not WorkflowState.HUMAN_NEEDED and issue.is_open:
                tracker.set_state(n, "__ESCALATE__", command=phase.command)
                self.project.notifier.notify(
                    escalated(
                        self._repo,
                        n,
                        issue.title,
                        phase=phase.name,
                        reason=reason,
                        url=issue.url,
                        run=self.run_id,
                    )
                )
            mention = escalation_mention(self.project, issue)
            ctx.comment_once(n, escalation_comment(mention, phase.name, n, reason))
        ctx.say(f"Escalated {', '.join(f'#{n}' for n in numbers)} to Human Needed: {reason}")
