"""Whether a claimed task may start its phase: ``CHECKS``, each ``(store, config, run,
task) -> Held | None``, asked in order by the executor before the phase runs; the first
that answers holds the task's issues. A held issue is neither sent to a person nor
failed: its task goes back untried, the run ends saying why, and its workflow state on
the tracker stays. Each hold says which limit and how much was spent, and the one
command that lifts or raises it.

A budget hold whose cap no longer binds (the cap raised, a new day) lifts by itself when
the next session opens the run (``lift_unbound``); any hold lifts by hand with
``ralph budget lift N``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ralph.config import Config
from ralph.graph import TaskKind
from ralph.orchestrate._budget import Budget, CapReached
from ralph.orchestrate._look_ahead import look_ahead_hold
from ralph.orchestrate._no_progress import no_progress_hold
from ralph.tasks import Hold, HoldReason, Run, Task, TaskStatus, TaskStore
from ralph.workflow import PHASE_SPECS

__all__ = [
    "CAP_STOPPED",
    "CHECKS",
    "Check",
    "Held",
    "admission",
    "already_held",
    "caps",
    "hold_issues",
    "hold_line",
    "holds_in_run",
    "lift_unbound",
    "look_ahead",
    "no_progress",
]

logger = logging.getLogger(__name__)

#: How the reason begins when an agent at work is stopped for a cap (``budget_on_cap =
#: "stop"``): its task goes back untried, its issues held.
CAP_STOPPED = "stopped for a cap: "
#: Kinds of task whose phase runs an agent: only they spend, so only they meet a cap.
_SPENDING = frozenset(TaskKind(s.kind) for s in PHASE_SPECS if s.uses_agent)


@dataclass(frozen=True)
class Held:
    """Why a task's issues are held: the reason, which limit and its spend, the fix."""

    reason: HoldReason
    detail: str
    lift: str

    @classmethod
    def of(cls, reached: CapReached) -> Held:
        return cls(HoldReason.BUDGET, reached.said, reached.fix)

    @classmethod
    def of_hold(cls, hold: Hold | None) -> Held | None:
        return cls(hold.reason, hold.detail, hold.lift) if hold is not None else None


Check = Callable[[TaskStore, Config, Run, Task], "Held | None"]


def hold_line(hold: Hold | Held, number: int) -> str:
    """``#5 held: budget — the run's token cap: 120,412 of 100,000 tokens; raise ...``."""
    lift = f"; {hold.lift}" if hold.lift else ""
    return f"#{number} held: {hold.reason.value} — {hold.detail}{lift}"


def already_held(store: TaskStore, config: Config, run: Run, task: Task) -> Held | None:
    """An issue of the task is held already (by this run or an earlier one)."""
    for number in task.issues:
        hold = store.hold_of(config.repo, number)
        if hold is not None:
            return Held(hold.reason, hold.detail, hold.lift)
    return None


def caps(store: TaskStore, config: Config, run: Run, task: Task) -> Held | None:
    """A cap the task's agent would spend past: the run's or today's (another worker's
    agent may have reached it since this claim), the task's own, or its issue's."""
    if TaskKind(task.kind) not in _SPENDING:
        return None
    budget = Budget.from_config(config)
    reached = budget.reached(store, run.id) or budget.task_cap(store, task.id)
    for number in task.issues:
        reached = reached or budget.issue_cap(store, config.repo, number)
    return Held.of(reached) if reached is not None else None


def no_progress(store: TaskStore, config: Config, run: Run, task: Task) -> Held | None:
    """The issue spent past the no-progress breaker since it last moved forward."""
    return Held.of_hold(no_progress_hold(store, config, run, task))


def look_ahead(store: TaskStore, config: Config, run: Run, task: Task) -> Held | None:
    """What is left of a cap cannot pay for the phase, by this project's history."""
    return Held.of_hold(look_ahead_hold(store, config, run, task))


#: The checks, in order. Keep each a plain function of (store, config, run, task).
CHECKS: list[Check] = [already_held, caps, no_progress, look_ahead]


def admission(store: TaskStore, config: Config, run: Run, task: Task) -> Held | None:
    """The hold to apply before ``task``'s phase runs, or None: it may start."""
    for check in CHECKS:
        held = check(store, config, run, task)
        if held is not None:
            return held
    return None


def hold_issues(
    store: TaskStore, repo: str, numbers: Iterable[int], held: Held, run_id: int | None
) -> list[Hold]:
    """Hold each issue of ``numbers`` for ``held``."""
    holds = [
        store.hold_issue(repo, n, held.reason, detail=held.detail, lift=held.lift, run_id=run_id)
        for n in dict.fromkeys(numbers)
    ]
    for hold in holds:
        logger.info(hold_line(hold, hold.number), extra={"run": run_id})
    return holds


def _unfinished_issues(store: TaskStore, run_id: int) -> dict[int, list[Task]]:
    """The issues of the run's tasks that may still run, with those tasks."""
    issues: dict[int, list[Task]] = {}
    for task in store.list_tasks(run_id):
        if task.status in (TaskStatus.PENDING, TaskStatus.RUNNING):
            for number in task.issues:
                issues.setdefault(number, []).append(task)
    return issues


def holds_in_run(store: TaskStore, repo: str, run_id: int) -> list[Hold]:
    """The holds on issues the run still has work for (``repo`` "": any repository's)."""
    holds = store.holds(repo or None)
    if not holds:  # the common case costs one small read
        return []
    issues = _unfinished_issues(store, run_id)
    return [h for h in holds if h.number in issues]


def lift_unbound(store: TaskStore, config: Config, budget: Budget, run: Run) -> list[Hold]:
    """Lift the budget holds on the run's issues whose cap in ``budget`` no longer binds,
    nor the look before spending (what is left of a cap still cannot pay for the phase
    by its history); the lifted."""
    repo = config.repo
    issues = _unfinished_issues(store, run.id)
    lifted = []
    for hold in store.holds(repo):
        if hold.reason is not HoldReason.BUDGET or hold.number not in issues:
            continue
        binds = (
            budget.reached(store, run.id)
            or budget.issue_cap(store, repo, hold.number)
            or next((c for t in issues[hold.number] if (c := budget.task_cap(store, t.id))), None)
            or next(
                (h for t in issues[hold.number] if (h := look_ahead_hold(store, config, run, t))),
                None,
            )
        )
        if binds is None and store.lift_hold(repo, hold.number) is not None:
            logger.info("lifted a hold its cap no longer binds", extra={"issue": hold.number})
            lifted.append(hold)
    return lifted
