"""The pipeline of a root issue as the tracker shows it now: group, position, work streams
(from the research documents' "Will Modify" lists) and the task graph to the merge.

One state is read differently from the original's position rules: Plan in Progress is
the plan phase's lock, held while the plan is being written and left behind when the
process writing it dies (``kill -9``, a second Ctrl-C). Orchestration plans it as Ready
for Plan, so the graph keeps its plan task: the plan phase takes the lock over when its
holder is gone (a live holder refuses it) and applies the saved result or asks again,
as research does with Research in Progress. Read as the original does (the review
phase), a crashed plan was never written and its review could never start.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from datetime import date

from ralph.artifacts import ArtifactKind, files_under
from ralph.config import BestOf
from ralph.graph import PipelinePlan, ReviewMode, TaskGraph, TaskKind, plan_pipeline
from ralph.orchestrate._attempts import with_attempts
from ralph.phases import PhaseContext
from ralph.pipeline import IssueState, detect_group
from ralph.project import Project
from ralph.tracker import Issue, pipeline_state
from ralph.workflow import WorkflowState

__all__ = ["merge_serial_key", "plan_from_tracker"]


def _as_planned(issue: Issue) -> IssueState:
    """What orchestration plans from: the plan lock is a plan not yet written."""
    state = pipeline_state(issue)
    if issue.workflow_state is WorkflowState.PLAN_IN_PROGRESS:
        return dataclasses.replace(state, workflow_state=WorkflowState.READY_FOR_PLAN.value)
    return state


def merge_serial_key(project: Project) -> str:
    """Merges into one repository run one at a time, oldest first."""
    return f"merge:{project.repo_name}"


def plan_from_tracker(
    project: Project, root: int, review_mode: ReviewMode | str, best_of: BestOf | None = None
) -> PipelinePlan:
    """Plan ``root``'s pipeline from the tracker; every merge task carries the
    repository's serialisation key, each chain's first implementation is done as many
    times as ``best_of`` says (ralph.toml's ``[agent.phases.implement]`` when None), and
    the longest chains come first (workers claim the oldest claimable task)."""
    with project.tracker.snapshot():  # the group's issues read once, together
        return _plan(project, root, review_mode, best_of)


def _plan(
    project: Project, root: int, review_mode: ReviewMode | str, best_of: BestOf | None
) -> PipelinePlan:
    tracker = project.tracker
    group = detect_group(root, tracker.relations, tracker.relations_of)
    issues = dict(zip(group.issues, tracker.get_issues(group.issues), strict=True))
    ctx = PhaseContext(project, date.today())
    files: dict[int, list[str]] = {}
    for number, issue in issues.items():
        # Read only: a self-healing link posted from here raced the research phase
        # linking the document it had just committed (two identical comments).
        document = ctx.document(ArtifactKind.RESEARCH, issue, heal=False) if issue.is_open else None
        if document is not None:
            files[number] = files_under(document.text, "### Will Modify")
    plan = plan_pipeline(
        root,
        tracker.relations,
        {n: _as_planned(i) for n, i in issues.items()},
        review_mode=review_mode,
        files=files,
        review_code=project.config.review_code,
        fetch_many=tracker.relations_of,
    )
    serial = merge_serial_key(project)
    graph = TaskGraph(
        tuple(
            dataclasses.replace(spec, serial_key=serial) if spec.kind is TaskKind.MERGE else spec
            for spec in plan.graph
        )
    )
    if best_of is None:
        best_of = project.config.agent.best_of_for("implement")
    graph = with_attempts(graph, best_of).critical_first()
    return dataclasses.replace(plan, graph=_named(graph, tracker.reference))


_GH = re.compile(r"\bGH-(\d+)\b")


def _named(graph: TaskGraph, reference: Callable[[int], str]) -> TaskGraph:
    """The graph with its tasks' titles naming issues as the tracker does (ENG-12 on
    Linear); the pure graph names them GH-12, and its keys stay as they are."""

    def named(text: str) -> str:
        return _GH.sub(lambda found: reference(int(found.group(1))), text)

    return TaskGraph(
        tuple(
            dataclasses.replace(
                spec, subject=named(spec.subject), active_form=named(spec.active_form)
            )
            for spec in graph
        )
    )
