"""Issue tools on relations: sub-issues and blocked-by dependencies."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.mcp._context import ToolContext
from ralph.mcp._issue_shapes import Number, brief
from ralph.tracker import Issue

__all__ = ["register_issue_relation_tools"]


def register_issue_relation_tools(tools: ToolContext) -> None:
    tracker = tools.project.tracker

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
