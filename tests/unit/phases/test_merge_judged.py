"""What an issue's pull requests say of its being Done (``judge_merged``): a merge not
finished is settled, a Done whose change is not on the base is sent back, and nothing
else is touched."""

from __future__ import annotations

import dataclasses

import pytest

from ralph.phases import judge_merged
from ralph.phases._merge_look import SendBack, Settle
from ralph.phases._merged import merged_note
from ralph.tracker import Comment, Issue, PullRequest, PullRequestState
from ralph.workflow import WorkflowState

S = WorkflowState
P = PullRequestState


def pr(number: int, state: PullRequestState, closes: int = 1) -> PullRequest:
    return PullRequest(
        number=number,
        title="t",
        body=f"Closes #{closes}",
        head="feature/GH-1",
        base="main",
        state=state,
        merge_commit="abc1234def" if state is P.MERGED else None,
    )


def issue(state: WorkflowState, *noted: int) -> Issue:
    comments = tuple(
        Comment(id=i, author="ralph", body=f"{merged_note(pr(n, P.MERGED))}…", created_at=0.0)
        for i, n in enumerate(noted)
    )
    return Issue(number=1, title="Login", workflow_state=state, comments=comments)


def on_base(_: PullRequest) -> bool:
    return True


def lost(_: PullRequest) -> bool:
    return False


@pytest.mark.parametrize(
    ("state", "requests", "found"),
    [
        (S.DONE, [], None),  # a person's Done, a parent's: no pull request
        (S.DONE, [pr(2, P.MERGED, closes=9)], None),  # it closes another issue
        (S.IN_PROGRESS, [pr(2, P.OPEN)], None),
        (S.CANCELED, [pr(2, P.OPEN)], None),
        (S.BACKLOG, [pr(2, P.MERGED)], None),  # reopened by a person after its merge
    ],
)
def test_what_is_not_a_merge_left_half_way_is_left(state, requests, found):
    assert judge_merged(issue(state), requests, on_base) == found


@pytest.mark.parametrize("state", [S.IN_PROGRESS, S.IN_REVIEW, S.HUMAN_NEEDED, S.DONE])
def test_a_merge_on_the_base_without_its_note_is_settled(state):
    merged = pr(3, P.MERGED)
    assert judge_merged(issue(state), [pr(2, P.CLOSED), merged], on_base) == Settle(merged)
    assert judge_merged(issue(state, 3), [merged], on_base) is None


def test_a_done_whose_pull_request_is_open_goes_back_to_review():
    found = judge_merged(issue(S.DONE), [pr(2, P.CLOSED), pr(3, P.OPEN)], on_base)
    assert isinstance(found, SendBack)
    assert (found.pr.number, found.state) == (3, S.IN_REVIEW)
    assert "#3 is open, not merged" in found.why


def test_a_done_whose_merge_the_base_lost_goes_back_to_review():
    found = judge_merged(issue(S.DONE, 2), [pr(2, P.MERGED)], lost)
    assert isinstance(found, SendBack)
    assert found.state is S.IN_REVIEW
    assert "merge (abc1234) is not on main any more" in found.why


def test_a_done_whose_pull_request_was_closed_unmerged_goes_to_a_person():
    found = judge_merged(issue(S.DONE), [pr(2, P.CLOSED)], on_base)
    assert isinstance(found, SendBack)
    assert found.state is S.HUMAN_NEEDED
    assert "closed without being merged" in found.why


def test_a_merge_the_base_lost_is_the_merge_phases_once_in_review():
    assert judge_merged(issue(S.IN_REVIEW, 2), [pr(2, P.MERGED)], lost) is None


def test_a_done_a_person_made_again_after_a_send_back_stands():
    closed = pr(2, P.CLOSED)
    sent = judge_merged(issue(S.DONE), [closed], on_base)
    assert isinstance(sent, SendBack)
    told = Comment(id=9, author="ralph", body=sent.why, created_at=1.0)
    done_again = dataclasses.replace(issue(S.DONE), comments=(told,))
    assert judge_merged(done_again, [closed], on_base) is None
    # A later pull request of its own is looked at afresh.
    assert isinstance(judge_merged(done_again, [closed, pr(3, P.OPEN)], on_base), SendBack)
