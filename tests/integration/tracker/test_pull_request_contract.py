"""The code-host contract: reviews and their decision, review threads with their diff
hunks, check runs on the head commit, the merge state, merge methods, a merge refused
when the head moved and a merge closing its issues on the host's tracker. Run on the
local (SQLite and PostgreSQL), GitHub (the fake, which executes the host's GraphQL) and
GitLab (the fake, which answers its REST API); the memory code host's levers have tests
of their own (test_memory_code_host.py).

What only the host can do differs, in the helpers and nowhere else: on GitHub and GitLab
a check run comes from CI (Ralph cannot record one; on GitLab a job of the head's
pipeline), a rule (required checks, required reviews) is branch protection (GitLab:
"pipelines must succeed", approvals before merge), and a review is by the account whose
token sent it (it may not approve its own pull request), so a person's review comes from
their token. GitLab numbers merge requests apart from issues (``!1`` beside ``#1``), its
default merge method makes merge commits (Ralph's rebase is its fast-forward method),
and it takes an inline comment only on a line its diff shows."""

from __future__ import annotations

import weakref

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
from ralph.gitlab import GitLabClient
from ralph.gitlab.fake import FakeGitLab
from ralph.gitlab.fake._pipelines import MergeRequestLevers
from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    CodeHost,
    GitHubCodeHost,
    IssueStatus,
    LocalCodeHost,
    MergeSettings,
    MergeState,
    MergeStrategy,
    PullRequestState,
    ReviewComment,
    ReviewDecision,
    ReviewEvent,
    ReviewState,
)
from ralph.tracker.gitlab import GitLabCodeHost
from ralph.workflow import WorkflowState, parse_transition_comments
from ralph.workflow import WorkflowState as S

from ..conftest import GitProject, git
from .conftest import github_host_as

PULL_TRACKERS = [
    "local-sqlite",
    pytest.param("local-postgres", marks=pytest.mark.postgres),
    "github",
    "gitlab-fake",
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


def make(tracker, title="Issue", **fields):
    return tracker.create_issue(title, **fields)


def open_pr(host: CodeHost, project: GitProject, *, body: str = "", branch: str = "feature"):
    project.commit("main", {"story.txt": BEFORE}, "a story")
    git(project.path, "reset", "-q", "--hard")  # the person's checkout of main follows
    project.commit(branch, {"story.txt": AFTER, "new.txt": "new\n"}, "feature work")
    pr = host.create_pull_request(head=branch, base="main", title="Change", body=body)
    return host.get_pull_request(pr.number)


def push(host: CodeHost, project: GitProject, number: int, files: dict[str, str]) -> str:
    """A new commit on the pull request's head branch; its new head."""
    pr = host.get_pull_request(number)
    project.commit(pr.head, files, "more work")
    head = host.get_pull_request(number).head_oid
    assert head is not None
    return head


REPOSITORY = "acme/project"  # the GitHub and GitLab fakes' (host/conftest.py)
#: Where Ralph posts no checks: CI reports them.
CI_HOSTS = ("github", "gitlab")
#: A check as a GitLab runner reports its job.
_JOB_STATUS = {
    CheckStatus.QUEUED: "pending",
    CheckStatus.IN_PROGRESS: "running",
}
_JOB_END = {
    CheckConclusion.SUCCESS: "success",
    CheckConclusion.NEUTRAL: "success",
    CheckConclusion.SKIPPED: "skipped",
    CheckConclusion.CANCELLED: "canceled",
}


def _fake(host: CodeHost) -> FakeGitHub:
    assert isinstance(host, GitHubCodeHost)
    fake = host.client.transport
    assert isinstance(fake, FakeGitHub)
    return fake


#: The checks ``require`` made required on each fake GitLab: GitLab requires the whole
#: pipeline, so a job is required unless it may fail.
_REQUIRED_JOBS: weakref.WeakKeyDictionary[FakeGitLab, set[str]] = weakref.WeakKeyDictionary()


def _gitlab(host: CodeHost) -> tuple[FakeGitLab, MergeRequestLevers]:
    assert isinstance(host, GitLabCodeHost)
    fake = host.client.transport
    assert isinstance(fake, FakeGitLab)
    return fake, MergeRequestLevers(fake)


def give_check(host: CodeHost, number: int, check: CheckRun) -> None:
    """A check run on the pull request's head, as its host gets one: recorded by Ralph,
    on GitHub reported by its CI, on GitLab a job of the head's pipeline (one that may
    fail unless the check is required)."""
    if host.kind == "gitlab":
        fake, levers = _gitlab(host)
        status = _JOB_STATUS.get(check.status) or _JOB_END.get(
            check.conclusion or CheckConclusion.FAILURE, "failed"
        )
        required = check.required or check.name in _REQUIRED_JOBS.get(fake, set())
        levers.job(
            REPOSITORY,
            number,
            check.name,
            status,
            allow_failure=not required,
            failure_reason=check.summary or None,
        )
        return
    if host.kind != "github":
        host.record_check(number, check)
        return
    _fake(host).add_check(
        REPOSITORY,
        number,
        check.name,
        check.conclusion.value.upper() if check.conclusion else None,
        queued=check.status is CheckStatus.QUEUED,
        summary=check.summary,
    )


def require(host: CodeHost, *names: str) -> None:
    """Make ``names`` required checks (branch protection, on GitHub; on GitLab every
    job that may not fail, once pipelines must succeed)."""
    if host.kind == "github":
        _fake(host).protect(REPOSITORY, "main", checks=names)
        return
    if host.kind == "gitlab":
        fake, levers = _gitlab(host)
        _REQUIRED_JOBS.setdefault(fake, set()).update(names)
        levers.settings(REPOSITORY, only_allow_merge_if_pipeline_succeeds=True)
        return
    assert isinstance(host, LocalCodeHost)
    host.required_checks = names


def reviews_count(host: CodeHost) -> None:
    """Reviews decide (GitHub and GitLab have a decision only where a rule requires one)."""
    if host.kind == "github":
        _fake(host).protect(REPOSITORY, "main", approvals=1)
    elif host.kind == "gitlab":
        _gitlab(host)[1].settings(REPOSITORY, approvals_before_merge=1)


def gitlab_host_as(host: CodeHost, login: str) -> GitLabCodeHost:
    """``host``'s GitLab seen by another account, ``login``, with a token of its own."""
    fake, _levers = _gitlab(host)
    token = f"glpat-{login}"
    if token not in fake.state.tokens:
        fake.add_token(token, login)
    assert isinstance(host, GitLabCodeHost)
    client = GitLabClient(fake, token, clock=host.now, sleep=lambda _: None)
    return GitLabCodeHost(client, project=host.project, tracker=host.tracker)


def review(host: CodeHost, number: int, who: str, event: ReviewEvent, body: str = "", **kw):
    """``who``'s review (on GitHub and GitLab, with their own token)."""
    if host.kind == "github":
        assert isinstance(host, GitHubCodeHost)
        return github_host_as(host, who).submit_review(number, event, body, **kw)
    if host.kind == "gitlab":
        return gitlab_host_as(host, who).submit_review(number, event, body, **kw)
    return host.submit_review(number, event, body, author=who, **kw)


def author(host: CodeHost, asked: str) -> str:
    """Who something Ralph posted "as ``asked``" shows: the token's user where a token
    writes it."""
    return "ralph" if host.kind in CI_HOSTS else asked


def default_settings(host: CodeHost) -> MergeSettings:
    """A new repository's merge methods: all three, but GitLab's default merge method
    makes merge commits (its fast-forward method is Ralph's rebase)."""
    return MergeSettings(merge_commit=True, squash=True, rebase=host.kind != "gitlab")


def allow(host: CodeHost, strategy: MergeStrategy) -> None:
    """Let ``strategy`` merge: on GitLab a rebase needs the fast-forward merge method."""
    if host.kind == "gitlab":
        method = "ff" if strategy is MergeStrategy.REBASE else "merge"
        _gitlab(host)[1].settings(REPOSITORY, merge_method=method)


def first_pull_number(host: CodeHost, issues: int) -> int:
    """The number of the first pull request after ``issues`` issues: the next issue
    number, but GitLab numbers merge requests on their own (``!1``)."""
    return 1 if host.kind == "gitlab" else issues + 1


# -- a new pull request ------------------------------------------------------------------------


def test_a_new_pull_request_has_a_head_an_author_and_nothing_reviewed_or_checked(host, project):
    reviews_count(host)
    pr = open_pr(host, project)
    assert pr.head_oid == project.rev("feature")
    assert pr.author == "ralph"
    assert (pr.checks, pr.reviews, pr.threads) == ((), (), ())
    assert pr.review_decision is ReviewDecision.REVIEW_REQUIRED
    [listed] = host.list_pull_requests()
    assert (listed.number, listed.head, listed.state) == (pr.number, "feature", pr.state)


def test_with_no_rule_to_hold_it_a_new_pull_request_is_clean(host, project):
    pr = open_pr(host, project)
    assert (pr.mergeable, pr.merge_state) == (True, MergeState.CLEAN)


def test_the_repository_allows_every_merge_method_and_queues_nothing(host):
    assert host.merge_settings() == default_settings(host)
    assert not host.merge_settings().merge_queue


def test_there_is_no_merge_queue_to_join(host, project):
    pr = open_pr(host, project)
    with pytest.raises(InvalidInput, match="no merge queue"):
        host.enqueue_pull_request(pr.number)
    assert host.get_pull_request(pr.number).state is PullRequestState.OPEN


# -- reviews -------------------------------------------------------------------------------------


def test_a_review_is_of_the_head_it_was_given_on_and_keeps_author_and_text(host, project):
    pr = open_pr(host, project)
    given = review(host, pr.number, "alice", CHANGES, "Rename it.")
    assert (given.author, given.state, given.body) == (
        "alice",
        ReviewState.CHANGES_REQUESTED,
        "Rename it.",
    )
    assert given.commit == pr.head_oid
    [read] = host.get_pull_request(pr.number).reviews
    assert (read.id, read.author, read.state, read.body, read.commit) == (
        given.id,
        "alice",
        ReviewState.CHANGES_REQUESTED,
        "Rename it.",
        pr.head_oid,
    )


def test_any_standing_change_request_outweighs_approvals(host, project, clock):
    reviews_count(host)
    pr = open_pr(host, project)
    decision = lambda: host.get_pull_request(pr.number).review_decision  # noqa: E731
    review(host, pr.number, "alice", APPROVE)
    assert decision() is ReviewDecision.APPROVED
    clock.advance(1)
    review(host, pr.number, "bob", CHANGES, "Not yet.")
    assert decision() is ReviewDecision.CHANGES_REQUESTED
    clock.advance(1)
    review(host, pr.number, "bob", COMMENT, "Still thinking.")
    assert decision() is ReviewDecision.CHANGES_REQUESTED  # a comment leaves it standing
    host.request_review(pr.number)
    assert decision() is ReviewDecision.CHANGES_REQUESTED  # asking again changes nothing
    clock.advance(1)
    review(host, pr.number, "bob", APPROVE)  # bob's next review replaces his
    assert decision() is ReviewDecision.APPROVED


def test_comments_alone_leave_the_review_required(host, project):
    reviews_count(host)
    pr = open_pr(host, project)
    review(host, pr.number, "alice", COMMENT, "Looks interesting.")
    assert host.get_pull_request(pr.number).review_decision is ReviewDecision.REVIEW_REQUIRED


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
    host, project, event, body, comments, message
):
    pr = open_pr(host, project)
    if message is None:
        review(host, pr.number, "alice", event, body, comments=comments)
        return
    with pytest.raises(InvalidInput, match=message):
        review(host, pr.number, "alice", event, body, comments=comments)
    after = host.get_pull_request(pr.number)
    assert (after.reviews, after.threads) == ((), ())


def test_an_inline_comment_without_text_is_refused(host, project):
    if host.kind == "github":
        pytest.skip("the GitHub fake takes a blank inline comment; GitHub's rule is unknown")
    pr = open_pr(host, project)
    blank = ReviewComment(path="story.txt", line=2, body=" ")
    with pytest.raises(InvalidInput, match="is empty"):
        host.submit_review(pr.number, COMMENT, "x", comments=[blank])
    assert host.get_pull_request(pr.number).reviews == ()


def test_a_pull_requests_number_is_no_issue_and_the_pull_request_is_found_by_it(host, project):
    """What ``ralph issue show 3`` leans on to say "#3 is a pull request"."""
    pr = open_pr(host, project)
    with pytest.raises(IssueNotFound):
        host.tracker.get_issue(pr.number)
    assert host.get_pull_request(pr.number).number == pr.number


@pytest.mark.parametrize("end", ["merge", "close"])
def test_a_pull_request_that_is_no_longer_open_takes_no_review(host, project, end):
    pr = open_pr(host, project)
    if end == "merge":
        host.merge_pull_request(pr.number)
    else:
        host.close_pull_request(pr.number)
    state = "merged" if end == "merge" else "closed"
    with pytest.raises(InvalidInput, match=f"is {state}; there is nothing to review"):
        review(host, pr.number, "alice", APPROVE)
    assert host.get_pull_request(pr.number).reviews == ()
    with pytest.raises(PullRequestNotFound):
        host.submit_review(999, APPROVE)


# -- threads -----------------------------------------------------------------------------------


def test_an_inline_comment_opens_a_thread_on_the_hunk_that_holds_its_line(host, project):
    pr = open_pr(host, project)
    review(
        host,
        pr.number,
        "alice",
        CHANGES,
        "Two things.",
        comments=[
            ReviewComment(path="story.txt", line=25, body="Spell it as a number."),
            ReviewComment(path="new.txt", line=1, body="Why a new file?"),
        ],
    )
    first, second = host.get_pull_request(pr.number).threads
    assert (first.path, first.line, first.resolved) == ("story.txt", 25, False)
    assert first.diff_hunk.startswith("@@ ")
    assert "+line twenty-five" in first.diff_hunk
    assert "+line two" not in first.diff_hunk  # the other hunk
    assert [(c.author, c.body) for c in first.comments] == [("alice", "Spell it as a number.")]
    assert second.path == "new.txt"
    assert "+new" in second.diff_hunk


def test_a_comment_on_an_unchanged_line_of_a_changed_file_has_no_hunk(host, project):
    if host.kind in CI_HOSTS:
        pytest.skip("GitHub and GitLab refuse a line outside the diff; Ralph's keep it, hunkless")
    pr = open_pr(host, project)
    host.submit_review(
        pr.number, COMMENT, "x", comments=[ReviewComment(path="story.txt", line=14, body="y")]
    )
    [thread] = host.get_pull_request(pr.number).threads
    assert (thread.line, thread.diff_hunk) == (14, "")


def test_replies_follow_the_thread_and_resolving_twice_is_harmless(host, project, clock):
    pr = open_pr(host, project)
    question = ReviewComment(path="story.txt", line=2, body="Why?")
    review(host, pr.number, "alice", CHANGES, "x", comments=[question])
    [thread] = host.get_pull_request(pr.number).threads
    clock.advance(5)
    reply = host.reply_to_thread(thread.id, "Fixed in abc1234.", author="builder")
    assert (reply.author, reply.body) == (author(host, "builder"), "Fixed in abc1234.")
    assert reply.created_at == clock()
    resolved = host.resolve_thread(thread.id)
    assert resolved.resolved
    assert [c.body for c in resolved.comments] == ["Why?", "Fixed in abc1234."]
    assert host.resolve_thread(thread.id) == resolved
    assert host.get_pull_request(pr.number).threads == (resolved,)


@pytest.mark.parametrize("thread_id", ["999", "abc", "-1"])
def test_an_unknown_thread_is_named(host, project, thread_id):
    open_pr(host, project)
    with pytest.raises(InvalidInput, match="no review thread"):
        host.reply_to_thread(thread_id, "hello")
    with pytest.raises(InvalidInput, match="no review thread"):
        host.resolve_thread(thread_id)


def test_an_empty_reply_is_refused(host, project):
    pr = open_pr(host, project)
    question = ReviewComment(path="story.txt", line=2, body="y")
    review(host, pr.number, "alice", COMMENT, "x", comments=[question])
    [thread] = host.get_pull_request(pr.number).threads
    with pytest.raises(InvalidInput, match="needs a body"):
        host.reply_to_thread(thread.id, "  ")
    assert len(host.get_pull_request(pr.number).threads[0].comments) == 1


# -- checks and the merge state ------------------------------------------------------------------


def outcomes(checks) -> dict[str, tuple[CheckStatus, CheckConclusion | None]]:
    return {check.name: (check.status, check.conclusion) for check in checks}


def test_checks_belong_to_the_head_they_ran_on(host, project):
    pr = open_pr(host, project)
    give_check(host, pr.number, PASSED)
    give_check(host, pr.number, CheckRun(name="lint", status=CheckStatus.IN_PROGRESS))
    checks = host.get_pull_request(pr.number).checks
    assert outcomes(checks) == {
        "test": (CheckStatus.COMPLETED, CheckConclusion.SUCCESS),
        "lint": (CheckStatus.IN_PROGRESS, None),
    }

    new_head = push(host, project, pr.number, {"later.txt": "later\n"})
    after = host.get_pull_request(pr.number)
    assert after.head_oid == new_head != pr.head_oid
    assert after.checks == ()


def test_a_check_ralph_records_again_on_the_same_head_replaces_the_first(host, project):
    if host.kind in CI_HOSTS:
        pytest.skip("checks on GitHub and GitLab come from CI; Ralph does not post them")
    pr = open_pr(host, project)
    host.record_check(pr.number, FAILED)
    host.record_check(pr.number, PASSED)
    assert host.get_pull_request(pr.number).checks == (PASSED,)


def test_a_required_check_missing_pending_or_failed_blocks_and_passed_clears(host, project):
    pr = open_pr(host, project)
    require(host, "test")
    state = lambda: host.get_pull_request(pr.number).merge_state  # noqa: E731
    assert state() is MergeState.BLOCKED  # missing
    give_check(host, pr.number, CheckRun(name="test", status=CheckStatus.QUEUED))
    assert state() is MergeState.BLOCKED
    [check] = host.get_pull_request(pr.number).checks
    assert check.required  # the host says which checks are required
    new_head = push(host, project, pr.number, {"fix.txt": "fix\n"})
    give_check(host, pr.number, FAILED)
    assert state() is MergeState.BLOCKED
    push(host, project, pr.number, {"fix.txt": "fixed\n"})
    give_check(host, pr.number, PASSED)
    assert state() is MergeState.CLEAN
    give_check(host, pr.number, CheckRun(name="lint", conclusion=CheckConclusion.FAILURE))
    assert state() is MergeState.UNSTABLE  # only an optional one fails
    assert new_head != host.get_pull_request(pr.number).head_oid
    push(host, project, pr.number, {"later.txt": "later\n"})
    assert state() is MergeState.BLOCKED  # the new head has not been tested


def test_a_head_that_does_not_merge_is_dirty(host, project):
    pr = open_pr(host, project)
    project.commit("main", {"new.txt": "theirs\n"}, "someone else's new.txt")
    after = host.get_pull_request(pr.number)
    assert (after.mergeable, after.merge_state) == (False, MergeState.DIRTY)


def test_a_merged_pull_request_is_not_judged_mergeable(host, project):
    pr = open_pr(host, project)
    host.merge_pull_request(pr.number)
    after = host.get_pull_request(pr.number)
    assert after.merge_state in (None, MergeState.UNKNOWN)
    assert after.mergeable is not False


def test_a_merged_pull_request_takes_no_checks(host, project):
    if host.kind in CI_HOSTS:
        pytest.skip("checks on GitHub and GitLab come from CI; Ralph does not post them")
    pr = open_pr(host, project)
    host.merge_pull_request(pr.number)
    with pytest.raises(PullRequestNotOpen):
        host.record_check(pr.number, PASSED)


def test_ralph_cannot_post_a_check_where_ci_does(host, project):
    if host.kind not in CI_HOSTS:
        pytest.skip("Ralph records the checks of the trackers it keeps")
    pr = open_pr(host, project)
    with pytest.raises(TrackerError, match="come from its CI"):
        host.record_check(pr.number, PASSED)


# -- merging -----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", list(MergeStrategy))
def test_every_merge_method_merges_and_closes_the_issues(host, project, strategy):
    issue = host.tracker.create_issue("Change", state=WorkflowState.IN_REVIEW)
    allow(host, strategy)
    pr = open_pr(host, project, body=f"Closes #{issue.number}")
    merged = host.merge_pull_request(pr.number, strategy)
    assert merged.state is PullRequestState.MERGED
    assert merged.merge_commit
    assert host.tracker.get_issue(issue.number).workflow_state is WorkflowState.DONE


def test_a_merge_decided_on_an_old_head_is_refused_and_nothing_merges(host, project):
    issue = host.tracker.create_issue("Change", state=WorkflowState.IN_REVIEW)
    pr = open_pr(host, project, body=f"Closes #{issue.number}")
    new_head = push(host, project, pr.number, {"later.txt": "later\n"})
    assert pr.head_oid is not None
    with pytest.raises(HeadMoved, match="head moved") as refused:
        host.merge_pull_request(pr.number, expected_head=pr.head_oid)
    assert (refused.value.expected, refused.value.actual) == (pr.head_oid, new_head)
    assert host.get_pull_request(pr.number).state is PullRequestState.OPEN
    assert host.tracker.get_issue(issue.number).is_open
    merged = host.merge_pull_request(pr.number, expected_head=new_head)
    assert merged.state is PullRequestState.MERGED


def test_a_conflict_still_refuses_every_method(host, project):
    pr = open_pr(host, project)
    project.commit("main", {"new.txt": "theirs\n"}, "someone else's new.txt")
    for strategy in MergeStrategy:
        allow(host, strategy)
        with pytest.raises(MergeConflict):
            host.merge_pull_request(pr.number, strategy)
    assert host.get_pull_request(pr.number).state is PullRequestState.OPEN


# -- numbers, and what a merge closes ------------------------------------------------------------


def test_pull_requests_share_the_issue_numbers_and_list_by_the_issues_they_close(host, project):
    make(host.tracker)
    make(host.tracker)
    project.commit("feature", {"a.txt": "a\n"}, "feature work")
    pr = host.create_pull_request(
        head="feature", base="main", title="Add a", body="Closes #1\nfixes #2\ncloses #1"
    )
    number = first_pull_number(host, 2)
    assert pr.number == number
    assert pr.state is PullRequestState.OPEN
    assert pr.closes == (1, 2)
    assert host.get_pull_request(number).mergeable is True
    assert [p.number for p in host.list_pull_requests(issue=2)] == [number]
    assert host.list_pull_requests(issue=9) == []
    assert [p.number for p in host.list_pull_requests(head="feature")] == [number]
    assert host.list_pull_requests(head="other") == []
    assert host.tracker.get_issue(1).pull_requests == (number,)
    with pytest.raises(PullRequestNotFound):
        host.get_pull_request(99)


def test_merging_closes_the_named_issues_and_moves_them_to_done(host, project):
    make(host.tracker, state=S.IN_REVIEW)
    make(host.tracker, state=S.DONE)
    bystander = make(host.tracker, state=S.IN_REVIEW)
    project.commit("feature", {"a.txt": "a\n"}, "feature work")
    pr = host.create_pull_request(
        head="feature", base="main", title="A", body="Closes #1, closes #2"
    )
    merged = host.merge_pull_request(pr.number)
    assert merged.state is PullRequestState.MERGED
    assert merged.merge_commit
    for number in (1, 2):
        issue = host.tracker.get_issue(number)
        assert issue.status is IssueStatus.CLOSED
        assert issue.workflow_state is S.DONE
    records = parse_transition_comments(host.tracker.get_issue(1).comments[-1].body)
    assert (records[0].from_state, records[0].command) == ("In Review", "ralph_merge")
    assert host.tracker.get_issue(2).comments == ()  # already Done: closed, no move to audit
    assert host.tracker.get_issue(bystander.number).is_open
    with pytest.raises(PullRequestNotOpen, match="merged"):
        host.merge_pull_request(pr.number)


def test_a_closed_pull_request_cannot_be_merged(host, project):
    project.commit("feature", {"a.txt": "a\n"}, "feature work")
    pr = host.create_pull_request(head="feature", base="main", title="A")
    assert host.close_pull_request(pr.number).state is PullRequestState.CLOSED
    with pytest.raises(PullRequestNotOpen, match="closed"):
        host.merge_pull_request(pr.number)
    assert [p.number for p in host.list_pull_requests(state=PullRequestState.OPEN)] == []


def test_a_known_secret_never_reaches_a_pull_request_a_review_or_a_reply(host, project):
    """Redaction is the code host's write path too, whoever opens or reviews."""
    from ralph._secrets import register_secret

    secret = "s3cret-code-host-contract-5d2b8e41"
    register_secret(secret)
    pr = open_pr(host, project, body=f"Closes #1 with {secret}")
    question = ReviewComment(path="story.txt", line=2, body=f"why {secret}?")
    review(host, pr.number, "alice", COMMENT, f"see {secret}", comments=[question])
    [thread] = host.get_pull_request(pr.number).threads
    host.reply_to_thread(thread.id, f"because {secret}")
    got = host.get_pull_request(pr.number)
    written = [
        got.title,
        got.body,
        *(r.body for r in got.reviews),
        *(c.body for t in got.threads for c in t.comments),
    ]
    assert len(written) >= 5
    assert all(secret not in text for text in written)
