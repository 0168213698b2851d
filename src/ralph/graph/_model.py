"""The task graph as plain data: task specs with dependency keys, checked to be a DAG."""

from __future__ import annotations

import enum
import heapq
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ralph.errors import GraphError
from ralph.workflow import TASK_SPECS

__all__ = ["ROLE_OF_KIND", "TYPICAL_EFFORT", "Role", "TaskGraph", "TaskKind", "TaskSpec"]


class TaskKind(enum.StrEnum):
    """What a task does: a phase, or a person's gate (``ralph.workflow.TASK_SPECS``)."""

    TRIAGE = "triage"
    SPLIT = "split"
    RESEARCH = "research"
    PLAN = "plan"
    REVIEW = "review"
    HUMAN_GATE = "human_gate"
    IMPLEMENT = "implement"
    PR = "pr"
    CODE_REVIEW = "code_review"
    ADDRESS = "address"
    MERGE = "merge"


class Role(enum.StrEnum):
    """Who claims a task. Workers match on role, never on subject keywords."""

    ANALYST = "analyst"
    BUILDER = "builder"
    VALIDATOR = "validator"
    INTEGRATOR = "integrator"
    HUMAN = "human"


ROLE_OF_KIND: Mapping[TaskKind, Role] = {TaskKind(s.kind): Role(s.role) for s in TASK_SPECS}

#: Relative agent time per kind (an implementation takes longest), for ordering work so
#: that the longest chains start first. A person's gate takes no agent time.
TYPICAL_EFFORT: Mapping[TaskKind, float] = {TaskKind(s.kind): s.effort for s in TASK_SPECS}


@dataclass(frozen=True)
class TaskSpec:
    """One task of the pipeline, before it is stored.

    ``key`` is unique in its run and stable across rebuilds of the same graph; ``deps``
    are keys of tasks that must be done first. ``metadata`` carries the original's task
    metadata keys (``issue_number``, ``command``, ``group_primary``, ``stream_id`` ...).
    ``serial_key`` makes tasks sharing it run one at a time (``merge:<repo>``);
    ``max_attempts`` None means the store's default.
    """

    key: str
    kind: TaskKind
    role: Role
    issues: tuple[int, ...]
    subject: str
    active_form: str
    deps: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)
    description: str = ""
    serial_key: str | None = None
    max_attempts: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", TaskKind(self.kind))
        object.__setattr__(self, "role", Role(self.role))
        object.__setattr__(self, "issues", tuple(self.issues))
        object.__setattr__(self, "deps", tuple(self.deps))

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind.value,
            "role": self.role.value,
            "issues": list(self.issues),
            "subject": self.subject,
            "activeForm": self.active_form,
            "deps": list(self.deps),
            "metadata": dict(self.metadata),
            "description": self.description,
            "serialKey": self.serial_key,
            "maxAttempts": self.max_attempts,
        }


@dataclass(frozen=True)
class TaskGraph:
    """Tasks in creation order. Construction checks that keys are unique, every
    dependency names a task of the graph, and there is no cycle."""

    tasks: tuple[TaskSpec, ...] = ()
    _by_key: Mapping[str, TaskSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tasks = tuple(self.tasks)
        object.__setattr__(self, "tasks", tasks)
        by_key: dict[str, TaskSpec] = {}
        for task in tasks:
            if task.key in by_key:
                raise GraphError(f"duplicate task key {task.key!r}")
            by_key[task.key] = task
        for task in tasks:
            unknown = [d for d in task.deps if d not in by_key]
            if unknown:
                raise GraphError(f"task {task.key!r} depends on unknown task(s): {unknown}")
        object.__setattr__(self, "_by_key", by_key)
        self._check_acyclic()

    def _check_acyclic(self) -> None:
        remaining = {t.key: len(set(t.deps)) for t in self.tasks}
        dependents: dict[str, list[str]] = {t.key: [] for t in self.tasks}
        for task in self.tasks:
            for dep in set(task.deps):
                dependents[dep].append(task.key)
        ready = [k for k, n in remaining.items() if n == 0]
        placed = 0
        while ready:
            key = ready.pop()
            placed += 1
            for dependent in dependents[key]:
                remaining[dependent] -= 1
                if remaining[dependent] == 0:
                    ready.append(dependent)
        if placed != len(self.tasks):
            stuck = sorted(k for k, n in remaining.items() if n > 0)
            raise GraphError(f"task dependencies form a cycle among: {stuck}")

    def __iter__(self) -> Iterator[TaskSpec]:
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    def __getitem__(self, key: str) -> TaskSpec:
        try:
            return self._by_key[key]
        except KeyError:
            raise GraphError(f"no task with key {key!r}") from None

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(t.key for t in self.tasks)

    def of_kind(self, *kinds: TaskKind) -> tuple[TaskSpec, ...]:
        return tuple(t for t in self.tasks if t.kind in kinds)

    def roots(self) -> tuple[TaskSpec, ...]:
        """Tasks that depend on nothing: the ones that can start at once."""
        return tuple(t for t in self.tasks if not t.deps)

    def dependents(self, key: str) -> tuple[TaskSpec, ...]:
        return tuple(t for t in self.tasks if key in t.deps)

    def critical_first(self, effort: Mapping[TaskKind, float] = TYPICAL_EFFORT) -> TaskGraph:
        """The same tasks, those with the most work still chained behind them first.

        Workers claim the oldest claimable task, so this order makes them start the
        longest chains first (list scheduling by critical path). It stays a valid
        creation order: a task always has more work behind it than its dependents (ties
        keep the old order, which already put dependencies first)."""
        dependents: dict[str, list[str]] = {t.key: [] for t in self.tasks}
        for task in self.tasks:
            for dep in task.deps:
                dependents[dep].append(task.key)
        rank = {key: i for i, key in enumerate(self._topological())}
        behind: dict[str, float] = {}
        for key in sorted(rank, key=rank.__getitem__, reverse=True):
            after = max((behind[k] for k in dependents[key]), default=0.0)
            behind[key] = effort.get(self._by_key[key].kind, 1.0) + after
        order = sorted(self.keys, key=lambda k: (-behind[k], rank[k]))
        return TaskGraph(tuple(self._by_key[k] for k in order))

    def _topological(self) -> list[str]:
        """Keys with every dependency before its dependents, ties in creation order."""
        waiting = {t.key: len(set(t.deps)) for t in self.tasks}
        dependents: dict[str, list[str]] = {t.key: [] for t in self.tasks}
        for task in self.tasks:
            for dep in set(task.deps):
                dependents[dep].append(task.key)
        position = {t.key: i for i, t in enumerate(self.tasks)}
        ready = [(position[k], k) for k, n in waiting.items() if n == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            _, key = heapq.heappop(ready)
            order.append(key)
            for dependent in dependents[key]:
                waiting[dependent] -= 1
                if waiting[dependent] == 0:
                    heapq.heappush(ready, (position[dependent], dependent))
        return order

    def to_dict(self) -> dict[str, Any]:
        return {"tasks": [t.to_dict() for t in self.tasks]}
