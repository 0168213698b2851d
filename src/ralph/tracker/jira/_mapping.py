"""Ralph's values as a Jira project holds them, and back (pure).

- **Workflow states** are statuses of the project, by default of the same names; a
  ``statuses`` table (``[jira.statuses]`` in ralph.toml) names others. An issue is
  closed when its status is in Jira's Done category; its resolution says why
  (``Duplicate``, ``Won't Do``...; Ralph's Canceled status is not planned).
- **Estimates** are on a field the person names: a number (story points, stored as
  the Fibonacci points XS=1, S=2, M=3, L=5, XL=8) or a select list of the sizes' names.
- **Priorities**: Highest P0, High P1, Low P2, Lowest P3. Jira gives every new issue
  Medium, its default, so Medium reads as no priority.
- **Text** (descriptions, comments) is ADF holding Ralph's text exactly (``ralph.jira``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from ralph._text import one_line
from ralph.jira import to_text
from ralph.tracker._model import CloseReason, Comment, Issue, IssueStatus
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = [
    "ESTIMATE_POINTS",
    "PRIORITY_NAMES",
    "EstimateField",
    "StatusMap",
    "comment_from",
    "epoch",
    "estimate_from",
    "estimate_value",
    "issue_from",
    "number_of",
    "priority_from",
]

ESTIMATE_POINTS: dict[Estimate, int] = {
    Estimate.XS: 1,
    Estimate.S: 2,
    Estimate.M: 3,
    Estimate.L: 5,
    Estimate.XL: 8,
}
_ESTIMATES = {points: estimate for estimate, points in ESTIMATE_POINTS.items()}
PRIORITY_NAMES: dict[Priority, str] = {
    Priority.P0: "Highest",
    Priority.P1: "High",
    Priority.P2: "Low",
    Priority.P3: "Lowest",
}
_PRIORITIES = {name.casefold(): priority for priority, name in PRIORITY_NAMES.items()}


@dataclass(frozen=True)
class StatusMap:
    """Ralph's states to the project's status names (default: the same names)."""

    names: Mapping[WorkflowState, str]

    @classmethod
    def of(cls, table: Mapping[str, str] | None = None) -> StatusMap:
        """From ``{Ralph's state: status name}`` (missing states keep their own name)."""
        names = {state: state.value for state in WorkflowState}
        for state, status in (table or {}).items():
            names[WorkflowState(state)] = status
        return cls(names)

    def status(self, state: WorkflowState) -> str:
        return self.names[state]

    def state(self, status: str | None) -> WorkflowState | None:
        if not status:
            return None
        wanted = status.casefold()
        for state, name in self.names.items():
            if name.casefold() == wanted:
                return state
        return None


@dataclass(frozen=True)
class EstimateField:
    """The field estimates are on: its id and whether it is a number or a select."""

    id: str
    name: str
    number: bool


def estimate_value(field: EstimateField, estimate: Estimate | None) -> Any:
    """What Jira stores in ``field`` for ``estimate`` (None clears it)."""
    if estimate is None:
        return None
    return ESTIMATE_POINTS[estimate] if field.number else {"value": estimate.value}


def estimate_from(field: EstimateField | None, value: Any) -> Estimate | None:
    if field is None or value is None:
        return None
    if isinstance(value, Mapping):
        try:
            return Estimate(str(value.get("value", "")).upper())
        except ValueError:
            return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _ESTIMATES.get(int(value)) if float(value).is_integer() else None
    return None


def priority_from(node: Mapping[str, Any] | None) -> Priority | None:
    return None if not node else _PRIORITIES.get(str(node.get("name", "")).casefold())


def number_of(key: str) -> int:
    """The issue number of a key (PROJ-12: 12)."""
    return int(key.rpartition("-")[2])


def epoch(text: str | None) -> float | None:
    """Jira's ``2026-12-06T22:35:53.123+0000`` in epoch seconds."""
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _ours(node: Mapping[str, Any] | None, project: str) -> int | None:
    if not node or not node.get("key"):
        return None
    key = str(node["key"])
    return number_of(key) if key.rpartition("-")[0].upper() == project.upper() else None


def _close_reason(
    status: Mapping[str, Any], resolution: Mapping[str, Any] | None, statuses: StatusMap
) -> CloseReason | None:
    if (status.get("statusCategory") or {}).get("key") != "done":
        return None
    name = str((resolution or {}).get("name", "")).casefold()
    if name == "duplicate":
        return CloseReason.DUPLICATE
    if name in ("won't do", "won't fix", "cannot reproduce", "declined"):
        return CloseReason.NOT_PLANNED
    if statuses.state(status.get("name")) is WorkflowState.CANCELED:
        return CloseReason.NOT_PLANNED
    return CloseReason.COMPLETED


def issue_from(
    node: Mapping[str, Any],
    project: str,
    statuses: StatusMap,
    estimate: EstimateField | None,
    *,
    children: Sequence[int] = (),
    comments: tuple[Comment, ...] = (),
) -> Issue:
    """The issue ``node`` (an issue as Jira's REST API returns it) is. Its "Blocks"
    links: an ``outwardIssue`` is an issue it blocks, an ``inwardIssue`` one blocking
    it; links to another project's issues are left out of the number lists."""
    fields = node.get("fields") or {}
    status = fields.get("status") or {}
    reason = _close_reason(status, fields.get("resolution"), statuses)
    updated = epoch(fields.get("updated")) or 0.0
    links = [link for link in fields.get("issuelinks") or [] if _blocks(link)]
    blocking = (_ours(link.get("outwardIssue"), project) for link in links)
    blocked_by = (_ours(link.get("inwardIssue"), project) for link in links)
    assignee = fields.get("assignee") or {}
    return Issue(
        number=number_of(str(node["key"])),
        title=one_line(str(fields.get("summary") or "")),
        body=to_text(fields.get("description")),
        workflow_state=statuses.state(status.get("name")),
        estimate=estimate_from(estimate, fields.get(estimate.id) if estimate else None),
        priority=priority_from(fields.get("priority")),
        labels=tuple(one_line(label) for label in fields.get("labels") or []),
        assignees=(str(assignee["displayName"]),) if assignee.get("displayName") else (),
        status=IssueStatus.OPEN if reason is None else IssueStatus.CLOSED,
        close_reason=reason,
        parent=_ours(fields.get("parent"), project),
        sub_issues=tuple(sorted(children)),
        blocked_by=tuple(n for n in blocked_by if n is not None),
        blocking=tuple(n for n in blocking if n is not None),
        comments=comments,
        created_at=epoch(fields.get("created")) or 0.0,
        updated_at=updated,
        closed_at=None if reason is None else (epoch(fields.get("resolutiondate")) or updated),
        url=browse_url(str(node.get("self") or ""), str(node["key"])),
    )


def browse_url(api_link: str, key: str) -> str:
    """The page a person opens for issue ``key``: ``self`` is the REST API's link
    (``https://acme.atlassian.net/rest/api/3/issue/10001``), on the same site."""
    parts = urlsplit(api_link)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}/browse/{key}"


def _blocks(link: Mapping[str, Any]) -> bool:
    kind = link.get("type") or {}
    return str(kind.get("name", "")).casefold() == "blocks" or kind.get("outward") == "blocks"


def comment_from(node: Mapping[str, Any]) -> Comment:
    author = (node.get("author") or {}).get("displayName") or "ghost"
    return Comment(
        int(node["id"]),
        str(author),
        to_text(node.get("body")),
        epoch(node.get("created")) or 0.0,
    )
