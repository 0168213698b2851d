"""Ralph's values as a GitLab project holds them, and back (pure).

GitLab's issues have no field for most of what Ralph tracks, and on the Free tier no
weights, epics or scoped-label exclusivity, so Ralph keeps its fields in labels, which
every tier has, can be filtered on, and a person sees and can change on the board:

- **workflow states**: scoped labels ``ralph::<State>`` (``ralph::Research Needed``);
  Done is ``ralph::Done`` and the issue closed, as on GitHub;
- **estimates**: ``ralph-estimate::XS`` ... ``XL`` (weights are Premium);
- **priorities**: ``ralph-priority::P0`` ... ``P3``;
- **parents**: ``ralph-parent::<iid>`` on the child (epics are Premium, a related link
  has no direction, a task list in the parent's description would make the parent's text
  Ralph's and every child's lookup a search); one label tells the child's parent and one
  filtered list the parent's children;
- **close reasons**: ``ralph-closed::not planned`` or ``ralph-closed::duplicate`` beside
  the closed state (GitLab records none); no such label reads as completed;
- **archived**: ``ralph-archived`` (GitLab issues cannot be archived).

``Issue.labels`` are the issue's other labels, as a person gave them. Blocking is
GitLab's issue links (``blocks`` / ``is_blocked_by``, Premium).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ralph._text import one_line
from ralph.github import strip_markers
from ralph.tracker._model import CloseReason, Comment, Issue, IssueStatus
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = [
    "ARCHIVED",
    "CLOSED_PREFIX",
    "ESTIMATE_PREFIX",
    "PARENT_PREFIX",
    "PRIORITY_PREFIX",
    "STATE_PREFIX",
    "close_label",
    "comment_from",
    "epoch",
    "estimate_label",
    "is_ralph_label",
    "issue_from",
    "parent_label",
    "priority_label",
    "state_label",
    "state_of",
]

STATE_PREFIX = "ralph::"
ESTIMATE_PREFIX = "ralph-estimate::"
PRIORITY_PREFIX = "ralph-priority::"
PARENT_PREFIX = "ralph-parent::"
CLOSED_PREFIX = "ralph-closed::"
ARCHIVED = "ralph-archived"


def state_label(state: WorkflowState) -> str:
    return STATE_PREFIX + state.value


def estimate_label(estimate: Estimate) -> str:
    return ESTIMATE_PREFIX + estimate.value


def priority_label(priority: Priority) -> str:
    return PRIORITY_PREFIX + priority.value


def parent_label(parent: int) -> str:
    return f"{PARENT_PREFIX}{parent}"


def close_label(reason: CloseReason) -> str | None:
    """The label a close for ``reason`` leaves (None: completed, GitLab's only kind)."""
    return None if reason is CloseReason.COMPLETED else CLOSED_PREFIX + reason.value


def is_ralph_label(name: str) -> bool:
    return name.startswith((STATE_PREFIX, "ralph-"))


def _value(labels: Iterable[str], prefix: str) -> str | None:
    """The value of the last label with ``prefix`` (on Free, a person may leave two)."""
    found = None
    for name in labels:
        if name.startswith(prefix):
            found = name[len(prefix) :]
    return found


def state_of(labels: Iterable[str]) -> WorkflowState | None:
    value = _value(labels, STATE_PREFIX)
    try:
        return WorkflowState(value) if value else None
    except ValueError:
        return None


def _enum(kind: Any, value: str | None) -> Any:
    try:
        return kind(value) if value else None
    except ValueError:
        return None


def epoch(text: str | None) -> float | None:
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def issue_from(
    node: Mapping[str, Any],
    *,
    comments: tuple[Comment, ...] = (),
    sub_issues: tuple[int, ...] = (),
    blocked_by: tuple[int, ...] = (),
    blocking: tuple[int, ...] = (),
    pull_requests: tuple[int, ...] = (),
) -> Issue:
    """The issue GitLab's JSON ``node`` is, with the relations read beside it."""
    labels = [str(name) for name in node.get("labels") or ()]
    closed = node.get("state") == "closed"
    reason = None
    if closed:
        reason = _enum(CloseReason, _value(labels, CLOSED_PREFIX)) or CloseReason.COMPLETED
    parent = _value(labels, PARENT_PREFIX)
    return Issue(
        number=int(node["iid"]),
        title=one_line(str(node["title"])),
        body=strip_markers(str(node.get("description") or "")),
        workflow_state=state_of(labels),
        estimate=_enum(Estimate, _value(labels, ESTIMATE_PREFIX)),
        priority=_enum(Priority, _value(labels, PRIORITY_PREFIX)),
        labels=tuple(one_line(n) for n in labels if not is_ralph_label(n)),
        assignees=tuple(str(a.get("username", "")) for a in node.get("assignees") or ()),
        status=IssueStatus.CLOSED if closed else IssueStatus.OPEN,
        close_reason=reason,
        parent=int(parent) if parent and parent.isdigit() else None,
        sub_issues=sub_issues,
        blocked_by=blocked_by,
        blocking=blocking,
        comments=comments,
        pull_requests=pull_requests,
        created_at=epoch(node.get("created_at")) or 0.0,
        updated_at=epoch(node.get("updated_at")) or 0.0,
        closed_at=(epoch(node.get("closed_at")) or epoch(node.get("updated_at")))
        if closed
        else None,
        url=str(node.get("web_url") or ""),
        archived=ARCHIVED in labels,
    )


def comment_from(node: Mapping[str, Any]) -> Comment:
    """A note, as typed (Ralph's operation marker taken off), by its author's username."""
    author = (node.get("author") or {}).get("username") or "ghost"
    return Comment(
        int(node["id"]),
        str(author),
        strip_markers(str(node.get("body") or "")),
        epoch(node.get("created_at")) or 0.0,
    )
