"""The list tools' filter arguments (list_issues, list_project_items) made into the
dashboard's ``ItemFilter``, every value checked first, and an issue's fields as that
filter reads them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from ralph.dashboard import FIELD_NAMES, FilterFields, ItemFilter, parse_date_math
from ralph.errors import InvalidInput
from ralph.mcp._issue_shapes import parse_enum
from ralph.tracker import Issue
from ralph.workflow import Estimate, Priority, parse_state

__all__ = ["DATE_HELP", "FIELDS_HELP", "filter_fields", "item_filter"]

FIELDS_HELP = f"Field names: {', '.join(FIELD_NAMES)}"
DATE_HELP = "@today, @now, @today-7d, @now-24h, @today-1m, or an ISO date (YYYY-MM-DD)"


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


def _checked(kind: str, values: Sequence[str] | None) -> list[str]:
    """Filter values, each a valid one of its kind (a typo would match nothing)."""
    found = []
    for value in values or ():
        if kind == "workflowState":
            found.append(parse_state(value).value)
        elif kind == "estimate":
            found.append(parse_enum(Estimate, value).value)
        elif kind == "priority":
            found.append(parse_enum(Priority, value).value)
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
