"""The whole pipeline as a task graph, built up front (docs/architecture.md,
"Layers": orchestration).

Per issue, before the plan: ``split`` for an M/L/XL issue not yet split, ``triage`` then
``research`` for an issue without a known state or in Backlog, ``research`` for one in
Research Needed / in Progress. Then one chain per group (or per stream): plan (waits
for every issue's research), review or human gate, implement each issue in
implementation order, PR, merge. The position's phase decides where the chain starts.
"""

from __future__ import annotations

from collections.abc import Sequence

from ralph.errors import InvalidInput
from ralph.graph._chain import ReviewMode, Scope, Stages, chain, issue_task
from ralph.graph._model import TaskGraph, TaskKind, TaskSpec
from ralph.graph._streams import split_into_streams
from ralph.pipeline import (
    GroupResult,
    IssueState,
    PipelinePosition,
    Stage,
    WorkStream,
    WorkStreamResult,
)
from ralph.workflow import WorkflowState

__all__ = ["build_task_graph"]

_S = WorkflowState
_PLAN_AHEAD = frozenset({Stage.SPLIT, Stage.TRIAGE, Stage.RESEARCH, Stage.PLAN})
_REVIEW_AHEAD = _PLAN_AHEAD | {Stage.REVIEW, Stage.HUMAN_GATE}
_IMPLEMENT_AHEAD = _REVIEW_AHEAD | {Stage.IMPLEMENT}
_MERGE_AHEAD = _IMPLEMENT_AHEAD | {Stage.COMPLETE}

#: Issues nobody works on: finished, abandoned, or waiting for a person.
_INACTIVE = frozenset({_S.DONE, _S.CANCELED, _S.HUMAN_NEEDED})
_RESEARCH_STATES = frozenset({_S.RESEARCH_NEEDED, _S.RESEARCH_IN_PROGRESS})
_KNOWN_STATES = frozenset(s.value for s in WorkflowState)


def _needs_triage(issue: IssueState) -> bool:
    state = issue.workflow_state
    return state == _S.BACKLOG or state not in _KNOWN_STATES


def _pre_plan_tasks(issues: Sequence[IssueState]) -> tuple[list[TaskSpec], dict[int, str]]:
    """The per-issue tasks, and for each issue the last of them (what its plan waits for)."""
    tasks: list[TaskSpec] = []
    frontier: dict[int, str] = {}
    for issue in issues:
        own: list[TaskSpec] = []
        if issue.oversized:
            own.append(issue_task(TaskKind.SPLIT, issue.number, estimate=issue.estimate))
        else:
            if _needs_triage(issue):
                own.append(issue_task(TaskKind.TRIAGE, issue.number, estimate=issue.estimate))
            if own or issue.workflow_state in _RESEARCH_STATES:
                deps = [t.key for t in own]
                own.append(
                    issue_task(TaskKind.RESEARCH, issue.number, deps, estimate=issue.estimate)
                )
        if own:
            frontier[issue.number] = own[-1].key
        tasks += own
    return tasks, frontier


def _ordered(position: PipelinePosition, group: GroupResult) -> list[IssueState]:
    by_number = {issue.number: issue for issue in position.issues}
    order = [n for n in group.issues if n in by_number]
    order += [n for n in by_number if n not in set(order)]
    return [by_number[n] for n in order]


def _group_scope(
    group: GroupResult, issues: Sequence[IssueState], waits_for: Sequence[int]
) -> Scope:
    primary = group.primary
    metadata = {}
    if group.is_group:
        metadata = {"group_primary": primary, "group_members": list(group.issues)}
    return Scope(
        key=str(primary),
        label=f"group GH-{primary}" if group.is_group else f"GH-{primary}",
        target=f"GH-{primary}",
        issues=tuple(i.number for i in issues),
        waits_for=tuple(waits_for),
        metadata=metadata,
        estimates={i.number: i.estimate for i in issues if i.estimate},
    )


def build_task_graph(
    position: PipelinePosition,
    group: GroupResult,
    *,
    review_mode: ReviewMode | str,
    streams: WorkStreamResult | Sequence[WorkStream] | None = None,
    epic: int | None = None,
    review_code: bool = False,
) -> TaskGraph:
    """Every task from the current position to the merge, with its dependencies; with
    ``review_code``, a code review of each pull request before its merge.

    ``streams`` (known once research is done) gives each work stream its own chain;
    it is the same as calling :func:`split_into_streams` on the group's graph (with
    ``epic``, the issue the group was split from).
    """
    try:
        mode = ReviewMode(review_mode)
    except ValueError:
        valid = ", ".join(m.value for m in ReviewMode)
        raise InvalidInput(f"Unknown review mode {review_mode!r}. Valid modes: {valid}.") from None

    phase = position.phase
    active = [i for i in _ordered(position, group) if i.workflow_state not in _INACTIVE]
    tasks: list[TaskSpec] = []
    frontier: dict[int, str] = {}
    if phase in _PLAN_AHEAD:
        tasks, frontier = _pre_plan_tasks(active)

    members = [i for i in active if not i.oversized]
    stages = Stages(
        plan=phase in _PLAN_AHEAD,
        review=mode.review_kind if phase in _REVIEW_AHEAD else None,
        implement=(
            {i.number for i in members if i.workflow_state != _S.IN_REVIEW}
            if phase in _IMPLEMENT_AHEAD
            else ()
        ),
        pr=phase in _IMPLEMENT_AHEAD,
        merge=phase in _MERGE_AHEAD,
        code_review=review_code,
    )
    if members:
        scope = _group_scope(group, members, [i.number for i in active])
        tasks += chain(scope, stages, frontier)
    graph = TaskGraph(tuple(tasks))
    if streams is not None:
        graph = split_into_streams(graph, streams, epic=epic)
    return graph
