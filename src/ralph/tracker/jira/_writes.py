"""The Jira tracker's requests, each safe against a lost answer: a write whose answer
never came is looked for before anything else is done (an issue by the ``ralph.create``
property it was created with, a comment by its text, a move by the status it reached)
and raised as ``JiraAmbiguous`` only when it is not there."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ralph.errors import NotAvailable
from ralph.jira import JiraAmbiguous, JiraClient, JiraInvalid, to_adf
from ralph.tracker._model import Comment
from ralph.tracker.jira._mapping import comment_from

__all__ = [
    "COMMENT_PAGE",
    "CREATE_PROPERTY",
    "Move",
    "Place",
    "Transitions",
    "all_comments",
    "create_issue",
    "jql_string",
    "post_comment",
    "transition",
]

Node = dict[str, Any]

#: The issue property a created issue carries, to find it when the answer was lost.
CREATE_PROPERTY = "ralph.create"
#: Comments are read a page of this many at a time (Jira's most).
COMMENT_PAGE = 100
#: How far back a lost write is looked for (Jira's JQL dates are to the minute).
_LOOK_BACK = 60.0
#: The same for a lost create, in JQL: relative, since JQL's absolute dates are in the
#: user's time zone, which Ralph does not know.
_CREATED_SINCE = "-5m"
#: Jira's search index lags behind its writes: a lost create not found yet is looked for
#: once more after this many seconds.
_INDEX_LAG = 5.0


def jql_string(text: str) -> str:
    """``text`` as a JQL string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def create_issue(client: JiraClient, project: str, fields: Node) -> Node:
    """Create the issue (``{id, key}``); after a lost answer, the issue carrying this
    create's marker if Jira made it (looked for twice: the search index lags), else
    ``JiraAmbiguous``."""
    marker = str(uuid.uuid4())
    body = {"fields": fields, "properties": [{"key": CREATE_PROPERTY, "value": {"id": marker}}]}
    try:
        made: Node = client.post("/issue", body)
        return made
    except JiraAmbiguous:
        jql = (
            f"project = {jql_string(project)} AND reporter = currentUser() "
            f"AND created >= {_CREATED_SINCE} ORDER BY created DESC"
        )
        for attempt in (1, 2):
            if attempt == 2:
                client.sleep(_INDEX_LAG)
            for node in client.search(jql, ["id"], properties=[CREATE_PROPERTY]):
                if ((node.get("properties") or {}).get(CREATE_PROPERTY) or {}).get("id") == marker:
                    return dict(node)
        raise


def all_comments(client: JiraClient, key: str, first: Node | None = None) -> tuple[Comment, ...]:
    """Every comment of issue ``key``, oldest first: ``first`` (the issue's ``comment``
    field, when it was read with it) and the pages it did not hold."""
    found: list[Comment] = []
    page = first
    while True:
        if page is None:
            page = client.get(
                f"/issue/{key}/comment",
                [("startAt", str(len(found))), ("maxResults", str(COMMENT_PAGE))],
            )
        comments = page.get("comments") or []
        found.extend(comment_from(c) for c in comments)
        if not comments or len(found) >= int(page.get("total", 0)):
            return tuple(found)
        page = None


def post_comment(client: JiraClient, key: str, body: str, now: float) -> Comment:
    """Post ``body``; after a lost answer, the comment of that text posted since."""
    try:
        return comment_from(client.post(f"/issue/{key}/comment", {"body": to_adf(body)}))
    except JiraAmbiguous:
        again = [
            c
            for c in all_comments(client, key)
            if c.body == body and c.created_at >= now - _LOOK_BACK
        ]
        if not again:
            raise
        return again[-1]


@dataclass(frozen=True)
class Place:
    """Where an issue stands in its workflow: its type's id and its status's name (a
    project's issue types may each have their own workflow)."""

    issue_type: str
    status: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.issue_type, self.status.casefold())


@dataclass(frozen=True)
class Move:
    """One transition: its id and the fields on its screen (Jira refuses any other, and
    every field when it has no screen, as its default Done transition has not)."""

    id: str
    fields: frozenset[str]


#: The workflows' transitions as read, by the place they leave: ``{(issue type, status
#: casefolded): {target status (casefolded): Move}}``, each stored only under a place
#: just read. A workflow changes rarely; a transition Jira refuses drops what was kept.
Transitions = dict[tuple[str, str], dict[str, Move]]


def _moves(client: JiraClient, key: str) -> dict[str, Move]:
    answer = client.get(f"/issue/{key}/transitions", [("expand", "transitions.fields")])
    return {
        str((t.get("to") or {}).get("name", "")).casefold(): Move(
            str(t["id"]), frozenset(t.get("fields") or {})
        )
        for t in answer.get("transitions") or []
    }


def transition(
    client: JiraClient,
    project: str,
    key: str,
    *,
    at: Place | None,
    status: str,
    comment: str | None,
    resolution: str | None,
    read: Callable[[], Place],
    status_now: Callable[[], str],
    comments_now: Callable[[], Sequence[Comment]],
    known: Transitions,
) -> None:
    """Move ``key`` to ``status`` with ``comment`` in the same request (Jira applies
    both or neither), and ``resolution`` when the transition's screen has that field.

    ``at``: where Ralph saw the issue (kept in a snapshot), trusted for a transition
    kept for it; None reads it first. ``read`` reads where it is now (StateConflict when
    that is not where Ralph expects it): on a cache miss, and after Jira refuses a
    transition. After a lost answer the status is read again: moved, the comment is
    posted if it did not come with the move."""
    fresh = at is None
    place = read() if at is None else at
    try:
        for attempt in (1, 2):
            moves = known.get(place.key)
            just_read = moves is None or status.casefold() not in moves
            if just_read:
                if not fresh:  # never kept under a place not just read
                    place, fresh = read(), True
                moves = known[place.key] = _moves(client, key)
            chosen = (moves or {}).get(status.casefold())
            if chosen is None:
                raise NotAvailable(
                    f"the workflow of Jira project {project} has no transition from "
                    f"{place.status!r} to {status!r} for {key}; add one in Jira (project "
                    "settings, Workflows) or map that state to another status in "
                    "[jira.statuses] of ralph.toml"
                )
            try:
                client.post(f"/issue/{key}/transitions", _body(chosen, comment, resolution))
                return
            except JiraInvalid:
                known.pop(place.key, None)
                if attempt == 2 or (just_read and fresh):
                    raise  # read just now, and still refused: not the workflow's change
                place, fresh = read(), True
    except JiraAmbiguous:
        if status_now().casefold() != status.casefold():
            raise
        if comment is not None and not any(c.body == comment for c in comments_now()):
            client.post(f"/issue/{key}/comment", {"body": to_adf(comment)})


def _body(chosen: Move, comment: str | None, resolution: str | None) -> Node:
    body: Node = {"transition": {"id": chosen.id}}
    if comment is not None:
        body["update"] = {"comment": [{"add": {"body": to_adf(comment)}}]}
    if resolution is not None and "resolution" in chosen.fields:
        body["fields"] = {"resolution": {"name": resolution}}
    return body
