"""Rewriting a group's chain into one chain per work stream."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.artifacts import StreamNames
from ralph.errors import GraphError
from ralph.graph._chain import CHAIN_KINDS, PRE_PLAN_KINDS, Scope, Stages, chain
from ralph.graph._model import TaskGraph, TaskKind, TaskSpec
from ralph.pipeline import WorkStream, WorkStreamResult, stream_id

__all__ = ["split_into_streams"]


def _frontier(tasks: Sequence[TaskSpec]) -> dict[int, str]:
    """Each issue's last pre-plan task: research, else triage, else split."""
    rank = {kind: i for i, kind in enumerate(PRE_PLAN_KINDS)}
    best: dict[int, TaskSpec] = {}
    for task in tasks:
        if task.kind in rank:
            for number in task.issues:
                current = best.get(number)
                if current is None or rank[task.kind] > rank[current.kind]:
                    best[number] = task
    return {number: task.key for number, task in best.items()}


def _estimates(tasks: Sequence[TaskSpec]) -> dict[int, str]:
    """Each issue's estimate, as the tasks charged to it carry it."""
    return {
        task.issues[0]: str(task.metadata["estimate"])
        for task in tasks
        if task.issues and task.metadata.get("estimate")
    }


def _partition(
    streams: WorkStreamResult | Sequence[WorkStream], order: Sequence[int]
) -> list[tuple[str, list[int]]]:
    """Streams restricted to the chain's issues, in implementation order; issues no
    stream mentions get a stream of their own."""
    given = streams.streams if isinstance(streams, WorkStreamResult) else tuple(streams)
    position = {number: i for i, number in enumerate(order)}
    owner: dict[int, str] = {}
    for stream in given:
        for number in stream.issues:
            if number in owner and owner[number] != stream.id:
                raise GraphError(
                    f"issue #{number} is in two streams ({owner[number]}, {stream.id}); "
                    "streams must not overlap"
                )
            owner[number] = stream.id
    parts: dict[str, list[int]] = {}
    for number in order:
        parts.setdefault(owner.get(number, stream_id([number])), []).append(number)
    ordered = sorted(parts.values(), key=lambda issues: position[issues[0]])
    return [(stream_id(issues), issues) for issues in ordered]


def split_into_streams(
    graph: TaskGraph,
    streams: WorkStreamResult | Sequence[WorkStream],
    *,
    epic: int | None = None,
) -> TaskGraph:
    """Replace the group's plan .. merge chain with one chain per stream, with no edges
    between streams (builders take them side by side). Each stream's plan waits only for
    its own issues' research.

    The chain must not have started: the caller rewrites after research and before
    planning. Stream task keys carry the stream id, so no key of the old chain is reused
    with a different meaning. With fewer than two streams the graph is returned as is.
    Every stream task carries the original's stream metadata (``stream_id``,
    ``stream_primary``, ``stream_members``, ``epic_issue``, ``worktree``); ``epic`` is
    the issue the group was split from (default: the group's primary).
    """
    old_chain = graph.of_kind(*CHAIN_KINDS)
    if not old_chain:
        return graph
    order = list(dict.fromkeys(n for task in old_chain for n in task.issues))
    parts = _partition(streams, order)
    if len(parts) < 2:
        return graph

    kinds = {task.kind for task in old_chain}
    review = next((k for k in (TaskKind.REVIEW, TaskKind.HUMAN_GATE) if k in kinds), None)
    implement = {n for task in old_chain if task.kind is TaskKind.IMPLEMENT for n in task.issues}
    stages = Stages(
        plan=TaskKind.PLAN in kinds,
        review=review,
        implement=implement,
        pr=TaskKind.PR in kinds,
        merge=TaskKind.MERGE in kinds,
        code_review=TaskKind.CODE_REVIEW in kinds,
    )
    kept = [task for task in graph if task.kind not in CHAIN_KINDS]
    frontier = _frontier(kept)
    group_primary = old_chain[0].metadata.get("group_primary", order[0])
    estimates = _estimates(graph.tasks)
    tasks = list(kept)
    for sid, issues in parts:
        names = StreamNames.of(group_primary if epic is None else epic, issues)
        scope = Scope(
            key=sid,
            label=sid,
            target=sid,
            issues=tuple(issues),
            waits_for=tuple(issues),
            qualify_implement_keys=True,
            estimates={n: estimates[n] for n in issues if n in estimates},
            metadata={
                "group_primary": group_primary,
                "stream_id": sid,
                "stream_primary": min(issues),
                "stream_members": sorted(issues),
                "epic_issue": names.epic,
                "worktree": names.worktree,
            },
        )
        tasks += chain(scope, stages, frontier)
    return TaskGraph(tuple(tasks))
