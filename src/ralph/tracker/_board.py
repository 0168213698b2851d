"""The board as the pure core reads it: every issue with its blockers' states for the
dashboard, and an issue's pipeline snapshot for position and graph detection. The core
is pure; this is where a tracker feeds it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ralph._reason import one_line, split_reason
from ralph.dashboard import DashboardItem
from ralph.pipeline import IssueState
from ralph.tracker._model import Comment, Issue
from ralph.tracker._tracker import Tracker
from ralph.workflow import TRIAGED_LABEL, WorkflowState

__all__ = ["dashboard_items", "escalation_of", "escalation_reason", "pipeline_state"]

#: The runner's escalation comment: "[@someone ]Escalation: <reason>", the output that
#: proves it in a ```text block, then a hint ("Phase `x` stopped ..."). Comments written
#: before the block was fenced carry the output bare, between the reason and the hint.
_ESCALATION = re.compile(r"^(?:@[\w./-]+ )*Escalation: (?P<reason>[^\n]+)(?P<rest>.*)", re.S)
_FENCED = re.compile(r"\A\s*(?P<fence>`{3,})text\n(?P<output>.*?)\n(?P=fence)", re.S)
_HINT = re.compile(r"\n\s*Phase `[^`]+` stopped")


def pipeline_state(issue: Issue) -> IssueState:
    """What pipeline detection reads of an issue."""
    return IssueState(
        issue.number,
        issue.title,
        issue.workflow_state.value if issue.workflow_state else None,
        issue.estimate.value if issue.estimate else None,
        len(issue.sub_issues),
        triaged=TRIAGED_LABEL in issue.labels,
    )


def escalation_of(comments: Sequence[Comment]) -> tuple[str, str] | None:
    """The reason of the latest ``Escalation:`` comment on one line, and the output that
    proves it (empty when there is none); None when there is no such comment."""
    for comment in reversed(comments):
        found = _ESCALATION.match(comment.body.strip())
        if found:
            rest = found["rest"]
            block = _FENCED.match(rest)
            output = block["output"] if block else _HINT.split(rest, maxsplit=1)[0]
            reason = found["reason"].strip() + "\n" + output.strip("\n").rstrip()
            return one_line(reason), split_reason(reason)[1]
    return None


def escalation_reason(comments: Sequence[Comment]) -> str | None:
    """The reason of the latest ``Escalation:`` comment on one line, None when there is
    none."""
    found = escalation_of(comments)
    return found[0] if found else None


def _reasons(tracker: Tracker, issues: Sequence[Issue]) -> dict[int, str | None]:
    """Each Human Needed issue's escalation reason: board issues carry no comments, so
    these few are read whole."""
    waiting = [i.number for i in issues if i.workflow_state is WorkflowState.HUMAN_NEEDED]
    return {i.number: escalation_reason(i.comments) for i in tracker.seen_issues(waiting)}


def dashboard_items(
    tracker: Tracker, *, archived: bool = False, closed_since: float | None = None
) -> list[DashboardItem]:
    """Every issue on the board, open or closed, with its blockers' states; archived
    issues only when ``archived`` (a blocker's state is known either way); closed issues
    only when updated since ``closed_since`` when given (the dashboard's done window)."""
    issues = tracker.board_issues(closed_since=closed_since)
    states = {i.number: i.workflow_state for i in issues}
    reasons = _reasons(tracker, [i for i in issues if archived or not i.archived])
    return [
        DashboardItem(
            number=i.number,
            title=i.title,
            updated_at=i.updated_at,
            closed_at=i.closed_at,
            workflow_state=i.workflow_state,
            priority=i.priority,
            estimate=i.estimate,
            assignees=i.assignees,
            blocked_by=tuple((n, states.get(n)) for n in i.blocked_by),
            parent=i.parent,
            escalation_reason=reasons.get(i.number),
        )
        for i in issues
        if archived or not i.archived
    ]
