"""The Jira tracker: the issues of one Jira project, Ralph's numbers being the numbers
of their keys (PROJ-12 is #12).

Jira moves an issue by a transition of its project's workflow, never by setting a
status: a move asks the issue's transitions for one to the mapped status (one clear
error when the workflow has none) and sends it with its audit comment in one request.
An issue in a status of Jira's Done category is closed; closing moves it to Done (or
Canceled, with its resolution), reopening back to Backlog, each such move audited as
``ralph_sync``. Exclusive ownership of an issue comes from the task store's issue locks,
as on GitHub and Linear: a move re-reads the status just before it.

A write whose answer was lost is looked for before anything else: an issue by the
``ralph.create`` property it was created with, a comment by its text. Jira has no
status updates for a project, and archiving is a Premium plan's: both are refused in
one line, saying what to do instead.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ralph.dashboard import ProjectStatus
from ralph.errors import IssueNotFound, NotAvailable, StateConflict
from ralph.jira import JiraAmbiguous, JiraClient, JiraInvalid, JiraNotFound, to_adf
from ralph.tracker._model import (
    Check,
    CloseReason,
    Comment,
    Issue,
    IssueQuery,
    StateChange,
    StatusUpdate,
)
from ralph.tracker._tracker import Tracker
from ralph.tracker.jira._mapping import (
    PRIORITY_NAMES,
    StatusMap,
    comment_from,
    estimate_value,
    issue_from,
    number_of,
)
from ralph.tracker.jira._project import (
    DEFAULT_ESTIMATE_FIELD,
    JiraProject,
    check_project,
    read_project,
)
from ralph.workflow import SYNC_COMMAND, Estimate, Priority, WorkflowState

__all__ = ["NO_ARCHIVE", "NO_STATUS_UPDATES", "JiraTracker"]

logger = logging.getLogger(__name__)

NO_STATUS_UPDATES = (
    "a Jira project has no status updates; print the report with ralph report --dry-run "
    "and post it where the team reads it"
)
NO_ARCHIVE = (
    "Ralph does not archive Jira issues (Jira Cloud archives them on Premium plans only); "
    "close the issue instead"
)
_MAGIC_WORDS = (
    r"(?:clos(?:e|es|ed|ing)|fix(?:es|ed|ing)?|resolv(?:e|es|ed|ing)|complet(?:e|es|ed|ing))"
)
#: The issue property a created issue carries, to find it when the answer was lost.
CREATE_PROPERTY = "ralph.create"
#: The type of every issue Ralph creates; its parent is set by the ``parent`` field.
ISSUE_TYPE = "Task"
#: Comments are read a page of this many at a time (Jira's most).
COMMENT_PAGE = 100

Node = dict[str, Any]


class JiraTracker(Tracker):
    kind = "jira"
    remote = True
    links_on_host = False

    def __init__(
        self,
        client: JiraClient,
        project: str,
        *,
        statuses: Mapping[str, str] | None = None,
        estimate_field: str = DEFAULT_ESTIMATE_FIELD,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__(clock=clock)
        self.client = client
        self.project_key = project.upper()
        self.statuses = StatusMap.of(statuses)
        self.estimate_field = estimate_field
        self._project: JiraProject | None = None
        self._lock = threading.Lock()
        self._guards: dict[int, threading.Lock] = {}
        self._me: str | None = None

    # -- what the tracker answers -----------------------------------------------------------

    @property
    def repository_name(self) -> str:
        return self.project_key

    def reference(self, number: int) -> str:
        return f"{self.project_key}-{number}"

    def closing_words(self, number: int) -> str:
        # By its key: the key links the pull request to the issue in Jira, and a "#12"
        # would close the repository's own issue #12 when GitHub merges.
        return f"Fixes {self.reference(number)}"

    def closed_by(self, body: str) -> tuple[int, ...]:
        words = re.compile(rf"\b{_MAGIC_WORDS}:?\s+{re.escape(self.project_key)}-(\d+)\b", re.I)
        return tuple(dict.fromkeys(int(found.group(1)) for found in words.finditer(body)))

    def scope(self) -> dict[str, object]:
        return {"project": self.project_key}

    def settings(self) -> dict[str, object]:
        return {"tracker": self.kind, "project": self.project_key}

    def check(self) -> list[Check]:
        return check_project(self.client, self.project_key, self.statuses, self.estimate_field)

    @property
    def project(self) -> JiraProject:
        """The project, read once (its statuses and fields do not change under Ralph)."""
        if self._project is None:
            self._project = read_project(self.client, self.project_key, self.estimate_field)
        return self._project

    def _fields(self) -> list[str]:
        names = [
            "summary",
            "description",
            "status",
            "priority",
            "labels",
            "parent",
            "issuelinks",
            "created",
            "updated",
            "resolution",
            "resolutiondate",
            "assignee",
        ]
        if self.project.estimate is not None:
            names.append(self.project.estimate.id)
        return names

    def _key(self, number: int) -> str:
        return f"{self.project_key}-{number}"

    def _quoted(self, text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    # -- reads ------------------------------------------------------------------------------

    def _node(self, number: int, fields: Sequence[str] | None = None) -> Node:
        try:
            node: Node = self.client.get(
                f"/issue/{self._key(number)}",
                [("fields", ",".join(fields or self._fields()))],
            )
        except JiraNotFound:
            raise IssueNotFound(number, f"Jira project {self.project_key}") from None
        if str(node.get("key", "")).upper() != self._key(number):  # moved to another project
            raise IssueNotFound(number, f"Jira project {self.project_key}")
        return node

    def _issue(
        self, node: Node, children: Sequence[int] = (), comments: tuple[Comment, ...] = ()
    ) -> Issue:
        return issue_from(
            node,
            self.project_key,
            self.statuses,
            self.project.estimate,
            children=children,
            comments=comments,
        )

    def _children(self, number: int) -> list[int]:
        jql = f"parent = {self._quoted(self._key(number))}"
        return [number_of(str(n["key"])) for n in self.client.search(jql, ["id"])]

    def _comments(self, number: int) -> tuple[Comment, ...]:
        found: list[Comment] = []
        while True:
            page = self.client.get(
                f"/issue/{self._key(number)}/comment",
                [("startAt", str(len(found))), ("maxResults", str(COMMENT_PAGE))],
            )
            comments = page.get("comments") or []
            found.extend(comment_from(c) for c in comments)
            if not comments or len(found) >= int(page.get("total", 0)):
                return tuple(found)

    def get_issue(self, number: int) -> Issue:
        node = self._node(number)
        return self._issue(node, self._children(number), self._comments(number))

    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        """One paginated JQL read of the project's issues, filtered here (the fields
        Ralph filters on are its own: states by name, estimates, labels, text)."""
        query = query or IssueQuery()
        # Every issue, closed ones too: an open issue's closed children are its children.
        jql = f"project = {self._quoted(self.project_key)}"
        nodes = list(self.client.search(jql + " ORDER BY key ASC", self._fields()))
        children: dict[int, list[int]] = {}
        for node in nodes:
            parent = (node.get("fields") or {}).get("parent") or {}
            if str(parent.get("key", "")).rpartition("-")[0].upper() == self.project_key:
                children.setdefault(number_of(str(parent["key"])), []).append(
                    number_of(str(node["key"]))
                )
        issues = [self._issue(n, children.get(number_of(str(n["key"])), ())) for n in nodes]
        return query.apply(issues)

    # -- writes -----------------------------------------------------------------------------

    def _create_issue(
        self,
        title: str,
        body: str,
        parent: int | None,
        state: WorkflowState | None,
        estimate: Estimate | None,
        priority: Priority | None,
        labels: Sequence[str],
        author: str,
    ) -> Issue:
        if parent is not None:
            self._node(parent, ["status"])  # IssueNotFound before anything is created
        fields: dict[str, Any] = {
            "project": {"key": self.project_key},
            "issuetype": {"name": ISSUE_TYPE},
            "summary": title,
        }
        if body:
            fields["description"] = to_adf(body)
        if labels:
            fields["labels"] = list(dict.fromkeys(labels))
        if priority is not None:
            fields["priority"] = {"name": PRIORITY_NAMES[priority]}
        if estimate is not None:
            fields[self._estimate_id()] = estimate_value(self._estimate(), estimate)
        if parent is not None:
            fields["parent"] = {"key": self._key(parent)}
        marker = str(uuid.uuid4())
        request = {
            "fields": fields,
            "properties": [{"key": CREATE_PROPERTY, "value": {"id": marker}}],
        }
        sent = self.now()
        try:
            made = self.client.post("/issue", request)
        except JiraAmbiguous:
            made = self._created(marker, sent)
            if made is None:
                raise
        number = number_of(str(made["key"]))
        if state is not None:
            self._transition(number, state)
        return self.get_issue(number)

    def _created(self, marker: str, sent: float) -> Node | None:
        """The issue created with ``marker`` since ``sent``, if the lost create happened."""
        since = datetime.fromtimestamp(sent - 60, UTC).strftime("%Y-%m-%d %H:%M")
        jql = (
            f"project = {self._quoted(self.project_key)} AND reporter = currentUser() "
            f'AND created >= "{since}" ORDER BY created DESC'
        )
        for node in self.client.search(jql, ["id"], properties=[CREATE_PROPERTY]):
            if ((node.get("properties") or {}).get(CREATE_PROPERTY) or {}).get("id") == marker:
                return node
        return None

    def _estimate(self) -> Any:
        field = self.project.estimate
        if field is None:
            raise NotAvailable(
                f"no field {self.estimate_field!r} on this Jira site for estimates; name the "
                "story points or T-shirt field as [jira] estimate_field in ralph.toml"
            )
        return field

    def _estimate_id(self) -> str:
        return str(self._estimate().id)

    def _update_issue(
        self,
        number: int,
        title: str | None,
        body: str | None,
        labels: Sequence[str] | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> Issue:
        fields: dict[str, Any] = {}
        if title is not None:
            fields["summary"] = title
        if body is not None:
            fields["description"] = to_adf(body) if body else None
        if labels is not None:
            fields["labels"] = list(dict.fromkeys(labels))
        if priority is not None:
            fields["priority"] = {"name": PRIORITY_NAMES[priority]}
        if estimate is not None:
            fields[self._estimate_id()] = estimate_value(self._estimate(), estimate)
        if fields:
            self._node(number, ["status"])
            self.client.put(f"/issue/{self._key(number)}", {"fields": fields})
        return self.get_issue(number)

    def _add_comment(self, number: int, body: str, author: str) -> Comment:
        """Posted as the API token's account (Jira names no other author)."""
        sent = self.now()
        try:
            made = self.client.post(f"/issue/{self._key(number)}/comment", {"body": to_adf(body)})
        except JiraNotFound:
            raise IssueNotFound(number, f"Jira project {self.project_key}") from None
        except JiraAmbiguous:
            again = [
                c for c in self._comments(number) if c.body == body and c.created_at >= sent - 60
            ]
            if not again:
                raise
            return again[-1]
        return comment_from(made)

    # -- moves ------------------------------------------------------------------------------

    def _transition_to(self, number: int, current: str, status: str) -> str:
        """The id of the transition that moves issue ``number`` to ``status``."""
        answer = self.client.get(f"/issue/{self._key(number)}/transitions")
        for transition in answer.get("transitions") or []:
            if str((transition.get("to") or {}).get("name", "")).casefold() == status.casefold():
                return str(transition["id"])
        raise NotAvailable(
            f"the workflow of Jira project {self.project_key} has no transition from "
            f"{current!r} to {status!r} for {self._key(number)}; add one in Jira (project "
            "settings, Workflows) or map that state to another status in [jira.statuses] of "
            "ralph.toml"
        )

    def _transition(
        self,
        number: int,
        state: WorkflowState,
        *,
        current: str = "",
        comment: str | None = None,
        resolution: str | None = None,
    ) -> None:
        if not current:
            current = str(
                ((self._node(number, ["status"]).get("fields") or {}).get("status") or {}).get(
                    "name", ""
                )
            )
        status = self.statuses.status(state)
        body: dict[str, Any] = {"transition": {"id": self._transition_to(number, current, status)}}
        if comment is not None:
            body["update"] = {"comment": [{"add": {"body": to_adf(comment)}}]}
        if resolution is not None:
            body["fields"] = {"resolution": {"name": resolution}}
        try:
            self.client.post(f"/issue/{self._key(number)}/transitions", body)
        except JiraAmbiguous:
            moved = (self._node(number, ["status"]).get("fields") or {}).get("status") or {}
            if str(moved.get("name", "")).casefold() != status.casefold():
                raise
            # It moved: the audit comment went with it, or is looked for and posted.
            if comment is not None and not any(c.body == comment for c in self._comments(number)):
                self._add_comment(number, comment, "ralph")

    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        """Re-read, then move by the workflow's transition with the audit comment in the
        same request (Jira applies both or neither)."""
        with self._lock:
            guard = self._guards.setdefault(number, threading.Lock())
        with guard:
            node = self._node(number, ["status"])
            name = str(((node.get("fields") or {}).get("status") or {}).get("name", ""))
            current = self.statuses.state(name)
            if current is not expected:
                raise StateConflict(
                    number,
                    expected.value if expected else None,
                    current.value if current else None,
                )
            self._transition(number, new, current=name, comment=comment)

    def _close_issue(self, number: int, reason: CloseReason, duplicate_of: int | None) -> Issue:
        """Moved to Done (completed) or Canceled (otherwise), with Jira's resolution for
        the reason. Jira's duplicate link is not made: ``duplicate_of`` is left out."""
        before = self.get_issue(number)
        target = WorkflowState.DONE if reason is CloseReason.COMPLETED else WorkflowState.CANCELED
        resolution = {
            CloseReason.COMPLETED: "Done",
            CloseReason.DUPLICATE: "Duplicate",
        }.get(reason, "Won't Do")
        if before.is_open or before.close_reason is not reason:
            current = self.statuses.status(before.workflow_state) if before.workflow_state else ""
            status_name = current or self._status_name(number)
            if before.workflow_state is not target:
                audit = self._audit(
                    StateChange(number, before.workflow_state, target, SYNC_COMMAND), "ralph"
                )
                self._transition(
                    number, target, current=status_name, comment=audit, resolution=resolution
                )
        return self.get_issue(number)

    def _status_name(self, number: int) -> str:
        node = self._node(number, ["status"])
        return str(((node.get("fields") or {}).get("status") or {}).get("name", ""))

    def reopen_issue(self, number: int) -> Issue:
        before = self.get_issue(number)
        if not before.is_open:
            audit = self._audit(
                StateChange(number, before.workflow_state, WorkflowState.BACKLOG, SYNC_COMMAND),
                "ralph",
            )
            self._transition(number, WorkflowState.BACKLOG, comment=audit)
        return self.get_issue(number)

    # -- relations --------------------------------------------------------------------------

    def _set_parent(self, child: int, parent: int | None) -> None:
        value = None if parent is None else {"key": self._key(parent)}
        try:
            self.client.put(f"/issue/{self._key(child)}", {"fields": {"parent": value}})
        except JiraNotFound:
            raise IssueNotFound(child, f"Jira project {self.project_key}") from None

    def _add_blocked_by(self, blocked: int, blocking: int) -> None:
        # The link's outward ("from") issue blocks its inward one.
        body = {
            "type": {"name": "Blocks"},
            "outwardIssue": {"key": self._key(blocking)},
            "inwardIssue": {"key": self._key(blocked)},
        }
        try:
            self.client.post("/issueLink", body)
        except JiraAmbiguous:
            if blocking not in self.get_issue(blocked).blocked_by:
                raise

    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        node = self._node(blocked, ["issuelinks"])
        for link in (node.get("fields") or {}).get("issuelinks") or []:
            inward = (link.get("inwardIssue") or {}).get("key")
            if inward == self._key(blocking) and (link.get("type") or {}).get("name") == "Blocks":
                try:
                    self.client.delete(f"/issueLink/{link['id']}")
                except (JiraNotFound, JiraInvalid):
                    continue  # gone already

    # -- what a Jira project does not have --------------------------------------------------

    def archive_issue(self, number: int) -> Issue:
        raise NotAvailable(NO_ARCHIVE)

    def unarchive_issue(self, number: int) -> Issue:
        raise NotAvailable(NO_ARCHIVE)

    def list_status_updates(self) -> list[StatusUpdate]:
        raise NotAvailable(NO_STATUS_UPDATES)

    def delete_status_update(self, update_id: str) -> None:
        raise NotAvailable(NO_STATUS_UPDATES)

    def _create_status_update(
        self,
        status: ProjectStatus,
        body: str,
        start_date: str | None,
        target_date: str | None,
        author: str,
    ) -> StatusUpdate:
        raise NotAvailable(NO_STATUS_UPDATES)

    def _update_status_update(
        self,
        update_id: str,
        status: ProjectStatus | None,
        body: str | None,
        start_date: str | None,
        target_date: str | None,
    ) -> StatusUpdate:
        raise NotAvailable(NO_STATUS_UPDATES)
