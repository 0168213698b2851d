"""Issue tools that write: create and change issues, move their Workflow State (one
at a time or in a batch), set Estimate and Priority, and comment."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field

from ralph.errors import IssueNotFound, RalphError
from ralph.mcp._context import ToolContext
from ralph.mcp._issue_shapes import Number, brief, parse_enum
from ralph.workflow import Estimate, Priority, WorkflowState, is_earlier_state, parse_state

__all__ = ["register_issue_write_tools"]


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
            planned[field] = parse_enum(Estimate, value)
        elif field == "priority":
            planned[field] = parse_enum(Priority, value)
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


def register_issue_write_tools(tools: ToolContext) -> None:
    tracker = tools.project.tracker

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
            estimate=parse_enum(Estimate, estimate),
            priority=parse_enum(Priority, priority),
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
        issue = tracker.update_issue(number, estimate=parse_enum(Estimate, estimate))
        return {"number": number, "estimate": issue.estimate}

    @tools.write("update priority")
    def update_priority(number: Number, priority: str) -> dict[str, Any]:
        """Set an issue's Priority (P0..P3)."""
        issue = tracker.update_issue(number, priority=parse_enum(Priority, priority))
        return {"number": number, "priority": issue.priority}

    @tools.write("create comment")
    def create_comment(number: Number, body: Annotated[str, Field(min_length=1)]) -> dict[str, Any]:
        """Comment on an issue."""
        comment = tracker.add_comment(number, body, author=tools.actor)
        return {"commentId": comment.id, "issueNumber": number}
