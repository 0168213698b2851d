"""An in-memory tracker for tests and demos. Thread-safe; pull requests merge without git:
``set_mergeable`` rehearses a conflict, ``push`` a new head commit and ``set_diff`` the
files a pull request changes (which inline review comments must be on)."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ralph._text import check_title
from ralph.dashboard import ProjectStatus
from ralph.errors import (
    IssueNotFound,
    StateConflict,
)
from ralph.tracker._fields import check_labels, check_name
from ralph.tracker._model import (
    CloseReason,
    Comment,
    Issue,
    IssueQuery,
    IssueStatus,
    PullRequest,
    StatusUpdate,
)
from ralph.tracker._project_board import ProjectBoard
from ralph.tracker._reviews import (
    CheckRun,
    Review,
    ReviewThread,
)
from ralph.tracker._simple_board import MemoryBoardRecords, SimpleBoard
from ralph.tracker._tracker import Tracker
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = ["MemoryTracker"]


class _Index:
    """The reverse relations, computed once per read."""

    def __init__(
        self,
        issues: Mapping[int, Issue],
        blocked_by: Mapping[int, Sequence[int]],
        prs: Mapping[int, PullRequest],
    ) -> None:
        self.children: dict[int, list[int]] = {}
        self.blocking: dict[int, list[int]] = {}
        self.pull_requests: dict[int, list[int]] = {}
        for number, issue in issues.items():
            if issue.parent is not None:
                self.children.setdefault(issue.parent, []).append(number)
        for number, blockers in blocked_by.items():
            for blocker in blockers:
                self.blocking.setdefault(blocker, []).append(number)
        for number, pr in prs.items():
            for closed in pr.closes:
                self.pull_requests.setdefault(closed, []).append(number)


@dataclass
class _PullRecords:
    """What a pull request gathers besides its fields."""

    author: str
    #: How many commits its head has had (a push adds one).
    pushes: int = 1
    #: The files it changes, each with its unified diff.
    diff: dict[str, str] = field(default_factory=dict)
    reviews: list[Review] = field(default_factory=list)
    threads: dict[str, ReviewThread] = field(default_factory=dict)
    #: (head commit, name) -> the check run.
    checks: dict[tuple[str, str], CheckRun] = field(default_factory=dict)


def _head_oid(number: int, pushes: int) -> str:
    return hashlib.sha1(f"memory:{number}:{pushes}".encode()).hexdigest()


class MemoryTracker(Tracker):
    kind = "memory"

    def __init__(
        self,
        *,
        clock: Callable[[], float] | None = None,
        required_checks: Collection[str] = (),
    ) -> None:
        """``required_checks``: the checks every pull request needs to pass to merge."""
        super().__init__(clock=clock)
        self.required_checks = tuple(required_checks)
        self._lock = threading.RLock()
        self._issues: dict[int, Issue] = {}
        self._prs: dict[int, PullRequest] = {}
        self._records: dict[int, _PullRecords] = {}
        self._thread_pr: dict[str, int] = {}
        self._blocked_by: dict[int, list[int]] = {}
        self._next_number = 1
        self._next_comment = 1
        self._next_id = 1
        self._status_updates: dict[str, StatusUpdate] = {}
        self._next_status_update = 1
        self._board = SimpleBoard(self, MemoryBoardRecords(self._clear), repository="memory")

    def project_board(self) -> ProjectBoard:
        return self._board

    def _clear(self, number: int, field: str) -> None:
        """Empty the Estimate or Priority of an issue (the board's clear_field)."""
        with self._lock:
            self._put(number, **{field.lower(): None})

    # -- reads ------------------------------------------------------------------------------

    def _view(self, number: int, index: _Index | None = None) -> Issue:
        issue = self._issues.get(number)
        if issue is None:
            raise IssueNotFound(number)
        index = index or _Index(self._issues, self._blocked_by, self._prs)
        return dataclasses.replace(
            issue,
            sub_issues=tuple(index.children.get(number, ())),
            blocked_by=tuple(self._blocked_by.get(number, ())),
            blocking=tuple(index.blocking.get(number, ())),
            pull_requests=tuple(index.pull_requests.get(number, ())),
        )

    def get_issue(self, number: int) -> Issue:
        with self._lock:
            return self._view(number)

    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        with self._lock:
            index = _Index(self._issues, self._blocked_by, self._prs)
            issues = [dataclasses.replace(self._view(n, index), comments=()) for n in self._issues]
        return (query or IssueQuery()).apply(issues)

    # -- writes -----------------------------------------------------------------------------

    def _put(self, number: int, **changes: object) -> Issue:
        issue = self._issues.get(number)
        if issue is None:
            raise IssueNotFound(number)
        self._issues[number] = dataclasses.replace(issue, updated_at=self.now(), **changes)  # type: ignore[arg-type]
        return self._view(number)

    def _allocate(self) -> int:
        number = self._next_number
        self._next_number += 1
        return number

    def create_issue(
        self,
        title: str,
        *,
        body: str = "",
        parent: int | None = None,
        state: WorkflowState | None = None,
        estimate: Estimate | None = None,
        priority: Priority | None = None,
        labels: Sequence[str] = (),
        author: str = "ralph",
    ) -> Issue:
        check_title(title)
        check_labels(labels)
        with self._lock:
            if parent is not None and parent not in self._issues:
                raise IssueNotFound(parent)
            number = self._allocate()
            now = self.now()
            self._issues[number] = Issue(
                number=number,
                title=title,
                body=body,
                workflow_state=state,
                estimate=estimate,
                priority=priority,
                labels=tuple(dict.fromkeys(labels)),
                parent=parent,
                created_at=now,
                updated_at=now,
                url=f"memory://issues/{number}",
            )
            return self._view(number)

    def update_issue(
        self,
        number: int,
        *,
        title: str | None = None,
        body: str | None = None,
        labels: Sequence[str] | None = None,
        estimate: Estimate | None = None,
        priority: Priority | None = None,
    ) -> Issue:
        if title is not None:
            check_title(title)
        check_labels(labels or ())
        changes: dict[str, object] = {}
        for name, value in (
            ("title", title),
            ("body", body),
            ("estimate", estimate),
            ("priority", priority),
        ):
            if value is not None:
                changes[name] = value
        if labels is not None:
            changes["labels"] = tuple(dict.fromkeys(labels))
        with self._lock:
            return self._put(number, **changes)

    def add_comment(self, number: int, body: str, *, author: str = "ralph") -> Comment:
        check_name(author, "the author")
        with self._lock:
            issue = self._issues.get(number)
            if issue is None:
                raise IssueNotFound(number)
            comment = Comment(self._next_comment, author, body, self.now())
            self._next_comment += 1
            self._put(number, comments=(*issue.comments, comment))
            return comment

    def close_issue(
        self,
        number: int,
        reason: CloseReason = CloseReason.COMPLETED,
        *,
        duplicate_of: int | None = None,
    ) -> Issue:
        with self._lock:
            return self._put(
                number,
                status=IssueStatus.CLOSED,
                close_reason=reason,
                closed_at=self.now(),
                reopened=False,
            )

    def reopen_issue(self, number: int) -> Issue:
        with self._lock:
            was_closed = self._view(number).status is IssueStatus.CLOSED
            return self._put(
                number,
                status=IssueStatus.OPEN,
                close_reason=None,
                closed_at=None,
                reopened=was_closed or self._view(number).reopened,
            )

    def _set_parent(self, child: int, parent: int | None) -> None:
        with self._lock:
            self._put(child, parent=parent)

    def _add_blocked_by(self, blocked: int, blocking: int) -> None:
        with self._lock:
            blockers = self._blockers(blocked, blocking)
            if blocking not in blockers:
                blockers.append(blocking)
            self._put(blocked)

    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        with self._lock:
            blockers = self._blockers(blocked, blocking)
            if blocking in blockers:
                blockers.remove(blocking)
            self._put(blocked)

    def _blockers(self, blocked: int, blocking: int) -> list[int]:
        """The issues ``blocked`` waits for (both issues must exist); the lock is held."""
        for number in (blocked, blocking):
            if number not in self._issues:
                raise IssueNotFound(number)
        return self._blocked_by.setdefault(blocked, [])

    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        with self._lock:
            current = self._view(number).workflow_state
            if current != expected:
                raise StateConflict(number, expected, current)
            self._put(number, workflow_state=new)
            self.add_comment(number, comment, author=author)

    # -- the board --------------------------------------------------------------------------

    def _archive(self, number: int, archived: bool) -> Issue:
        with self._lock:
            issue = self._issues.get(number)
            if issue is None:
                raise IssueNotFound(number)
            # Archiving is about the board, not the issue: its last update stays.
            self._issues[number] = dataclasses.replace(issue, archived=archived)
            return self._view(number)

    def archive_issue(self, number: int) -> Issue:
        return self._archive(number, True)

    def unarchive_issue(self, number: int) -> Issue:
        return self._archive(number, False)

    def _create_status_update(
        self,
        status: ProjectStatus,
        body: str,
        start_date: str | None,
        target_date: str | None,
        author: str,
    ) -> StatusUpdate:
        with self._lock:
            update_id = str(self._next_status_update)
            self._next_status_update += 1
            now = self.now()
            made = StatusUpdate(
                id=update_id,
                status=status,
                body=body,
                start_date=start_date,
                target_date=target_date,
                author=author,
                created_at=now,
                updated_at=now,
            )
            self._status_updates[update_id] = made
            return made

    def list_status_updates(self) -> list[StatusUpdate]:
        with self._lock:
            return sorted(
                self._status_updates.values(),
                key=lambda u: (u.created_at, int(u.id)),
                reverse=True,
            )

    def _update_status_update(
        self,
        update_id: str,
        status: ProjectStatus | None,
        body: str | None,
        start_date: str | None,
        target_date: str | None,
    ) -> StatusUpdate:
        with self._lock:
            found = self._status_updates.get(update_id)
            if found is None:
                raise self._no_status_update(update_id)
            changes = {
                name: value
                for name, value in (
                    ("status", status),
                    ("body", body),
                    ("start_date", start_date),
                    ("target_date", target_date),
                )
                if value is not None
            }
            changed = dataclasses.replace(found, updated_at=self.now(), **changes)  # type: ignore[arg-type]
            self._status_updates[update_id] = changed
            return changed

    def delete_status_update(self, update_id: str) -> None:
        with self._lock:
            if self._status_updates.pop(update_id, None) is None:
                raise self._no_status_update(update_id)
