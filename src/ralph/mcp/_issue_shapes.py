"""What the issue tools (and the board and pipeline tools) share: the issue-number
argument, an issue's brief shape in results, and an Estimate or Priority argument
parsed with an error that lists the valid values."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.tracker import Issue
from ralph.workflow import Estimate, Priority

__all__ = ["Number", "brief", "parse_enum"]

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


def parse_enum(kind: type[Estimate] | type[Priority], value: str | None) -> Any:
    if value is None:
        return None
    try:
        return kind(value)
    except ValueError:
        valid = ", ".join(v.value for v in kind)
        raise ValueError(
            f"{value!r} is not a valid {kind.__name__.lower()}; use one of {valid}"
        ) from None
