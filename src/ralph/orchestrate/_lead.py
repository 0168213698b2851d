"""The lead: opens (or resumes) the run of a root issue, passes human gates a person has
approved, and decides when a session is over. It never runs a phase and never sends a
message to a worker: workers learn everything from the store.

A session ends when every task has ended, when all that is left waits for a person
(a plan to approve, a pull request waiting for a review or a person's merge), or when
a cap is reached or an issue of the run is held, and nothing is running (a cap reached
holds the issues it stops: ``_admission``). Work that can never start (it waits for a
task that failed) is canceled so the run can end. A task waiting for something that
ends by itself (checks running) keeps the session going; so does one waiting for a
person when the session was asked to wait (``--wait``). Resuming a run wakes its
waiting tasks: rerunning the same command looks again at once.

A run is finished only when its graph says so: once every task has ended, the pipeline
is planned again from the tracker, and work no task covered (a rewrite canceled it
without a replacement) is added to the run instead of reporting it finished. What
ended badly is not asked for again (see ``regraph``), so this never loops. An issue a
person moved to Human Needed between phases stops its group's pipeline; the run's
report names it, as it names an escalation.
"""

from __future__ import annotations

import enum
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ralph._process import holder_is_gone, process_owner
from ralph.errors import LeaseLost, TaskNotClaimable
from ralph.graph import PipelinePlan, Role, TaskKind
from ralph.orchestrate._admission import Held, hold_issues, hold_line, holds_in_run, lift_unbound
from ralph.orchestrate._attempts import best_of_from_config, best_of_to_config
from ralph.orchestrate._options import SessionOptions
from ralph.orchestrate._planning import plan_from_tracker
from ralph.orchestrate._rewrite import regraph
from ralph.orchestrate._waiting import wake_waiting
from ralph.pipeline import PipelinePosition
from ralph.project import Project
from ralph.tasks import MessageKind, Run, RunStatus, Task, TaskStatus
from ralph.workflow import WorkflowState, is_earlier_state

__all__ = ["Ending", "Lead", "RunVerdict", "nothing_to_do"]

logger = logging.getLogger(__name__)

#: Times one session adds work the tracker still shows once every task has ended.
MAX_LEFT_OVER_PLANS = 3


class Ending(enum.StrEnum):
    FINISHED = "finished"
    WAITING_FOR_HUMAN = "waiting_for_human"
    OUT_OF_BUDGET = "out_of_budget"
    INTERRUPTED = "interrupted"
    NOTHING_TO_DO = "nothing_to_do"
    #: The phases asked for (``ralph loop --only``) have nothing left to do; the rest of
    #: the run waits for a run without that restriction.
    PHASES_DONE = "phases_done"
    #: Only a person can let it go on (NeedsPerson: the agent cannot work here, their
    #: checkout of the base branch is in the way, a remote refuses us): its tasks were
    #: handed back untouched.
    AGENT_UNUSABLE = "agent_unusable"
    #: The session broke on an error no phase caught (``ralph loop`` and ``ralph serve``
    #: say it and go on with the other roots).
    BROKEN = "broken"
    #: A person canceled the run (``ralph runs cancel``, the web's Cancel) while it ran.
    CANCELED = "canceled"


@dataclass(frozen=True)
class RunVerdict:
    """The lead's look at a run: how it ended (None: still going) and why."""

    ending: Ending | None
    detail: str = ""
    #: Human gates waiting for an approval.
    gates: tuple[Task, ...] = ()
    #: Tasks waiting for a person (a review, a merge by hand).
    waiting: tuple[Task, ...] = ()


def _approved(states: Sequence[WorkflowState | None]) -> bool:
    """A plan is approved once its issues have moved past Plan in Review."""
    return all(
        state is not None and is_earlier_state(WorkflowState.PLAN_IN_REVIEW, state)
        for state in states
    )


class Lead:
    def __init__(self, project: Project, root: int, options: SessionOptions | None = None) -> None:
        """``options``: the session's (ralph.toml's when not given); ``options.wait``
        keeps the session going while tasks wait for a person, ``options.best_of`` is
        the attempts per implementation of a new run (a resumed run keeps its own)."""
        options = options or SessionOptions.from_config(project.config)
        self.project = project
        self.wait = options.wait
        self.store = project.store
        self.root = root
        self.mode = options.mode
        self.budget = options.budget
        self.review_mode = options.review_mode
        self.name = process_owner("lead")
        self.best_of = options.best_of
        self._left_over_plans = 0
        #: The run's tasks as the last look read them (a team's roster sizes to them).
        self.seen: Sequence[Task] = ()

    def open_run(self) -> tuple[Run | None, bool]:
        """The root's active run, resumed (claims of crashed processes handed back), or
        a new run with the whole graph stored up front; (None, False) when the tracker
        shows nothing left to do. Returns (run, resumed)."""
        for run in self.store.list_runs(status=RunStatus.ACTIVE, root_issue=self.root):
            for task in self.store.list_tasks(run.id, status=TaskStatus.RUNNING):
                if task.owner is not None and holder_is_gone(task.owner):
                    self.store.requeue_abandoned(task.id, task.owner)
                    logger.info("requeued a crashed worker's task", extra={"task": task.key})
            # Run again, so look again: what they wait for may have happened meanwhile,
            # and a cap that held an issue may have been raised.
            wake_waiting(self.store, run_id=run.id)
            lift_unbound(self.store, self.project.config, self.budget, run)
            self.best_of = best_of_from_config(run.config, self.best_of)
            return run, True
        plan = self._plan()
        if not len(plan.graph):
            return None, False
        run = self.store.create_run(
            f"{self.mode} {self.project.tracker.reference(self.root)}",
            root_issue=self.root,
            mode=self.mode,
            config={
                "review_mode": self.review_mode.value,
                "phase": plan.position.phase.value,
                "group": list(plan.group.issues),
                "best_of": best_of_to_config(self.best_of),
                "budget": {
                    "task_usd": self.budget.task_usd,
                    "run_usd": self.budget.run_usd,
                    "day_usd": self.budget.day_usd,
                    "task_tokens": self.budget.task_tokens,
                    "run_tokens": self.budget.run_tokens,
                    "issue_tokens": self.budget.issue_tokens,
                    "day_tokens": self.budget.day_tokens,
                    "day_sessions": self.budget.day_sessions,
                },
            },
        )
        self.store.add_tasks(run.id, plan.graph)
        lift_unbound(self.store, self.project.config, self.budget, run)
        return run, False

    def _plan(self) -> PipelinePlan:
        return plan_from_tracker(self.project, self.root, self.review_mode, self.best_of)

    def nothing_to_do(self) -> tuple[str, tuple[int, ...]]:
        """Why the root has no task, and its issues a person holds (Human Needed)."""
        position = self._plan().position
        return nothing_to_do(self.root, position), _escalated(position)

    def look(self, run_id: int) -> RunVerdict:
        """Pass approved gates, then judge the run."""
        if self.store.get_run(run_id).status is RunStatus.CANCELED:
            # Its tasks are canceled: it is over, and must not be planned again or
            # closed as finished.
            return RunVerdict(Ending.CANCELED, "a person canceled the run")
        self._pass_gates(run_id)
        tasks = self.store.list_tasks(run_id)
        self.seen = tasks
        status = {t.id: t.status for t in tasks}
        if all(t.terminal for t in tasks):
            return self._over(run_id)
        running = any(t.status is TaskStatus.RUNNING for t in tasks)
        held = self._held(run_id, tasks, running)
        if held:
            return RunVerdict(None if running else Ending.OUT_OF_BUDGET, held)
        if running:
            return RunVerdict(None)
        gates = []
        people = []
        now = time.time()
        for task in tasks:
            if task.status is not TaskStatus.PENDING:
                continue
            if all(status[d] is TaskStatus.DONE for d in task.deps):
                if task.role == Role.HUMAN:
                    gates.append(task)
                elif self._for_a_person(task, now):
                    people.append(task)
                else:  # a worker will take it (or it waits for a backoff, or for checks)
                    return RunVerdict(None)
        if gates or people:
            said = []
            if gates:
                numbers = ", ".join(f"#{n}" for gate in gates for n in gate.issues[:1])
                said.append(f"waiting for a person to approve the plan for {numbers}")
            said += [f"#{task.issues[0]} waiting for: {task.waiting_for}" for task in people]
            return RunVerdict(
                Ending.WAITING_FOR_HUMAN, "; ".join(said), tuple(gates), tuple(people)
            )
        # What is left waits for work that failed: it can never start.
        for task in tasks:
            if task.status is TaskStatus.PENDING:
                self.store.cancel(task.id)
        return self._over(run_id)

    def _held(self, run_id: int, tasks: Sequence[Task], running: bool) -> str:
        """Why no more work may start ("" while it may): a run or day cap reached, or an
        issue of the run held. Once nothing runs, a cap reached holds the issues whose
        tasks it stops (ready ones; else any left), so the board and status say so."""
        repo = self.project.config.repo
        holds = holds_in_run(self.store, repo, run_id)
        if holds:
            return "; ".join(hold_line(h, h.number) for h in holds)
        reached = self.budget.reached(self.store, run_id)
        if reached is None:
            return ""
        if running:
            return str(reached)
        done = {t.id for t in tasks if t.status is TaskStatus.DONE}
        left = [t for t in tasks if t.status is TaskStatus.PENDING and t.role != Role.HUMAN]
        ready = [t for t in left if done.issuperset(t.deps)] or left
        numbers = [n for t in ready for n in t.issues[:1]]
        holds = hold_issues(self.store, repo, numbers, Held.of(reached), run_id)
        if not holds:
            return str(reached)
        return "; ".join(hold_line(h, h.number) for h in holds)

    def _for_a_person(self, task: Task, now: float) -> bool:
        """The task waits for a person and is not due for a look yet (a due one is looked
        at first: a worker takes it). Never while the session was asked to wait."""
        return not self.wait and task.waiting_for_person and task.not_before > now

    def _over(self, run_id: int) -> RunVerdict:
        """Every task has ended: finished, unless the tracker still shows work no task
        covers, which is added to the run (the run goes on)."""
        plan = self._plan()
        if self._left_over_plans < MAX_LEFT_OVER_PLANS:
            edit, _ = regraph(self.store.list_tasks(run_id), plan.graph)
            if edit.add:
                self._left_over_plans += 1
                self.store.add_tasks(run_id, edit.add)
                logger.info("planned left-over work", extra={"tasks": [t.key for t in edit.add]})
                return RunVerdict(None)
        self._name_escalated(
            run_id,
            [
                i.number
                for i in plan.position.issues
                if i.workflow_state == WorkflowState.HUMAN_NEEDED
            ],
        )
        return RunVerdict(Ending.FINISHED)

    def _name_escalated(self, run_id: int, numbers: Sequence[int]) -> None:
        """Say which issues wait in Human Needed that no message of the run names yet (a
        person moved them there between phases)."""
        said = " ".join(m.body for m in self.store.messages(run_id))
        for number in numbers:
            if re.search(rf"#{number}(?!\d)", said):
                continue
            self.store.send_message(
                run_id,
                self.name,
                "lead",
                MessageKind.ESCALATION,
                f"#{number} is Human Needed: its pipeline stops there; resolve it, move it "
                f"back (ralph issue move {number} STATE), then run `ralph {self.mode} "
                f"{self.root}` again",
            )

    def _pass_gates(self, run_id: int) -> None:
        tasks = self.store.list_tasks(run_id, kind=TaskKind.HUMAN_GATE.value)
        if not tasks:
            return
        done = {t.id for t in self.store.list_tasks(run_id, status=TaskStatus.DONE)}
        for gate in tasks:
            if gate.status is not TaskStatus.PENDING or not set(gate.deps) <= done:
                continue
            states = [self.project.tracker.get_issue(n).workflow_state for n in gate.issues]
            if not _approved(states):
                continue
            try:
                claim = self.store.claim_task(gate.id, self.name)
                self.store.complete(claim, {"approved": True})
            except (TaskNotClaimable, LeaseLost):
                continue  # another lead of the same run passed it


def _escalated(position: PipelinePosition) -> tuple[int, ...]:
    return tuple(
        i.number for i in position.issues if i.workflow_state == WorkflowState.HUMAN_NEEDED
    )


def nothing_to_do(root: int, position: PipelinePosition) -> str:
    """Why a root's pipeline has no task, for a person: who has to move what, or that
    it is finished (the position's stage is the pipeline's word, not theirs)."""
    escalated = _escalated(position)
    if escalated:
        retry = ", ".join(f"`ralph issue retry {n}`" for n in escalated)
        return f"#{root}: nothing to do until a person resolves it and runs {retry}"
    finished = (WorkflowState.DONE, WorkflowState.CANCELED)
    if all(i.workflow_state in finished for i in position.issues):
        return f"#{root}: nothing to do; it is done"
    reason = position.reason[:1].lower() + position.reason[1:]
    return f"#{root}: nothing to do ({reason})"
