"""Graph rewrites as pure functions over the stored tasks: what to add and what to cancel
when a task's outcome changes the shape of the work.

Three rewrites exist, and only code makes them (never an agent):

- **regraph**: after a triage or a split, or when a group plan is claimed, the pipeline
  is planned again from the tracker (:func:`regraph`). Tasks that are still right are
  kept; pending tasks the new shape no longer has are canceled; new tasks are added.
  This is how a split's sub-issues get their tasks and a group becomes work streams.
- **iterate**: a NEEDS_ITERATION verdict reruns the plan and its review, and everything
  that waited for the review waits for the new one (:func:`iterate`).
- **address round**: a merge that finds feedback to address (a change request, review
  threads, a failed required check) is replaced by an address task for the builder,
  a code review again when the project asks for one, and a new merge after them
  (:func:`address_round`).

Both are applied by the process holding the claim of the task that caused them, in the
same transaction as that task's end (``TaskStore.complete(..., edit=)`` or
``supersede``), so no dependent can be claimed against the old shape in between.
A task added again gets a generation suffix (``plan:42~2``): keys stay unique.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from ralph.graph import Role, TaskGraph, TaskKind, TaskSpec, scope_task
from ralph.tasks import GraphEdit, Task, TaskStatus
from ralph.workflow import find_phase

__all__ = [
    "GENERATION_MARK",
    "address_round",
    "base_key",
    "generation",
    "iterate",
    "regraph",
    "spec_of",
]

#: Separates a key from its generation: ``plan:42~2`` is the second plan for 42.
GENERATION_MARK = "~"

_FINISHED_BADLY = frozenset({TaskStatus.FAILED, TaskStatus.DEAD})
#: Tasks that decide the shape of the work: done and asked for again, they said the same.
_DECISIONS = frozenset({TaskKind.TRIAGE, TaskKind.SPLIT})


def base_key(key: str) -> str:
    return key.partition(GENERATION_MARK)[0]


def generation(key: str) -> int:
    _, mark, number = key.partition(GENERATION_MARK)
    return int(number) if mark and number.isdigit() else 1


def _free_key(base: str, taken: Collection[str]) -> str:
    if base not in taken:
        return base
    number = 2
    while f"{base}{GENERATION_MARK}{number}" in taken:
        number += 1
    return f"{base}{GENERATION_MARK}{number}"


def spec_of(task: Task, *, key: str, deps: Sequence[str]) -> TaskSpec:
    """A stored task as a spec again, under a new key and dependencies."""
    return TaskSpec(
        key=key,
        kind=TaskKind(task.kind),
        role=Role(task.role),
        issues=task.issues,
        subject=task.subject,
        active_form=task.active_form,
        deps=tuple(deps),
        metadata=dict(task.metadata),
        description=task.description,
        serial_key=task.serial_key,
        max_attempts=task.max_attempts,
    )


def regraph(
    tasks: Sequence[Task],
    fresh: TaskGraph,
    *,
    finished: Collection[int] = (),
    replaceable: Collection[int] = (),
    reason: str = "",
) -> tuple[GraphEdit, bool]:
    """The edit that turns the run's ``tasks`` into ``fresh`` (the graph planned again
    from the tracker), and whether every task in ``replaceable`` survives it.

    ``finished`` are task ids to count as done (the task being completed now);
    ``replaceable`` are running task ids the edit may replace (a plan being claimed).
    A fresh task matches a live one with the same key (any generation), kind and issues
    whose unfinished dependencies are the fresh task's, and maybe running tasks the
    fresh graph no longer has (a triage whose issue moved before it ended); it is kept,
    so a re-plan that changes nothing cancels nothing. A fresh task whose
    key ran already and did not succeed (or ran and was done: triage or split said the
    same again) is dropped with everything that waits for it: a person decides there.
    Any other fresh task whose key is done is that task: the tracker was read before it
    finished (its move landed after the read), and what waits for it still waits.
    """
    by_id = {task.id: task for task in tasks}
    done = {t.id for t in tasks if t.status is TaskStatus.DONE} | set(finished)
    done_keys = {by_id[i].key for i in done if i in by_id}
    taken = {t.key for t in tasks}
    live: dict[str, Task] = {}
    ended: dict[str, Task] = {}
    for task in tasks:  # creation order: the latest generation wins
        if task.id in done or task.status in _FINISHED_BADLY:
            ended[base_key(task.key)] = task
            live.pop(base_key(task.key), None)
        elif task.status in (TaskStatus.PENDING, TaskStatus.RUNNING):
            live[base_key(task.key)] = task
            ended.pop(base_key(task.key), None)

    fresh_keys = {spec.key for spec in fresh}
    resolved: dict[str, str] = {}
    dropped: set[str] = set()
    kept: set[int] = set()
    added: list[TaskSpec] = []
    for spec in fresh:
        before = ended.get(spec.key)
        if before is not None and before.id in done and spec.kind not in _DECISIONS:
            resolved[spec.key] = before.key
            continue
        if before is not None or any(d in dropped for d in spec.deps):
            dropped.add(spec.key)
            continue
        deps = [resolved[d] for d in spec.deps]
        current = live.get(spec.key)
        if current is not None:
            waits_for = {by_id[d].key for d in current.deps if d not in done}
            # A running task the fresh graph no longer has (a triage whose issue moved
            # before it ended) is waited out: replacing what waits for it, and all after,
            # only to start it a moment sooner is the churn of concurrent triages.
            waited_out = {
                by_id[d].key
                for d in current.deps
                if by_id[d].status is TaskStatus.RUNNING
                and d not in replaceable
                and base_key(by_id[d].key) not in fresh_keys
            }
            wanted = {d for d in deps if d not in done_keys}
            same = (
                current.kind == spec.kind.value
                and tuple(current.issues) == spec.issues
                and wanted <= waits_for
                and waits_for - wanted <= waited_out
            )
            if same or (current.status is TaskStatus.RUNNING and current.id not in replaceable):
                resolved[spec.key] = current.key
                kept.add(current.id)
                continue
        key = _free_key(spec.key, taken)
        taken.add(key)
        resolved[spec.key] = key
        added.append(dataclasses.replace(spec, key=key, deps=tuple(deps)))
    cancel = tuple(
        t.id
        for t in tasks
        if t.status is TaskStatus.PENDING and t.id not in kept and t.id not in done
    )
    survives = all(task_id in kept for task_id in replaceable)
    return GraphEdit(add=tuple(added), cancel=cancel, reason=reason), survives


def iterate(tasks: Sequence[Task], review: Task, *, reason: str = "") -> GraphEdit:
    """After ``review`` (being completed) said NEEDS_ITERATION: a new generation of its
    plan and of itself, and every pending task that waited for it, transitively, again
    behind the new review. The old pending ones are canceled."""
    by_id = {task.id: task for task in tasks}
    taken = {t.key for t in tasks}
    plans = [by_id[d] for d in review.deps if by_id[d].kind == TaskKind.PLAN]
    added: list[TaskSpec] = []
    renamed: dict[int, str] = {}

    def again(task: Task, deps: Sequence[str]) -> None:
        key = _free_key(base_key(task.key), taken)
        taken.add(key)
        renamed[task.id] = key
        added.append(spec_of(task, key=key, deps=deps))

    for plan in plans:
        again(plan, [])
    again(review, [renamed[p.id] for p in plans])
    waiting = [t for t in tasks if t.status is TaskStatus.PENDING]
    progressed = True
    while progressed:  # creation order is topological; loop for safety across edits
        progressed = False
        for task in waiting:
            if task.id in renamed or not any(d in renamed for d in task.deps):
                continue
            again(task, [renamed.get(d, by_id[d].key) for d in task.deps])
            progressed = True
    cancel = tuple(t.id for t in waiting if t.id in renamed)
    return GraphEdit(add=tuple(added), cancel=cancel, reason=reason)


def _about(task: Task) -> str:
    """What the task is about (``GH-42``, ``stream-42-44``): its subject after its
    phase's title."""
    spec = find_phase(task.kind)
    before = spec.title.partition("{}")[0] if spec is not None else ""
    return task.subject.removeprefix(before) if before else task.subject


def address_round(
    tasks: Sequence[Task], merge: Task, *, code_review: bool = False, reason: str = ""
) -> GraphEdit:
    """Instead of ``merge`` (being superseded): an address task on the same issues, a
    code review after it when ``code_review``, and the merge again after them. What
    waited for the old merge, transitively, waits for the new one."""
    by_id = {task.id: task for task in tasks}
    taken = {t.key for t in tasks}
    scope = base_key(merge.key).partition(":")[2]
    about = _about(merge)
    # The scope's own metadata (group, stream); each task names its own command.
    shared = {k: v for k, v in merge.metadata.items() if k not in ("command", "issue_number")}

    def key(kind: TaskKind) -> str:
        free = _free_key(f"{kind.value}:{scope}", taken)
        taken.add(free)
        return free

    address = scope_task(TaskKind.ADDRESS, key(TaskKind.ADDRESS), merge.issues, about, (), shared)
    added = [address]
    if code_review:
        added.append(
            scope_task(
                TaskKind.CODE_REVIEW,
                key(TaskKind.CODE_REVIEW),
                merge.issues,
                about,
                (added[-1].key,),
                shared,
            )
        )
    again = spec_of(merge, key=key(TaskKind.MERGE), deps=(added[-1].key,))
    added.append(again)
    renamed = {merge.id: again.key}
    waiting = [t for t in tasks if t.status is TaskStatus.PENDING]
    progressed = True
    while progressed:  # as in iterate: everything downstream, again behind the new merge
        progressed = False
        for task in waiting:
            if task.id in renamed or not any(d in renamed for d in task.deps):
                continue
            renamed[task.id] = _free_key(base_key(task.key), taken)
            taken.add(renamed[task.id])
            deps = [renamed.get(d, by_id[d].key) for d in task.deps]
            added.append(spec_of(task, key=renamed[task.id], deps=deps))
            progressed = True
    cancel = tuple(t.id for t in waiting if t.id in renamed)
    return GraphEdit(add=tuple(added), cancel=cancel, reason=reason)
