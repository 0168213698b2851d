"""The Linear tracker: the issues of one Linear team, Ralph's numbers being the numbers
of the team's identifiers (ENG-12 is #12).

Linear closes an issue by its state: Done is completed, Canceled canceled, so closing
moves an issue there and reopening moves it back to Backlog (where ``synced_state``
puts a reopened issue), each such move audited as ``ralph_sync``. There is no
compare-and-set of a state on Linear: exclusive ownership of an issue comes from the
task store's issue locks, as on GitHub, and ``_write_state`` re-reads just before
writing. Every write is safe against a lost answer (``_writes``).

Inside a snapshot (``Tracker.snapshot``) each issue is read once, with its comments and
with its relatives (parent, children, blockers) in one more request, and kept; the
tracker's own writes keep the kept issues true (an edit, a move, a comment) or forget
them (a relation changed on two issues), as on GitHub (``IssueSnapshots``). A move and
its audit comment go in one request, with a phase's note that waited for it
(``add_note`` inside a snapshot); a note no move took is posted when the snapshot ends.

Documents stay in git: comments link them by path (``links_on_host`` False). Linear
has no team-level status updates (its updates are a Linear project's), so a status
update is refused with what to do instead.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from ralph.errors import IssueNotFound, RalphError, StateConflict
from ralph.linear import LinearClient, LinearError
from ralph.linear.queries import GROUP_LIMIT
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
from ralph.tracker.linear import _writes as w
from ralph.tracker.linear._board import LinearBoard
from ralph.tracker.linear._mapping import (
    CLOSED_TYPES,
    closing_state,
    comment_from,
    issue_from,
    state_from,
)
from ralph.tracker.linear._team import LinearTeam, check_team, read_team
from ralph.tracker.linear._team_reads import TeamReads
from ralph.workflow import SYNC_COMMAND, Estimate, Priority, WorkflowState

__all__ = ["NO_STATUS_UPDATES", "LinearTracker"]

logger = logging.getLogger(__name__)

NO_STATUS_UPDATES = (
    "a Linear team has no status updates (Linear's updates belong to its projects); "
    "print the report with ralph report --dry-run and post it where the team reads it"
)
#: The state a team may have for issues closed as duplicates (Linear's default one).
_DUPLICATE = "Duplicate"

Node = dict[str, Any]


class LinearTracker(TrackerWithoutStatusUpdates):
    no_status_updates = NO_STATUS_UPDATES
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
        self._snapshots = IssueSnapshots()
        self._team_reads = TeamReads(self._clock)
        #: A thread's notes waiting for their issue's next move (``pending``).
        self._notes = threading.local()

    # -- what the tracker answers -----------------------------------------------------------

    @property
    def repository_name(self) -> str:
        return self.team_key

    def reference(self, number: int) -> str:
        return f"{self.team_key}-{number}"

    def issue_name(self, number: int) -> str:
        return self.reference(number)

    def closing_words(self, number: int) -> str:
        # By its identifier, as Linear's GitHub integration reads it: a "#12" would close
        # the repository's own issue #12 when GitHub merges.
        return closing_words_for_key(self.team_key, number)

    def closed_by(self, body: str) -> tuple[int, ...]:
        return closed_by_key(self.team_key, body)

    def scope(self) -> dict[str, object]:
        return {"team": self.team_key}

    def project_board(self) -> ProjectBoard:
        """None to manage: each operation refuses naming what to use instead."""
        return LinearBoard(self.team_key)

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

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        outer = not self._snapshots.active
        with self._snapshots.scope():
            try:
                yield
            except BaseException:
                if outer:
                    self._post_notes(failing=True)
                raise
            if outer:
                self._post_notes()

    def get_issue(self, number: int) -> Issue:
        kept = self._snapshots.get(number)
        if kept is not None:
            return kept
        if not self._snapshots.active:
            node, comments = w.issue_with_comments(self.client, self.team, number)
            issue = self._issue(node, tuple(comment_from(c) for c in comments))
            self._snapshots.keep(issue)  # as last read, for a display (``seen_issues``)
            return issue
        # Its relatives are what a step reads next (its group, its gates): those an
        # earlier read found come in the same request, any new ones in one more.
        self._read_group([number, *self._snapshots.missing(self._known_group(number))])
        found = self._snapshots.get(number)
        if found is None:
            raise IssueNotFound(number, f"Linear team {self.team_key}")
        self.prefetch(_relatives(found))
        return found

    def prefetch(self, numbers: Iterable[int]) -> None:
        missing = self._snapshots.missing(numbers)
        if missing:
            self._read_group(missing)

    def seen_issues(self, numbers: Iterable[int]) -> list[Issue]:
        wanted = list(dict.fromkeys(numbers))
        latest = self._snapshots.latest
        if any(n not in latest for n in wanted):
            with self.snapshot():
                self.prefetch([n for n in wanted if n not in latest])
        return [latest[n] for n in wanted if n in latest]

    def _known_group(self, number: int) -> list[int]:
        """The issues related to ``number`` as earlier reads found them, transitively (its
        parent's other children too), at most a group read's worth."""
        seen = {number: None}
        frontier = [number]
        latest = self._snapshots.latest
        while frontier and len(seen) < GROUP_LIMIT:
            for related in _relatives(latest.get(frontier.pop(0))):
                if related not in seen and len(seen) < GROUP_LIMIT:
                    seen[related] = None
                    frontier.append(related)
        return list(seen)[1:]

    def _read_group(self, numbers: Sequence[int]) -> None:
        """Issues ``numbers`` into this thread's snapshot, read together (at most
        ``GROUP_LIMIT`` a request); numbers with no issue are left out."""
        for start in range(0, len(numbers), GROUP_LIMIT):
            chunk = numbers[start : start + GROUP_LIMIT]
            for node, comments in w.issues_with_comments(self.client, self.team, chunk):
                self._snapshots.keep(self._issue(node, tuple(comment_from(c) for c in comments)))

    def _written(self, node: Node) -> Issue:
        """The issue a write answered with (without comments), kept true in the
        snapshots with the comments they hold."""
        issue = self._issue(node)
        self._snapshots.update(issue.number, lambda old: replace(issue, comments=old.comments))
        self._changed([issue.number])
        return issue

    def _commented(self, number: int, made: Comment) -> Comment:
        self._snapshots.update(number, lambda old: replace(old, comments=(*old.comments, made)))
        return made

    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        """The issues ``query`` asks for: filtered on Linear's side as far as it goes
        (states, open or closed, labels, estimates, text, parent, updated since), read
        by pages of rows, then filtered and ordered here; in a process that read them
        before, only what changed since. A board's query for every issue (``board``)
        gets the board: the open ones, the closed ones of the last 30 days and those
        they name (``TeamReads``); a person's gets every one."""
        query = query or IssueQuery()
        nodes = self._team_reads.issues(self.client, self.team, query)
        return query.apply([self._issue(node) for node in nodes])

    def board_issues(self, *, closed_since: float | None = None) -> list[Issue]:
        """The open issues and the closed ones of the done window, archived ones too,
        filtered on Linear's side."""
        nodes = self._team_reads.board(self.client, self.team, closed_since or 0.0)
        return [self._issue(node) for node in nodes]

    def _changed(self, numbers: Iterable[int | None]) -> None:
        """Issues this tracker wrote: kept reads of the board read them again."""
        self._team_reads.touched(numbers)

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
        made = self._issue(node)
        self._snapshots.keep(made)
        self._changed([made.number, parent])
        if parent is not None:
            self._snapshots.forget([parent])  # one more child
        return made

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
        return self._written(node)

    def _add_comment(self, number: int, body: str, author: str) -> Comment:
        """Posted as the API key's user (Linear names no other author)."""
        made = comment_from(w.create_comment(self.client, self._id(number), body))
        return self._commented(number, made)

    def _add_note(self, number: int, body: str) -> None:
        """Inside a snapshot: sent with the issue's next move, or alone when the snapshot
        ends."""
        if not self._snapshots.active:
            self.add_comment(number, body)
            return
        waiting = self._pending_notes().setdefault(number, [])
        if body not in waiting:  # said once, as comment_once means
            waiting.append(body)

    def _pending_notes(self) -> dict[int, list[str]]:
        pending: dict[int, list[str]] | None = getattr(self._notes, "pending", None)
        if pending is None:
            pending = self._notes.pending = {}
        return pending

    def _post_notes(self, *, failing: bool = False) -> None:
        """The notes no move took, each alone. While a failure ends the snapshot, what
        cannot be posted is logged, not raised over the failure."""
        pending = self._pending_notes()
        waiting = [(number, body) for number, bodies in pending.items() for body in bodies]
        pending.clear()
        try:
            for number, body in waiting:
                self._add_comment(number, body, "ralph")
        except (LinearError, RalphError) as exc:
            if not failing:
                raise
            logger.warning("notes not posted", extra={"error": str(exc)})

    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        """Re-read (inside a snapshot: as kept, which this tracker's writes keep true),
        then move and post the audit comment (after a note waiting for the move) in one
        request: Linear stops at a mutation that fails, so there is never an audit of a
        move that did not happen."""
        with self._lock:
            guard = self._state_guards.setdefault(number, threading.Lock())
        with guard:
            kept = self._snapshots.get(number)
            if kept is not None and number in self._ids:
                issue_id, current = self._ids[number], kept.workflow_state
            else:
                node = self._node(number)
                issue_id = node["id"]
                current = state_from((node.get("state") or {}).get("name"))
            if current is not expected:
                raise StateConflict(
                    number,
                    expected.value if expected else None,
                    current.value if current else None,
                )
            notes = self._pending_notes().pop(number, [])
            for body in notes[:-1]:  # more than one waited: the last goes with the move
                self._add_comment(number, body, author)
            node, made = w.move_commented(
                self.client, self.team, issue_id, new, comment, notes[-1] if notes else None
            )
            self._written(node)
        for each in made:
            self._commented(number, comment_from(each))

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
        self._snapshots.forget([number])
        self._changed([number])
        return self._issue(node)

    def reopen_issue(self, number: int) -> Issue:
        node = self._node(number)
        if (node.get("state") or {}).get("type") in CLOSED_TYPES:
            moved = w.update_issue(self.client, self.team, node["id"], state=WorkflowState.BACKLOG)
            self._audit_move(number, node, moved)
            node = moved
        self._snapshots.forget([number])
        self._changed([number])
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
        kept = self._snapshots.get(child)
        w.set_parent(self.client, self._id(child), parent_id)
        self._changed([child, parent, kept.parent if kept is not None else None])
        if kept is None:  # its former parent is not known here
            self._snapshots.forget()
        else:
            self._snapshots.forget(n for n in (child, parent, kept.parent) if n is not None)

    def _add_blocked_by(self, blocked: int, blocking: int) -> None:
        w.add_blocking(self.client, self._id(blocking), self._id(blocked))
        self._snapshots.forget([blocked, blocking])
        self._changed([blocked, blocking])

    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        w.remove_blocking(self.client, self._id(blocking), self._id(blocked))
        self._snapshots.forget([blocked, blocking])
        self._changed([blocked, blocking])

    def archive_issue(self, number: int) -> Issue:
        w.archive_issue(self.client, self._id(number))
        self._snapshots.forget([number])
        self._changed([number])
        return self.get_issue(number)

    def unarchive_issue(self, number: int) -> Issue:
        w.unarchive_issue(self.client, self._id(number))
        self._snapshots.forget([number])
        self._changed([number])
        return self.get_issue(number)


def _relatives(issue: Issue | None) -> list[int]:
    """The issues a step reads with ``issue``: its parent, children and blockers."""
    if issue is None:
        return []
    parent = [] if issue.parent is None else [issue.parent]
    return [*parent, *issue.sub_issues, *issue.blocked_by, *issue.blocking]
