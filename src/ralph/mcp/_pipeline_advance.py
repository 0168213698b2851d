"""Pipeline tools that move work on: a parent's children up to a state, and a
parent up to its children's gate state."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.mcp._context import ToolContext
from ralph.mcp._issue_shapes import Number
from ralph.tracker import StateChange

__all__ = ["register_pipeline_advance_tools"]


def _change(change: StateChange) -> dict[str, Any]:
    return {
        "number": change.number,
        "fromState": change.previous.value if change.previous else None,
        "toState": change.new.value,
    }


def register_pipeline_advance_tools(tools: ToolContext) -> None:
    tracker = tools.project.tracker

    @tools.write("advance children")
    def advance_children(
        targetState: str,
        number: Annotated[int | None, Field(description="Parent issue")] = None,
        issues: list[int] | None = None,
    ) -> dict[str, Any]:
        """Move the parent's sub-issues (or the listed issues) that are earlier than
        ``targetState`` up to it."""
        result = tracker.advance_children(
            targetState, parent=number, issues=issues or (), actor=tools.actor
        )
        return {
            "advanced": [_change(c) for c in result.advanced],
            "skipped": [{"number": n, "reason": r} for n, r in result.skipped],
            "errors": [{"number": n, "error": e} for n, e in result.errors],
        }

    @tools.write("advance parent")
    def advance_parent(number: Number) -> dict[str, Any]:
        """Move the issue's parent to the lowest state among its children once that is
        a gate state."""
        result = tracker.advance_parent(number, actor=tools.actor)
        data: dict[str, Any] = {"advanced": result.advanced, "reason": result.reason}
        if result.change is not None:
            data["parent"] = _change(result.change)
        data["childStates"] = [{"number": n, "state": s} for n, s in result.child_states]
        return data
