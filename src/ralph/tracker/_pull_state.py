"""How a host with no rules of its own (the local code host) judges a pull
request from its records, the way GitHub judges one from branch protection: the review
decision, the merge state, and the reviews it refuses to take."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Sequence

from ralph.errors import InvalidInput
from ralph.tracker._fields import check_name
from ralph.tracker._model import PullRequest, PullRequestState
from ralph.tracker._reviews import (
    CheckRun,
    MergeState,
    Review,
    ReviewComment,
    ReviewDecision,
    ReviewEvent,
    ReviewState,
)

__all__ = [
    "check_review",
    "check_reviewable",
    "merge_state",
    "no_thread",
    "not_changed",
    "not_reviewable",
    "required_marked",
    "review_decision",
    "review_state",
]

_STATE_OF = {
    ReviewEvent.APPROVE: ReviewState.APPROVED,
    ReviewEvent.REQUEST_CHANGES: ReviewState.CHANGES_REQUESTED,
    ReviewEvent.COMMENT: ReviewState.COMMENTED,
}
#: What a review that needs a body does, in the refusal (GitHub's tracker's words).
_NEEDS_BODY = {
    ReviewEvent.REQUEST_CHANGES: "requests changes",
    ReviewEvent.COMMENT: "comments",
}


def review_state(event: ReviewEvent) -> ReviewState:
    return _STATE_OF[event]


def review_decision(reviews: Sequence[Review]) -> ReviewDecision:
    """Each author's standing review is their latest approval or change request (a
    comment leaves it standing, as on GitHub; a dismissed review counts for nothing).
    Any change request outweighs every approval."""
    standing: dict[str, ReviewState] = {}
    for review in sorted(reviews, key=lambda r: r.submitted_at):
        if review.state in (ReviewState.APPROVED, ReviewState.CHANGES_REQUESTED):
            standing[review.author] = review.state
    if ReviewState.CHANGES_REQUESTED in standing.values():
        return ReviewDecision.CHANGES_REQUESTED
    if ReviewState.APPROVED in standing.values():
        return ReviewDecision.APPROVED
    return ReviewDecision.REVIEW_REQUIRED


def required_marked(checks: Iterable[CheckRun], required: Collection[str]) -> tuple[CheckRun, ...]:
    """The checks with ``required`` set where the rules require them, as GitHub marks
    the checks branch protection requires, whoever reported them."""
    return tuple(
        check
        if check.required or check.name not in required
        else dataclasses.replace(check, required=True)
        for check in checks
    )


def merge_state(
    state: PullRequestState,
    mergeable: bool | None,
    checks: Sequence[CheckRun],
    required: Collection[str],
) -> MergeState | None:
    """DIRTY when head does not merge into base; BLOCKED when a required check (one of
    ``required``, or one recorded as required) is missing, pending or failed; UNSTABLE
    when only optional checks fail or wait; else CLEAN. None once it is not open."""
    if state is not PullRequestState.OPEN:
        return None
    if mergeable is None:
        return MergeState.UNKNOWN
    if not mergeable:
        return MergeState.DIRTY
    by_name = {check.name: check for check in checks}
    names = set(required) | {check.name for check in checks if check.required}
    if any(name not in by_name or not by_name[name].passed for name in names):
        return MergeState.BLOCKED
    if any(not check.passed for check in checks):
        return MergeState.UNSTABLE
    return MergeState.CLEAN


def check_review(
    event: ReviewEvent,
    body: str,
    comments: Sequence[ReviewComment],
    author: str,
) -> None:
    """Refuse, in one line, a review no host would take: a change request or comment
    without a body, an inline comment without a file, a line or a text. (Whether the
    pull request is open and the file one it changes is the backend's to check.)"""
    check_name(author, "the reviewer")
    if event in _NEEDS_BODY and not body.strip():
        raise InvalidInput(f"a review that {_NEEDS_BODY[event]} needs a body saying why")
    for comment in comments:
        if not comment.path.strip() or "\n" in comment.path or "\x00" in comment.path:
            raise InvalidInput(f"an inline comment needs a file path, not {comment.path!r}")
        if comment.line < 1:
            raise InvalidInput(
                f"line {comment.line} of {comment.path} does not exist; lines start at 1"
            )
        if not comment.body.strip():
            raise InvalidInput(f"the inline comment on {comment.path}:{comment.line} is empty")


def check_reviewable(pr: PullRequest) -> None:
    """Refuse a review of a pull request that is no longer open."""
    if pr.state is not PullRequestState.OPEN:
        raise not_reviewable(pr.number, pr.state)


def not_reviewable(number: int, state: PullRequestState) -> InvalidInput:
    return InvalidInput(f"pull request #{number} is {state.value}; there is nothing to review")


def not_changed(number: int, path: str, changed: Iterable[str]) -> InvalidInput:
    """The refusal of an inline comment on a file the pull request leaves alone."""
    files = sorted(changed)
    listed = ", ".join(files[:5]) + (" ..." if len(files) > 5 else "")
    return InvalidInput(
        f"pull request #{number} does not change {path}; comment on a file it changes "
        f"({listed or 'it changes none'})"
    )


def no_thread(thread_id: str) -> InvalidInput:
    return InvalidInput(f"there is no review thread {thread_id!r}; see ralph pr show N")
