"""An in-memory tracker for tests and demos. Thread-safe; pull requests merge without git:
``set_mergeable`` rehearses a conflict, ``push`` a new head commit and ``set_diff`` the
files a pull request changes (which inline review comments must be on)."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ralph.dashboard import ProjectStatus
from ralph.errors import (
    HeadMoved,
    InvalidInput,
    IssueNotFound,
    MergeConflict,
    PullRequestNotFound,
    PullRequestNotOpen,
    StateConflict,
)
from ralph.git import hunk_containing
from ralph.tracker._fields import check_name
from ralph.tracker._model import (
    CloseReason,
    Comment,
    Issue,
    IssueQuery,
    IssueStatus,
    MergeStrategy,
    PullRequest,
    PullRequestState,
    StatusUpdate,
)
from ralph.tracker._project_board import ProjectBoard
from ralph.tracker._pull_state import (
    check_review,
    merge_state,
    no_thread,
    not_changed,
    required_marked,
    review_decision,
    review_state,
)
from ralph.tracker._reviews import (
    CheckRun,
    MergeSettings,
    Review,
    ReviewComment,
    ReviewEvent,
    ReviewThread,
    ThreadComment,
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

    def _update_issue(
        self,
        number: int,
        title: str | None,
        body: str | None,
        labels: Sequence[str] | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> Issue:
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

    def _add_comment(self, number: int, body: str, author: str) -> Comment:
        with self._lock:
            issue = self._issues.get(number)
            if issue is None:
                raise IssueNotFound(number)
            comment = Comment(self._next_comment, author, body, self.now())
            self._next_comment += 1
            self._put(number, comments=(*issue.comments, comment))
            return comment

    def _close_issue(self, number: int, reason: CloseReason, duplicate_of: int | None) -> Issue:
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

    # -- pull requests ------------------------------------------------------------------------

    def create_pull_request(
        self, *, head: str, base: str, title: str, body: str = "", author: str = "ralph"
    ) -> PullRequest:
        check_name(author, "the author")
        with self._lock:
            number = self._allocate()
            self._prs[number] = PullRequest(
                number=number,
                title=title,
                body=body,
                head=head,
                base=base,
                mergeable=True,
                author=author,
                created_at=self.now(),
                url=f"memory://pulls/{number}",
            )
            self._records[number] = _PullRecords(author)
            return self._pull(number)

    def _pull(self, number: int) -> PullRequest:
        """The pull request with its records, as a read shows it; the lock is held."""
        if number not in self._prs:
            raise PullRequestNotFound(number)
        pr, records = self._prs[number], self._records[number]
        head = _head_oid(number, records.pushes)
        on_head = [check for (oid, _), check in records.checks.items() if oid == head]
        checks = required_marked(sorted(on_head, key=lambda c: c.name), self.required_checks)
        return dataclasses.replace(
            pr,
            checks=checks,
            reviews=tuple(records.reviews),
            threads=tuple(records.threads.values()),
            review_decision=review_decision(records.reviews),
            merge_state=merge_state(pr.state, pr.mergeable, checks, self.required_checks),
            head_oid=head,
        )

    def get_pull_request(self, number: int) -> PullRequest:
        with self._lock:
            return self._pull(number)

    def list_pull_requests(
        self,
        *,
        issue: int | None = None,
        state: PullRequestState | None = None,
        head: str | None = None,
    ) -> list[PullRequest]:
        with self._lock:
            prs = [self._pull(number) for number in sorted(self._prs)]
        return [
            pr
            for pr in prs
            if (issue is None or issue in pr.closes)
            and (state is None or pr.state is state)
            and (head is None or pr.head == head)
        ]

    def set_mergeable(self, number: int, mergeable: bool) -> None:
        """Rehearse a conflict: an unmergeable pull request refuses to merge."""
        with self._lock:
            self.get_pull_request(number)
            self._prs[number] = dataclasses.replace(self._prs[number], mergeable=mergeable)

    def set_diff(self, number: int, diff: Mapping[str, str]) -> None:
        """The files the pull request changes, each with its unified diff (``@@`` hunks)."""
        with self._lock:
            self.get_pull_request(number)
            self._records[number].diff = dict(diff)

    def push(self, number: int, diff: Mapping[str, str] | None = None) -> str:
        """Rehearse a push to the head branch: a new head commit (returned), without the
        check runs of the old one; ``diff`` replaces the files it changes."""
        with self._lock:
            self.get_pull_request(number)
            records = self._records[number]
            records.pushes += 1
            if diff is not None:
                records.diff = dict(diff)
            return _head_oid(number, records.pushes)

    def _open_pr(self, number: int) -> PullRequest:
        pr = self.get_pull_request(number)
        if pr.state is not PullRequestState.OPEN:
            raise PullRequestNotOpen(number, pr.state.value)
        return pr

    def merge_pull_request(
        self,
        number: int,
        strategy: MergeStrategy = MergeStrategy.MERGE,
        *,
        expected_head: str | None = None,
    ) -> PullRequest:
        with self._lock:
            pr = self._open_pr(number)
            if expected_head is not None and expected_head != pr.head_oid:
                raise HeadMoved(number, expected_head, pr.head_oid)
            if not pr.mergeable:
                raise MergeConflict(number, pr.head, pr.base, ())
            self._prs[number] = dataclasses.replace(
                self._prs[number],
                state=PullRequestState.MERGED,
                merge_commit=f"memory-{strategy.value}-{number}",
                merged_at=self.now(),
            )
            merged = self._pull(number)
            for issue, comment in self._closing_moves(merged):
                if comment is not None:
                    self._put(issue.number, workflow_state=WorkflowState.DONE)
                    self.add_comment(issue.number, comment, author=f"pull request #{number}")
                self.close_issue(issue.number)
            return merged

    def close_pull_request(self, number: int) -> PullRequest:
        with self._lock:
            self._open_pr(number)
            self._prs[number] = dataclasses.replace(
                self._prs[number], state=PullRequestState.CLOSED
            )
            return self._pull(number)

    # -- reviews, threads, checks -------------------------------------------------------------

    def _new_id(self) -> str:
        made = self._next_id
        self._next_id += 1
        return str(made)

    def submit_review(
        self,
        number: int,
        event: ReviewEvent,
        body: str = "",
        *,
        comments: Sequence[ReviewComment] = (),
        author: str = "ralph",
    ) -> Review:
        with self._lock:
            pr = self.get_pull_request(number)
            check_review(pr, event, body, comments, author)
            records = self._records[number]
            for comment in comments:
                if comment.path not in records.diff:
                    raise not_changed(number, comment.path, records.diff)
            now = self.now()
            review = Review(
                id=self._new_id(),
                author=author,
                state=review_state(event),
                body=body,
                submitted_at=now,
                commit=pr.head_oid or "",
            )
            records.reviews.append(review)
            for comment in comments:
                thread_id = self._new_id()
                first = ThreadComment(
                    id=self._new_id(), author=author, body=comment.body, created_at=now
                )
                records.threads[thread_id] = ReviewThread(
                    id=thread_id,
                    path=comment.path,
                    line=comment.line,
                    diff_hunk=hunk_containing(records.diff[comment.path], comment.line),
                    comments=(first,),
                )
                self._thread_pr[thread_id] = number
            return review

    def _thread(self, thread_id: str) -> tuple[_PullRecords, ReviewThread]:
        number = self._thread_pr.get(thread_id)
        if number is None:
            raise no_thread(thread_id)
        records = self._records[number]
        return records, records.threads[thread_id]

    def reply_to_thread(self, thread_id: str, body: str, *, author: str = "ralph") -> ThreadComment:
        check_name(author, "the author")
        if not body.strip():
            raise InvalidInput("a reply on a review thread needs a body")
        with self._lock:
            records, thread = self._thread(thread_id)
            reply = ThreadComment(
                id=self._new_id(), author=author, body=body, created_at=self.now()
            )
            records.threads[thread_id] = dataclasses.replace(
                thread, comments=(*thread.comments, reply)
            )
            return reply

    def resolve_thread(self, thread_id: str) -> ReviewThread:
        with self._lock:
            records, thread = self._thread(thread_id)
            records.threads[thread_id] = dataclasses.replace(thread, resolved=True)
            return records.threads[thread_id]

    def request_review(self, number: int, reviewers: Sequence[str] = ()) -> None:
        for reviewer in reviewers:
            check_name(reviewer, "the reviewer")
        with self._lock:
            self._open_pr(number)  # nobody to notify here: the decision stays as it is

    def merge_settings(self) -> MergeSettings:
        return MergeSettings()

    def record_check(self, number: int, check: CheckRun) -> None:
        check_name(check.name, "the check's name")
        with self._lock:
            pr = self._open_pr(number)
            assert pr.head_oid is not None
            self._records[number].checks[(pr.head_oid, check.name)] = check
