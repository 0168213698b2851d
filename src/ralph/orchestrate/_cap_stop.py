"""``budget_on_cap = "stop"``: an agent at work is stopped once a cap is crossed while
it runs, counting what the agents at work reported so far (their activity) on top of the
ledger. Its issues are held first, so its task goes back untried and the run ends
naming the cap; with "finish" (the default) it finishes its turn and the cap stops only
the claims after it."""

from __future__ import annotations

import logging

from ralph.orchestrate._admission import CAP_STOPPED, Held, hold_issues
from ralph.orchestrate._budget import Budget
from ralph.orchestrate._worker import Crew
from ralph.tasks import Spend, Task, TaskStore

__all__ = ["stop_at_cap"]

logger = logging.getLogger(__name__)


def _live(task: Task) -> Spend:
    activity = task.metadata.get("activity") or {}
    return Spend(
        usd=float(activity.get("costUsd", 0.0) or 0.0), tokens=int(activity.get("tokens", 0))
    )


def stop_at_cap(store: TaskStore, repo: str, budget: Budget, run_id: int, crew: Crew) -> int:
    """Stop the agents of ``crew`` that work past a cap of ``budget``; how many."""
    if budget.on_cap != "stop":
        return 0
    working = [(w, w.current) for w in crew.workers if w.current is not None]
    if not working:
        return 0
    tasks = {t.id: t for t in store.list_tasks(run_id) if t.id in {c.task_id for _, c in working}}
    live = {task_id: _live(task) for task_id, task in tasks.items()}
    running = Spend(
        usd=sum(s.usd for s in live.values()), tokens=sum(s.tokens for s in live.values())
    )
    everyone = budget.reached(store, run_id, running=running)
    stopped = 0
    for worker, claim in working:
        task = tasks.get(claim.task_id)
        if task is None:
            continue
        tokens = live[task.id].tokens
        reached = everyone or budget.task_cap(store, task.id, running=tokens)
        for number in task.issues:
            reached = reached or budget.issue_cap(store, repo, number, running=tokens)
        if reached is None:
            continue
        hold_issues(store, repo, task.issues, Held.of(reached), run_id)
        if worker.stop_agent(task.id, f"{CAP_STOPPED}{reached}"):
            logger.info("stopped an agent at a cap", extra={"task": task.key})
            stopped += 1
    return stopped
