"""GitHubTracker's pull requests against the fake GitHub over HTTP: one request reads a
pull request with everything the merge policy judges; reviews, replies, resolutions and
review requests go to GitHub as GitHub takes them; a merge names the head and a method
the repository allows, and GitHub's refusals come back as errors that say what to do."""

from __future__ import annotations

import pytest

from ralph.errors import (
    HeadMoved,
    InvalidInput,
    MergeBlocked,
    MergeConflict,
    PullRequestNotOpen,
    TrackerError,
)
from ralph.github.fake import CheckPlan, ScriptedFault
from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    GitHubCodeHost,
    MergeSettings,
    MergeState,
    MergeStrategy,
    PullRequestState,
    ReviewComment,
    ReviewDecision,
    ReviewEvent,
    ReviewState,
)
from ralph.workflow import WorkflowState

from .conftest import REVIEWER_TOKEN

S = WorkflowState


def open_pr(pulls, tracker=None, *, branch="feature", files=None, body="") -> int:
    pulls.project.commit(branch, files or {"app.py": "one\ntwo\nthree\n"}, "work")
    tracker = tracker or pulls.tracker()
    number: int = (
        GitHubCodeHost.of(tracker)
        .create_pull_request(head=branch, base="main", title="Work", body=body)
        .number
    )
    return number


#: An inline question on the first line of ``app.py`` (which ``open_pr`` adds).
QUESTION = {"path": "app.py", "line": 1, "body": "?"}


def in_review(tracker) -> int:
    """An issue in In Review, as the pr phase leaves it."""
    tracker.create_issue("Work", state=S.IN_PROGRESS)
    tracker.set_state(1, "In Review", command="ralph_pr")
    return 1


def test_one_request_reads_a_pull_request_with_all_the_merge_policy_judges(pulls):
    pulls.fake.protect("acme/shop", approvals=1, checks=["ci"])
    pulls.fake.run_ci(
        "acme/shop",
        CheckPlan("ci", conclusions=("FAILURE",), summary="FAILED test_app.py::test_one"),
        CheckPlan("docs", running=60),
    )
    ralph, alice = pulls.tracker(), pulls.tracker(REVIEWER_TOKEN)
    number = open_pr(pulls, ralph)
    GitHubCodeHost.of(alice).submit_review(
        number,
        ReviewEvent.REQUEST_CHANGES,
        "Please rename.",
        comments=[ReviewComment(path="app.py", line=2, body="Call it two?")],
    )
    since = len(pulls.fake.requests)
    pr = GitHubCodeHost.of(ralph).get_pull_request(number)
    assert pulls.requests(since) == ["PullRequest"]

    assert pr.head_oid == pulls.project.rev("feature")
    assert pr.author == "ralph"
    assert pr.mergeable is True
    assert pr.review_decision is ReviewDecision.CHANGES_REQUESTED
    assert pr.merge_state is MergeState.BLOCKED
    by_name = {c.name: c for c in pr.checks}
    assert by_name["ci"].required
    assert by_name["ci"].failed
    assert by_name["ci"].summary == "FAILED test_app.py::test_one"
    assert not by_name["docs"].required
    assert by_name["docs"].status is CheckStatus.IN_PROGRESS
    (review,) = pr.reviews
    assert (review.author, review.state, review.body) == (
        "alice",
        ReviewState.CHANGES_REQUESTED,
        "Please rename.",
    )
    assert review.commit == pr.head_oid
    (thread,) = pr.threads
    assert (thread.path, thread.line, thread.resolved) == ("app.py", 2, False)
    assert thread.diff_hunk.endswith("+two")
    assert [(c.author, c.body) for c in thread.comments] == [("alice", "Call it two?")]


def test_review_threads_past_the_first_fifty_are_paged_in(pulls):
    number = open_pr(pulls, files={"app.py": "".join(f"line {i}\n" for i in range(60))})
    for line in range(1, 56):
        thread = {"path": "app.py", "line": line, "body": f"on {line}"}
        pulls.fake.review("acme/shop", number, "alice", "COMMENT", threads=[thread])
    since = len(pulls.fake.requests)
    pr = GitHubCodeHost.of(pulls.tracker()).get_pull_request(number)
    assert [t.line for t in pr.threads] == list(range(1, 56))
    assert pulls.requests(since) == ["PullRequest", "PullRequestThreads"]


def test_a_list_of_pull_requests_is_a_summary_read_in_pages(pulls):
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker, body="Closes #7")
    (listed,) = GitHubCodeHost.of(tracker).list_pull_requests(state=PullRequestState.OPEN)
    assert (listed.number, listed.closes, listed.author) == (number, (7,), "ralph")
    assert listed.head_oid == pulls.project.rev("feature")
    assert listed.checks == ()
    assert listed.merge_state is None


def test_the_pull_requests_from_a_branch_are_one_query_not_a_scan_of_every_one(pulls):
    tracker = pulls.tracker()
    for n in range(3):
        open_pr(pulls, tracker, branch=f"other-{n}", files={f"f{n}.py": "x\n"})
    number = open_pr(pulls, tracker, branch="feature")
    since = len(pulls.fake.requests)
    (found,) = GitHubCodeHost.of(tracker).list_pull_requests(
        head="feature", state=PullRequestState.OPEN
    )
    assert found.number == number
    assert GitHubCodeHost.of(tracker).list_pull_requests(head="nowhere") == []
    assert pulls.requests(since) == ["PullRequestsFrom", "PullRequestsFrom"]


def test_an_issue_names_only_the_pull_requests_into_the_default_branch_as_github_links(pulls):
    """GitHub honours closing keywords only into the default branch: the issue names
    those; the tracker's list by issue still finds the others by their body."""
    tracker = pulls.tracker()
    tracker.create_issue("Work")
    into_main = open_pr(pulls, tracker, body="Closes #1")
    pulls.project.commit("release", {"r.py": "r\n"}, "release branch")
    pulls.project.commit("fix", {"fix.py": "f\n"}, "fix")
    elsewhere = (
        GitHubCodeHost.of(tracker)
        .create_pull_request(head="fix", base="release", title="Fix", body="Closes #1")
        .number
    )
    assert tracker.get_issue(1).pull_requests == (into_main,)
    assert [p.number for p in GitHubCodeHost.of(tracker).list_pull_requests(issue=1)] == [
        into_main,
        elsewhere,
    ]


def test_merge_settings_are_read_once_with_the_repository(pulls):
    pulls.fake.allow_merges("acme/shop", merge=False, rebase=False)
    pulls.fake.protect("acme/shop", merge_queue=True)
    tracker = pulls.tracker()
    since = len(pulls.fake.requests)
    assert GitHubCodeHost.of(tracker).merge_settings() == MergeSettings(
        merge_commit=False, squash=True, rebase=False, merge_queue=True
    )
    GitHubCodeHost.of(tracker).merge_settings()
    tracker.repository_id()
    tracker.board()  # read with the repository, in the same request
    assert pulls.requests(since) == ["RepositoryAndBoard"]


def test_a_method_the_repository_forbids_is_refused_before_anything_is_sent(pulls):
    pulls.fake.allow_merges("acme/shop", merge=False)
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    with pytest.raises(InvalidInput, match="does not allow merge merges; it allows squash, rebase"):
        GitHubCodeHost.of(tracker).merge_pull_request(number)
    assert "MergePullRequest" not in pulls.requests()
    merged = GitHubCodeHost.of(tracker).merge_pull_request(number, MergeStrategy.SQUASH)
    assert merged.state is PullRequestState.MERGED


def test_a_method_forbidden_after_it_was_read_comes_back_in_githubs_words(pulls):
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    GitHubCodeHost.of(tracker).merge_settings()  # read while merge commits were allowed
    pulls.fake.allow_merges("acme/shop", merge=False)
    with pytest.raises(InvalidInput, match="Merge commits are not allowed on this repository"):
        GitHubCodeHost.of(tracker).merge_pull_request(number)


def test_a_head_other_than_the_one_decided_on_is_not_merged(pulls):
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    decided = GitHubCodeHost.of(tracker).get_pull_request(number).head_oid
    pushed = pulls.project.commit("feature", {"late.py": "late\n"}, "a late push")
    with pytest.raises(HeadMoved) as moved:
        GitHubCodeHost.of(tracker).merge_pull_request(number, expected_head=decided)
    assert (moved.value.expected, moved.value.actual) == (decided, pushed)
    assert "MergePullRequest" not in pulls.requests()
    assert GitHubCodeHost.of(tracker).get_pull_request(number).state is PullRequestState.OPEN


def test_a_push_between_the_read_and_the_merge_is_refused_by_github_not_merged(pulls):
    """The tracker names the head it read (expectedHeadOid): GitHub refuses a merge of a
    head that moved after that read."""
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    read = GitHubCodeHost.of(pulls.tracker()).node(number)
    pushed = pulls.project.commit("feature", {"late.py": "late\n"}, "a late push")
    with pytest.raises(HeadMoved, match="since it was read") as moved:
        GitHubCodeHost.of(tracker).merge(read, MergeStrategy.MERGE, None, "Merge")
    assert moved.value.actual == pushed
    assert pulls.requests().count("MergePullRequest") == 1
    assert GitHubCodeHost.of(tracker).get_pull_request(number).state is PullRequestState.OPEN


def test_base_branch_was_modified_is_tried_again_and_merges(pulls):
    tracker = pulls.tracker()
    issue = in_review(tracker)
    number = open_pr(pulls, tracker, body=f"Closes #{issue}")
    pulls.fake.script(ScriptedFault.base_branch_modified())
    merged = GitHubCodeHost.of(tracker).merge_pull_request(number)
    assert merged.state is PullRequestState.MERGED
    assert pulls.requests().count("MergePullRequest") == 2
    assert tracker.get_issue(issue).workflow_state is S.DONE


def test_base_branch_modified_every_time_gives_up_after_bounded_tries_in_githubs_words(pulls):
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    pulls.fake.script(*[ScriptedFault.base_branch_modified() for _ in range(5)])
    start = pulls.clock()
    with pytest.raises(MergeBlocked, match="Base branch was modified"):
        GitHubCodeHost.of(tracker).merge_pull_request(number)
    assert pulls.requests().count("MergePullRequest") == 3
    assert pulls.clock() - start == 2.0 + 4.0
    assert GitHubCodeHost.of(tracker).get_pull_request(number).state is PullRequestState.OPEN


def test_a_merge_that_landed_but_was_answered_not_mergeable_is_success(pulls):
    tracker = pulls.tracker()
    issue = in_review(tracker)
    number = open_pr(pulls, tracker, body=f"Closes #{issue}")
    pulls.fake.script(ScriptedFault.merged_but_not_mergeable())
    merged = GitHubCodeHost.of(tracker).merge_pull_request(number)
    assert merged.state is PullRequestState.MERGED
    assert merged.merge_commit == pulls.project.rev("main")
    assert tracker.get_issue(issue).workflow_state is S.DONE
    assert not tracker.get_issue(issue).is_open


def test_a_merge_whose_answer_was_lost_is_judged_by_the_pull_request_merged(pulls):
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    pulls.fake.script(ScriptedFault("MergePullRequest", status=502, after=True))
    assert GitHubCodeHost.of(tracker).merge_pull_request(number).state is PullRequestState.MERGED
    assert pulls.requests().count("MergePullRequest") == 1


@pytest.mark.parametrize(
    ("rules", "said"),
    [
        ({"approvals": 1}, "At least 1 approving review is required by reviewers with write"),
        ({"checks": ["ci"]}, 'Required status check "ci" is expected.'),
        ({"conversations": True}, "A conversation must be resolved"),
    ],
)
def test_what_the_branch_rules_hold_back_comes_back_blocked_in_githubs_words(pulls, rules, said):
    pulls.fake.protect("acme/shop", **rules)
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    pulls.fake.review(
        "acme/shop",
        number,
        "alice",
        "COMMENT",
        threads=[{"path": "app.py", "line": 1, "body": "?"}],
    )
    with pytest.raises(MergeBlocked, match=said) as blocked:
        GitHubCodeHost.of(tracker).merge_pull_request(number)
    assert blocked.value.merge_state == "BLOCKED"
    assert said in blocked.value.reason
    assert GitHubCodeHost.of(tracker).get_pull_request(number).state is PullRequestState.OPEN


def test_only_a_conflicting_head_is_a_merge_conflict(pulls):
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker, files={"README.md": "theirs\n"})
    pulls.project.commit("main", {"README.md": "ours\n"}, "meanwhile")
    with pytest.raises(MergeConflict):
        GitHubCodeHost.of(tracker).merge_pull_request(number)
    assert "MergePullRequest" not in pulls.requests()


def test_merging_a_merged_pull_request_says_it_is_merged(pulls):
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    GitHubCodeHost.of(tracker).merge_pull_request(number)
    with pytest.raises(PullRequestNotOpen, match="merged"):
        GitHubCodeHost.of(tracker).merge_pull_request(number)


def test_a_merge_queue_branch_is_enqueued_and_its_issues_settle_once_github_merged(pulls):
    pulls.fake.protect("acme/shop", merge_queue=True)
    tracker = pulls.tracker()
    issue = in_review(tracker)
    number = open_pr(pulls, tracker, body=f"Closes #{issue}")
    with pytest.raises(MergeBlocked, match="merge queue; enqueue it"):
        GitHubCodeHost.of(tracker).merge_pull_request(number)
    head = GitHubCodeHost.of(tracker).get_pull_request(number).head_oid
    queued = GitHubCodeHost.of(tracker).enqueue_pull_request(number, expected_head=head)
    assert queued.state is PullRequestState.OPEN
    assert pulls.fake.pull_request("acme/shop", number).isInMergeQueue
    GitHubCodeHost.of(tracker).enqueue_pull_request(number)  # already queued: left so
    assert pulls.requests().count("EnqueuePullRequest") == 1
    assert pulls.fake.run_merge_queue("acme/shop") == [number]
    GitHubCodeHost.of(tracker).settle_merged(number)
    assert tracker.get_issue(issue).workflow_state is S.DONE
    assert GitHubCodeHost.of(tracker).enqueue_pull_request(number).state is PullRequestState.MERGED


def test_enqueueing_an_old_head_is_refused_before_anything_is_sent(pulls):
    pulls.fake.protect("acme/shop", merge_queue=True)
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    with pytest.raises(HeadMoved):
        GitHubCodeHost.of(tracker).enqueue_pull_request(number, expected_head="0" * 40)
    assert "EnqueuePullRequest" not in pulls.requests()


def test_a_pull_request_not_ready_yet_is_auto_merged_where_the_repository_allows(pulls):
    pulls.fake.protect("acme/shop", checks=["ci"])
    pulls.fake.allow_merges("acme/shop", merge=False, auto_merge=True)
    pulls.fake.run_ci("acme/shop", CheckPlan("ci", running=300))
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    GitHubCodeHost.of(tracker).enqueue_pull_request(number)
    assert pulls.requests().count("EnableAutoMerge") == 1
    assert GitHubCodeHost.of(tracker).get_pull_request(number).state is PullRequestState.OPEN
    pulls.clock.advance(301)
    assert GitHubCodeHost.of(tracker).get_pull_request(number).state is PullRequestState.MERGED
    parents = pulls.project._git("rev-list", "--parents", "-1", "main").split()
    assert len(parents) == 2  # squash: the first method the repository allows


def test_nothing_is_enqueued_without_a_merge_queue_or_auto_merge(pulls):
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    with pytest.raises(InvalidInput, match="has no merge queue and it can merge now"):
        GitHubCodeHost.of(tracker).enqueue_pull_request(number)


def test_a_reviewer_requests_changes_with_a_thread_and_ralph_replies_and_resolves(pulls):
    ralph, alice = pulls.tracker(), pulls.tracker(REVIEWER_TOKEN)
    number = open_pr(pulls, ralph)
    review = GitHubCodeHost.of(alice).submit_review(
        number,
        ReviewEvent.REQUEST_CHANGES,
        "Two things.",
        comments=[ReviewComment(path="app.py", line=3, body="Three is wrong.")],
    )
    assert (review.author, review.state, review.body) == (
        "alice",
        ReviewState.CHANGES_REQUESTED,
        "Two things.",
    )
    (thread,) = GitHubCodeHost.of(ralph).get_pull_request(number).threads
    answer = GitHubCodeHost.of(ralph).reply_to_thread(thread.id, "Fixed in abc1234.")
    assert (answer.author, answer.body) == ("ralph", "Fixed in abc1234.")
    resolved = GitHubCodeHost.of(ralph).resolve_thread(thread.id)
    assert resolved.resolved
    assert [c.body for c in resolved.comments] == ["Three is wrong.", "Fixed in abc1234."]
    assert (
        GitHubCodeHost.of(ralph).resolve_thread(thread.id).resolved
    )  # resolving again changes nothing
    assert "<!-- ralph:op=" in pulls.fake.pull_request("acme/shop", number).review_list[0].body


def test_github_lets_nobody_approve_or_reject_their_own_pull_request(pulls):
    ralph = pulls.tracker()
    number = open_pr(pulls, ralph)
    with pytest.raises(InvalidInput, match="Can not approve your own pull request; GitHub lets"):
        GitHubCodeHost.of(ralph).submit_review(number, ReviewEvent.APPROVE)
    assert GitHubCodeHost.of(ralph).submit_review(
        number, ReviewEvent.COMMENT, "Self-check."
    ).state is (ReviewState.COMMENTED)


def test_reviews_github_would_refuse_or_that_review_nothing_are_refused_in_one_line(pulls):
    ralph, alice = pulls.tracker(), pulls.tracker(REVIEWER_TOKEN)
    number = open_pr(pulls, ralph)
    with pytest.raises(InvalidInput, match="requests changes needs a body"):
        GitHubCodeHost.of(alice).submit_review(number, ReviewEvent.REQUEST_CHANGES, "  ")
    with pytest.raises(InvalidInput, match="comments needs a body"):
        GitHubCodeHost.of(alice).submit_review(number, ReviewEvent.COMMENT)
    assert "AddReview" not in pulls.requests()
    off = ReviewComment(path="README.md", line=1, body="?")
    with pytest.raises(InvalidInput, match="on a line the pull request changes"):
        GitHubCodeHost.of(alice).submit_review(number, ReviewEvent.COMMENT, "x", comments=[off])
    GitHubCodeHost.of(ralph).merge_pull_request(number)
    with pytest.raises(InvalidInput, match=f"#{number} is merged; there is nothing to review"):
        GitHubCodeHost.of(alice).submit_review(number, ReviewEvent.APPROVE)
    assert pulls.fake.pull_request("acme/shop", number).review_list == []


def test_a_review_or_reply_whose_answer_was_lost_is_posted_once(pulls):
    ralph, alice = pulls.tracker(), pulls.tracker(REVIEWER_TOKEN)
    number = open_pr(pulls, ralph)
    pulls.fake.script(ScriptedFault("AddReview", status=502, after=True))
    question = ReviewComment(path="app.py", line=1, body="Why?")
    review = GitHubCodeHost.of(alice).submit_review(
        number, ReviewEvent.COMMENT, "Hm.", comments=[question]
    )
    assert review.body == "Hm."
    pr = pulls.fake.pull_request("acme/shop", number)
    assert len(pr.review_list) == 1
    pulls.fake.script(ScriptedFault("ReplyToThread", transport=True, after=True))
    GitHubCodeHost.of(ralph).reply_to_thread(pr.thread_list[0].id, "Because.")
    assert [c.body.split("\n")[0] for c in pr.thread_list[0].comment_list] == ["Why?", "Because."]


def test_a_thread_that_does_not_exist_is_named(pulls):
    with pytest.raises(InvalidInput, match="no review thread 'PRRT_nope'"):
        GitHubCodeHost.of(pulls.tracker()).reply_to_thread("PRRT_nope", "Hello")
    with pytest.raises(InvalidInput, match="no review thread"):
        GitHubCodeHost.of(pulls.tracker()).resolve_thread("PRRT_nope")


def test_review_is_requested_again_of_everyone_who_reviewed_and_changes_stay_requested(pulls):
    pulls.fake.protect("acme/shop", approvals=1)
    ralph, alice = pulls.tracker(), pulls.tracker(REVIEWER_TOKEN)
    number = open_pr(pulls, ralph)
    GitHubCodeHost.of(alice).submit_review(number, ReviewEvent.REQUEST_CHANGES, "Rename it.")
    GitHubCodeHost.of(ralph).submit_review(
        number, ReviewEvent.COMMENT, "Renamed."
    )  # the author: never asked
    GitHubCodeHost.of(ralph).request_review(number)
    pr = pulls.fake.pull_request("acme/shop", number)
    assert [a.login for a in pr.requested] == ["alice"]
    assert (
        GitHubCodeHost.of(ralph).get_pull_request(number).review_decision
        is ReviewDecision.CHANGES_REQUESTED
    )
    pulls.fake.world.account("bob")
    GitHubCodeHost.of(ralph).request_review(number, ["bob"])
    assert [a.login for a in pr.requested] == ["alice", "bob"]
    with pytest.raises(InvalidInput, match="no user 'nobody'"):
        GitHubCodeHost.of(ralph).request_review(number, ["nobody"])


def test_checks_on_github_come_from_its_ci(pulls):
    tracker = pulls.tracker()
    number = open_pr(pulls, tracker)
    check = CheckRun(name="test", conclusion=CheckConclusion.SUCCESS, required=True)
    with pytest.raises(TrackerError, match="checks on GitHub come from its CI"):
        GitHubCodeHost.of(tracker).record_check(number, check)
