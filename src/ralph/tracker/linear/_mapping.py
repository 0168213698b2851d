"""Ralph's values as a Linear team holds them, and back (pure).

- **Workflow states** are the team's workflow states of the same name. Linear gives each
  state a type that decides whether the issue is closed; a state Ralph creates gets the
  type of :data:`STATE_TYPES` (waiting: unstarted, working or with a person: started).
- **Estimates** are Linear's t-shirt scale (``issueEstimationType`` "tShirt"), whose
  sizes Linear stores as the Fibonacci points XS=1, S=2, M=3, L=5, XL=8 (linear.app/docs/
  estimates: "T-shirt estimates map to the Fibonacci scale"). The extended scale's
  XXL=13 and XXXL=21, and 0, are not Ralph's sizes and read as no estimate.
- **Priorities** are Linear's 1 Urgent, 2 High, 3 Medium, 4 Low (P0-P3); 0 "No priority"
  reads as none (Linear's schema: "0 = No priority, 1 = Urgent ... 4 = Low").
- **An issue** (``queries.IssueFields``) becomes a :class:`ralph.tracker.Issue`; its
  number is its identifier's (ENG-12: 12) and relations to another team's issues are left
  out of the number lists, as a foreign repository's are on GitHub.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ralph._text import one_line
from ralph.github import strip_markers
from ralph.tracker._model import CloseReason, Comment, Issue, IssueStatus
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = [
    "CLOSED_TYPES",
    "ESTIMATE_POINTS",
    "OPEN_TYPES",
    "PRIORITY_NUMBERS",
    "STATE_TYPES",
    "T_SHIRT",
    "closing_state",
    "comment_from",
    "epoch",
    "estimate_from",
    "estimate_points",
    "issue_from",
    "number_of",
    "priority_from",
    "priority_number",
    "state_from",
    "suitable_type",
]

_S = WorkflowState

#: The type a state Ralph creates gets. Linear's types: triage, backlog, unstarted,
#: started, completed, canceled (and duplicate in its schema's list).
STATE_TYPES: dict[WorkflowState, str] = {
    _S.BACKLOG: "backlog",
    _S.RESEARCH_NEEDED: "unstarted",
    _S.RESEARCH_IN_PROGRESS: "started",
    _S.READY_FOR_PLAN: "unstarted",
    _S.PLAN_IN_PROGRESS: "started",
    _S.PLAN_IN_REVIEW: "started",
    _S.IN_PROGRESS: "started",
    _S.IN_REVIEW: "started",
    _S.DONE: "completed",
    _S.HUMAN_NEEDED: "started",
    _S.CANCELED: "canceled",
}
#: Types of an open issue a person may give one of Ralph's open states (triage is
#: Linear's inbox, not a place in a workflow).
OPEN_TYPES = frozenset({"backlog", "unstarted", "started"})
CLOSED_TYPES = frozenset({"completed", "canceled", "duplicate"})

#: ``issueEstimationType`` of the one scale Ralph's estimates are on.
T_SHIRT = "tShirt"
ESTIMATE_POINTS: dict[Estimate, int] = {
    Estimate.XS: 1,
    Estimate.S: 2,
    Estimate.M: 3,
    Estimate.L: 5,
    Estimate.XL: 8,
}
_ESTIMATES = {points: estimate for estimate, points in ESTIMATE_POINTS.items()}

PRIORITY_NUMBERS: dict[Priority, int] = {
    Priority.P0: 1,
    Priority.P1: 2,
    Priority.P2: 3,
    Priority.P3: 4,
}
_PRIORITIES = {number: priority for priority, number in PRIORITY_NUMBERS.items()}


def suitable_type(state: WorkflowState, kind: str) -> bool:
    """Whether a team's state of ``state``'s name may stand for it: Done completed,
    Canceled canceled, every other state open (any open type but triage)."""
    expected = STATE_TYPES[state]
    if expected in CLOSED_TYPES:
        return kind == expected
    return kind in OPEN_TYPES


def state_from(name: str | None) -> WorkflowState | None:
    """Ralph's state of that name; None for a state of the team's own (Todo...)."""
    try:
        return WorkflowState(name) if name else None
    except ValueError:
        return None


def closing_state(reason: CloseReason) -> WorkflowState:
    """Where closing an issue for ``reason`` moves it: Linear closes by state."""
    return WorkflowState.DONE if reason is CloseReason.COMPLETED else WorkflowState.CANCELED


def estimate_points(estimate: Estimate | None) -> int | None:
    """The value Linear stores for ``estimate`` (None clears it)."""
    return None if estimate is None else ESTIMATE_POINTS[estimate]


def estimate_from(points: float | None) -> Estimate | None:
    return None if points is None else _ESTIMATES.get(int(points))


def priority_number(priority: Priority | None) -> int:
    """Linear's number for ``priority``; None is 0, "No priority"."""
    return 0 if priority is None else PRIORITY_NUMBERS[priority]


def priority_from(number: float | None) -> Priority | None:
    return None if number is None else _PRIORITIES.get(int(number))


def number_of(identifier: str) -> int:
    """The issue number of an identifier (ENG-12: 12)."""
    return int(identifier.rpartition("-")[2])


def epoch(text: str | None) -> float | None:
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _team_key(identifier: str) -> str:
    return identifier.rpartition("-")[0].upper()


def _ours(node: Mapping[str, Any] | None, team: str) -> int | None:
    """The number of a related issue when it is of ``team`` (a key), else None."""
    if not node:
        return None
    identifier = str(node["identifier"])
    return number_of(identifier) if _team_key(identifier) == team.upper() else None


def _related(nodes: list[Mapping[str, Any]], side: str, team: str) -> tuple[int, ...]:
    numbers = (_ours(n.get(side), team) for n in nodes if n.get("type") == "blocks")
    return tuple(n for n in numbers if n is not None)


def _close_reason(state: Mapping[str, Any]) -> CloseReason | None:
    kind = state.get("type")
    if kind == "completed":
        return CloseReason.COMPLETED
    if kind == "duplicate" or (kind == "canceled" and state.get("name") == "Duplicate"):
        return CloseReason.DUPLICATE
    return CloseReason.NOT_PLANNED if kind == "canceled" else None


def issue_from(node: Mapping[str, Any], team: str, comments: tuple[Comment, ...] = ()) -> Issue:
    """The issue ``node`` (``IssueFields``) is, on the team of key ``team``. Blocking
    relations are Linear's ``blocks``: ``relations`` are the issues this one blocks,
    ``inverseRelations`` the ones blocking it."""
    state = node.get("state") or {}
    reason = _close_reason(state)
    updated = epoch(node.get("updatedAt")) or 0.0
    closed_at = epoch(node.get("completedAt") or node.get("canceledAt")) or updated
    children = (node.get("children") or {}).get("nodes", [])
    return Issue(
        number=number_of(node["identifier"]),
        # Anyone in the workspace wrote the title: one line, whatever they sent.
        title=one_line(node["title"]),
        body=strip_markers(node.get("description") or ""),
        workflow_state=state_from(state.get("name")),
        estimate=estimate_from(node.get("estimate")),
        priority=priority_from(node.get("priority")),
        labels=tuple(one_line(n["name"]) for n in (node.get("labels") or {}).get("nodes", [])),
        assignees=(node["assignee"]["name"],) if node.get("assignee") else (),
        status=IssueStatus.OPEN if reason is None else IssueStatus.CLOSED,
        close_reason=reason,
        parent=_ours(node.get("parent"), team),
        sub_issues=tuple(n for n in (_ours(c, team) for c in children) if n is not None),
        blocked_by=_related((node.get("inverseRelations") or {}).get("nodes", []), "issue", team),
        blocking=_related((node.get("relations") or {}).get("nodes", []), "relatedIssue", team),
        comments=comments,
        created_at=epoch(node.get("createdAt")) or 0.0,
        updated_at=updated,
        closed_at=None if reason is None else closed_at,
        url=node.get("url") or "",
        archived=node.get("archivedAt") is not None,
    )


def comment_from(node: Mapping[str, Any]) -> Comment:
    """A comment (``IssueComments``); Ralph's comment ids are numbers, Linear's UUIDs:
    the UUID's top 53 bits stand for it (stable, and exact in JSON's numbers)."""
    author = (node.get("user") or {}).get("name") or "ghost"
    return Comment(
        uuid.UUID(node["id"]).int >> 75,
        author,
        strip_markers(node["body"]),
        epoch(node.get("createdAt")) or 0.0,
    )
