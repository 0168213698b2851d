"""What a repository on the fake asks of its pull requests, as tests script it: a branch's
protection (required reviews and checks, up to date, conversations, a merge queue), the
checks its CI runs on every push, and how long GitHub takes to compute mergeability."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BranchProtection", "CheckPlan", "Mergeability"]


@dataclass
class BranchProtection:
    """A branch protection rule (or ruleset) on a base branch, in GitHub's terms."""

    #: ``requiredApprovingReviewCount``; 0: no review is required (``reviewDecision`` null).
    approvals: int = 0
    #: Required status check contexts (check run names or commit status contexts).
    checks: frozenset[str] = frozenset()
    #: ``requiresStrictStatusChecks``: the head must contain the base (else BEHIND).
    strict: bool = False
    #: ``requiresConversationResolution``: every review thread resolved.
    conversations: bool = False
    #: ``dismissesStaleReviews``: a push dismisses the approvals given before it.
    dismiss_stale: bool = False
    #: Pull requests into the branch merge through a merge queue, never directly.
    merge_queue: bool = False
    #: The queue merges an entry this long after it joined (None: when a test runs it).
    queue_seconds: float | None = None
    #: The method the queue merges with (a queue sets it, not the pull request).
    queue_method: str = "MERGE"


@dataclass(frozen=True)
class CheckPlan:
    """A check the repository's CI runs on every new head of a pull request: queued for
    ``queued`` seconds, then in progress for ``running`` seconds, then concluded. The
    n-th head a pull request has gets the n-th of ``conclusions`` (the last repeats), so
    a check can fail once and pass after a fix."""

    name: str
    conclusions: tuple[str, ...] = ("SUCCESS",)
    queued: float = 0.0
    running: float = 0.0
    #: Reported as a commit status (``StatusContext``) instead of a check run.
    status_context: bool = False
    summary: str = ""

    def conclusion(self, push: int) -> str:
        return self.conclusions[min(push, len(self.conclusions) - 1)]


@dataclass(frozen=True)
class Mergeability:
    """How long ``mergeable`` stays UNKNOWN after a head or base moves, as GitHub
    computes it in the background: the first ``reads`` reads, and for ``seconds``."""

    reads: int = 0
    seconds: float = 0.0
