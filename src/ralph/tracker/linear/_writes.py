"""A Linear team's issues read and written, each write safe against a lost answer.

The client never resends a mutation whose answer was lost (``LinearAmbiguous``): it may
have happened. Here each write decides what that means:

- **creates** (an issue, a comment, a label, a relation) carry a client-made ``id``
  (Linear takes a UUID there) or have a natural key; a lost answer is looked for by it
  and the create is sent again only when it did not happen;
- **updates** (state, estimate, priority, labels, assignee, title, description, parent,
  archiving) set absolute values, so sending one again is harmless: it is, once;
- **a blocking relation** is looked for before it is made and before it is removed, so
  neither a rerun nor a lost answer leaves two.

Issues are named by Linear's ids (or identifiers, ENG-12, where Linear takes them);
``issue_by_number`` turns Ralph's numbers into issues.
"""

from __future__ import annotations

import contextlib
import enum
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from ralph.errors import IssueNotFound
from ralph.linear import LinearAmbiguous, LinearClient, LinearInvalid, LinearNotFound
from ralph.linear import queries as q
from ralph.linear.queries import LinearDocument
from ralph.tracker.linear._mapping import estimate_points, priority_number
from ralph.tracker.linear._team import LinearTeam
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = [
    "KEEP",
    "Keep",
    "add_blocking",
    "archive_issue",
    "completed",
    "create_comment",
    "create_issue",
    "issue_by_id",
    "issue_by_number",
    "issue_comments",
    "issue_with_comments",
    "issues_with_comments",
    "label_ids",
    "move_commented",
    "move_issue",
    "remove_blocking",
    "set_parent",
    "unarchive_issue",
    "update_issue",
]

#: Labels Ralph makes get Linear's grey.
_LABEL_COLOUR = "#bec2c8"


class Keep(enum.Enum):
    """A field ``update_issue`` leaves as it is (None clears one)."""

    KEEP = "keep"


KEEP: Literal[Keep.KEEP] = Keep.KEEP
Node = dict[str, Any]

# -- reads -------------------------------------------------------------------------------


def issue_by_number(client: LinearClient, team: LinearTeam, number: int) -> Node:
    """The team's issue ``number`` (ENG-``number``), archived or not; IssueNotFound."""
    data = client.query(q.ISSUE_BY_NUMBER, {"teamId": team.id, "number": number})
    nodes = data["issues"]["nodes"]
    if not nodes:
        raise IssueNotFound(number, f"Linear team {team.key}")
    node: Node = nodes[0]
    return node


def issue_with_comments(
    client: LinearClient, team: LinearTeam, number: int
) -> tuple[Node, list[Node]]:
    """The team's issue ``number`` and all its comments, oldest first: one request
    unless it has more than a page of them; IssueNotFound."""
    data = client.query(q.ISSUE_WITH_COMMENTS, {"teamId": team.id, "number": number})
    nodes = data["issues"]["nodes"]
    if not nodes:
        raise IssueNotFound(number, f"Linear team {team.key}")
    node: Node = nodes[0]
    comments = node.pop("comments")
    if comments["pageInfo"]["hasNextPage"]:
        return node, list(issue_comments(client, node["id"]))
    return node, list(comments["nodes"])


def issues_with_comments(
    client: LinearClient, team: LinearTeam, numbers: Sequence[int]
) -> list[tuple[Node, list[Node]]]:
    """The team's issues ``numbers`` (at most ``GROUP_LIMIT``), each with all its
    comments: one request unless one has more than a page of them; numbers with no
    issue are left out."""
    variables = {"teamId": team.id, "numbers": list(numbers), "first": len(numbers)}
    found = []
    for node in client.query(q.ISSUES_WITH_COMMENTS, variables)["issues"]["nodes"]:
        comments = node.pop("comments")
        if comments["pageInfo"]["hasNextPage"]:
            found.append((node, list(issue_comments(client, node["id"]))))
        else:
            found.append((node, list(comments["nodes"])))
    return found


_CUT = {
    "children": q.ISSUE_CHILDREN,
    "labels": q.ISSUE_LABELS,
    "relations": q.ISSUE_RELATIONS,
    "inverseRelations": q.ISSUE_INVERSE_RELATIONS,
}


def completed(client: LinearClient, node: Node) -> Node:
    """``node`` (``IssueFields``) with every connection the fragment cut short (more
    than a page of children, labels or relations) read whole; no request when none was cut."""
    for connection, document in _CUT.items():
        found = node.get(connection) or {}
        if (found.get("pageInfo") or {}).get("hasNextPage"):
            rest = client.pages(document, {"id": node["id"]}, ("issue", connection))
            node = {**node, connection: {"pageInfo": {"hasNextPage": False}, "nodes": list(rest)}}
    return node


def issue_by_id(client: LinearClient, issue_id: str) -> Node | None:
    """The issue of that id or identifier; None when Linear knows none."""
    try:
        node: Node = client.query(q.ISSUE, {"id": issue_id})["issue"]
    except LinearNotFound:
        return None
    return node


def issue_comments(client: LinearClient, issue_id: str) -> Iterator[Node]:
    """The issue's comments, page after page, oldest first as Linear lists them."""
    yield from client.pages(q.ISSUE_COMMENTS, {"id": issue_id}, ("issue", "comments"))


# -- creating, each once -----------------------------------------------------------------


def _create(
    client: LinearClient,
    document: LinearDocument,
    made: Mapping[str, Any],
    path: tuple[str, str],
    find: Callable[[], Node | None],
) -> Node:
    """``made`` created once: after a lost answer, ``find`` says whether it happened; if
    not it is sent again (a refusal then may be the first one landing late: look again)."""
    try:
        return _at(client.mutate(document, {"input": dict(made)}), path)
    except LinearAmbiguous:
        if (found := find()) is not None:
            return found
    try:
        return _at(client.mutate(document, {"input": dict(made)}), path)
    except LinearInvalid:
        if (found := find()) is None:
            raise
        return found


def _at(data: Mapping[str, Any], path: tuple[str, str]) -> Node:
    node: Node = data[path[0]][path[1]]
    return node


def create_issue(
    client: LinearClient,
    team: LinearTeam,
    title: str,
    *,
    body: str = "",
    parent_id: str | None = None,
    state: WorkflowState | None = None,
    estimate: Estimate | None = None,
    priority: Priority | None = None,
    label_ids: Sequence[str] = (),
    assignee_id: str | None = None,
    state_id: str | None = None,
) -> Node:
    """A new issue of the team, in one write (``IssueFields``); a lost answer is looked
    for by the issue's client-made id. ``state_id``: a state Ralph's do not name (when
    ``state`` is None)."""
    made: dict[str, Any] = {"id": str(uuid.uuid4()), "teamId": team.id, "title": title}
    if body:
        made["description"] = body
    if parent_id is not None:
        made["parentId"] = parent_id
    if state is not None:
        made["stateId"] = team.state_id(state)
    elif state_id is not None:
        made["stateId"] = state_id
    if estimate is not None:
        made["estimate"] = estimate_points(estimate)
    if priority is not None:
        made["priority"] = priority_number(priority)
    if label_ids:
        made["labelIds"] = list(label_ids)
    if assignee_id is not None:
        made["assigneeId"] = assignee_id
    return _create(
        client,
        q.CREATE_ISSUE,
        made,
        ("issueCreate", "issue"),
        lambda: issue_by_id(client, made["id"]),
    )


def create_comment(client: LinearClient, issue_id: str, body: str) -> Node:
    """A comment on the issue (id, body, createdAt), made once: a lost answer is looked
    for by the comment's client-made id."""
    made = {"id": str(uuid.uuid4()), "issueId": issue_id, "body": body}
    return _create(
        client,
        q.CREATE_COMMENT,
        made,
        ("commentCreate", "comment"),
        lambda: _comment(client, made["id"]),
    )


def move_commented(
    client: LinearClient,
    team: LinearTeam,
    issue_id: str,
    state: WorkflowState,
    audit: str,
    note: str | None = None,
) -> tuple[Node, list[Node]]:
    """The issue moved to ``state`` with its ``audit`` comment after the move (and a
    phase's ``note`` before it), in one request (``MoveIssue``); the issue after the
    move and the comments made. After a lost answer the comments are looked for by
    their client-made ids: a found audit means all of it ran (Linear runs the
    mutations in order); else what did not land is sent again (the move sets an
    absolute state, so sending it again is harmless)."""
    made = {
        name: {"id": str(uuid.uuid4()), "issueId": issue_id, "body": body}
        for name, body in (("note", note), ("audit", audit))
        if body is not None
    }
    document = q.MOVE_ISSUE_NOTED if "note" in made else q.MOVE_ISSUE
    variables = {"id": issue_id, "input": {"stateId": team.state_id(state)}, **made}
    try:
        data = client.mutate(document, variables)
    except LinearAmbiguous:
        found = {name: _comment(client, c["id"]) for name, c in made.items()}
        if found["audit"] is not None:
            node = issue_by_id(client, issue_id)
            if node is None:
                raise LinearNotFound(f"Linear has no issue {issue_id}") from None
            return node, [c for c in found.values() if c is not None]
        landed_note = found.get("note")
        if landed_note is not None:
            node, comments = move_commented(client, team, issue_id, state, audit)
            return node, [landed_note, *comments]
        data = client.mutate(document, variables)
    comments = [data[name]["comment"] for name in made]
    return data["issueUpdate"]["issue"], comments


def _comment(client: LinearClient, comment_id: str) -> Node | None:
    try:
        node: Node = client.query(q.COMMENT, {"id": comment_id})["comment"]
    except LinearNotFound:
        return None
    return node


def label_ids(client: LinearClient, team: LinearTeam, names: Sequence[str]) -> list[str]:
    """The ids of the team's labels of these names (case ignored, as Linear compares
    them), making the missing ones."""
    known = _team_labels(client, team)
    ids = []
    for name in dict.fromkeys(names):
        if name.casefold() not in known:
            made = {
                "id": str(uuid.uuid4()),
                "teamId": team.id,
                "name": name,
                "color": _LABEL_COLOUR,
            }

            def find(name: str = name) -> Node | None:
                found = _team_labels(client, team).get(name.casefold())
                return None if found is None else {"id": found, "name": name}

            label = _create(client, q.CREATE_LABEL, made, ("issueLabelCreate", "issueLabel"), find)
            known[name.casefold()] = label["id"]
        ids.append(known[name.casefold()])
    return list(dict.fromkeys(ids))


def _team_labels(client: LinearClient, team: LinearTeam) -> dict[str, str]:
    pages = client.pages(q.TEAM_LABELS, {"teamId": team.id}, ("team", "labels"))
    return {node["name"].casefold(): node["id"] for node in pages}


# -- updating: absolute values, sent again once after a lost answer -----------------------


def _again_once(
    client: LinearClient, document: LinearDocument, variables: Mapping[str, Any]
) -> Node:
    try:
        return client.mutate(document, variables)
    except LinearAmbiguous:
        return client.mutate(document, variables)


def update_issue(
    client: LinearClient,
    team: LinearTeam,
    issue_id: str,
    *,
    title: str | Keep = KEEP,
    body: str | Keep = KEEP,
    state: WorkflowState | Keep = KEEP,
    estimate: Estimate | Keep | None = KEEP,
    priority: Priority | Keep | None = KEEP,
    label_ids: Sequence[str] | Keep = KEEP,
    assignee_id: str | Keep | None = KEEP,
) -> Node:
    """The issue with the given fields set (KEEP leaves one; None clears an estimate,
    a priority or the assignee); its fields after the write (``IssueFields``)."""
    changes: dict[str, Any] = {}
    if not isinstance(title, Keep):
        changes["title"] = title
    if not isinstance(body, Keep):
        changes["description"] = body
    if not isinstance(state, Keep):
        changes["stateId"] = team.state_id(state)
    if not isinstance(estimate, Keep):
        changes["estimate"] = estimate_points(estimate)
    if not isinstance(priority, Keep):
        changes["priority"] = priority_number(priority)
    if not isinstance(label_ids, Keep):
        changes["labelIds"] = list(label_ids)
    if not isinstance(assignee_id, Keep):
        changes["assigneeId"] = assignee_id
    return _updated(client, issue_id, changes)


def _updated(client: LinearClient, issue_id: str, changes: Mapping[str, Any]) -> Node:
    data = _again_once(client, q.UPDATE_ISSUE, {"id": issue_id, "input": dict(changes)})
    node: Node = data["issueUpdate"]["issue"]
    return node


def move_issue(client: LinearClient, issue_id: str, state_id: str) -> Node:
    """The issue moved to the state of that id (one Ralph's states do not name, such as
    a team's Duplicate)."""
    return _updated(client, issue_id, {"stateId": state_id})


def set_parent(client: LinearClient, issue_id: str, parent_id: str | None) -> Node:
    """The issue under ``parent_id`` (its only parent), or under none."""
    return _updated(client, issue_id, {"parentId": parent_id})


def archive_issue(client: LinearClient, issue_id: str) -> None:
    _again_once(client, q.ARCHIVE_ISSUE, {"id": issue_id})


def unarchive_issue(client: LinearClient, issue_id: str) -> None:
    _again_once(client, q.UNARCHIVE_ISSUE, {"id": issue_id})


# -- blocking relations ----------------------------------------------------------------------


def _blocking_relations(client: LinearClient, blocker_id: str, blocked_id: str) -> list[str]:
    """The ids of the "``blocker`` blocks ``blocked``" relations (by id or identifier),
    from the blocker's relations read whole (a relation is on both issues: one side
    is enough)."""
    node = issue_by_id(client, blocker_id)
    if node is None:
        raise LinearNotFound(f"Linear has no issue {blocker_id}")
    found = []
    for relation in completed(client, node)["relations"]["nodes"]:
        related = relation["relatedIssue"]
        if relation["type"] == "blocks" and blocked_id in (related["id"], related["identifier"]):
            found.append(relation["id"])
    return list(dict.fromkeys(found))


def add_blocking(client: LinearClient, blocker_id: str, blocked_id: str) -> str:
    """The id of the relation "``blocker`` blocks ``blocked``", made unless it exists
    (cycles are the Tracker's to refuse, before this is called)."""
    existing = _blocking_relations(client, blocker_id, blocked_id)
    if existing:
        return existing[0]
    made = {
        "id": str(uuid.uuid4()),
        "issueId": blocker_id,
        "relatedIssueId": blocked_id,
        "type": "blocks",
    }

    def find() -> Node | None:
        found = _blocking_relations(client, blocker_id, blocked_id)
        return {"id": found[0]} if found else None

    relation = _create(
        client, q.CREATE_RELATION, made, ("issueRelationCreate", "issueRelation"), find
    )
    return str(relation["id"])


def remove_blocking(client: LinearClient, blocker_id: str, blocked_id: str) -> bool:
    """Remove every "``blocker`` blocks ``blocked``" relation; whether there was one."""
    found = _blocking_relations(client, blocker_id, blocked_id)
    for relation_id in found:
        # LinearNotFound: the delete whose answer was lost had happened.
        with contextlib.suppress(LinearNotFound):
            _again_once(client, q.DELETE_RELATION, {"id": relation_id})
    return bool(found)
