"""A GitLab project's issues and notes written, each create safe against a lost answer.

The client never resends a POST whose answer was lost (``GitLabAmbiguous``). A created
issue or note carries an operation marker (an HTML comment GitLab does not show, taken
off when Ralph reads the text), so after a lost answer it is looked for by its marker and
sent again only when it did not happen. Updates (a PUT) set values, so the client
repeats them itself. Issue links are looked for before they are made and before they are
removed, so neither a rerun nor a lost answer leaves two.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from ralph.errors import IssueNotFound
from ralph.github import marker
from ralph.gitlab import GitLabAmbiguous, GitLabClient, GitLabInvalid, GitLabNotFound

__all__ = ["create_issue", "create_note", "issue_node", "link", "links", "ours", "unlink"]

Node = dict[str, Any]


def _marked(text: str) -> tuple[str, str]:
    made = marker()
    return (f"{text}\n\n{made}" if text else made), made


def _once(send: Callable[[], Node], find: Callable[[], Node | None]) -> Node:
    """``send`` once; after a lost answer, ``find`` says whether it happened, and only
    if it did not is it sent again."""
    try:
        return send()
    except GitLabAmbiguous:
        found = find()
        if found is not None:
            return found
    return send()


def issue_node(client: GitLabClient, project: str, number: int) -> Node:
    try:
        found: Node = client.request("GET", f"/projects/{project}/issues/{number}")
    except GitLabNotFound:
        raise IssueNotFound(number, f"GitLab project {unquote(project)}") from None
    return found


def create_issue(client: GitLabClient, project: str, body: dict[str, Any]) -> Node:
    """A new issue (``body``: title, description, labels...), made once."""
    description, made = _marked(str(body.get("description", "")))
    sent = {**body, "description": description}
    key = made.removeprefix("<!-- ralph:op=").removesuffix(" -->")

    def find() -> Node | None:
        query = [("search", key), ("in", "description"), ("state", "all")]
        hits = client.request("GET", f"/projects/{project}/issues", query=query)
        return next((h for h in hits if made in str(h.get("description") or "")), None)

    return _once(lambda: client.request("POST", f"/projects/{project}/issues", body=sent), find)


def create_note(client: GitLabClient, project: str, number: int, text: str) -> Node:
    """A note on issue ``number`` with ``text`` as typed, made once."""
    body, made = _marked(text)
    path = f"/projects/{project}/issues/{number}/notes"

    def find() -> Node | None:
        newest = client.request("GET", path, query=[("sort", "desc"), ("per_page", "100")])
        return next((n for n in newest if made in str(n.get("body") or "")), None)

    try:
        return _once(lambda: client.request("POST", path, body={"body": body}), find)
    except GitLabNotFound:
        raise IssueNotFound(number, f"GitLab project {unquote(project)}") from None


def links(client: GitLabClient, project: str, number: int) -> list[Node]:
    found: list[Node] = client.request("GET", f"/projects/{project}/issues/{number}/links")
    return found


def link(client: GitLabClient, project: str, source: int, target: int, kind: str) -> Node | None:
    """``source`` ``kind`` ``target`` (blocks...), unless a link between them is there;
    the link GitLab made (its ``link_type`` says what the tier allowed)."""
    if any(ours(e, project) == target for e in links(client, project, source)):
        return None
    body = {
        "target_project_id": unquote(project),
        "target_issue_iid": str(target),
        "link_type": kind,
    }
    path = f"/projects/{project}/issues/{source}/links"
    try:
        made: Node = client.request("POST", path, body=body)
    except (GitLabAmbiguous, GitLabInvalid):
        # Lost, or 409 "already assigned" (a rerun): it is there if GitLab shows it.
        if any(ours(e, project) == target for e in links(client, project, source)):
            return None
        raise
    return made


def ours(node: Node, project: str) -> int | None:
    """The number of a linked issue when it is in ``project`` (another project's are
    not Ralph's numbers)."""
    full = str((node.get("references") or {}).get("full", ""))
    path, _, iid = full.rpartition("#")
    return int(iid) if path.lower() == unquote(project).lower() and iid.isdigit() else None


def unlink(client: GitLabClient, project: str, source: int, target: int) -> None:
    """The link between ``source`` and ``target`` removed, if there is one."""
    for existing in links(client, project, source):
        if ours(existing, project) == target:
            path = f"/projects/{project}/issues/{source}/links/{existing['issue_link_id']}"
            with contextlib.suppress(GitLabNotFound):  # gone meanwhile
                client.request("DELETE", path)
