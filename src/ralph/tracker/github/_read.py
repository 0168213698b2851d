"""GitHub's answers as tracker values (pure): an issue node with its project item's field
values, the board's fields and option ids (pull requests: ``_pull_read``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ralph._text import one_line
from ralph.dashboard import DashboardItem, ProjectStatus
from ralph.github import strip_markers
from ralph.tracker._board_fields import ESTIMATE, PRIORITY, STATUS, WORKFLOW_STATE
from ralph.tracker._model import CloseReason, Comment, Issue, IssueStatus, StatusUpdate
from ralph.tracker._project_board import BoardItem, FieldOption, ItemType, ProjectField, ProjectInfo
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = [
    "Board",
    "board_from",
    "board_item_from",
    "board_values",
    "closed",
    "comment_from",
    "dashboard_item_from",
    "edited",
    "epoch",
    "issue_from",
    "item_values",
    "option_name",
    "parse_option",
    "project_info_from",
    "status_update_from",
]


def epoch(text: str | None) -> float | None:
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@dataclass(frozen=True)
class Board:
    """A project's id and its single-select fields: name -> (field id, option name -> id)."""

    project_id: str
    number: int
    title: str = ""
    url: str = ""
    fields: Mapping[str, tuple[str, Mapping[str, str]]] = field(default_factory=dict)
    #: Every field's name, single-select or not.
    field_names: frozenset[str] = frozenset()
    closed: bool = False
    #: Whether the board's token may change the board (write access, not only scopes).
    viewer_can_update: bool = True


def board_from(project: Mapping[str, Any]) -> Board:
    fields: dict[str, tuple[str, dict[str, str]]] = {}
    names = set()
    for node in project["fields"]["nodes"]:
        if not node or "name" not in node:
            continue
        names.add(node["name"])
        if "options" in node:
            fields[node["name"]] = (node["id"], {o["name"]: o["id"] for o in node["options"]})
    return Board(
        project["id"],
        project["number"],
        project.get("title", ""),
        project.get("url", ""),
        fields,
        frozenset(names),
        bool(project.get("closed", False)),
        bool(project.get("viewerCanUpdate", True)),
    )


def comment_from(node: Mapping[str, Any]) -> Comment:
    author = (node.get("author") or {}).get("login") or "ghost"
    return Comment(
        int(node["databaseId"]), author, strip_markers(node["body"]), epoch(node["createdAt"]) or 0
    )


def _local(node: Mapping[str, Any] | None, repository: str) -> bool:
    """Whether a related issue is in ``repository`` (a node without one is: older
    answers and the local reads name no repository)."""
    if not node:
        return False
    found = (node.get("repository") or {}).get("nameWithOwner")
    return found is None or str(found).casefold() == repository.casefold()


def _numbers(connection: Mapping[str, Any] | None, repository: str) -> tuple[int, ...]:
    nodes = (connection or {}).get("nodes", [])
    return tuple(n["number"] for n in nodes if _local(n, repository))


def _foreign_open(connection: Mapping[str, Any] | None, repository: str) -> tuple[str, ...]:
    nodes = (connection or {}).get("nodes", [])
    return tuple(
        f"{n['repository']['nameWithOwner']}#{n['number']}"
        for n in nodes
        if n and not _local(n, repository) and n.get("state") != "CLOSED"
    )


#: The alias each field is read under (``IssueFields``).
_ALIASES = {
    WORKFLOW_STATE: "workflowState",
    ESTIMATE: "estimate",
    PRIORITY: "priority",
    STATUS: "status",
}


def _board_item(node: Mapping[str, Any], project_id: str) -> Mapping[str, Any] | None:
    for item in (node.get("projectItems") or {}).get("nodes", []):
        if item and item["project"]["id"] == project_id:
            return dict(item)
    return None


def item_values(item: Mapping[str, Any]) -> dict[str, str]:
    """A project item's values of Ralph's fields and Status: field -> option."""
    return {
        field: value["name"]
        for field, alias in _ALIASES.items()
        if (value := item.get(alias)) and value.get("name")
    }


def board_values(node: Mapping[str, Any], project_id: str) -> dict[str, str]:
    """The issue's values of Ralph's fields and Status on the board: field -> option."""
    item = _board_item(node, project_id)
    return {} if item is None else item_values(item)


def parse_option(kind: type[Any], value: str | None) -> Any:
    try:
        return kind(value) if value else None
    except ValueError:  # an option a person added to the board: not ours to read
        return None


_CLOSE_REASONS = {
    "COMPLETED": CloseReason.COMPLETED,
    "NOT_PLANNED": CloseReason.NOT_PLANNED,
    "DUPLICATE": CloseReason.DUPLICATE,
}


def issue_from(
    node: Mapping[str, Any], project_id: str, repository: str, comments: tuple[Comment, ...] = ()
) -> Issue:
    """The issue of ``repository`` (owner/name) that ``node`` is; relations to issues of
    other repositories are left out of the number lists (a foreign #5 is not our #5),
    and open foreign blockers kept by name, as they gate."""
    values = board_values(node, project_id)
    closed = node["state"] == "CLOSED"
    parent = node.get("parent")
    return Issue(
        number=node["number"],
        # Anyone who can open an issue wrote its title: one line, whatever they sent.
        title=one_line(node["title"]),
        body=strip_markers(node["body"]),
        workflow_state=parse_option(WorkflowState, values.get(WORKFLOW_STATE)),
        estimate=parse_option(Estimate, values.get(ESTIMATE)),
        priority=parse_option(Priority, values.get(PRIORITY)),
        labels=tuple(one_line(n["name"]) for n in node["labels"]["nodes"]),
        assignees=tuple(n["login"] for n in node["assignees"]["nodes"]),
        status=IssueStatus.CLOSED if closed else IssueStatus.OPEN,
        close_reason=_CLOSE_REASONS.get(node.get("stateReason") or "") if closed else None,
        reopened=not closed and node.get("stateReason") == "REOPENED",
        parent=parent["number"] if parent and _local(parent, repository) else None,
        sub_issues=_numbers(node.get("subIssues"), repository),
        blocked_by=_numbers(node.get("blockedBy"), repository),
        blocking=_numbers(node.get("blocking"), repository),
        foreign_blockers=_foreign_open(node.get("blockedBy"), repository),
        comments=comments,
        pull_requests=_numbers(node.get("closedByPullRequestsReferences"), repository),
        created_at=epoch(node["createdAt"]) or 0.0,
        updated_at=epoch(node["updatedAt"]) or 0.0,
        closed_at=epoch(node.get("closedAt")) if closed else None,
        url=node.get("url", ""),
        archived=bool((_board_item(node, project_id) or {}).get("isArchived")),
    )


def edited(issue: Issue, node: Mapping[str, Any]) -> Issue:
    """``issue`` as ``updateIssue`` answered (``node``: its title, body and labels)."""
    return replace(
        issue,
        title=one_line(node["title"]),
        body=strip_markers(node["body"]),
        labels=tuple(one_line(n["name"]) for n in node["labels"]["nodes"]),
        updated_at=epoch(node["updatedAt"]) or issue.updated_at,
    )


def closed(issue: Issue, node: Mapping[str, Any]) -> Issue:
    """``issue`` as ``closeIssue`` answered (``node``: its state and when)."""
    shut = node["state"] == "CLOSED"
    return replace(
        issue,
        status=IssueStatus.CLOSED if shut else IssueStatus.OPEN,
        close_reason=_CLOSE_REASONS.get(node.get("stateReason") or "") if shut else None,
        reopened=False,
        closed_at=epoch(node.get("closedAt")) if shut else None,
        updated_at=epoch(node["updatedAt"]) or issue.updated_at,
    )


def dashboard_item_from(
    item: Mapping[str, Any], project_number: int, project_title: str
) -> DashboardItem | None:
    """A board item as the dashboard reads it; None for what is not an issue (a pull
    request, a draft) and for an archived item."""
    content = item.get("content") or {}
    if content.get("__typename") != "Issue" or item.get("isArchived"):
        return None
    values = item_values(item)
    state = parse_option(WorkflowState, values.get(WORKFLOW_STATE))
    estimate = parse_option(Estimate, values.get(ESTIMATE))
    priority = parse_option(Priority, values.get(PRIORITY))
    return DashboardItem(
        number=content["number"],
        title=one_line(content["title"]),
        updated_at=epoch(content.get("updatedAt")) or 0.0,
        closed_at=epoch(content.get("closedAt")),
        workflow_state=state.value if state else None,
        priority=priority.value if priority else None,
        estimate=estimate.value if estimate else None,
        assignees=tuple(n["login"] for n in (content.get("assignees") or {}).get("nodes", [])),
        project_number=project_number,
        project_title=project_title,
    )


def status_update_from(node: Mapping[str, Any]) -> StatusUpdate:
    created = epoch(node.get("createdAt")) or 0.0
    return StatusUpdate(
        id=node["id"],
        status=parse_option(ProjectStatus, node.get("status")),
        body=strip_markers(node.get("body") or ""),
        start_date=node.get("startDate"),
        target_date=node.get("targetDate"),
        author=(node.get("creator") or {}).get("login") or "ghost",
        created_at=created,
        updated_at=epoch(node.get("updatedAt")) or created,
    )


def project_info_from(node: Mapping[str, Any]) -> ProjectInfo:
    """A project as ``ProjectBoard.info`` tells it."""
    fields = []
    for one in node["fields"]["nodes"]:
        if not one or "name" not in one:
            continue
        options = tuple(
            FieldOption(o["id"], o["name"], o.get("color") or "GRAY", o.get("description") or "")
            for o in one.get("options") or ()
        )
        fields.append(
            ProjectField(id=one["id"], name=one["name"], data_type=one["dataType"], options=options)
        )
    return ProjectInfo(
        id=node["id"],
        number=node["number"],
        title=one_line(node["title"]),
        url=node.get("url") or "",
        owner=(node.get("owner") or {}).get("login", ""),
        short_description=node.get("shortDescription") or "",
        readme=node.get("readme") or "",
        public=bool(node.get("public")),
        closed=bool(node.get("closed")),
        fields=tuple(fields),
        item_count=node["items"]["totalCount"],
        view_count=node["views"]["totalCount"],
    )


def option_name(value: Mapping[str, Any] | None) -> str | None:
    """A single-select value's option name; None when unset."""
    return (value or {}).get("name") or None


def board_item_from(node: Mapping[str, Any]) -> BoardItem | None:
    """A board item (issue, pull request or draft); None for one the token may not see."""
    content = node.get("content")
    if not content:  # an item the token may not see (REDACTED)
        return None
    kind = content["__typename"]
    common: dict[str, Any] = {
        "id": node["id"],
        "title": one_line(content["title"]),
        "body": strip_markers(content.get("body") or ""),
        "workflow_state": option_name(node.get("workflowState")),
        "estimate": option_name(node.get("estimate")),
        "priority": option_name(node.get("priority")),
        "assignees": tuple(a["login"] for a in content["assignees"]["nodes"]),
        "updated_at": epoch(content.get("updatedAt") or node.get("updatedAt")),
        "archived": bool(node.get("isArchived")),
    }
    if kind == "DraftIssue":
        return BoardItem(type=ItemType.DRAFT_ISSUE, draft_issue_id=content["id"], **common)
    return BoardItem(
        type=ItemType.ISSUE if kind == "Issue" else ItemType.PULL_REQUEST,
        number=content["number"],
        state=content.get("state") or content.get("pullState"),
        url=content.get("url") or "",
        repository=content["repository"]["nameWithOwner"],
        labels=tuple(one_line(label["name"]) for label in content["labels"]["nodes"]),
        **common,
    )
