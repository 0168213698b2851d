"""What a tracker holds: issues, comments, pull requests, and the query over issues.

Plain frozen data. Times are epoch seconds (the task store and the dashboard use the
same); ``iso`` turns one into the ISO-8601 text JSON output and audit markers carry.
Relations are issue numbers of the same repository: every backend can answer them
cheaply, and callers that need a related issue's fields read it. A blocker in another
repository (GitHub allows it) is only named, never looked up here by number.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ralph.workflow import Estimate, Priority, WorkflowState

if TYPE_CHECKING:
    # A status update's annotation: reading issues builds no dashboard.
    from ralph.dashboard import ProjectStatus

    # A pull request's reviews and checks: reading issues reads none.
    from ralph.tracker._reviews import (
        CheckRun,
        MergeState,
        Review,
        ReviewDecision,
        ReviewThread,
    )

__all__ = [
    "Check",
    "CloseReason",
    "Comment",
    "Issue",
    "IssueOrder",
    "IssueQuery",
    "IssueStatus",
    "MergeStrategy",
    "NewIssue",
    "PullRequest",
    "PullRequestState",
    "StateChange",
    "StatusUpdate",
    "iso",
]


def iso(epoch: float | None) -> str | None:
    """Epoch seconds as ISO-8601 UTC with a ``Z``, GitHub's format."""
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class IssueStatus(enum.StrEnum):
    OPEN = "open"
    CLOSED = "closed"


class CloseReason(enum.StrEnum):
    COMPLETED = "completed"
    NOT_PLANNED = "not_planned"
    DUPLICATE = "duplicate"


@dataclass(frozen=True)
class Comment:
    id: int
    author: str
    body: str
    created_at: float


@dataclass(frozen=True, kw_only=True)
class Issue:
    number: int
    title: str
    body: str = ""
    workflow_state: WorkflowState | None = None
    estimate: Estimate | None = None
    priority: Priority | None = None
    labels: tuple[str, ...] = ()
    assignees: tuple[str, ...] = ()
    status: IssueStatus = IssueStatus.OPEN
    close_reason: CloseReason | None = None
    #: Open again after being closed (GitHub's state reason REOPENED), until closed again.
    reopened: bool = False
    parent: int | None = None
    sub_issues: tuple[int, ...] = ()
    blocked_by: tuple[int, ...] = ()
    blocking: tuple[int, ...] = ()
    #: Open blockers in another repository ("owner/repo#5"); the number lists above hold
    #: this repository's issues only. They block until closed there.
    foreign_blockers: tuple[str, ...] = ()
    comments: tuple[Comment, ...] = ()
    pull_requests: tuple[int, ...] = ()
    created_at: float = 0.0
    updated_at: float = 0.0
    closed_at: float | None = None
    url: str = ""
    #: Off the board's lists (``ralph hygiene --archive``); still read by number.
    archived: bool = False

    @property
    def is_open(self) -> bool:
        return self.status is IssueStatus.OPEN


@dataclass(frozen=True)
class NewIssue:
    """One issue ``Tracker.create_issues`` makes (``create_issue``'s arguments)."""

    title: str
    body: str = ""
    parent: int | None = None
    state: WorkflowState | None = None
    estimate: Estimate | None = None
    priority: Priority | None = None
    labels: tuple[str, ...] = ()
    author: str = "ralph"


@dataclass(frozen=True)
class StateChange:
    """What ``Tracker.set_state`` did. ``changed`` is False when the issue was already in
    the target state (nothing written)."""

    number: int
    previous: WorkflowState | None
    new: WorkflowState
    command: str
    resolved_from: str | None = None

    @property
    def changed(self) -> bool:
        return self.previous != self.new


class IssueOrder(enum.StrEnum):
    """``priority``: P0 first, then oldest; ``created``/``updated``: newest first, like the
    original; the ``_asc`` forms oldest first (triage wants the oldest untriaged issue)."""

    PRIORITY = "priority"
    CREATED = "created"
    CREATED_ASC = "created_asc"
    UPDATED = "updated"
    UPDATED_ASC = "updated_asc"


#: Each priority's place, highest first (sorting a board looks it up per issue).
_PRIORITY_RANK = {priority: rank for rank, priority in enumerate(Priority)}


@dataclass(frozen=True, kw_only=True)
class IssueQuery:
    """Filters are ANDed; an empty collection means "any"."""

    states: Collection[WorkflowState] = ()
    estimates: Collection[Estimate] = ()
    labels: Collection[str] = ()
    text: str = ""
    status: IssueStatus | None = IssueStatus.OPEN
    has_parent: bool | None = None
    parent: int | None = None
    updated_since: float | None = None
    #: False (the default): archived issues are left out; True: only them; None: both.
    archived: bool | None = False
    #: What a board works from (the loop, its reconciliation, the web board), not a
    #: person's ask: a backend whose every issue costs too much to read (Linear) may leave
    #: out closed issues long untouched that no issue it returns names.
    board: bool = False
    order: IssueOrder = IssueOrder.PRIORITY
    limit: int | None = None

    def matches(self, issue: Issue) -> bool:
        if self.status is not None and issue.status is not self.status:
            return False
        if self.archived is not None and issue.archived != self.archived:
            return False
        if self.states and issue.workflow_state not in self.states:
            return False
        if self.estimates and issue.estimate not in self.estimates:
            return False
        if self.labels and not set(self.labels) <= set(issue.labels):
            return False
        if self.text:
            needle = self.text.casefold()
            if needle not in issue.title.casefold() and needle not in issue.body.casefold():
                return False
        if self.has_parent is not None and (issue.parent is not None) != self.has_parent:
            return False
        if self.parent is not None and issue.parent != self.parent:
            return False
        return self.updated_since is None or issue.updated_at >= self.updated_since

    def sort_key(self, issue: Issue) -> tuple[float, ...]:
        if self.order is IssueOrder.PRIORITY:
            rank = _PRIORITY_RANK[issue.priority] if issue.priority else 99
            return (rank, issue.created_at, issue.number)
        if self.order is IssueOrder.CREATED:
            return (-issue.created_at, -issue.number)
        if self.order is IssueOrder.CREATED_ASC:
            return (issue.created_at, issue.number)
        if self.order is IssueOrder.UPDATED:
            return (-issue.updated_at, -issue.number)
        return (issue.updated_at, issue.number)

    def apply(self, issues: Collection[Issue]) -> list[Issue]:
        """Filter, order and limit ``issues`` (the in-memory evaluation every backend
        can fall back on)."""
        found = sorted((i for i in issues if self.matches(i)), key=self.sort_key)
        return found if self.limit is None else found[: self.limit]


@dataclass(frozen=True, kw_only=True)
class StatusUpdate:
    """A status update on the board (GitHub Projects' own; kept by the local tracker).
    Dates are ``YYYY-MM-DD``."""

    id: str
    status: ProjectStatus | None
    body: str
    start_date: str | None = None
    target_date: str | None = None
    author: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0


class PullRequestState(enum.StrEnum):
    OPEN = "open"
    MERGED = "merged"
    CLOSED = "closed"


class MergeStrategy(enum.StrEnum):
    MERGE = "merge"
    SQUASH = "squash"
    REBASE = "rebase"


@dataclass(frozen=True, kw_only=True)
class PullRequest:
    number: int
    title: str
    body: str
    head: str
    base: str
    state: PullRequestState = PullRequestState.OPEN
    #: None while unknown (GitHub computes it lazily); locally always known for open PRs.
    mergeable: bool | None = None
    #: The check runs on the head commit, required or not.
    checks: tuple[CheckRun, ...] = ()
    reviews: tuple[Review, ...] = ()
    threads: tuple[ReviewThread, ...] = ()
    #: None where the host has no review rule to judge by.
    review_decision: ReviewDecision | None = None
    #: None where the host does not say (the local tracker derives it).
    merge_state: MergeState | None = None
    #: The head commit: a merge names it so a push after the last read is not merged.
    head_oid: str | None = None
    author: str = ""
    merge_commit: str | None = None
    created_at: float = 0.0
    merged_at: float | None = None
    url: str = ""
    #: The tracker's issues the body closes, as its code host read them with
    #: ``Tracker.closed_by``; None: GitHub's ``Closes #N`` read from the body.
    closing: tuple[int, ...] | None = None
    #: Why the host's merge queue last removed it unmerged, while it is out of the queue
    #: ("" when the queue gave no reason; None: never removed, or queued again since).
    queue_removal: str | None = None
    #: The head commit it had when the queue removed it (None: not said).
    queue_removal_head: str | None = None

    @property
    def closes(self) -> tuple[int, ...]:
        if self.closing is not None:
            return self.closing
        from ralph.github import closing_references  # GitHub's keywords, read when asked

        return closing_references(self.body)


@dataclass(frozen=True)
class Check:
    """One line of what ``ralph doctor`` reports of a tracker."""

    name: str
    ok: bool
    detail: str
    #: Not a failure, but worth knowing (what Ralph does without something).
    warning: bool = False
