"""Issue tools that read: one issue with its relations, comments and group, and the
filtered, ordered issue list."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.dashboard import FILTER_PROFILES, expand_profile
from ralph.mcp._context import ToolContext
from ralph.mcp._issue_filters import DATE_HELP, FIELDS_HELP, filter_fields, item_filter
from ralph.mcp._issue_shapes import Number, brief
from ralph.tracker import Issue, IssueOrder, IssueQuery, IssueStatus, iso

__all__ = ["register_issue_read_tools"]


def _listed(issue: Issue) -> dict[str, Any]:
    return {
        **brief(issue),
        "stateReason": _state_reason(issue),
        "url": issue.url,
        "updatedAt": iso(issue.updated_at),
        "labels": list(issue.labels),
        "assignees": list(issue.assignees),
    }


def _state_reason(issue: Issue) -> str | None:
    if issue.reopened:
        return "REOPENED"
    return issue.close_reason.value.upper() if issue.close_reason else None


def _reason_matches(issue: Issue, reason: str | None) -> bool:
    if reason is None:
        return True
    if reason.lower() == "reopened":
        return issue.reopened
    return issue.close_reason is not None and issue.close_reason.value == reason.lower()


def _order(order_by: str, direction: str) -> IssueOrder:
    key, ascending = order_by.upper(), direction.upper()
    if ascending not in ("ASC", "DESC"):
        raise ValueError("direction must be ASC or DESC")
    if key == "PRIORITY":
        return IssueOrder.PRIORITY
    orders = {
        ("CREATED_AT", "DESC"): IssueOrder.CREATED,
        ("CREATED_AT", "ASC"): IssueOrder.CREATED_ASC,
        # The original ordered COMMENTS as CREATED_AT.
        ("COMMENTS", "DESC"): IssueOrder.CREATED,
        ("COMMENTS", "ASC"): IssueOrder.CREATED_ASC,
        ("UPDATED_AT", "DESC"): IssueOrder.UPDATED,
        ("UPDATED_AT", "ASC"): IssueOrder.UPDATED_ASC,
    }
    found = orders.get((key, ascending))
    if found is None:
        raise ValueError("orderBy must be PRIORITY, CREATED_AT, UPDATED_AT or COMMENTS")
    return found


def register_issue_read_tools(tools: ToolContext) -> None:
    tracker = tools.project.tracker

    @tools.read("get issue")
    def get_issue(
        number: Number,
        includeGroup: Annotated[bool, Field(description="Also detect the issue's group")] = True,
    ) -> dict[str, Any]:
        """Fetch an issue with its workflow fields, parent, sub-issues, dependencies
        (native blockedBy/blocking), comments and, by default, its group."""
        issue = tracker.get_issue(number)
        data = {
            **brief(issue),
            "body": issue.body,
            "stateReason": _state_reason(issue),
            "url": issue.url,
            "labels": list(issue.labels),
            "assignees": list(issue.assignees),
            "parent": brief(tracker.get_issue(issue.parent)) if issue.parent else None,
            "subIssues": [brief(tracker.get_issue(n)) for n in issue.sub_issues],
            "blockedBy": [brief(tracker.get_issue(n)) for n in issue.blocked_by],
            "blocking": [brief(tracker.get_issue(n)) for n in issue.blocking],
            "comments": [
                {"id": c.id, "author": c.author, "body": c.body, "createdAt": c.created_at}
                for c in issue.comments
            ],
        }
        if includeGroup:
            data["group"] = tools.group_dict(number)
        return data

    @tools.read("list issues")
    def list_issues(
        profile: Annotated[
            str | None,
            Field(description=f"A filter preset: {', '.join(FILTER_PROFILES)}"),
        ] = None,
        workflowState: str | None = None,
        estimate: str | None = None,
        priority: str | None = None,
        label: str | None = None,
        query: Annotated[str | None, Field(description="Text in title or body")] = None,
        state: Annotated[str, Field(description="OPEN, CLOSED or ALL")] = "OPEN",
        reason: Annotated[
            str | None, Field(description="completed, not_planned or reopened")
        ] = None,
        has: Annotated[list[str] | None, Field(description=FIELDS_HELP)] = None,
        no: Annotated[list[str] | None, Field(description=FIELDS_HELP)] = None,
        excludeWorkflowStates: list[str] | None = None,
        excludeEstimates: list[str] | None = None,
        excludePriorities: list[str] | None = None,
        excludeLabels: list[str] | None = None,
        updatedSince: Annotated[str | None, Field(description=DATE_HELP)] = None,
        updatedBefore: Annotated[str | None, Field(description=DATE_HELP)] = None,
        orderBy: Annotated[
            str, Field(description="PRIORITY, CREATED_AT, UPDATED_AT or COMMENTS")
        ] = "PRIORITY",
        direction: Annotated[str, Field(description="DESC (newest first) or ASC")] = "DESC",
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        """Issues filtered by workflow state, estimate, priority, labels, fields present
        or missing, exclusions, text and update time (date math such as @today-7d), or
        by a profile (explicit filters win over the profile's)."""
        if profile is not None:
            workflowState = workflowState or expand_profile(profile).get("workflowState")
        status = {"OPEN": IssueStatus.OPEN, "CLOSED": IssueStatus.CLOSED, "ALL": None}
        if state.upper() not in status:
            raise ValueError("state must be OPEN, CLOSED or ALL")
        order = _order(orderBy, direction)
        reasons = {"completed", "not_planned", "reopened"}
        if reason is not None and reason.lower() not in reasons:
            raise ValueError(f"reason must be one of {', '.join(sorted(reasons))}")
        wanted = item_filter(
            workflow_state=workflowState,
            estimate=estimate,
            priority=priority,
            label=label,
            has=has,
            no=no,
            exclude_states=excludeWorkflowStates,
            exclude_estimates=excludeEstimates,
            exclude_priorities=excludePriorities,
            exclude_labels=excludeLabels,
            text=query,
            since=updatedSince,
            before=updatedBefore,
            now=tracker.now(),
        )
        # Asked of the tracker by state: every issue of a team at size costs most of
        # Linear's hourly budget, its open ones a kept board.
        every = tracker.list_issues(IssueQuery(status=status[state.upper()], order=order))
        found = [
            issue
            for issue in every
            if _reason_matches(issue, reason) and wanted.matches(filter_fields(issue))
        ]
        return {
            "totalCount": len(every),
            "filteredCount": len(found),
            "items": [_listed(issue) for issue in found[:limit]],
        }
