"""What a pull request carries besides its branches: check runs, reviews, review threads
and how the host judges its mergeability. The words are GitHub's (``CheckRun``,
``reviewDecision``, ``mergeStateStatus``) so both backends and the merge policy read one
shape; the local tracker keeps the same records in its database."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "CheckConclusion",
    "CheckRun",
    "CheckStatus",
    "MergeSettings",
    "MergeState",
    "Review",
    "ReviewComment",
    "ReviewDecision",
    "ReviewEvent",
    "ReviewState",
    "ReviewThread",
    "ThreadComment",
]


class CheckStatus(enum.StrEnum):
    QUEUED = "queued"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


class CheckConclusion(enum.StrEnum):
    """GitHub's ``CheckConclusionState``, lower-cased; commit statuses map onto it."""

    SUCCESS = "success"
    FAILURE = "failure"
    NEUTRAL = "neutral"
    SKIPPED = "skipped"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"
    ACTION_REQUIRED = "action_required"
    STALE = "stale"


#: Conclusions that let a pull request merge, as GitHub's branch protection counts them.
_PASSING = frozenset({CheckConclusion.SUCCESS, CheckConclusion.NEUTRAL, CheckConclusion.SKIPPED})


@dataclass(frozen=True, kw_only=True)
class CheckRun:
    name: str
    status: CheckStatus = CheckStatus.COMPLETED
    #: Set once completed.
    conclusion: CheckConclusion | None = None
    #: Only required checks gate a merge (branch protection, rulesets; locally the
    #: project's test command).
    required: bool = False
    #: The end of the check's log, for the builder who has to fix it.
    summary: str = ""
    url: str = ""

    @property
    def pending(self) -> bool:
        return self.status is not CheckStatus.COMPLETED

    @property
    def passed(self) -> bool:
        return not self.pending and self.conclusion in _PASSING

    @property
    def failed(self) -> bool:
        return not self.pending and not self.passed


class ReviewEvent(enum.StrEnum):
    """What a reviewer submits (GitHub's ``PullRequestReviewEvent``)."""

    APPROVE = "APPROVE"
    REQUEST_CHANGES = "REQUEST_CHANGES"
    COMMENT = "COMMENT"


class ReviewState(enum.StrEnum):
    APPROVED = "APPROVED"
    CHANGES_REQUESTED = "CHANGES_REQUESTED"
    COMMENTED = "COMMENTED"
    DISMISSED = "DISMISSED"


class ReviewDecision(enum.StrEnum):
    """GitHub's ``reviewDecision``: the reviews taken together."""

    APPROVED = "APPROVED"
    CHANGES_REQUESTED = "CHANGES_REQUESTED"
    REVIEW_REQUIRED = "REVIEW_REQUIRED"


class MergeState(enum.StrEnum):
    """GitHub's ``mergeStateStatus``: whether the host would merge it now, and if not why."""

    BEHIND = "BEHIND"
    BLOCKED = "BLOCKED"
    CLEAN = "CLEAN"
    DIRTY = "DIRTY"
    DRAFT = "DRAFT"
    HAS_HOOKS = "HAS_HOOKS"
    UNKNOWN = "UNKNOWN"
    UNSTABLE = "UNSTABLE"


@dataclass(frozen=True, kw_only=True)
class Review:
    id: str
    author: str
    state: ReviewState
    body: str = ""
    submitted_at: float = 0.0
    #: The head commit the review was given on.
    commit: str = ""


@dataclass(frozen=True, kw_only=True)
class ReviewComment:
    """An inline comment submitted with a review; it opens a thread."""

    path: str
    line: int
    body: str


@dataclass(frozen=True, kw_only=True)
class ThreadComment:
    id: str
    author: str
    body: str
    created_at: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ReviewThread:
    id: str
    path: str
    line: int | None
    resolved: bool = False
    #: The lines of the diff the thread is attached to, as GitHub shows them.
    diff_hunk: str = ""
    comments: tuple[ThreadComment, ...] = ()


@dataclass(frozen=True, kw_only=True)
class MergeSettings:
    """How the repository lets pull requests merge."""

    merge_commit: bool = True
    squash: bool = True
    rebase: bool = True
    #: Merges go through a merge queue: Ralph enqueues and waits.
    merge_queue: bool = False
