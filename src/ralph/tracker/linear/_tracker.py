"""The Linear tracker: the issues of one Linear team, Ralph's numbers being the numbers
of the team's identifiers (ENG-12 is #12).

Linear closes an issue by its state: Done is completed, Canceled canceled, so closing
moves an issue there and reopening moves it back to Backlog (where ``synced_state``
puts a reopened issue), each such move audited as ``ralph_sync``. There is no
compare-and-set of a state on Linear: exclusive ownership of an issue comes from the
task store's issue locks, as on GitHub, and ``_write_state`` re-reads just before
writing. Every write is safe against a lost answer (``_writes``).

Documents stay in git: comments link them by path (``links_on_host`` False). Linear
has no team-level status updates (its updates are a Linear project's), so a status
update is refused with what to do instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from ralph.dashboard import ProjectStatus
from ralph.errors import NotAvailable, StateConflict
from ralph.linear import LinearClient
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
from ralph.tracker.linear import _writes as w
from ralph.tracker.linear._mapping import (
    CLOSED_TYPES,
    closing_state,
    comment_from,
    issue_from,
    state_from,
)
from ralph.tracker.linear._team import LinearTeam, check_team, read_team
from ralph.workflow import SYNC_COMMAND, Estimate, Priority, WorkflowState

__all__ = ["NO_STATUS_UPDATES", "LinearTracker"]

NO_STATUS_UPDATES = (
    "a Linear team has no status updates (Linear's updates belong to its projects); "
    "print the report with ralph report --dry-run and post it where the team reads it"
)
#: The state a team may have for issues closed as duplicates (Linear's default one).
_DUPLICATE = "Duplicate"

Node = dict[str, Any]


class LinearTracker(Tracker):
    kind = "linear"
    remote = True
    links_on_host = False

    def __init__(
        self, client: LinearClient, team_key: str, *, clock: Callable[[], float] | None = None
    ) -> None:
        super().__init__(clock=clock)
        self.client = client
        self.team_key = team_key.upper()
        self._team: LinearTeam | None = None
        #: Ralph's numbers to Linear's issue ids (an id never changes).
        self._ids: dict[int, str] = {}
        self._lock = threading.Lock()
        #: Linear has no compare-and-set: a move re-reads and writes under its issue's
        #: lock in this process; across processes, the task store's issue locks decide.
        self._state_guards: dict[int, threading.Lock] = {}

    # -- what the tracker answers -----------------------------------------------------------

    @property
    def repository_name(self) -> str:
        return self.team_key

    def reference(self, number: int) -> str:
        return f"{self.team_key}-{number}"

    def scope(self) -> dict[str, object]:
        return {"team": self.team_key}

    def settings(self) -> dict[str, object]:
        return {"tracker": self.kind, "team": self.team_key}

    def check(self) -> list[Check]:
        return check_team(self.client, self.team_key)

    # -- the team and ids -------------------------------------------------------------------

    @property
    def team(self) -> LinearTeam:
        """The team, read once (its id and states do not change under Ralph)."""
        if self._team is None:
            self._team = read_team(self.client, self.team_key)
        return self._team

    def _node(self, number: int) -> Node:
        node = w.issue_by_number(self.client, self.team, number)
        self._ids[number] = node["id"]
        return node

    def _id(self, number: int) -> str:
        """The issue's Linear id; IssueNotFound when the team has no such issue."""
        if number not in self._ids:
            self._node(number)
        return self._ids[number]

    def _issue(self, node: Node, comments: tuple[Comment, ...] = ()) -> Issue:
        issue = issue_from(w.completed(self.client, node), self.team_key, comments)
        self._ids[issue.number] = node["id"]
        return issue

    # -- reads ------------------------------------------------------------------------------

    def get_issue(self, number: int) -> Issue:
        node, comments = w.issue_with_comments(self.client, self.team, number)
        return self._issue(node, tuple(comment_from(c) for c in comments))

    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        """One paginated read of the team's issues, filtered here (the fields Ralph
        filters on are its own: states by name, estimates, labels, text)."""
        query = query or IssueQuery()
        nodes = w.team_issues(self.client, self.team, archived=query.archived is not False)
        return query.apply([self._issue(node) for node in nodes])

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
        parent_id = None if parent is None else self._id(parent)
        label_ids = w.label_ids(self.client, self.team, labels) if labels else ()
        node = w.create_issue(
            self.client,
            self.team,
            title,
            body=body,
            parent_id=parent_id,
            state=state,
            estimate=estimate,
            priority=priority,
            label_ids=label_ids,
            state_id=self._stateless() if state is None else None,
        )
        return self._issue(node)

    def _stateless(self) -> str | None:
        """Where an issue without a workflow state starts: the team's first waiting state
        Ralph's states do not name (Linear's Todo), as an issue off the board is
        elsewhere; None (Linear's default state) when the team has none."""
        for kind in ("unstarted", "backlog"):
            for name, (state_id, found) in self.team.states.items():
                if found == kind and state_from(name) is None:
                    return state_id
        return None

    def _update_issue(
        self,
        number: int,
        title: str | None,
        body: str | None,
        labels: Sequence[str] | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> Issue:
        issue_id = self._id(number)
        if (title, body, labels, estimate, priority) == (None, None, None, None, None):
            return self.get_issue(number)
        label_ids = w.KEEP if labels is None else w.label_ids(self.client, self.team, labels)
        node = w.update_issue(
            self.client,
            self.team,
            issue_id,
            title=w.KEEP if title is None else title,
            body=w.KEEP if body is None else body,
            label_ids=label_ids,
            estimate=w.KEEP if estimate is None else estimate,
            priority=w.KEEP if priority is None else priority,
        )
        return self._issue(node)

    def _add_comment(self, number: int, body: str, author: str) -> Comment:
        """Posted as the API key's user (Linear names no other author)."""
        return comment_from(w.create_comment(self.client, self._id(number), body))

    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        """Re-read, move, then post the audit comment: a crash between the two leaves a
        move without its audit, never an audit of a move that did not happen."""
        with self._lock:
            guard = self._state_guards.setdefault(number, threading.Lock())
        with guard:
            node = self._node(number)
            current = state_from((node.get("state") or {}).get("name"))
            if current is not expected:
                raise StateConflict(
                    number,
                    expected.value if expected else None,
                    current.value if current else None,
                )
            w.update_issue(self.client, self.team, node["id"], state=new)
        w.create_comment(self.client, node["id"], comment)

    def _close_issue(self, number: int, reason: CloseReason, duplicate_of: int | None) -> Issue:
        """Moved to Done (completed) or Canceled (otherwise; a duplicate to the team's
        Duplicate state when it has one). Linear links no original: ``duplicate_of`` is
        left out."""
        node = self._node(number)
        target = self.team.state_id(closing_state(reason))
        found = self.team.states.get(_DUPLICATE)
        if reason is CloseReason.DUPLICATE and found is not None and found[1] in CLOSED_TYPES:
            target = found[0]
        if (node.get("state") or {}).get("id") != target:
            moved = w.move_issue(self.client, node["id"], target)
            self._audit_move(number, node, moved)
            node = moved
        return self._issue(node)

    def reopen_issue(self, number: int) -> Issue:
        node = self._node(number)
        if (node.get("state") or {}).get("type") in CLOSED_TYPES:
            moved = w.update_issue(self.client, self.team, node["id"], state=WorkflowState.BACKLOG)
            self._audit_move(number, node, moved)
            node = moved
        return self._issue(node)

    def _audit_move(self, number: int, before: Node, after: Node) -> None:
        """A close or reopen moves the workflow state on Linear: audited as a move the
        tracker's open or closed state calls for (``ralph_sync``, as ``sync_state``
        audits one), so the last marker always names the state the issue is in."""
        previous = state_from((before.get("state") or {}).get("name"))
        new = state_from((after.get("state") or {}).get("name"))
        if new is not None and new is not previous:
            change = StateChange(number, previous, new, SYNC_COMMAND)
            w.create_comment(self.client, after["id"], self._audit(change, "ralph"))

    def _set_parent(self, child: int, parent: int | None) -> None:
        parent_id = None if parent is None else self._id(parent)
        w.set_parent(self.client, self._id(child), parent_id)

    def _add_blocked_by(self, blocked: int, blocking: int) -> None:
        w.add_blocking(self.client, self._id(blocking), self._id(blocked))

    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        w.remove_blocking(self.client, self._id(blocking), self._id(blocked))

    def archive_issue(self, number: int) -> Issue:
        w.archive_issue(self.client, self._id(number))
        return self.get_issue(number)

    def unarchive_issue(self, number: int) -> Issue:
        w.unarchive_issue(self.client, self._id(number))
        return self.get_issue(number)

    # -- status updates: none on a Linear team ------------------------------------------------

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
