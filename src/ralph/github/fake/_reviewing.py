"""Reviews on the fake: a review (pending until submitted, or submitted with its event),
the review threads its inline comments open, replies (each filed under a review of its
own, as GitHub does), review requests, and GitHub's refusals of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ralph.github.fake._model import Account, GraphQLFault, Node, _iso, connection

if TYPE_CHECKING:
    from ralph.github.fake._pulls import PullRequest

__all__ = [
    "Review",
    "ReviewComment",
    "ReviewThread",
    "add_review",
    "reply",
    "request_reviews",
    "submit_review",
]

# GitHub's words (quoted in reports of its API).
_OWN_REVIEW = {
    "APPROVE": "Can not approve your own pull request",
    "REQUEST_CHANGES": "Can not request changes on your own pull request",
}
_NOT_IN_DIFF = (
    "Pull request review thread line must be part of the diff, and Pull request review "
    "thread diff hunk can't be blank"
)
_AUTHOR_REQUESTED = "Review cannot be requested from pull request author."
# Wording of ours: GitHub's is not known.
_BLANK_REVIEW = "Body can't be blank (a review that comments or requests changes needs one)"
_REVIEW_STATES = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}


def _invalid(message: str) -> GraphQLFault:
    return GraphQLFault("UNPROCESSABLE", message)


class Review(Node):
    typename = "PullRequestReview"

    def __init__(self, pr: PullRequest, author: Account, state: str, body: str) -> None:
        super().__init__(pr.world, "PRR_")
        self.pullRequest = pr
        self.repository = pr.repository
        self.author = author
        self.state = state
        self.body = self.bodyText = body
        self.databaseId = next(pr.world.database_ids)
        self.createdAt = self.updatedAt = _iso(pr.world.clock())
        self.submittedAt: str | None = None
        self.commit = {"oid": pr.head_oid()}
        self.url = f"{pr.url}#pullrequestreview-{self.databaseId}"
        #: Threads a pending review will open when it is submitted: (path, line, body).
        self.drafts: list[tuple[str, int, str]] = []
        self.comment_list: list[ReviewComment] = []

    @property
    def publishedAt(self) -> str | None:
        return self.submittedAt

    def comments(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.comment_list, **page)


class ReviewThread(Node):
    typename = "PullRequestReviewThread"

    def __init__(self, pr: PullRequest, path: str, line: int, diff_hunk: str) -> None:
        super().__init__(pr.world, "PRRT_")
        self.pullRequest = pr
        self.repository = pr.repository
        self.path = path
        self.line = self.originalLine = line
        self.startLine = self.originalStartLine = self.startDiffSide = None
        self.diffSide = "RIGHT"
        self.subjectType = "LINE"
        self.diff_hunk = diff_hunk
        self.isResolved = False
        self.resolvedBy: Account | None = None
        self.isOutdated = False
        self.viewerCanReply = self.viewerCanResolve = self.viewerCanUnresolve = True
        self.comment_list: list[ReviewComment] = []

    @property
    def isCollapsed(self) -> bool:
        return self.isResolved

    def comments(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self.comment_list, **page)


class ReviewComment(Node):
    typename = "PullRequestReviewComment"

    def __init__(self, thread: ReviewThread, review: Review, author: Account, body: str) -> None:
        super().__init__(thread.world, "PRRC_")
        self.thread = thread
        self.pullRequest = thread.pullRequest
        self.pullRequestReview = review
        self.repository = thread.repository
        self.author = author
        self.body = self.bodyText = body
        self.path = thread.path
        self.line = self.originalLine = thread.line
        self.diffHunk = thread.diff_hunk
        self.replyTo = thread.comment_list[0] if thread.comment_list else None
        self.databaseId = next(thread.world.database_ids)
        self.createdAt = self.updatedAt = _iso(thread.world.clock())
        self.url = f"{self.pullRequest.url}#discussion_r{self.databaseId}"
        self.outdated = False
        self.state = "SUBMITTED"
        self.subjectType = "LINE"
        thread.comment_list.append(self)
        review.comment_list.append(self)


def add_review(
    pr: PullRequest,
    author: Account,
    event: str | None,
    body: str,
    threads: Sequence[Mapping[str, Any]] = (),
) -> Review:
    """A review by ``author``: submitted with ``event``, or pending (None) until
    submitted; each of ``threads`` (path, line, body) opens a review thread. Refused in
    GitHub's words as GitHub refuses it."""
    drafts = [(str(t["path"]), int(t["line"]), str(t["body"])) for t in threads]
    for path, line, _ in drafts:
        _hunk(pr, path, line)
    if event is not None:
        _check_submission(pr, author, event, body, drafts)
    review = Review(pr, author, "PENDING", body)
    review.drafts = drafts
    if event is not None:
        submit_review(review, event, body)
    pr.review_list.append(review)
    return review


def _check_submission(
    pr: PullRequest, author: Account, event: str, body: str, drafts: Sequence[object]
) -> None:
    if event == "DISMISS":
        raise _invalid("A review can only be dismissed with dismissPullRequestReview")
    if author is pr.author and event in _OWN_REVIEW:
        raise _invalid(_OWN_REVIEW[event])
    if event != "APPROVE" and not body.strip() and not drafts:
        raise _invalid(_BLANK_REVIEW)


def submit_review(review: Review, event: str, body: str | None = None) -> None:
    """Submit a pending ``review`` as ``event`` (APPROVE, REQUEST_CHANGES, COMMENT)."""
    pr = review.pullRequest
    text = review.body if body is None else body
    _check_submission(pr, review.author, event, text, review.drafts)
    review.body = review.bodyText = text
    review.state = _REVIEW_STATES.get(event, "COMMENTED")
    review.submittedAt = _iso(pr.world.clock())
    review.commit = {"oid": pr.head_oid()}
    for path, line, comment in review.drafts:
        thread = ReviewThread(pr, path, line, _hunk(pr, path, line))
        pr.thread_list.append(thread)
        ReviewComment(thread, review, review.author, comment)
    review.drafts = []
    pr.requested = [a for a in pr.requested if a is not review.author]
    pr.updatedAt = review.submittedAt


def _hunk(pr: PullRequest, path: str, line: int) -> str:
    paths = pr.changed_paths()
    hunk = None
    if paths is None or path in paths:
        hunk = pr.repository.diff_hunk(pr.baseRefName, pr.headRefName, path, line)
    if hunk is None:
        raise _invalid(_NOT_IN_DIFF)
    return hunk


def reply(thread: ReviewThread, author: Account, body: str) -> ReviewComment:
    """A reply on ``thread``: GitHub files it under a review of its own (COMMENTED)."""
    if not body.strip():
        raise _invalid("Body can't be blank")
    pr = thread.pullRequest
    review = Review(pr, author, "COMMENTED", "")
    review.submittedAt = review.createdAt
    pr.review_list.append(review)
    return ReviewComment(thread, review, author, body)


def request_reviews(pr: PullRequest, accounts: Sequence[Account], *, union: bool) -> None:
    if pr.author in accounts:
        raise _invalid(_AUTHOR_REQUESTED)
    kept = pr.requested if union else []
    pr.requested = kept + [a for a in accounts if a not in kept]
