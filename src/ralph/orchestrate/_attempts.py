"""Best of N in the task graph: the first implementation of each chain becomes N attempts
side by side and a selection after them. Pure, over the graph's plain data.

    ... review:42 -> implement:42/try-1 ┐
                  -> implement:42/try-2 ├-> implement:42 (selects) -> pr:42 -> merge:42
                  -> implement:42/try-3 ┘

The attempts take the implement task's dependencies, so they start together on free
builders; ``implement:42`` keeps its key and its dependants, and depends on them all: it
picks the winner, makes its branch the issue's branch and finishes the implementation
as one would have. Each attempt is a task of its own, so its result (branch, tests, diff,
cost) is stored when it ends and a rerun after a crash never runs a finished one again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ralph.config import BestOf
from ralph.graph import TaskGraph, TaskKind, TaskSpec

__all__ = [
    "ATTEMPT_MARK",
    "attempt_key",
    "best_of_from_config",
    "best_of_to_config",
    "is_attempt",
    "is_selection",
    "with_attempts",
]

#: Between an implement task's key and its attempt: ``implement:42/try-2``. Not the
#: generation mark (``~``): an attempt is no later generation of its implement task.
ATTEMPT_MARK = "/try-"


def attempt_key(key: str, attempt: int) -> str:
    return f"{key}{ATTEMPT_MARK}{attempt}"


def is_attempt(task_metadata: object) -> bool:
    return isinstance(task_metadata, Mapping) and "best_of_try" in task_metadata


def is_selection(task_metadata: object) -> bool:
    return (
        isinstance(task_metadata, Mapping)
        and "best_of" in task_metadata
        and "best_of_try" not in task_metadata
    )


def _first_implements(graph: TaskGraph) -> list[TaskSpec]:
    """The implement tasks no other implement task comes before: one per chain (the
    others of a group's chain find the plan implemented by then)."""
    implements = {t.key for t in graph.of_kind(TaskKind.IMPLEMENT)}
    return [
        t for t in graph.of_kind(TaskKind.IMPLEMENT) if not any(dep in implements for dep in t.deps)
    ]


def with_attempts(graph: TaskGraph, best_of: BestOf) -> TaskGraph:
    """``graph`` with each chain's first implementation done ``best_of.count`` times;
    ``graph`` itself when the count is 1."""
    if best_of.count <= 1:
        return graph
    first = {t.key for t in _first_implements(graph)}
    tasks: list[TaskSpec] = []
    for task in graph:
        if task.key not in first:
            tasks.append(task)
            continue
        count = best_of.count
        for attempt in range(1, count + 1):
            agent = best_of.agent_of(attempt)
            tasks.append(
                dataclasses.replace(
                    task,
                    key=attempt_key(task.key, attempt),
                    subject=f"{task.subject} (try {attempt} of {count})",
                    active_form=f"{task.active_form} (try {attempt} of {count})",
                    metadata={
                        **task.metadata,
                        "best_of": count,
                        "best_of_try": attempt,
                        "best_of_agent": agent,
                    },
                )
            )
        tasks.append(
            dataclasses.replace(
                task,
                subject=f"{task.subject} (best of {count})",
                active_form=f"Choosing the best of {count} for {task.subject.split()[-1]}",
                deps=tuple(attempt_key(task.key, k) for k in range(1, count + 1)),
                metadata={**task.metadata, "best_of": count, "best_of_select": best_of.select},
            )
        )
    return TaskGraph(tuple(tasks))


def best_of_to_config(best_of: BestOf) -> dict[str, object]:
    """As a run's config keeps it, so every process of the run plans the same graph."""
    return {"count": best_of.count, "agents": list(best_of.agents), "select": best_of.select}


def best_of_from_config(config: Mapping[str, object], default: BestOf) -> BestOf:
    """The run's best-of (``default``, ralph.toml's, for a run from before it was kept)."""
    kept = config.get("best_of")
    if not isinstance(kept, Mapping):
        return default
    count = kept.get("count", default.count)
    agents = kept.get("agents", default.agents)
    select = kept.get("select", default.select)
    return BestOf(
        count=count if isinstance(count, int) else default.count,
        agents=tuple(str(a) for a in agents) if isinstance(agents, list | tuple) else (),
        select=str(select),
    )
