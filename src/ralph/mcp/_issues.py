"""Issue tools: read and change issues, their fields, comments and relations."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.mcp._context import ToolContext
from ralph.tracker import Issue, IssueOrder, IssueQuery, IssueStatus
from ralph.workflow import Estimate, Priority, parse_state

__all__ = ["register_issue_tools"]

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
            "stateReason": issue.close_reason.value.upper() if issue.close_reason else None,
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
        workflowState: str | None = None,
        estimate: str | None = None,
        label: str | None = None,
        query: Annotated[str | None, Field(description="Text in title or body")] = None,
        state: Annotated[str, Field(description="OPEN, CLOSED or ALL")] = "OPEN",
        orderBy: Annotated[str, Field(description="PRIORITY, CREATED_AT or UPDATED_AT")] = (
            "PRIORITY"
        ),
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        """Issues filtered by workflow state, estimate, label and text."""
        status = {"OPEN": IssueStatus.OPEN, "CLOSED": IssueStatus.CLOSED, "ALL": None}
        orders = {"PRIORITY": IssueOrder.PRIORITY, "CREATED_AT": IssueOrder.CREATED}
        orders["UPDATED_AT"] = IssueOrder.UPDATED
        if state.upper() not in status or orderBy.upper() not in orders:
            raise ValueError(
                "state must be OPEN, CLOSED or ALL; orderBy PRIORITY, CREATED_AT or UPDATED_AT"
            )
        found = tracker.list_issues(
            IssueQuery(
                states=frozenset({parse_state(workflowState)}) if workflowState else (),
                estimates=frozenset({_enum(Estimate, estimate)}) if estimate else (),
                labels=(label,) if label else (),
                text=query or "",
                status=status[state.upper()],
                order=orders[orderBy.upper()],
            )
        )
        return {
            "filteredCount": len(found),
            "items": [{**brief(i), "labels": list(i.labels)} for i in found[:limit]],
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
