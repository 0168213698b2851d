"""Sync with what people do outside Ralph (the original's GitHub Actions): an issue a
person closed or reopened moves to the Workflow State that says so, and a pull request
a person merged is finished as the merge phase finishes one (its issues Done, their
parent advanced, the worktree pruned). Each move is audited; running a sync again
changes nothing.

A merged pull request gets what follows every merge (``phases._merged.finish_merged``,
shared with the merge phase and ``ralph pr merge``), so it is written once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date

from ralph.errors import RalphError
from ralph.phases._context import PhaseContext
from ralph.phases._merged import finish_merged, noted
from ralph.project import Project
from ralph.tracker import CloseReason, Issue, IssueQuery, PullRequestState, StateChange
from ralph.workflow import WorkflowState, synced_state

__all__ = ["Synced", "sync_board", "sync_issue", "sync_pull_request"]

logger = logging.getLogger(__name__)
#: The command the audit comment of a merge's move to Done names.
_MERGE_COMMAND = "ralph_merge"


@dataclass(frozen=True)
class Synced:
    """What one sync did: the moves it made and lines for a person."""

    subject: str
    changes: tuple[StateChange, ...] = ()
    lines: tuple[str, ...] = ()
    #: A merged pull request's follow-ups were made now.
    finished: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.changes) or self.finished


def _merged_request(project: Project, issue: Issue) -> int | None:
    """A merged pull request that closes ``issue`` (the newest), if any. The code host
    is asked (``Project.pull_requests_of``): an issue on Linear names no pull request.
    One the host cannot answer for now is left for the next sync."""
    try:
        requests = project.pull_requests_of(issue)
    except RalphError as exc:
        logger.warning("pull requests unread", extra={"issue": issue.number, "error": str(exc)})
        return None
    merged = [
        pr.number
        for pr in requests
        if pr.state is PullRequestState.MERGED and issue.number in pr.closes
    ]
    return max(merged, default=None)


def sync_issue(project: Project, number: int, *, actor: str = "ralph sync") -> Synced:
    """Bring issue ``number``'s Workflow State in line with its being open or closed. An
    issue a merged pull request closed is finished as that merge (``sync_pull_request``),
    Done already or not (a merge the tracker made moves the issue itself)."""
    tracker = project.tracker
    issue = tracker.get_issue(number)
    target = synced_state(
        issue.workflow_state,
        is_open=issue.is_open,
        completed=issue.close_reason is CloseReason.COMPLETED,
        reopened=issue.reopened,
    )
    closed_by_merge = not issue.is_open and issue.close_reason is CloseReason.COMPLETED
    if target is WorkflowState.DONE or (closed_by_merge and target is None):
        merged = _merged_request(project, issue)
        if merged is not None:
            return sync_pull_request(project, merged)
    change = tracker.sync_state(number, actor=actor)
    if change is None:
        return Synced(f"#{number}", lines=(_agrees(issue),))
    line = f"#{number}: {change.previous or 'no state'} -> {change.new} ({_why(issue)})."
    return Synced(f"#{number}", (change,), (line,))


def _why(issue: Issue) -> str:
    if issue.is_open:
        return "reopened"
    reason = issue.close_reason.value if issue.close_reason else "closed"
    return f"closed as {reason.replace('_', ' ')}"


def _agrees(issue: Issue) -> str:
    state = issue.workflow_state.value if issue.workflow_state else None
    if state is None:
        return f"#{issue.number} is not on the board (no Workflow State); nothing to sync."
    opened = "open" if issue.is_open else "closed"
    return f"#{issue.number} is {opened} and {state}: nothing to sync."


def sync_pull_request(project: Project, number: int) -> Synced:
    """Finish pull request ``number`` if a person merged it: what follows every merge
    (``phases._merged.finish_merged``, the merge phase's and ``ralph pr merge``'s) for
    the issues it closes, Done first. An open or closed-unmerged one changes nothing."""
    tracker = project.tracker
    pr = project.code_host.get_pull_request(number)
    subject = f"pull request #{number}"
    if pr.state is not PullRequestState.MERGED:
        line = f"Pull request #{number} is {pr.state.value}: nothing to sync."
        return Synced(subject, lines=(line,))
    members = []
    for closed in pr.closes:
        try:
            members.append(tracker.get_issue(closed))
        except RalphError:
            continue
    if not members:
        line = f"Pull request #{number} is merged and closes no issue here: nothing to sync."
        return Synced(subject, lines=(line,))
    if all(noted(issue, pr) for issue in members):
        line = f"Pull request #{number} is merged and finished already: nothing to sync."
        return Synced(subject, lines=(line,))
    before = {issue.number: issue.workflow_state for issue in members}
    project.code_host.settle_merged(number)  # Done, audited, and closed: what the merge did not do
    ctx = PhaseContext(project, date.today())
    finish_merged(ctx, pr, [tracker.get_issue(issue.number) for issue in members])
    changes = tuple(
        StateChange(n, was, WorkflowState.DONE, _MERGE_COMMAND)
        for n, was in before.items()
        if was is not WorkflowState.DONE
    )
    return Synced(subject, changes, tuple(ctx.said), finished=True)


def sync_board(project: Project) -> list[Synced]:
    """Every sync the board needs now (``ralph serve`` runs this each poll): one read of
    the issues, then a sync for each whose open or closed state disagrees with its
    Workflow State. One that cannot be synced now (its issue is locked by a run) is left
    for the next time."""
    done: list[Synced] = []
    for issue in project.tracker.list_issues(IssueQuery(status=None, board=True)):
        target = synced_state(
            issue.workflow_state,
            is_open=issue.is_open,
            completed=issue.close_reason is CloseReason.COMPLETED,
            reopened=issue.reopened,
        )
        if target is None:
            continue
        try:
            done.append(sync_issue(project, issue.number))
        except RalphError as exc:
            logger.warning("sync left for later", extra={"issue": issue.number, "error": str(exc)})
    return done
