"""The fake GitHub judges pull requests as GitHub does, over HTTP: the head commit moves
with pushes, CI's checks run queued -> in progress -> completed on GitHub's clock,
branch protection makes checks required and reviews needed, ``mergeable`` is UNKNOWN
for a while after a push, ``mergeStateStatus`` and ``reviewDecision`` follow, and merges,
reviews and queues are refused in GitHub's words."""

from __future__ import annotations

from typing import Any

from ralph.github import GitHubClient, HttpTransport, Pacer, PacingPolicy, Tokens
from ralph.github.fake import CheckPlan, FakeGitHub, ScriptedFault
from ralph.tracker import CheckConclusion, GitHubCodeHost, GitHubTracker, set_up_board

from .conftest import REVIEWER_TOKEN, TOKEN


def graphql(pulls, query: str, token: str = TOKEN, **variables: Any) -> dict[str, Any]:
    """A document sent as any GitHub client would: GitHub's answer, errors and all."""
    reply = HttpTransport(pulls.url).post({"query": query, "variables": variables}, token)
    assert reply.status == 200
    return dict(reply.body)


def errors(answer: dict[str, Any]) -> list[str]:
    return [e["message"] for e in answer.get("errors") or []]


PR_STATE = """
query State($number: Int!) {
  repository(owner: "acme", name: "shop") {
    pullRequest(number: $number) {
      id headRefOid baseRefOid mergeable mergeStateStatus reviewDecision
      isMergeQueueEnabled isInMergeQueue
      commits(last: 1) { nodes { commit { oid statusCheckRollup { state contexts(first: 10) {
        nodes { __typename
          ... on CheckRun { name status conclusion isRequired(pullRequestNumber: $number) }
          ... on StatusContext { context state isRequired(pullRequestNumber: $number) }
        } } } } } }
      reviewRequests(first: 10) { nodes { requestedReviewer { ... on User { login } } } }
    }
  }
}
"""


def state(pulls, number: int = 1) -> dict[str, Any]:
    answer = graphql(pulls, PR_STATE, number=number)
    assert errors(answer) == []
    return dict(answer["data"]["repository"]["pullRequest"])


def checks(found: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    commit = found["commits"]["nodes"][0]["commit"]
    rollup = commit["statusCheckRollup"] or {"contexts": {"nodes": []}}
    return {
        c.get("name") or c["context"]: (
            c.get("status") or c["state"],
            c.get("conclusion"),
            c["isRequired"],
        )
        for c in rollup["contexts"]["nodes"]
    }


#: An inline question on the second line of ``app.py`` (which ``open_pr`` adds).
QUESTION = {"path": "app.py", "line": 2, "body": "?"}


def open_pr(pulls, branch: str = "feature", files: dict[str, str] | None = None) -> int:
    pulls.project.commit(branch, files or {"app.py": "one\ntwo\nthree\n"}, "work")
    tracker = pulls.tracker()
    number: int = (
        GitHubCodeHost.of(tracker)
        .create_pull_request(head=branch, base="main", title="Work")
        .number
    )
    return number


def test_the_head_oid_is_the_branchs_commit_and_moves_with_a_push(pulls):
    number = open_pr(pulls)
    assert state(pulls, number)["headRefOid"] == pulls.project.rev("feature")
    pushed = pulls.project.commit("feature", {"app.py": "one\ntwo\nthree\nfour\n"}, "more")
    assert state(pulls, number)["headRefOid"] == pushed
    assert state(pulls, number)["baseRefOid"] == pulls.project.rev("main")


def test_mergeable_is_unknown_for_the_first_reads_after_each_push(pulls):
    pulls.fake.mergeability(reads=2)
    number = open_pr(pulls)
    seen = [state(pulls, number)["mergeable"] for _ in range(3)]
    assert seen == ["UNKNOWN", "UNKNOWN", "MERGEABLE"]
    assert state(pulls, number)["mergeStateStatus"] == "CLEAN"
    pulls.project.commit("feature", {"b.py": "b\n"}, "push")
    after = [state(pulls, number)["mergeStateStatus"] for _ in range(3)]
    assert after == ["UNKNOWN", "UNKNOWN", "CLEAN"]


def test_mergeable_is_unknown_for_some_seconds_after_a_push_on_githubs_clock(pulls):
    pulls.fake.mergeability(seconds=30)
    number = open_pr(pulls)
    assert state(pulls, number)["mergeable"] == "UNKNOWN"
    pulls.clock.advance(29)
    assert state(pulls, number)["mergeable"] == "UNKNOWN"
    pulls.clock.advance(2)
    assert state(pulls, number)["mergeable"] == "MERGEABLE"


def test_a_pull_request_that_conflicts_is_conflicting_and_dirty(pulls):
    number = open_pr(pulls, files={"README.md": "theirs\n"})
    pulls.project.commit("main", {"README.md": "ours\n"}, "meanwhile")
    found = state(pulls, number)
    assert (found["mergeable"], found["mergeStateStatus"]) == ("CONFLICTING", "DIRTY")


def test_ci_runs_queued_then_in_progress_then_completed_on_githubs_clock(pulls):
    pulls.fake.run_ci("acme/shop", CheckPlan("ci", queued=10, running=60))
    number = open_pr(pulls)
    assert checks(state(pulls, number)) == {"ci": ("QUEUED", None, False)}
    pulls.clock.advance(11)
    assert checks(state(pulls, number)) == {"ci": ("IN_PROGRESS", None, False)}
    pulls.clock.advance(60)
    assert checks(state(pulls, number)) == {"ci": ("COMPLETED", "SUCCESS", False)}


def test_each_new_head_gets_its_own_checks_so_a_check_can_fail_then_pass(pulls):
    pulls.fake.run_ci("acme/shop", CheckPlan("ci", conclusions=("FAILURE", "SUCCESS")))
    number = open_pr(pulls)
    assert checks(state(pulls, number))["ci"][:2] == ("COMPLETED", "FAILURE")
    pulls.project.commit("feature", {"fix.py": "fixed\n"}, "fix")
    assert checks(state(pulls, number))["ci"][:2] == ("COMPLETED", "SUCCESS")


def test_a_test_drives_a_check_by_hand(pulls):
    number = open_pr(pulls)
    check = pulls.fake.add_check("acme/shop", number, "deploy", queued=True)
    assert checks(state(pulls, number))["deploy"][0] == "QUEUED"
    check.start()
    assert checks(state(pulls, number))["deploy"][0] == "IN_PROGRESS"
    check.complete("failure")
    assert checks(state(pulls, number))["deploy"][:2] == ("COMPLETED", "FAILURE")


def test_checks_the_base_branch_requires_say_so_and_block_until_they_pass(pulls):
    pulls.fake.protect("acme/shop", checks=["ci", "legacy"])
    number = open_pr(pulls)
    ci = pulls.fake.add_check("acme/shop", number, "ci")
    pulls.fake.add_check("acme/shop", number, "lint", "failure")
    pulls.fake.add_check("acme/shop", number, "legacy", "success", status_context=True)
    found = state(pulls, number)
    assert checks(found) == {
        "ci": ("IN_PROGRESS", None, True),
        "lint": ("COMPLETED", "FAILURE", False),
        "legacy": ("SUCCESS", None, True),
    }
    assert found["mergeStateStatus"] == "BLOCKED"
    ci.complete("success")
    assert state(pulls, number)["mergeStateStatus"] == "UNSTABLE"  # only lint fails


def test_a_required_check_that_never_reported_blocks_the_merge_unseen(pulls):
    """GitHub lists the checks that ran, not the ones it waits for: a required check
    that has not reported is only visible as BLOCKED."""
    pulls.fake.protect("acme/shop", checks=["ci"])
    number = open_pr(pulls)
    found = state(pulls, number)
    assert checks(found) == {}
    assert found["mergeStateStatus"] == "BLOCKED"


def test_an_answer_is_of_one_instant_so_a_check_concluding_mid_answer_is_seen_one_way(pulls):
    """A clock that moves on every look, and a check concluding at each look of an
    answer in turn: without one instant per answer, a check could be in progress for
    mergeStateStatus and completed in the rollup of the same answer (a merge escalated
    as BLOCKED with every check passed)."""
    pulls.fake.protect("acme/shop", checks=["ci"])
    number = open_pr(pulls)
    ticking = pulls.clock

    class Ticking:
        def __call__(self) -> float:
            ticking.advance(1)
            return float(ticking.now)

    pulls.fake.clock = pulls.fake.world.clock = Ticking()
    seen = set()
    for looks in range(1, 40):
        pulls.fake.add_check("acme/shop", number, "ci", "success", after=looks)
        found = state(pulls, number)
        seen.add((checks(found)["ci"][:2], found["mergeStateStatus"]))
    assert seen == {(("IN_PROGRESS", None), "BLOCKED"), (("COMPLETED", "SUCCESS"), "CLEAN")}


def test_an_up_to_date_rule_makes_a_head_behind_its_base_behind(pulls):
    pulls.fake.protect("acme/shop", checks=["ci"], strict=True)
    pulls.fake.run_ci("acme/shop", CheckPlan("ci"))
    number = open_pr(pulls)
    assert state(pulls, number)["mergeStateStatus"] == "CLEAN"
    pulls.project.commit("main", {"other.py": "x\n"}, "someone else's merge")
    assert state(pulls, number)["mergeStateStatus"] == "BEHIND"


def test_review_decision_is_null_where_no_review_is_required(pulls):
    number = open_pr(pulls)
    pulls.fake.review("acme/shop", number, "alice", "APPROVE")
    assert state(pulls, number)["reviewDecision"] is None


def test_review_decision_follows_each_reviewers_latest_review(pulls):
    pulls.fake.protect("acme/shop", approvals=1)
    number = open_pr(pulls)
    assert state(pulls, number)["reviewDecision"] == "REVIEW_REQUIRED"
    assert state(pulls, number)["mergeStateStatus"] == "BLOCKED"
    pulls.fake.review("acme/shop", number, "bob", "APPROVE")
    assert state(pulls, number)["reviewDecision"] == "APPROVED"
    pulls.fake.review("acme/shop", number, "alice", "REQUEST_CHANGES", "Rename it.")
    assert state(pulls, number)["reviewDecision"] == "CHANGES_REQUESTED"
    pulls.fake.review("acme/shop", number, "alice", "COMMENT", "Still looking.")
    assert state(pulls, number)["reviewDecision"] == "CHANGES_REQUESTED"
    pulls.fake.review("acme/shop", number, "alice", "APPROVE")
    assert state(pulls, number)["reviewDecision"] == "APPROVED"
    assert state(pulls, number)["mergeStateStatus"] == "CLEAN"


def test_a_review_from_someone_without_write_access_does_not_count(pulls):
    pulls.fake.protect("acme/shop", approvals=1)
    pulls.fake.repository("acme/shop").roles["carol"] = "READ"
    number = open_pr(pulls)
    pulls.fake.review("acme/shop", number, "carol", "APPROVE")
    assert state(pulls, number)["reviewDecision"] == "REVIEW_REQUIRED"


def test_a_push_dismisses_approvals_where_the_branch_says_stale_reviews_go(pulls):
    pulls.fake.protect("acme/shop", approvals=1, dismiss_stale=True)
    number = open_pr(pulls)
    pulls.fake.review("acme/shop", number, "alice", "APPROVE")
    assert state(pulls, number)["reviewDecision"] == "APPROVED"
    pulls.project.commit("feature", {"b.py": "b\n"}, "push")
    assert state(pulls, number)["reviewDecision"] == "REVIEW_REQUIRED"


def test_unresolved_threads_block_where_conversations_must_be_resolved(pulls):
    pulls.fake.protect("acme/shop", conversations=True)
    number = open_pr(pulls)
    review = pulls.fake.review("acme/shop", number, "alice", "COMMENT", threads=[QUESTION])
    assert state(pulls, number)["mergeStateStatus"] == "BLOCKED"
    review.comment_list[0].thread.isResolved = True
    assert state(pulls, number)["mergeStateStatus"] == "CLEAN"


def test_a_thread_carries_the_diff_hunk_up_to_its_line(pulls):
    number = open_pr(pulls)
    pulls.fake.review("acme/shop", number, "alice", "COMMENT", threads=[QUESTION])
    thread = GitHubCodeHost.of(pulls.tracker()).get_pull_request(number).threads[0]
    assert thread.diff_hunk.splitlines() == ["@@ -0,0 +1,3 @@", "+one", "+two"]


REVIEW = """
mutation Review($input: AddPullRequestReviewInput!) {
  addPullRequestReview(input: $input) { pullRequestReview { id state } }
}
"""


def test_github_refuses_what_it_refuses_of_a_review_in_its_words(pulls):
    number = open_pr(pulls)
    pr_id = state(pulls, number)["id"]

    def refused(token: str, **fields: Any) -> list[str]:
        return errors(graphql(pulls, REVIEW, token, input={"pullRequestId": pr_id, **fields}))

    assert refused(TOKEN, event="APPROVE") == ["Can not approve your own pull request"]
    assert refused(TOKEN, event="REQUEST_CHANGES", body="x") == [
        "Can not request changes on your own pull request"
    ]
    off_diff = {"path": "README.md", "line": 1, "body": "?"}
    assert refused(REVIEWER_TOKEN, event="COMMENT", body="x", threads=[off_diff]) == [
        "Pull request review thread line must be part of the diff, and Pull request review "
        "thread diff hunk can't be blank"
    ]
    assert refused(REVIEWER_TOKEN, event="REQUEST_CHANGES") != []
    assert refused(REVIEWER_TOKEN, event="APPROVE") == []
    assert pulls.fake.pull_request("acme/shop", number).review_list[-1].state == "APPROVED"


def test_a_pending_review_is_submitted_later_and_seen_by_others_only_then(pulls):
    number = open_pr(pulls)
    pr_id = state(pulls, number)["id"]
    thread = {"path": "app.py", "line": 1, "body": "Why one?"}
    draft = {"pullRequestId": pr_id, "threads": [thread]}
    made = graphql(pulls, REVIEW, REVIEWER_TOKEN, input=draft)
    assert made["data"]["addPullRequestReview"]["pullRequestReview"]["state"] == "PENDING"
    assert GitHubCodeHost.of(pulls.tracker()).get_pull_request(number).reviews == ()
    submitted = graphql(
        pulls,
        """mutation Submit($input: SubmitPullRequestReviewInput!) {
          submitPullRequestReview(input: $input) { pullRequestReview { state } } }""",
        REVIEWER_TOKEN,
        input={"pullRequestId": pr_id, "event": "COMMENT", "body": "One question."},
    )
    assert errors(submitted) == []
    read = GitHubCodeHost.of(pulls.tracker()).get_pull_request(number)
    assert [(r.author, r.state.value) for r in read.reviews] == [("alice", "COMMENTED")]
    assert [t.comments[0].body for t in read.threads] == ["Why one?"]


def test_review_requests_are_kept_and_never_of_the_author(pulls):
    number = open_pr(pulls)
    pr_id = state(pulls, number)["id"]
    alice = pulls.fake.world.accounts["alice"].id
    ralph = pulls.fake.world.accounts["ralph"].id
    request = """mutation Request($input: RequestReviewsInput!) {
      requestReviews(input: $input) { pullRequest { id } } }"""
    assert errors(graphql(pulls, request, input={"pullRequestId": pr_id, "userIds": [ralph]})) == [
        "Review cannot be requested from pull request author."
    ]
    assert errors(graphql(pulls, request, input={"pullRequestId": pr_id, "userIds": [alice]})) == []
    requested = state(pulls, number)["reviewRequests"]["nodes"]
    assert [r["requestedReviewer"]["login"] for r in requested] == ["alice"]
    pulls.fake.review("acme/shop", number, "alice", "APPROVE")
    assert state(pulls, number)["reviewRequests"]["nodes"] == []


MERGE = """
mutation MergePullRequest($input: MergePullRequestInput!) {
  mergePullRequest(input: $input) { pullRequest { state } }
}
"""


def merge_errors(pulls, number: int, **fields: Any) -> list[str]:
    pr_id = state(pulls, number)["id"]
    return errors(graphql(pulls, MERGE, input={"pullRequestId": pr_id, **fields}))


def test_a_merge_method_the_repository_forbids_is_refused_in_githubs_words(pulls):
    pulls.fake.allow_merges("acme/shop", merge=False, rebase=False)
    number = open_pr(pulls)
    assert merge_errors(pulls, number) == ["Merge commits are not allowed on this repository."]
    assert merge_errors(pulls, number, mergeMethod="REBASE") == [
        "Rebase merges are not allowed on this repository."
    ]
    assert merge_errors(pulls, number, mergeMethod="SQUASH") == []
    merged = pulls.fake.pull_request("acme/shop", number)
    assert merged.state == "MERGED"
    assert len(pulls.project._git("rev-list", "--parents", "-1", "main").split()) == 2  # squash


def test_a_merge_naming_an_old_head_is_refused(pulls):
    number = open_pr(pulls)
    old = state(pulls, number)["headRefOid"]
    pulls.project.commit("feature", {"late.py": "late\n"}, "a late push")
    assert merge_errors(pulls, number, expectedHeadOid=old) == [
        "Head branch was modified. Review and try the merge again."
    ]
    assert pulls.fake.pull_request("acme/shop", number).state == "OPEN"


def test_merges_the_branch_rules_hold_back_are_refused_in_githubs_words(pulls):
    pulls.fake.protect("acme/shop", approvals=1, checks=["ci"], strict=True)
    number = open_pr(pulls)
    assert merge_errors(pulls, number) == [
        "At least 1 approving review is required by reviewers with write access."
    ]
    pulls.fake.review("acme/shop", number, "alice", "APPROVE")
    assert merge_errors(pulls, number) == ['Required status check "ci" is expected.']
    ci = pulls.fake.add_check("acme/shop", number, "ci")
    assert merge_errors(pulls, number) == ['Required status check "ci" is in progress.']
    ci.complete("failure")
    assert merge_errors(pulls, number) == ['Required status check "ci" is failing.']
    ci.complete("success")
    pulls.project.commit("main", {"other.py": "x\n"}, "someone else's merge")
    assert merge_errors(pulls, number) == ["1 of 1 required status checks are expected."]


def test_a_conflicting_pull_request_is_not_mergeable(pulls):
    number = open_pr(pulls, files={"README.md": "theirs\n"})
    pulls.project.commit("main", {"README.md": "ours\n"}, "meanwhile")
    assert merge_errors(pulls, number) == ["Pull Request is not mergeable"]


def test_a_branch_with_a_merge_queue_takes_no_direct_merge_and_merges_on_the_queues_turn(pulls):
    pulls.fake.protect("acme/shop", merge_queue=True)
    first, second = open_pr(pulls, "one"), open_pr(pulls, "two", {"two.py": "2\n"})
    assert merge_errors(pulls, first) == ["Changes must be made through the merge queue"]
    enqueue = """mutation Enqueue($input: EnqueuePullRequestInput!) {
      enqueuePullRequest(input: $input) { mergeQueueEntry { position state } } }"""
    for number, position in ((first, 1), (second, 2)):
        answer = graphql(pulls, enqueue, input={"pullRequestId": state(pulls, number)["id"]})
        assert answer["data"]["enqueuePullRequest"]["mergeQueueEntry"] == {
            "position": position,
            "state": "QUEUED",
        }
    assert state(pulls, first)["isInMergeQueue"] is True
    assert pulls.fake.run_merge_queue("acme/shop") == [first, second]
    assert pulls.project.show("main", "two.py") == "2"


def test_a_merge_queue_with_a_time_merges_its_entries_when_their_time_comes(pulls):
    pulls.fake.protect("acme/shop", merge_queue=True, queue_seconds=60)
    number = open_pr(pulls)
    GitHubCodeHost.of(pulls.tracker()).enqueue_pull_request(number)
    pulls.clock.advance(59)
    assert state(pulls, number)["isInMergeQueue"] is True
    pulls.clock.advance(2)
    pulls.fake.tick()
    assert pulls.fake.pull_request("acme/shop", number).state == "MERGED"


def test_auto_merge_is_refused_where_not_allowed_and_merges_once_ready_where_it_is(pulls):
    pulls.fake.protect("acme/shop", checks=["ci"])
    number = open_pr(pulls)
    ci = pulls.fake.add_check("acme/shop", number, "ci")
    auto = """mutation Auto($input: EnablePullRequestAutoMergeInput!) {
      enablePullRequestAutoMerge(input: $input) { pullRequest { id } } }"""
    pr_id = state(pulls, number)["id"]
    assert errors(graphql(pulls, auto, input={"pullRequestId": pr_id})) == [
        "Auto merge is not allowed for this repository"
    ]
    pulls.fake.allow_merges("acme/shop", auto_merge=True)
    assert errors(graphql(pulls, auto, input={"pullRequestId": pr_id})) == []
    pulls.fake.tick()
    assert pulls.fake.pull_request("acme/shop", number).state == "OPEN"
    ci.complete("success")
    pulls.fake.tick()
    assert pulls.fake.pull_request("acme/shop", number).state == "MERGED"


def test_scripted_merge_faults_answer_as_github_did(pulls):
    number = open_pr(pulls)
    pulls.fake.script(ScriptedFault.base_branch_modified())
    assert merge_errors(pulls, number) == [
        "Base branch was modified. Review and try the merge again."
    ]
    assert pulls.fake.pull_request("acme/shop", number).state == "OPEN"
    pulls.fake.script(ScriptedFault.merged_but_not_mergeable())
    assert merge_errors(pulls, number) == ["Pull Request is not mergeable"]
    assert pulls.fake.pull_request("acme/shop", number).state == "MERGED"


def test_a_repository_without_a_git_side_moves_its_heads_when_a_test_pushes(clock):
    fake = FakeGitHub(clock=clock)
    fake.add_token(TOKEN, "ralph")
    fake.add_repository("acme/shop")
    fake.run_ci("acme/shop", CheckPlan("ci", conclusions=("FAILURE", "SUCCESS")))
    client = GitHubClient(fake, Tokens(TOKEN), pacer=Pacer(PacingPolicy(mutation_interval=0)))
    board = set_up_board(client, "acme/shop").board
    tracker = GitHubTracker(client, owner="acme", repo="shop", project=board.number)
    number = (
        GitHubCodeHost.of(tracker)
        .create_pull_request(head="feature", base="main", title="x")
        .number
    )
    first = GitHubCodeHost.of(tracker).get_pull_request(number)
    assert [(c.name, c.conclusion) for c in first.checks] == [("ci", CheckConclusion.FAILURE)]
    pushed = fake.push("acme/shop", "feature")
    again = GitHubCodeHost.of(tracker).get_pull_request(number)
    assert again.head_oid == pushed != first.head_oid
    assert [(c.name, c.conclusion) for c in again.checks] == [("ci", CheckConclusion.SUCCESS)]
