"""The Jira tracker: the issues of one Jira project, Ralph's numbers being the numbers
of their keys (PROJ-12 is #12).

Jira moves an issue by a transition of its project's workflow, never by setting a
status: a move asks the issue's transitions for one to the mapped status (one clear
error when the workflow has none) and sends it with its audit comment in one request.
An issue in a status of Jira's Done category is closed; closing moves it to Done (or
Canceled, with its resolution), reopening back to Backlog, each such move audited as
``ralph_sync``. Exclusive ownership of an issue comes from the task store's issue locks,
as on GitHub and Linear: a move re-reads the status just before it (inside a step's
snapshot it trusts the status kept there, and reads again when Jira refuses the move).
Every write is safe against a lost answer (``_writes``).

Jira has no status updates for a project, and archiving is a Premium plan's: both are
refused in one line, saying what to do instead.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ralph.errors import IssueNotFound, NotAvailable, StateConflict
from ralph.jira import (
    MAX_RECONCILE,
    JiraAmbiguous,
    JiraClient,
    JiraInvalid,
    JiraNotFound,
    to_adf,
)
from ralph.tracker._keyed import closed_by_key, closing_words_for_key
from ralph.tracker._model import (
    Check,
    CloseReason,
    Comment,
    Issue,
    IssueQuery,
    StateChange,
)
from ralph.tracker._project_board import ProjectBoard
from ralph.tracker._snapshot import IssueSnapshots
from ralph.tracker._without_status_updates import TrackerWithoutStatusUpdates
from ralph.tracker.jira import _writes as w
from ralph.tracker.jira._board import JiraBoard
from ralph.tracker.jira._mapping import (
    PRIORITY_NAMES,
    EstimateField,
    StatusMap,
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

NO_STATUS_UPDATES = (
    "a Jira project has no status updates; print the report with ralph report --dry-run "
    "and post it where the team reads it"
)
NO_ARCHIVE = (
    "Ralph does not archive Jira issues (Jira Cloud archives them on Premium plans only); "
    "close the issue instead"
)
#: Jira's hierarchy: an epic (level 1) holds standard issues (0), which hold sub-tasks
#: (-1); an issue's parent is one level above it.
EPIC, STANDARD, SUBTASK = 1, 0, -1
_KINDS = {EPIC: "an epic", STANDARD: "a standard issue (a Task)", SUBTASK: "a sub-task"}
#: What an issue is read with, besides the estimate field.
_FIELDS = (
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
)
_RESOLUTIONS = {CloseReason.COMPLETED: "Done", CloseReason.DUPLICATE: "Duplicate"}
#: Seconds of rate limiting ``ralph doctor`` waits out in all.
_DOCTOR_PATIENCE = 30.0

Node = dict[str, Any]


class JiraTracker(TrackerWithoutStatusUpdates):
    no_status_updates = NO_STATUS_UPDATES
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
        #: A move re-reads and transitions under its issue's lock in this process;
        #: across processes, the task store's issue locks decide.
        self._guards: dict[int, threading.Lock] = {}
        self._transitions: w.Transitions = {}
        #: Each issue's type (id) as last read: with a kept status, where it stands.
        self._types: dict[int, str] = {}
        #: Issue ids by number as read, and the issues this tracker wrote last: Jira's
        #: search index lags behind writes, so searches name them to read them fresh.
        self._ids: dict[int, str] = {}
        self._recent: deque[int] = deque(maxlen=MAX_RECONCILE)
        #: Inside a snapshot each issue is read once; this tracker's writes drop it.
        self._snapshots = IssueSnapshots()

    # -- what the tracker answers -----------------------------------------------------------

    @property
    def repository_name(self) -> str:
        return self.project_key

    def project_board(self) -> ProjectBoard:
        # The project's issues are its board; managing one as a board is GitHub's.
        return JiraBoard(self.project_key)

    def reference(self, number: int) -> str:
        return f"{self.project_key}-{number}"

    def issue_name(self, number: int) -> str:
        return self.reference(number)

    def closing_words(self, number: int) -> str:
        # By its key: the key links the pull request to the issue in Jira, and a "#12"
        # would close the repository's own issue #12 when GitHub merges.
        return closing_words_for_key(self.project_key, number)

    def closed_by(self, body: str) -> tuple[int, ...]:
        return closed_by_key(self.project_key, body)

    def scope(self) -> dict[str, object]:
        return {"project": self.project_key}

    def settings(self) -> dict[str, object]:
        return {"tracker": self.kind, "project": self.project_key}

    def check(self) -> list[Check]:
        # ralph doctor: a person waits at the terminal, not out an hourly quota.
        with self.client.impatient(_DOCTOR_PATIENCE):
            return check_project(self.client, self.project_key, self.statuses, self.estimate_field)

    @property
    def project(self) -> JiraProject:
        """The project, read once (its statuses and fields do not change under Ralph)."""
        if self._project is None:
            self._project = read_project(self.client, self.project_key, self.estimate_field)
        return self._project

    def _key(self, number: int) -> str:
        return f"{self.project_key}-{number}"

    def _fields(self) -> list[str]:
        estimate = self.project.estimate
        return [*_FIELDS, *([estimate.id] if estimate else [])]

    def _estimate(self) -> EstimateField:
        if self.project.estimate is None:
            raise NotAvailable(
                f"no field {self.estimate_field!r} on this Jira site for estimates; name the "
                "story points or T-shirt field as [jira] estimate_field in ralph.toml"
            )
        return self.project.estimate

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
        if node.get("id"):
            self._ids[number] = str(node["id"])
        return node

    def _reconcile(self) -> list[int]:
        """The ids of the issues this tracker wrote last, for a search to read fresh."""
        with self._lock:  # another thread's write may be adding to it
            numbers = list(dict.fromkeys(self._recent))
        return [int(self._ids[n]) for n in numbers if self._ids.get(n, "").isdigit()]

    def _status(self, number: int) -> str:
        """The name of the issue's status, read now."""
        return self._place(number).status

    def _place(self, number: int) -> w.Place:
        """The issue's type and status, read now."""
        fields = self._node(number, ["status", "issuetype"]).get("fields") or {}
        kind = str((fields.get("issuetype") or {}).get("id", ""))
        self._types[number] = kind
        return w.Place(kind, str((fields.get("status") or {}).get("name", "")))

    def _issue(
        self, node: Node, children: Sequence[int] = (), comments: tuple[Comment, ...] = ()
    ) -> Issue:
        estimate = self.project.estimate
        return issue_from(
            node, self.project_key, self.statuses, estimate, children=children, comments=comments
        )

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """A step's reads: each issue read once, until this tracker writes to it."""
        with self._snapshots.scope(related=False):
            yield

    def get_issue(self, number: int) -> Issue:
        """The issue with its comments (one read, more pages when it has many), and its
        children (a JQL search: Jira lists only sub-tasks on the parent; a sub-task has
        none); inside a snapshot, as read there."""
        kept = self._snapshots.get(number)
        if kept is not None:
            return kept
        node = self._node(number, [*self._fields(), "comment", "issuetype"])
        fields = node.get("fields") or {}
        self._types[number] = str((fields.get("issuetype") or {}).get("id", ""))
        comments = w.all_comments(self.client, self._key(number), fields.get("comment"))
        children: list[int] = []
        if int((fields.get("issuetype") or {}).get("hierarchyLevel", 0)) > SUBTASK:
            jql = f"parent = {w.jql_string(self._key(number))}"
            found = self.client.search(jql, ["id"], reconcile=self._reconcile())
            children = [number_of(str(n["key"])) for n in found]
        issue = self._issue(node, children, comments)
        self._snapshots.keep(issue)
        return issue

    def seen_issues(self, numbers: Iterable[int]) -> list[Issue]:
        latest = self._snapshots.latest
        return [latest[n] if n in latest else self.get_issue(n) for n in numbers]

    def _changed(self, *numbers: int | None) -> None:
        """This tracker wrote to these issues: read them again."""
        # A list: every open snapshot (one a thread) drops them, not only the first.
        self._snapshots.forget([n for n in numbers if n is not None])

    @contextlib.contextmanager
    def _writing(self, *numbers: int | None) -> Iterator[None]:
        """A write to these issues: dropped from every snapshot before it is sent and
        again once it is done (another thread may have read them in between)."""
        self._changed(*numbers)
        try:
            yield
        finally:
            self._changed(*numbers)
            with self._lock:
                self._recent.extend(n for n in numbers if n is not None)

    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        """One paginated JQL read of every issue of the project (closed ones too: an
        open issue's closed children are its children), filtered here (the fields Ralph
        filters on are its own: states by name, estimates, labels, text)."""
        query = query or IssueQuery()
        jql = f"project = {w.jql_string(self.project_key)} ORDER BY key ASC"
        nodes = list(self.client.search(jql, self._fields(), reconcile=self._reconcile()))
        children: dict[int, list[int]] = {}
        for node in nodes:
            parent = str(((node.get("fields") or {}).get("parent") or {}).get("key", ""))
            if parent.rpartition("-")[0].upper() == self.project_key:
                children.setdefault(number_of(parent), []).append(number_of(str(node["key"])))
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
        level = EPIC if parent is None else self._level(parent)  # IssueNotFound first
        if level == SUBTASK:
            raise NotAvailable(
                f"{self._key(parent or 0)} is a Jira sub-task, which holds no issues; put the "
                "new issue under its parent or under an epic"
            )
        fields: Node = {
            "project": {"key": self.project_key},
            "issuetype": {"name": self._type(level - 1)},
            "summary": title,
            **self._field_values(body or None, labels or None, estimate, priority),
        }
        if parent is not None:
            fields["parent"] = {"key": self._key(parent)}
        made = w.create_issue(self.client, self.project_key, fields)
        number = number_of(str(made["key"]))
        self._ids[number] = str(made["id"])
        with self._lock:
            self._recent.append(number)
        self._changed(parent)
        if state is not None:
            self._move(number, state)
        return self.get_issue(number)

    def _level(self, number: int) -> int:
        """The hierarchy level of issue ``number``'s type."""
        node = self._node(number, ["issuetype"])
        return int(((node.get("fields") or {}).get("issuetype") or {}).get("hierarchyLevel", 0))

    def _type(self, level: int) -> str:
        """The project's issue type of ``level`` (Task for a standard issue)."""
        found = self.project.types.get(level)
        if found is None:
            what = "sub-task" if level == SUBTASK else "standard"
            raise NotAvailable(
                f"Jira project {self.project_key} has no {what} issue type; add one in its "
                "settings (Issue types)"
            )
        return found

    def _field_values(
        self,
        body: str | None,
        labels: Sequence[str] | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> Node:
        fields: Node = {}
        if body is not None:
            fields["description"] = to_adf(body) if body else None
        if labels is not None:
            fields["labels"] = list(dict.fromkeys(labels))
        if priority is not None:
            fields["priority"] = {"name": PRIORITY_NAMES[priority]}
        if estimate is not None:
            field = self._estimate()
            fields[field.id] = estimate_value(field, estimate)
        return fields

    def _update_issue(
        self,
        number: int,
        title: str | None,
        body: str | None,
        labels: Sequence[str] | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> Issue:
        fields = self._field_values(body, labels, estimate, priority)
        if title is not None:
            fields["summary"] = title
        if fields:
            self._node(number, ["status"])
            with self._writing(number):
                self.client.put(f"/issue/{self._key(number)}", {"fields": fields})
        return self.get_issue(number)

    def _add_comment(self, number: int, body: str, author: str) -> Comment:
        """Posted as the API token's account (Jira names no other author)."""
        try:
            with self._writing(number):
                return w.post_comment(self.client, self._key(number), body, self.now())
        except JiraNotFound:
            raise IssueNotFound(number, f"Jira project {self.project_key}") from None

    # -- moves ------------------------------------------------------------------------------

    def _move(
        self,
        number: int,
        state: WorkflowState,
        *,
        at: w.Place | None = None,
        expected: Callable[[w.Place], None] | None = None,
        comment: str | None = None,
        resolution: str | None = None,
    ) -> None:
        """Move by the workflow's transition from ``at`` (None: read now), where
        ``expected`` raises StateConflict if a read finds the issue elsewhere."""
        key = self._key(number)

        def read() -> w.Place:
            place = self._place(number)
            if expected is not None:
                expected(place)
            return place

        with self._writing(number):
            w.transition(
                self.client,
                self.project_key,
                key,
                at=at,
                status=self.statuses.status(state),
                comment=comment,
                resolution=resolution,
                read=read,
                status_now=lambda: self._status(number),
                comments_now=lambda: w.all_comments(self.client, key),
                known=self._transitions,
            )

    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        """Re-read (inside a snapshot: as kept, read again when Jira refuses the kept
        transition), then move by the workflow's transition with the audit comment in
        the same request."""

        def check(place: w.Place) -> None:
            current = self.statuses.state(place.status)
            if current is not expected:
                raise StateConflict(
                    number,
                    expected.value if expected else None,
                    current.value if current else None,
                )

        with self._lock:
            guard = self._guards.setdefault(number, threading.Lock())
        with guard:
            # Inside a snapshot, as kept there (this tracker's writes drop what they
            # change); an issue in a status of the project's own is read.
            kept = self._snapshots.get(number)
            kind = self._types.get(number)
            at = None
            if kept is not None and kept.workflow_state is not None and kind is not None:
                at = w.Place(kind, self.statuses.status(kept.workflow_state))
                check(at)
            self._move(number, new, at=at, expected=check, comment=comment)

    def _close_issue(self, number: int, reason: CloseReason, duplicate_of: int | None) -> Issue:
        """Moved to Done (completed) or Canceled (otherwise), with Jira's resolution for
        the reason, audited as ``ralph_sync``. Jira's duplicate link is not made:
        ``duplicate_of`` is left out."""
        before = self.get_issue(number)
        target = WorkflowState.DONE if reason is CloseReason.COMPLETED else WorkflowState.CANCELED
        if before.workflow_state is not target:
            change = StateChange(number, before.workflow_state, target, SYNC_COMMAND)
            self._move(
                number,
                target,
                comment=self._audit(change, "ralph"),
                resolution=_RESOLUTIONS.get(reason, "Won't Do"),
            )
        return self.get_issue(number)

    def reopen_issue(self, number: int) -> Issue:
        before = self.get_issue(number)
        if not before.is_open:
            backlog = WorkflowState.BACKLOG
            change = StateChange(number, before.workflow_state, backlog, SYNC_COMMAND)
            self._move(number, backlog, comment=self._audit(change, "ralph"))
        return self.get_issue(number)

    # -- relations --------------------------------------------------------------------------

    def _set_parent(self, child: int, parent: int | None) -> None:
        """Jira's ``parent`` field, within its hierarchy: an issue goes under an issue
        one level above it (a standard issue under an epic, a sub-task under a standard
        issue); anything else is refused in one line before anything is written."""
        level = self._level(child)
        if parent is None and level == SUBTASK:
            raise NotAvailable(
                f"{self._key(child)} is a Jira sub-task, which always has a parent; move it "
                "under another issue instead, or close it"
            )
        if parent is not None and self._level(parent) != level + 1:
            raise NotAvailable(
                f"Jira puts {_KINDS[level]} such as {self._key(child)} only under "
                f"{_KINDS.get(level + 1, 'nothing')}, which {self._key(parent)} is not; create "
                f"the sub-issue with ralph issue new --parent {parent}, or change the issue "
                "types in Jira"
            )
        value = None if parent is None else {"key": self._key(parent)}
        kept = self._snapshots.get(child)
        if kept is None:  # its former parent is not known here
            self._snapshots.forget()
        try:
            with self._writing(child, parent, kept.parent if kept else None):
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
        with self._writing(blocked, blocking):
            try:
                self.client.post("/issueLink", body)
            except JiraAmbiguous:
                if blocking not in self._issue(self._node(blocked)).blocked_by:
                    raise

    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        with self._writing(blocked, blocking):
            node = self._node(blocked, ["issuelinks"])
            for link in (node.get("fields") or {}).get("issuelinks") or []:
                inward = (link.get("inwardIssue") or {}).get("key")
                kind = (link.get("type") or {}).get("name")
                if inward == self._key(blocking) and kind == "Blocks":
                    try:
                        self.client.delete(f"/issueLink/{link['id']}")
                    except (JiraNotFound, JiraInvalid):
                        continue  # gone already

    # -- what a Jira project does not have --------------------------------------------------

    def archive_issue(self, number: int) -> Issue:
        raise NotAvailable(NO_ARCHIVE)

    def unarchive_issue(self, number: int) -> Issue:
        raise NotAvailable(NO_ARCHIVE)
