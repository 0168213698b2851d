"""A person sends an escalated issue back to work: from Human Needed to the state its
phase starts from again, the one before it was escalated (its audit history says), so
the next ``ralph hero``, ``team``, ``loop`` or ``serve`` takes it up."""

from __future__ import annotations

from ralph.phases._phase import PhaseRefused
from ralph.project import Project
from ralph.tracker import StateChange, iso
from ralph.workflow import WorkflowState, parse_all_transitions

__all__ = ["RETRY_FROM", "retry_escalated"]

_S = WorkflowState
#: The state an issue escalated from -> the state its phase starts from again. A lock
#: state goes back to where its phase took the issue; Human Needed may move only to
#: Backlog, Research Needed, Ready for Plan or In Progress.
RETRY_FROM: dict[WorkflowState, WorkflowState] = {
    _S.BACKLOG: _S.BACKLOG,
    _S.RESEARCH_NEEDED: _S.RESEARCH_NEEDED,
    _S.RESEARCH_IN_PROGRESS: _S.RESEARCH_NEEDED,
    _S.READY_FOR_PLAN: _S.READY_FOR_PLAN,
    _S.PLAN_IN_PROGRESS: _S.READY_FOR_PLAN,
    _S.PLAN_IN_REVIEW: _S.READY_FOR_PLAN,
    _S.IN_PROGRESS: _S.IN_PROGRESS,
    _S.IN_REVIEW: _S.IN_PROGRESS,
}


def retry_escalated(project: Project, number: int, *, actor: str = "human") -> StateChange:
    """Move issue ``number`` from Human Needed back to where the phase that escalated it
    starts again. Refused (PhaseRefused, nothing changed) for an issue that is not in
    Human Needed, or whose history does not say where it came from."""
    tracker = project.tracker
    issue = tracker.get_issue(number)
    if issue.workflow_state is not _S.HUMAN_NEEDED:
        state = issue.workflow_state.value if issue.workflow_state else "no state"
        raise PhaseRefused(
            f"only an escalated issue (Human Needed) is retried; #{number} is {state}"
        )
    before = None
    for comment in issue.comments:
        for record in parse_all_transitions(comment.body, iso(comment.created_at) or ""):
            if record.to_state == _S.HUMAN_NEEDED.value and record.from_state != record.to_state:
                before = record.from_state
    target = RETRY_FROM.get(_S(before)) if before in set(_S) else None
    if target is None:
        raise PhaseRefused(
            f"#{number}'s history does not say where it was escalated from; move it yourself: "
            f"ralph issue move {number} STATE"
        )
    return tracker.set_state(number, target, command="human", actor=actor)
