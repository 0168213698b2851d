"""Issue tools: read and change issues, their fields, comments and relations."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from ralph.dashboard import (
    FIELD_NAMES,
    FILTER_PROFILES,
    FilterFields,
    ItemFilter,
    expand_profile,
    parse_date_math,
)
from ralph.errors import InvalidInput, IssueNotFound, RalphError
from ralph.mcp._context import ToolContext
from ralph.tracker import Issue, IssueOrder, IssueQuery, IssueStatus, iso
from ralph.workflow import Estimate, Priority, WorkflowState, is_earlier_state, parse_state

__all__ = ["filter_fields", "item_filter", "register_issue_tools"]

Number = Annotated[int, Field(description="Issue number")]


def brief(issue: Issue) -> dict[str, Any]:
    return {
        "number": issue.number,
        "title": issue.title,
        "state": "OPEN" if issue.is_open else "CLOSED",
        "workflowState": issue.workflow_state.value if issue.workflow_state else None,
        "estimate": issue.estimate.value if issue.estimate else None,
        "priority": issue.priority.value if issue.priority else None,
    }


_FIELDS_HELP = f"Field names: {', '.join(FIELD_NAMES)}"
_DATE_HELP = "@today, @now, @today-7d, @now-24h, @today-1m, or an ISO date (YYYY-MM-DD)"


def filter_fields(issue: Issue) -> FilterFields:
    return FilterFields(
        workflow_state=issue.workflow_state.value if issue.workflow_state else None,
        estimate=issue.estimate.value if issue.estimate else None,
        priority=issue.priority.value if issue.priority else None,
        labels=issue.labels,
        assignees=issue.assignees,
        updated_at=issue.updated_at,
        title=issue.title,
        body=issue.body,
    )


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


def _checked(kind: str, values: Sequence[str] | None) -> list[str]:
    """Filter values, each a valid one of its kind (a typo would match nothing)."""
    found = []
    for value in values or ():
        if kind == "workflowState":
            found.append(parse_state(value).value)
        elif kind == "estimate":
            found.append(_enum(Estimate, value).value)
        elif kind == "priority":
            found.append(_enum(Priority, value).value)
        else:
            found.append(value)
    return found


def _moment(text: str | None, name: str, now: float) -> float | None:
    if text is None:
        return None
    try:
        return parse_date_math(text, datetime.fromtimestamp(now, UTC)).timestamp()
    except InvalidInput as exc:
        raise InvalidInput(f"{name}: {exc}") from None


def item_filter(
    *,
    workflow_state: str | None = None,
    estimate: str | None = None,
    priority: str | None = None,
    label: str | None = None,
    has: Sequence[str] | None = None,
    no: Sequence[str] | None = None,
    exclude_states: Sequence[str] | None = None,
    exclude_estimates: Sequence[str] | None = None,
    exclude_priorities: Sequence[str] | None = None,
    exclude_labels: Sequence[str] | None = None,
    text: str | None = None,
    since: str | None = None,
    before: str | None = None,
    now: float,
) -> ItemFilter:
    """The filter the list tools' arguments describe, every value checked first."""
    return ItemFilter(
        workflow_states=_checked("workflowState", [workflow_state] if workflow_state else ()),
        estimates=_checked("estimate", [estimate] if estimate else ()),
        priorities=_checked("priority", [priority] if priority else ()),
        labels=[label] if label else (),
        has=has or (),
        no=no or (),
        exclude_workflow_states=_checked("workflowState", exclude_states),
        exclude_estimates=_checked("estimate", exclude_estimates),
        exclude_priorities=_checked("priority", exclude_priorities),
        exclude_labels=exclude_labels or (),
        text=text or "",
        updated_since=_moment(since, "updatedSince", now),
        updated_before=_moment(before, "updatedBefore", now),
    )


def _operations(
    operations: Sequence[dict[str, str]],
) -> dict[str, WorkflowState | Estimate | Priority]:
    """batch_update's operations, each value checked before anything changes."""
    planned: dict[str, WorkflowState | Estimate | Priority] = {}
    for operation in operations:
        unknown = set(operation) - {"field", "value"}
        if unknown or "field" not in operation or "value" not in operation:
            raise ValueError("each operation is {field, value}")
        field, value = operation["field"], operation["value"]
        if field in planned:
            raise ValueError(f"{field} is set twice; give each field once")
        if field == "workflow_state":
            planned[field] = parse_state(value)
        elif field == "estimate":
            planned[field] = _enum(Estimate, value)
        elif field == "priority":
            planned[field] = _enum(Priority, value)
        else:
            raise ValueError(f'Invalid field "{field}"; use workflow_state, estimate or priority')
    return planned


def _at_or_past(current: WorkflowState | None, target: WorkflowState) -> str | None:
    """Why batch_update's skipIfAtOrPast leaves an issue alone (None: it does not)."""
    if current is None:
        return None
    if current is target:
        return "Already at target state"
    if not is_earlier_state(current, target):
        return "Already past target state"
    return None


def _enum(kind: type[Estimate] | type[Priority], value: str | None) -> Any:
    if value is None:
        return None
    try:
        return kind(value)
    except ValueError:
        valid = ", ".join(v.value for v in kind)
        raise ValueError(
            f"{value!r} is not a valid {kind.__name__.lower()}; use one of {valid}"
        ) from None


def register_issue_tools(tools: ToolContext) -> None:
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
        has: Annotated[list[str] | None, Field(description=_FIELDS_HELP)] = None,
        no: Annotated[list[str] | None, Field(description=_FIELDS_HELP)] = None,
        excludeWorkflowStates: list[str] | None = None,
        excludeEstimates: list[str] | None = None,
        excludePriorities: list[str] | None = None,
        excludeLabels: list[str] | None = None,
        updatedSince: Annotated[str | None, Field(description=_DATE_HELP)] = None,
        updatedBefore: Annotated[str | None, Field(description=_DATE_HELP)] = None,
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
        every = tracker.list_issues(IssueQuery(status=None, order=order))
        found = [
            issue
            for issue in every
            if (status[state.upper()] is None or issue.status is status[state.upper()])
            and _reason_matches(issue, reason)
            and wanted.matches(filter_fields(issue))
        ]
        return {
            "totalCount": len(every),
            "filteredCount": len(found),
            "items": [_listed(issue) for issue in found[:limit]],
        }

    @tools.write("create issue")
    def create_issue(
        title: Annotated[str, Field(min_length=1)],
        body: str = "",
        labels: list[str] | None = None,
        workflowState: str | None = None,
        estimate: str | None = None,
        priority: str | None = None,
        parent: Annotated[int | None, Field(description="Parent issue number")] = None,
    ) -> dict[str, Any]:
        """Create an issue, optionally with its workflow fields and parent."""
        issue = tracker.create_issue(
            title,
            body=body,
            parent=parent,
            state=parse_state(workflowState) if workflowState else None,
            estimate=_enum(Estimate, estimate),
            priority=_enum(Priority, priority),
            labels=labels or (),
            author=tools.actor,
        )
        return {**brief(issue), "url": issue.url}

    @tools.write("update issue")
    def update_issue(
        number: Number,
        title: str | None = None,
        body: str | None = None,
        labels: Annotated[list[str] | None, Field(description="Replaces the labels")] = None,
    ) -> dict[str, Any]:
        """Change an issue's title, body or labels (empty strings change nothing)."""
        issue = tracker.update_issue(number, title=title or None, body=body or None, labels=labels)
        return {**brief(issue), "labels": list(issue.labels)}

    @tools.write("update workflow state")
    def update_workflow_state(
        number: Number,
        state: Annotated[
            str,
            Field(
                description="A state or an intent: __LOCK__, __COMPLETE__, "
                "__ESCALATE__, __CLOSE__, __CANCEL__"
            ),
        ],
        command: Annotated[str, Field(description="The command moving it, e.g. ralph_research")],
    ) -> dict[str, Any]:
        """Move an issue's Workflow State on behalf of a command; the command's contract
        and the transition rules are checked first."""
        change = tracker.set_state(number, state, command=command, actor=tools.actor)
        data = {
            "number": number,
            "previousState": change.previous.value if change.previous else "(unknown)",
            "newState": change.new.value,
            "command": command,
        }
        if change.resolved_from:
            data["resolvedFrom"] = change.resolved_from
        return data

    @tools.write("batch update")
    def batch_update(
        issues: Annotated[list[int], Field(min_length=1, max_length=50)],
        operations: Annotated[
            list[dict[str, str]],
            Field(
                min_length=1,
                max_length=3,
                description="[{field: workflow_state | estimate | priority, value}]",
            ),
        ],
        skipIfAtOrPast: Annotated[
            bool, Field(description="Leave issues at or past the target workflow state")
        ] = False,
    ) -> dict[str, Any]:
        """Set the workflow state, estimate or priority of up to 50 issues at once. Every
        value is checked before anything changes; state moves follow the transition
        rules (a refused one is an error entry) and are audited."""
        planned = _operations(operations)
        succeeded: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        for number in dict.fromkeys(issues):
            try:
                issue = tracker.get_issue(number)
            except IssueNotFound:
                errors.append({"number": number, "error": f"Issue #{number} not found"})
                continue
            target = planned.get("workflow_state")
            if skipIfAtOrPast and isinstance(target, WorkflowState):
                why = _at_or_past(issue.workflow_state, target)
                if why:
                    skipped.append({"number": number, "reason": why})
                    continue
            try:
                if isinstance(target, WorkflowState) and issue.workflow_state is not target:
                    tracker.set_state(number, target.value, command="human", actor=tools.actor)
                estimate, priority = planned.get("estimate"), planned.get("priority")
                if estimate is not None or priority is not None:
                    tracker.update_issue(
                        number,
                        estimate=estimate if isinstance(estimate, Estimate) else None,
                        priority=priority if isinstance(priority, Priority) else None,
                    )
            except RalphError as exc:
                errors.append({"number": number, "error": f"Failed to update: {exc}"})
                continue
            updates = {field: value.value for field, value in planned.items()}
            succeeded.append({"number": number, "updates": updates})
        return {
            "succeeded": succeeded,
            "skipped": skipped,
            "errors": errors,
            "summary": {
                "total": len(succeeded) + len(skipped) + len(errors),
                "succeeded": len(succeeded),
                "skipped": len(skipped),
                "errors": len(errors),
            },
        }

    @tools.write("update estimate")
    def update_estimate(number: Number, estimate: str) -> dict[str, Any]:
        """Set an issue's Estimate (XS, S, M, L, XL)."""
        issue = tracker.update_issue(number, estimate=_enum(Estimate, estimate))
        return {"number": number, "estimate": issue.estimate}

    @tools.write("update priority")
    def update_priority(number: Number, priority: str) -> dict[str, Any]:
        """Set an issue's Priority (P0..P3)."""
        issue = tracker.update_issue(number, priority=_enum(Priority, priority))
        return {"number": number, "priority": issue.priority}

    @tools.write("create comment")
    def create_comment(number: Number, body: Annotated[str, Field(min_length=1)]) -> dict[str, Any]:
        """Comment on an issue."""
        comment = tracker.add_comment(number, body, author=tools.actor)
        return {"commentId": comment.id, "issueNumber": number}

    @tools.write("add sub-issue")
    def add_sub_issue(
        parentNumber: int, childNumber: int, replaceParent: bool = False
    ) -> dict[str, Any]:
        """Make one issue a sub-issue of another."""
        tracker.add_sub_issue(parentNumber, childNumber, replace_parent=replaceParent)
        parent, child = tracker.get_issue(parentNumber), tracker.get_issue(childNumber)
        return {"parent": brief(parent), "child": brief(child)}

    @tools.read("list sub-issues")
    def list_sub_issues(number: Number, depth: Annotated[int, Field(ge=1, le=3)] = 1) -> Any:
        """An issue's sub-issues, to ``depth`` levels, with a completion summary."""

        def children(of: Issue, level: int) -> list[dict[str, Any]]:
            found = []
            for n in of.sub_issues:
                child = tracker.get_issue(n)
                entry = brief(child)
                if level < depth:
                    entry["subIssues"] = children(child, level + 1)
                found.append(entry)
            return found

        issue = tracker.get_issue(number)
        subs = children(issue, 1)
        done = sum(1 for s in subs if s["state"] == "CLOSED")
        percent = round(100 * done / len(subs)) if subs else 0
        return {
            "parent": brief(issue),
            "subIssues": subs,
            "summary": {"total": len(subs), "completed": done, "percentCompleted": percent},
        }

    @tools.write("add dependency")
    def add_dependency(blockedNumber: int, blockingNumber: int) -> dict[str, Any]:
        """Record that one issue is blocked by another (cycles are refused)."""
        tracker.add_dependency(blockedNumber, blockingNumber)
        return {
            "blocked": brief(tracker.get_issue(blockedNumber)),
            "blocking": brief(tracker.get_issue(blockingNumber)),
        }

    @tools.write("remove dependency")
    def remove_dependency(blockedNumber: int, blockingNumber: int) -> dict[str, Any]:
        """Remove a blocked-by relation."""
        tracker.remove_dependency(blockedNumber, blockingNumber)
        return {"blocked": blockedNumber, "blocking": blockingNumber, "removed": True}

    @tools.read("list dependencies")
    def list_dependencies(number: Number) -> dict[str, Any]:
        """The issues this one blocks and is blocked by."""
        issue = tracker.get_issue(number)
        blocking = [brief(tracker.get_issue(n)) for n in issue.blocking]
        blocked_by = [brief(tracker.get_issue(n)) for n in issue.blocked_by]
        return {
            "number": number,
            "blocking": blocking,
            "blockedBy": blocked_by,
            "blockingCount": len(blocking),
            "blockedByCount": len(blocked_by),
        }
