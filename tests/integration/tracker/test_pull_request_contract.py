"""The pull-request half of the tracker contract: reviews and their decision, review
threads with their diff hunks, check runs on the head commit, the merge state, merge
methods and a merge refused when the head moved. Run on memory, local (SQLite and
PostgreSQL) and GitHub (the fake, which executes the tracker's GraphQL).

What only the host can do differs, in the helpers and nowhere else: on GitHub a check
run comes from its CI (Ralph cannot record one), a rule (required checks, required
reviews) is branch protection, and a review is by the account whose token sent it (it
may not approve its own pull request), so a person's review comes from their token."""

from __future__ import annotations

import subprocess

import pytest

from ralph.errors import (
    HeadMoved,
    InvalidInput,
    IssueNotFound,
    MergeConflict,
    PullRequestNotFound,
    PullRequestNotOpen,
    TrackerError,
)
from ralph.github.fake import FakeGitHub
from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    GitHubTracker,
    LocalTracker,
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
from .conftest import github_tracker_as

PULL_TRACKERS = [
    "memory",
    "local-sqlite",
    pytest.param("local-postgres", marks=pytest.mark.postgres),
    "github",
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


REPOSITORY = "acme/project"  # the GitHub fake's (tracker/conftest.py)


def _fake(tracker: Tracker) -> FakeGitHub:
    assert isinstance(tracker, GitHubTracker)
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    return fake


def give_check(tracker: Tracker, number: int, check: CheckRun) -> None:
    """A check run on the pull request's head, as its host gets one: recorded by Ralph,
    or on GitHub reported by its CI."""
    if tracker.kind != "github":
        tracker.record_check(number, check)
        return
    _fake(tracker).add_check(
        REPOSITORY,
        number,
        check.name,
        check.conclusion.value.upper() if check.conclusion else None,
        queued=check.status is CheckStatus.QUEUED,
        summary=check.summary,
    )


def require(tracker: Tracker, *names: str) -> None:
    """Make ``names`` required checks (branch protection, on GitHub)."""
    if tracker.kind == "github":
        _fake(tracker).protect(REPOSITORY, "main", checks=names)
        return
    assert isinstance(tracker, MemoryTracker | LocalTracker)
    tracker.required_checks = names


def reviews_count(tracker: Tracker) -> None:
    """Reviews decide (GitHub has a decision only where protection requires one)."""
    if tracker.kind == "github":
        _fake(tracker).protect(REPOSITORY, "main", approvals=1)


def review(tracker: Tracker, number: int, who: str, event: ReviewEvent, body: str = "", **kw):
    """``who``'s review (on GitHub, with their own token)."""
    if tracker.kind == "github":
        assert isinstance(tracker, GitHubTracker)
        return github_tracker_as(tracker, who).submit_review(number, event, body, **kw)
    return tracker.submit_review(number, event, body, author=who, **kw)


def author(tracker: Tracker, asked: str) -> str:
    """Who something Ralph posted "as ``asked``" shows: GitHub names the token's user."""
    return "ralph" if tracker.kind == "github" else asked


# -- a new pull request ------------------------------------------------------------------------


def test_a_new_pull_request_has_a_head_an_author_and_nothing_reviewed_or_checked(tracker, project):
    reviews_count(tracker)
    pr = open_pr(tracker, project)
    if isinstance(tracker, MemoryTracker):  # no git behind it: a commit id of its own
        assert pr.head_oid
        assert len(pr.head_oid) == 40
    else:
        assert pr.head_oid == project.rev("feature")
    assert pr.author == "ralph"
    assert (pr.checks, pr.reviews, pr.threads) == ((), (), ())
    assert pr.review_decision is ReviewDecision.REVIEW_REQUIRED
    [listed] = tracker.list_pull_requests()
    assert (listed.number, listed.head, listed.state) == (pr.number, "feature", pr.state)


def test_with_no_rule_to_hold_it_a_new_pull_request_is_clean(tracker, project):
    pr = open_pr(tracker, project)
    assert (pr.mergeable, pr.merge_state) == (True, MergeState.CLEAN)


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
    given = review(tracker, pr.number, "alice", CHANGES, "Rename it.")
    assert (given.author, given.state, given.body) == (
        "alice",
        ReviewState.CHANGES_REQUESTED,
        "Rename it.",
    )
    assert given.commit == pr.head_oid
    [read] = tracker.get_pull_request(pr.number).reviews
    assert (read.id, read.author, read.state, read.body, read.commit) == (
        given.id,
        "alice",
        ReviewState.CHANGES_REQUESTED,
        "Rename it.",
        pr.head_oid,
    )


def test_any_standing_change_request_outweighs_approvals(tracker, project, clock):
    reviews_count(tracker)
    pr = open_pr(tracker, project)
    decision = lambda: tracker.get_pull_request(pr.number).review_decision  # noqa: E731
    review(tracker, pr.number, "alice", APPROVE)
    assert decision() is ReviewDecision.APPROVED
    clock.advance(1)
    review(tracker, pr.number, "bob", CHANGES, "Not yet.")
    assert decision() is ReviewDecision.CHANGES_REQUESTED
    clock.advance(1)
    review(tracker, pr.number, "bob", COMMENT, "Still thinking.")
    assert decision() is ReviewDecision.CHANGES_REQUESTED  # a comment leaves it standing
    tracker.request_review(pr.number)
    assert decision() is ReviewDecision.CHANGES_REQUESTED  # asking again changes nothing
    clock.advance(1)
    review(tracker, pr.number, "bob", APPROVE)  # bob's next review replaces his
    assert decision() is ReviewDecision.APPROVED


def test_comments_alone_leave_the_review_required(tracker, project):
    reviews_count(tracker)
    pr = open_pr(tracker, project)
    review(tracker, pr.number, "alice", COMMENT, "Looks interesting.")
    assert tracker.get_pull_request(pr.number).review_decision is ReviewDecision.REVIEW_REQUIRED


@pytest.mark.parametrize(
    ("event", "body", "comments", "message"),
    [
        (CHANGES, "", (), "needs a body"),
        (COMMENT, "  ", (), "needs a body"),
        (
            COMMENT,
            "x",
            (ReviewComment(path="README.md", line=1, body="y"),),
            "does not change|part of the diff",
        ),
        (
            COMMENT,
            "x",
            (ReviewComment(path="story.txt", line=0, body="y"),),
            "lines start at 1|part of the diff",
        ),
        (APPROVE, "", (), None),  # the one review that needs no text
    ],
)
def test_a_review_the_host_would_not_take_is_refused_and_nothing_is_recorded(
    tracker, project, event, body, comments, message
):
    pr = open_pr(tracker, project)
    if message is None:
        review(tracker, pr.number, "alice", event, body, comments=comments)
        return
    with pytest.raises(InvalidInput, match=message):
        review(tracker, pr.number, "alice", event, body, comments=comments)
    after = tracker.get_pull_request(pr.number)
    assert (after.reviews, after.threads) == ((), ())


def test_an_inline_comment_without_text_is_refused(tracker, project):
    if tracker.kind == "github":
        pytest.skip("the GitHub fake takes a blank inline comment; GitHub's rule is unknown")
    pr = open_pr(tracker, project)
    blank = ReviewComment(path="story.txt", line=2, body=" ")
    with pytest.raises(InvalidInput, match="is empty"):
        tracker.submit_review(pr.number, COMMENT, "x", comments=[blank])
    assert tracker.get_pull_request(pr.number).reviews == ()


def test_a_pull_requests_number_is_no_issue_and_the_pull_request_is_found_by_it(tracker, project):
    """What ``ralph issue show 3`` leans on to say "#3 is a pull request"."""
    pr = open_pr(tracker, project)
    with pytest.raises(IssueNotFound):
        tracker.get_issue(pr.number)
    assert tracker.get_pull_request(pr.number).number == pr.number


@pytest.mark.parametrize("end", ["merge", "close"])
def test_a_pull_request_that_is_no_longer_open_takes_no_review(tracker, project, end):
    pr = open_pr(tracker, project)
    if end == "merge":
        tracker.merge_pull_request(pr.number)
    else:
        tracker.close_pull_request(pr.number)
    state = "merged" if end == "merge" else "closed"
    with pytest.raises(InvalidInput, match=f"is {state}; there is nothing to review"):
        review(tracker, pr.number, "alice", APPROVE)
    assert tracker.get_pull_request(pr.number).reviews == ()
    with pytest.raises(PullRequestNotFound):
        tracker.submit_review(999, APPROVE)


# -- threads -----------------------------------------------------------------------------------


def test_an_inline_comment_opens_a_thread_on_the_hunk_that_holds_its_line(tracker, project):
    pr = open_pr(tracker, project)
    review(
        tracker,
        pr.number,
        "alice",
        CHANGES,
        "Two things.",
        comments=[
            ReviewComment(path="story.txt", line=25, body="Spell it as a number."),
            ReviewComment(path="new.txt", line=1, body="Why a new file?"),
        ],
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
    if tracker.kind == "github":
        pytest.skip("GitHub refuses a line outside the diff; Ralph's trackers keep it, hunkless")
    pr = open_pr(tracker, project)
    tracker.submit_review(
        pr.number, COMMENT, "x", comments=[ReviewComment(path="story.txt", line=14, body="y")]
    )
    [thread] = tracker.get_pull_request(pr.number).threads
    assert (thread.line, thread.diff_hunk) == (14, "")


def test_replies_follow_the_thread_and_resolving_twice_is_harmless(tracker, project, clock):
    pr = open_pr(tracker, project)
    question = ReviewComment(path="story.txt", line=2, body="Why?")
    review(tracker, pr.number, "alice", CHANGES, "x", comments=[question])
    [thread] = tracker.get_pull_request(pr.number).threads
    clock.advance(5)
    reply = tracker.reply_to_thread(thread.id, "Fixed in abc1234.", author="builder")
    assert (reply.author, reply.body) == (author(tracker, "builder"), "Fixed in abc1234.")
    assert reply.created_at == clock()
    resolved = tracker.resolve_thread(thread.id)
    assert resolved.resolved
    assert [c.body for c in resolved.comments] == ["Why?", "Fixed in abc1234."]
    assert tracker.resolve_thread(thread.id) == resolved
    assert tracker.get_pull_request(pr.number).threads == (resolved,)


@pytest.mark.parametrize("thread_id", ["999", "abc", "-1"])
def test_an_unknown_thread_is_named(tracker, project, thread_id):
    open_pr(tracker, project)
    with pytest.raises(InvalidInput, match="no review thread"):
        tracker.reply_to_thread(thread_id, "hello")
    with pytest.raises(InvalidInput, match="no review thread"):
        tracker.resolve_thread(thread_id)


def test_an_empty_reply_is_refused(tracker, project):
    pr = open_pr(tracker, project)
    question = ReviewComment(path="story.txt", line=2, body="y")
    review(tracker, pr.number, "alice", COMMENT, "x", comments=[question])
    [thread] = tracker.get_pull_request(pr.number).threads
    with pytest.raises(InvalidInput, match="needs a body"):
        tracker.reply_to_thread(thread.id, "  ")
    assert len(tracker.get_pull_request(pr.number).threads[0].comments) == 1


# -- checks and the merge state ------------------------------------------------------------------


def outcomes(checks) -> dict[str, tuple[CheckStatus, CheckConclusion | None]]:
    return {check.name: (check.status, check.conclusion) for check in checks}


def test_checks_belong_to_the_head_they_ran_on(tracker, project):
    pr = open_pr(tracker, project)
    give_check(tracker, pr.number, PASSED)
    give_check(tracker, pr.number, CheckRun(name="lint", status=CheckStatus.IN_PROGRESS))
    checks = tracker.get_pull_request(pr.number).checks
    assert outcomes(checks) == {
        "test": (CheckStatus.COMPLETED, CheckConclusion.SUCCESS),
        "lint": (CheckStatus.IN_PROGRESS, None),
    }

    new_head = push(tracker, project, pr.number, {"later.txt": "later\n"})
    after = tracker.get_pull_request(pr.number)
    assert after.head_oid == new_head != pr.head_oid
    assert after.checks == ()


def test_a_check_ralph_records_again_on_the_same_head_replaces_the_first(tracker, project):
    if tracker.kind == "github":
        pytest.skip("checks on GitHub come from its CI; Ralph does not post them")
    pr = open_pr(tracker, project)
    tracker.record_check(pr.number, FAILED)
    tracker.record_check(pr.number, PASSED)
    assert tracker.get_pull_request(pr.number).checks == (PASSED,)


def test_a_required_check_missing_pending_or_failed_blocks_and_passed_clears(tracker, project):
    pr = open_pr(tracker, project)
    require(tracker, "test")
    state = lambda: tracker.get_pull_request(pr.number).merge_state  # noqa: E731
    assert state() is MergeState.BLOCKED  # missing
    give_check(tracker, pr.number, CheckRun(name="test", status=CheckStatus.QUEUED))
    assert state() is MergeState.BLOCKED
    [check] = tracker.get_pull_request(pr.number).checks
    assert check.required  # the host says which checks are required
    new_head = push(tracker, project, pr.number, {"fix.txt": "fix\n"})
    give_check(tracker, pr.number, FAILED)
    assert state() is MergeState.BLOCKED
    push(tracker, project, pr.number, {"fix.txt": "fixed\n"})
    give_check(tracker, pr.number, PASSED)
    assert state() is MergeState.CLEAN
    give_check(tracker, pr.number, CheckRun(name="lint", conclusion=CheckConclusion.FAILURE))
    assert state() is MergeState.UNSTABLE  # only an optional one fails
    assert new_head != tracker.get_pull_request(pr.number).head_oid
    push(tracker, project, pr.number, {"later.txt": "later\n"})
    assert state() is MergeState.BLOCKED  # the new head has not been tested


def test_a_head_that_does_not_merge_is_dirty(tracker, project):
    pr = open_pr(tracker, project)
    project.commit("main", {"new.txt": "theirs\n"}, "someone else's new.txt")
    if isinstance(tracker, MemoryTracker):
        tracker.set_mergeable(pr.number, False)
    after = tracker.get_pull_request(pr.number)
    assert (after.mergeable, after.merge_state) == (False, MergeState.DIRTY)


def test_a_merged_pull_request_is_not_judged_mergeable(tracker, project):
    pr = open_pr(tracker, project)
    tracker.merge_pull_request(pr.number)
    after = tracker.get_pull_request(pr.number)
    assert after.merge_state in (None, MergeState.UNKNOWN)
    assert after.mergeable is not False


def test_a_merged_pull_request_takes_no_checks(tracker, project):
    if tracker.kind == "github":
        pytest.skip("checks on GitHub come from its CI; Ralph does not post them")
    pr = open_pr(tracker, project)
    tracker.merge_pull_request(pr.number)
    with pytest.raises(PullRequestNotOpen):
        tracker.record_check(pr.number, PASSED)


def test_ralph_cannot_post_a_check_where_ci_does(tracker, project):
    if tracker.kind != "github":
        pytest.skip("Ralph records the checks of the trackers it keeps")
    pr = open_pr(tracker, project)
    with pytest.raises(TrackerError, match="come from its CI"):
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
