"""The board as the dashboard reads it: every issue, open or closed, with its
blockers' states. The dashboard itself is pure; this is where a tracker feeds it."""

from __future__ import annotations

from ralph.dashboard import DashboardItem
from ralph.tracker._model import IssueQuery
from ralph.tracker._tracker import Tracker

__all__ = ["dashboard_items"]


def dashboard_items(tracker: Tracker) -> list[DashboardItem]:
    """Every issue, open or closed, with its blockers' states."""
    issues = tracker.list_issues(IssueQuery(status=None))
    states = {i.number: i.workflow_state for i in issues}
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
        )
        for i in issues
    ]
