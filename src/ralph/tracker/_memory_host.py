"""An in-memory code host for tests and demos: pull requests that merge without git.
Thread-safe. ``set_mergeable`` rehearses a conflict, ``push`` a new head commit and
``set_diff`` the files a pull request changes (which inline review comments must be on);
a merge closes its issues on the tracker it was given, as every host's does."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ralph.errors import HeadMoved, MergeConflict, PullRequestNotFound, PullRequestNotOpen
from ralph.git import hunk_containing
from ralph.tracker._code_host import CodeHost
from ralph.tracker._model import MergeStrategy, PullRequest, PullRequestState
from ralph.tracker._pull_state import (
    check_reviewable,
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
from ralph.tracker._tracker import Tracker

__all__ = ["MemoryCodeHost"]


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


class MemoryCodeHost(CodeHost):
    kind = "memory"

    def __init__(
        self,
        tracker: Tracker,
        *,
        clock: Callable[[], float] | None = None,
        required_checks: Collection[str] = (),
        first_number: int = 1,
    ) -> None:
        """``required_checks``: the checks every pull request needs to pass to merge;
        ``first_number``: the first pull request's number (its own numbers, apart from
        the tracker's issues)."""
        super().__init__(tracker, clock=clock)
        self.required_checks = tuple(required_checks)
        self._lock = threading.RLock()
        self._prs: dict[int, PullRequest] = {}
        self._records: dict[int, _PullRecords] = {}
        self._thread_pr: dict[str, int] = {}
        self._next_number = first_number
        self._next_id = 1

    # -- reads --------------------------------------------------------------------------------

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

    def merge_settings(self) -> MergeSettings:
        return MergeSettings()

    # -- the test levers ------------------------------------------------------------------------

    def set_mergeable(self, number: int, mergeable: bool) -> None:
        """Rehearse a conflict: an unmergeable pull request refuses to merge."""
        with self._lock:
            self._pull(number)
            self._prs[number] = dataclasses.replace(self._prs[number], mergeable=mergeable)

    def set_diff(self, number: int, diff: Mapping[str, str]) -> None:
        """The files the pull request changes, each with its unified diff (``@@`` hunks)."""
        with self._lock:
            self._pull(number)
            self._records[number].diff = dict(diff)

    def push(self, number: int, diff: Mapping[str, str] | None = None) -> str:
        """Rehearse a push to the head branch: a new head commit (returned), without the
        check runs of the old one; ``diff`` replaces the files it changes."""
        with self._lock:
            self._pull(number)
            records = self._records[number]
            records.pushes += 1
            if diff is not None:
                records.diff = dict(diff)
            return _head_oid(number, records.pushes)

    # -- writes -------------------------------------------------------------------------------

    def _create_pull_request(
        self, head: str, base: str, title: str, body: str, author: str
    ) -> PullRequest:
        with self._lock:
            number = self._next_number
            self._next_number += 1
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

    def _open_pr(self, number: int) -> PullRequest:
        pr = self._pull(number)
        if pr.state is not PullRequestState.OPEN:
            raise PullRequestNotOpen(number, pr.state.value)
        return pr

    def _merge_pull_request(
        self, number: int, strategy: MergeStrategy, expected_head: str | None
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
        self.tracker.close_merged(merged)
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

    def _submit_review(
        self,
        number: int,
        event: ReviewEvent,
        body: str,
        comments: Sequence[ReviewComment],
        author: str,
    ) -> Review:
        with self._lock:
            pr = self._pull(number)
            check_reviewable(pr)
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

    def _reply_to_thread(self, thread_id: str, body: str, author: str) -> ThreadComment:
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

    def _request_review(self, number: int, reviewers: Sequence[str]) -> None:
        with self._lock:
            self._open_pr(number)  # nobody to notify here: the decision stays as it is

    def _record_check(self, number: int, check: CheckRun) -> None:
        with self._lock:
            pr = self._open_pr(number)
            assert pr.head_oid is not None
            self._records[number].checks[(pr.head_oid, check.name)] = check
