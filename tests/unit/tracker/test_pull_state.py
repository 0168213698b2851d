"""How the local and memory code hosts judge a pull request from its records, by GitHub's
rules: the review decision from each reviewer's standing review, the merge state from
mergeability and the required checks."""

from __future__ import annotations

import pytest

from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    MergeState,
    PullRequestState,
    Review,
    ReviewDecision,
    ReviewState,
)
from ralph.tracker._pull_state import merge_state, review_decision

A, C, M, D = (
    ReviewState.APPROVED,
    ReviewState.CHANGES_REQUESTED,
    ReviewState.COMMENTED,
    ReviewState.DISMISSED,
)


def reviews(*given: tuple[str, ReviewState]) -> list[Review]:
    return [
        Review(id=str(n), author=who, state=state, submitted_at=float(n))
        for n, (who, state) in enumerate(given)
    ]


@pytest.mark.parametrize(
    ("given", "decision"),
    [
        ((), ReviewDecision.REVIEW_REQUIRED),
        ((("ann", M),), ReviewDecision.REVIEW_REQUIRED),
        ((("ann", A),), ReviewDecision.APPROVED),
        ((("ann", A), ("bob", C)), ReviewDecision.CHANGES_REQUESTED),
        ((("ann", C), ("ann", A)), ReviewDecision.APPROVED),  # her next review replaces it
        ((("ann", A), ("ann", C)), ReviewDecision.CHANGES_REQUESTED),
        ((("ann", C), ("ann", M)), ReviewDecision.CHANGES_REQUESTED),  # a comment leaves it
        ((("ann", A), ("ann", M)), ReviewDecision.APPROVED),
        ((("ann", D),), ReviewDecision.REVIEW_REQUIRED),
        ((("ann", C), ("bob", A), ("ann", A)), ReviewDecision.APPROVED),
    ],
)
def test_the_review_decision_follows_each_reviewer_s_standing_review(given, decision):
    assert review_decision(reviews(*given)) is decision


def test_reviews_count_in_the_order_they_were_given_whatever_the_listing_order():
    listed = list(reversed(reviews(("ann", C), ("ann", A))))
    assert review_decision(listed) is ReviewDecision.APPROVED


def check(name: str, conclusion: CheckConclusion | None, *, required: bool = False) -> CheckRun:
    status = CheckStatus.IN_PROGRESS if conclusion is None else CheckStatus.COMPLETED
    return CheckRun(name=name, status=status, conclusion=conclusion, required=required)


OK, BAD = CheckConclusion.SUCCESS, CheckConclusion.FAILURE


@pytest.mark.parametrize(
    ("mergeable", "checks", "required", "state"),
    [
        (True, (), (), MergeState.CLEAN),
        (None, (), (), MergeState.UNKNOWN),
        (False, (check("test", OK),), ("test",), MergeState.DIRTY),
        (True, (), ("test",), MergeState.BLOCKED),  # missing
        (True, (check("test", None),), ("test",), MergeState.BLOCKED),  # pending
        (True, (check("test", BAD),), ("test",), MergeState.BLOCKED),
        (True, (check("test", OK),), ("test",), MergeState.CLEAN),
        (True, (check("ci", BAD, required=True),), (), MergeState.BLOCKED),  # says required
        (True, (check("test", OK), check("lint", BAD)), ("test",), MergeState.UNSTABLE),
        (True, (check("lint", None),), (), MergeState.UNSTABLE),
        (True, (check("lint", CheckConclusion.SKIPPED),), (), MergeState.CLEAN),
    ],
)
def test_the_merge_state_of_an_open_pull_request(mergeable, checks, required, state):
    assert merge_state(PullRequestState.OPEN, mergeable, checks, required) is state


@pytest.mark.parametrize("done", [PullRequestState.MERGED, PullRequestState.CLOSED])
def test_a_pull_request_that_is_not_open_has_no_merge_state(done):
    assert merge_state(done, None, (), ("test",)) is None
