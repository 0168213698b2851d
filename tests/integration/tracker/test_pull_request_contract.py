"""The pull-request half of the tracker contract: reviews and their decision, review
threads with their diff hunks, check runs on the head commit, the merge state, merge
methods and a merge refused when the head moved. Run on memory and local (SQLite and
PostgreSQL); GitHub joins once its tracker and fake have reviews and checks.

A backend where Ralph cannot post checks (GitHub: its CI does) gets them from its host
instead: ``give_check`` is the one place that differs."""

from __future__ import annotations

import subprocess

import pytest

from ralph.errors import (
    HeadMoved,
    InvalidInput,
    MergeConflict,
    PullRequestNotFound,
    PullRequestNotOpen,
)
from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    MemoryTracker,
    MergeSettings,
    MergeState,
    MergeStrategy,
    PullRequestState,
    ReviewComment,
    ReviewDecision,
    ReviewEvent,
    ReviewState,
    Tracker,
)
from ralph.workflow import WorkflowState

from ..conftest import GitProject, git

PULL_TRACKERS = [
    "memory",
    "local-sqlite",
    pytest.param("local-postgres", marks=pytest.mark.postgres),
]

#: A file of thirty lines on main, and the change the feature branch makes to two of them,
#: far enough apart to be two hunks.
BEFORE = "".join(f"line {n}\n" for n in range(1, 31))
AFTER = BEFORE.replace("line 2\n", "line two\n").replace("line 25\n", "line twenty-five\n")

APPROVE, CHANGES, COMMENT = ReviewEvent.APPROVE, ReviewEvent.REQUEST_CHANGES, ReviewEvent.COMMENT
PASSED = CheckRun(name="test", conclusion=CheckConclusion.SUCCESS, required=True)
FAILED = CheckRun(
    name="test", conclusion=CheckConclusion.FAILURE, required=True, summary="1 failed"
)


@pytest.fixture(params=PULL_TRACKERS)
def tracker_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _diff(project: GitProject, branch: str) -> dict[str, str]:
    """Each file ``branch`` changes since main, with its unified diff (what a memory
    tracker is told; the local one reads git)."""
    run = ["git", "diff", "--no-color", f"main...{branch}"]
    names = subprocess.run(
        [*run, "--name-only"], cwd=project.path, capture_output=True, text=True, check=True
    ).stdout.split()
    return {
        name: subprocess.run(
            [*run, "--", name], cwd=project.path, capture_output=True, text=True, check=True
        ).stdout
        for name in names
    }


def open_pr(tracker: Tracker, project: GitProject, *, body: str = "", branch: str = "feature"):
    project.commit("main", {"story.txt": BEFORE}, "a story")
    git(project.path, "reset", "-q", "--hard")  # the person's checkout of main follows
    project.commit(branch, {"story.txt": AFTER, "new.txt": "new\n"}, "feature work")
    pr = tracker.create_pull_request(head=branch, base="main", title="Change", body=body)
    if isinstance(tracker, MemoryTracker):
        tracker.set_diff(pr.number, _diff(project, branch))
    return tracker.get_pull_request(pr.number)


def push(tracker: Tracker, project: GitProject, number: int, files: dict[str, str]) -> str:
    """A new commit on the pull request's head branch; its new head."""
    pr = tracker.get_pull_request(number)
    project.commit(pr.head, files, "more work")
    if isinstance(tracker, MemoryTracker):
        return tracker.push(number, _diff(project, pr.head))
    head = tracker.get_pull_request(number).head_oid
    assert head is not None
    return head


def give_check(tracker: Tracker, number: int, check: CheckRun) -> None:
    """A check run on the pull request's head, as its host gets one."""
    tracker.record_check(number, check)


def require(tracker: Tracker, *names: str) -> None:
    """Make ``names`` required checks (branch protection, on GitHub)."""
    assert hasattr(tracker, "required_checks")
    tracker.required_checks = names


# -- a new pull request ------------------------------------------------------------------------


def test_a_new_pull_request_has_a_head_an_author_and_nothing_reviewed_or_checked(tracker, project):
    pr = open_pr(tracker, project)
    assert pr.head_oid
    assert len(pr.head_oid) == 40
    assert pr.author == "ralph"
    assert (pr.checks, pr.reviews, pr.threads) == ((), (), ())
    assert pr.review_decision is ReviewDecision.REVIEW_REQUIRED
    assert pr.merge_state is MergeState.CLEAN
    [listed] = tracker.list_pull_requests()
    assert (listed.head_oid, listed.merge_state, listed.review_decision) == (
        pr.head_oid,
        MergeState.CLEAN,
        ReviewDecision.REVIEW_REQUIRED,
    )


def test_the_repository_allows_every_merge_method_and_queues_nothing(tracker):
    assert tracker.merge_settings() == MergeSettings(
        merge_commit=True, squash=True, rebase=True, merge_queue=False
    )


def test_there_is_no_merge_queue_to_join(tracker, project):
    pr = open_pr(tracker, project)
    with pytest.raises(InvalidInput, match="no merge queue"):
        tracker.enqueue_pull_request(pr.number)
    assert tracker.get_pull_request(pr.number).state is PullRequestState.OPEN


# -- reviews -------------------------------------------------------------------------------------


def test_a_review_is_of_the_head_it_was_given_on_and_keeps_author_and_text(tracker, project):
    pr = open_pr(tracker, project)
    review = tracker.submit_review(pr.number, CHANGES, "Rename it.", author="alice")
    assert (review.author, review.state, review.body) == (
        "alice",
        ReviewState.CHANGES_REQUESTED,
        "Rename it.",
    )
    assert review.commit == pr.head_oid
    assert tracker.get_pull_request(pr.number).reviews == (review,)


def test_any_standing_change_request_outweighs_approvals(tracker, project, clock):
    pr = open_pr(tracker, project)
    decision = lambda: tracker.get_pull_request(pr.number).review_decision  # noqa: E731
    tracker.submit_review(pr.number, APPROVE, author="alice")
    assert decision() is ReviewDecision.APPROVED
    clock.advance(1)
    tracker.submit_review(pr.number, CHANGES, "Not yet.", author="bob")
    assert decision() is ReviewDecision.CHANGES_REQUESTED
    clock.advance(1)
    tracker.submit_review(pr.number, COMMENT, "Still thinking.", author="bob")
    assert decision() is ReviewDecision.CHANGES_REQUESTED  # a comment leaves it standing
    tracker.request_review(pr.number)
    assert decision() is ReviewDecision.CHANGES_REQUESTED  # asking again changes nothing
    clock.advance(1)
    tracker.submit_review(pr.number, APPROVE, author="bob")  # bob's next review replaces his
    assert decision() is ReviewDecision.APPROVED


def test_comments_alone_leave_the_review_required(tracker, project):
    pr = open_pr(tracker, project)
    tracker.submit_review(pr.number, COMMENT, "Looks interesting.", author="alice")
    assert tracker.get_pull_request(pr.number).review_decision is ReviewDecision.REVIEW_REQUIRED


@pytest.mark.parametrize(
    ("event", "body", "comments", "message"),
    [
        (CHANGES, "", (), "needs a text"),
        (COMMENT, "  ", (), "needs a text"),
        (COMMENT, "x", (ReviewComment(path="README.md", line=1, body="y"),), "does not change"),
        (COMMENT, "x", (ReviewComment(path="story.txt", line=0, body="y"),), "lines start at 1"),
        (COMMENT, "x", (ReviewComment(path="story.txt", line=2, body=" "),), "is empty"),
        (APPROVE, "", (), None),  # the one review that needs no text
    ],
)
def test_a_review_the_host_would_not_take_is_refused_and_nothing_is_recorded(
    tracker, project, event, body, comments, message
):
    pr = open_pr(tracker, project)
    if message is None:
        tracker.submit_review(pr.number, event, body, comments=comments)
        return
    with pytest.raises(InvalidInput, match=message):
        tracker.submit_review(pr.number, event, body, comments=comments)
    after = tracker.get_pull_request(pr.number)
    assert (after.reviews, after.threads) == ((), ())


@pytest.mark.parametrize("end", ["merge", "close"])
def test_a_pull_request_that_is_no_longer_open_takes_no_review(tracker, project, end):
    pr = open_pr(tracker, project)
    if end == "merge":
        tracker.merge_pull_request(pr.number)
    else:
        tracker.close_pull_request(pr.number)
    state = "merged" if end == "merge" else "closed"
    with pytest.raises(InvalidInput, match=f"is {state}; there is nothing to review"):
        tracker.submit_review(pr.number, APPROVE)
    assert tracker.get_pull_request(pr.number).reviews == ()
    with pytest.raises(PullRequestNotFound):
        tracker.submit_review(999, APPROVE)


# -- threads -----------------------------------------------------------------------------------


def test_an_inline_comment_opens_a_thread_on_the_hunk_that_holds_its_line(tracker, project):
    pr = open_pr(tracker, project)
    tracker.submit_review(
        pr.number,
        CHANGES,
        "Two things.",
        comments=[
            ReviewComment(path="story.txt", line=25, body="Spell it as a number."),
            ReviewComment(path="new.txt", line=1, body="Why a new file?"),
        ],
        author="alice",
    )
    first, second = tracker.get_pull_request(pr.number).threads
    assert (first.path, first.line, first.resolved) == ("story.txt", 25, False)
    assert first.diff_hunk.startswith("@@ ")
    assert "+line twenty-five" in first.diff_hunk
    assert "+line two" not in first.diff_hunk  # the other hunk
    assert [(c.author, c.body) for c in first.comments] == [("alice", "Spell it as a number.")]
    assert second.path == "new.txt"
    assert "+new" in second.diff_hunk


def test_a_comment_on_an_unchanged_line_of_a_changed_file_has_no_hunk(tracker, project):
    pr = open_pr(tracker, project)
    tracker.submit_review(
        pr.number, COMMENT, "x", comments=[ReviewComment(path="story.txt", line=14, body="y")]
    )
    [thread] = tracker.get_pull_request(pr.number).threads
    assert (thread.line, thread.diff_hunk) == (14, "")


def test_replies_follow_the_thread_and_resolving_twice_is_harmless(tracker, project, clock):
    pr = open_pr(tracker, project)
    tracker.submit_review(
        pr.number, CHANGES, "x", comments=[ReviewComment(path="story.txt", line=2, body="Why?")]
    )
    [thread] = tracker.get_pull_request(pr.number).threads
    clock.advance(5)
    reply = tracker.reply_to_thread(thread.id, "Fixed in abc1234.", author="builder")
    assert (reply.author, reply.body, reply.created_at) == ("builder", "Fixed in abc1234.", clock())
    resolved = tracker.resolve_thread(thread.id)
    assert resolved.resolved
    assert [c.body for c in resolved.comments] == ["Why?", "Fixed in abc1234."]
    assert tracker.resolve_thread(thread.id) == resolved
    assert tracker.get_pull_request(pr.number).threads == (resolved,)


@pytest.mark.parametrize("thread_id", ["999", "abc", "", "-1"])
def test_an_unknown_thread_is_named(tracker, project, thread_id):
    open_pr(tracker, project)
    with pytest.raises(InvalidInput, match="no review thread"):
        tracker.reply_to_thread(thread_id, "hello")
    with pytest.raises(InvalidInput, match="no review thread"):
        tracker.resolve_thread(thread_id)


def test_an_empty_reply_is_refused(tracker, project):
    pr = open_pr(tracker, project)
    tracker.submit_review(
        pr.number, COMMENT, "x", comments=[ReviewComment(path="story.txt", line=2, body="y")]
    )
    [thread] = tracker.get_pull_request(pr.number).threads
    with pytest.raises(InvalidInput, match="reply is empty"):
        tracker.reply_to_thread(thread.id, "  ")
    assert len(tracker.get_pull_request(pr.number).threads[0].comments) == 1


# -- checks and the merge state ------------------------------------------------------------------


def test_checks_belong_to_the_head_they_ran_on(tracker, project):
    pr = open_pr(tracker, project)
    give_check(tracker, pr.number, FAILED)
    give_check(tracker, pr.number, PASSED)  # the same check again: replaced
    lint = CheckRun(name="lint", status=CheckStatus.IN_PROGRESS)
    give_check(tracker, pr.number, lint)
    checks = {c.name: c for c in tracker.get_pull_request(pr.number).checks}
    assert checks == {"test": PASSED, "lint": lint}
    assert [c.name for c in tracker.list_pull_requests()[0].checks] == ["lint", "test"]

    new_head = push(tracker, project, pr.number, {"later.txt": "later\n"})
    after = tracker.get_pull_request(pr.number)
    assert after.head_oid == new_head != pr.head_oid
    assert after.checks == ()


def test_a_required_check_missing_pending_or_failed_blocks_and_passed_clears(tracker, project):
    pr = open_pr(tracker, project)
    require(tracker, "test")
    state = lambda: tracker.get_pull_request(pr.number).merge_state  # noqa: E731
    assert state() is MergeState.BLOCKED  # missing
    give_check(tracker, pr.number, CheckRun(name="test", status=CheckStatus.QUEUED, required=True))
    assert state() is MergeState.BLOCKED
    give_check(tracker, pr.number, FAILED)
    assert state() is MergeState.BLOCKED
    give_check(tracker, pr.number, PASSED)
    assert state() is MergeState.CLEAN
    give_check(tracker, pr.number, CheckRun(name="lint", conclusion=CheckConclusion.FAILURE))
    assert state() is MergeState.UNSTABLE  # only an optional one fails
    push(tracker, project, pr.number, {"later.txt": "later\n"})
    assert state() is MergeState.BLOCKED  # the new head has not been tested


def test_a_head_that_does_not_merge_is_dirty(tracker, project):
    pr = open_pr(tracker, project)
    project.commit("main", {"new.txt": "theirs\n"}, "someone else's new.txt")
    if isinstance(tracker, MemoryTracker):
        tracker.set_mergeable(pr.number, False)
    after = tracker.get_pull_request(pr.number)
    assert (after.mergeable, after.merge_state) == (False, MergeState.DIRTY)


def test_a_merged_pull_request_has_no_merge_state_and_takes_no_checks(tracker, project):
    pr = open_pr(tracker, project)
    tracker.merge_pull_request(pr.number)
    assert tracker.get_pull_request(pr.number).merge_state is None
    with pytest.raises(PullRequestNotOpen):
        tracker.record_check(pr.number, PASSED)


# -- merging -----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", list(MergeStrategy))
def test_every_merge_method_merges_and_closes_the_issues(tracker, project, strategy):
    issue = tracker.create_issue("Change", state=WorkflowState.IN_REVIEW)
    pr = open_pr(tracker, project, body=f"Closes #{issue.number}")
    merged = tracker.merge_pull_request(pr.number, strategy)
    assert merged.state is PullRequestState.MERGED
    assert merged.merge_commit
    assert tracker.get_issue(issue.number).workflow_state is WorkflowState.DONE


def test_a_merge_decided_on_an_old_head_is_refused_and_nothing_merges(tracker, project):
    issue = tracker.create_issue("Change", state=WorkflowState.IN_REVIEW)
    pr = open_pr(tracker, project, body=f"Closes #{issue.number}")
    new_head = push(tracker, project, pr.number, {"later.txt": "later\n"})
    assert pr.head_oid is not None
    with pytest.raises(HeadMoved, match="head moved") as refused:
        tracker.merge_pull_request(pr.number, expected_head=pr.head_oid)
    assert (refused.value.expected, refused.value.actual) == (pr.head_oid, new_head)
    assert tracker.get_pull_request(pr.number).state is PullRequestState.OPEN
    assert tracker.get_issue(issue.number).is_open
    merged = tracker.merge_pull_request(pr.number, expected_head=new_head)
    assert merged.state is PullRequestState.MERGED


def test_a_conflict_still_refuses_every_method(tracker, project):
    pr = open_pr(tracker, project)
    project.commit("main", {"new.txt": "theirs\n"}, "someone else's new.txt")
    if isinstance(tracker, MemoryTracker):
        tracker.set_mergeable(pr.number, False)
    for strategy in MergeStrategy:
        with pytest.raises(MergeConflict):
            tracker.merge_pull_request(pr.number, strategy)
    assert tracker.get_pull_request(pr.number).state is PullRequestState.OPEN
