"""The client against a misbehaving GitHub (docs/architecture.md, F10 and F11), on a fake
clock: the waits GitHub asks for (its content-creation throttle included), bounded
retries, creating mutations reconciled instead of replayed, other writes judged by their
end state, no retries of what cannot succeed, state changes sent as a unit with their
audit comment, too-large pages halved, and mutations paced one at a time."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ralph.errors import (
    GitHubAuthError,
    GitHubInvalid,
    GitHubPartialData,
    GitHubRateLimited,
    GitHubUnavailable,
)
from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github import queries as q
from ralph.github.fake import FakeGitHub, ScriptedFault
from ralph.tracker import GitHubCodeHost, GitHubTracker, set_up_board
from ralph.workflow import WorkflowState

REPO = {"owner": "acme", "name": "shop"}


def client_for(github, clock, policy=None) -> GitHubClient:
    pacer = Pacer(policy, clock=clock, sleep=clock.sleep)
    return GitHubClient(github, Tokens("token"), pacer=pacer, clock=clock, sleep=clock.sleep)


@pytest.fixture
def client(github, clock) -> GitHubClient:
    return client_for(github, clock)


def names(github) -> list[str]:
    return [r.name for r in github.requests]


def secondary(**headers) -> ScriptedFault:
    body = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}
    return ScriptedFault("Repository", status=403, headers=headers, body=body)


def test_a_403_with_retry_after_waits_exactly_that_long_then_succeeds(github, client, clock):
    github.script(secondary(**{"retry-after": "7"}))
    assert client.query(q.REPOSITORY, REPO)["repository"]["nameWithOwner"] == "acme/shop"
    assert clock.sleeps == [7.0]
    assert names(github) == ["Repository", "Repository"]


def test_a_primary_limit_waits_until_the_reset_and_one_second_more(github, client, clock):
    reset = int(clock.now) + 120
    body = {
        "data": None,
        "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}],
    }
    limit_headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
    github.script(ScriptedFault("Repository", headers=limit_headers, body=body))
    client.query(q.REPOSITORY, REPO)
    assert clock.now == reset + 1
    assert len(github.requests) == 2


def test_a_secondary_limit_without_headers_waits_a_minute_doubling_while_it_lasts(
    github, client, clock
):
    github.script(secondary(), secondary())
    client.query(q.REPOSITORY, REPO)
    assert clock.sleeps == [60.0, 120.0]


def test_a_limit_that_never_lifts_gives_up_after_five_waits(github, client, clock):
    github.script(*[secondary(**{"retry-after": "1"}) for _ in range(10)])
    with pytest.raises(GitHubRateLimited, match="kept rate limiting"):
        client.query(q.REPOSITORY, REPO)
    assert len(github.requests) == 6


def test_a_502_on_a_query_is_retried_with_growing_backoff(github, client, clock):
    github.script(ScriptedFault("Repository", status=502), ScriptedFault("Repository", status=502))
    client.query(q.REPOSITORY, REPO)
    assert clock.sleeps == [1.0, 4.0]


def test_a_query_is_retried_at_most_three_times(github, client, clock):
    github.script(*[ScriptedFault("Repository", status=502) for _ in range(5)])
    with pytest.raises(GitHubUnavailable, match="after 4 tries"):
        client.query(q.REPOSITORY, REPO)
    assert len(github.requests) == 4
    assert clock.sleeps == [1.0, 4.0, 9.0]


def tracker_on(github, clock) -> GitHubTracker:
    client = client_for(github, clock)
    board = set_up_board(client, "acme/shop").board
    return GitHubTracker(client, owner="acme", repo="shop", project=board.number, clock=clock)


def test_a_create_issue_that_committed_before_a_502_is_reconciled_not_duplicated(github, clock):
    tracker = tracker_on(github, clock)
    github.script(ScriptedFault("CreateIssue", status=502, after=True))
    issue = tracker.create_issue("Add login", body="Why.")
    assert [i.number for i in github.repository("acme/shop").issue_list] == [issue.number]
    assert names(github).count("CreateIssue") == 1
    assert "IssueByMarker" in names(github)
    assert tracker.get_issue(issue.number).body == "Why."  # the marker never shows


def test_a_create_issue_lost_before_it_reached_github_is_sent_again(github, clock):
    tracker = tracker_on(github, clock)
    github.script(ScriptedFault("CreateIssue", transport=True))
    tracker.create_issue("Add login")
    assert len(github.repository("acme/shop").issue_list) == 1
    assert names(github).count("CreateIssue") == 2


def test_a_comment_whose_answer_was_lost_is_reconciled(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login")
    github.script(ScriptedFault("AddComment", transport=True, after=True))
    tracker.add_comment(1, "Research complete.")
    assert [c.body for c in tracker.get_issue(1).comments] == ["Research complete."]
    assert names(github).count("AddComment") == 1


def test_a_creating_mutation_without_a_way_to_check_is_never_replayed(github, client, clock):
    repository = client.query(q.REPOSITORY, REPO)["repository"]["id"]
    github.script(ScriptedFault("CreateIssue", status=502, after=True))
    with pytest.raises(GitHubUnavailable, match="may have happened"):
        client.mutate(q.CREATE_ISSUE, q.input_of(repositoryId=repository, title="x"))
    assert names(github).count("CreateIssue") == 1


@pytest.mark.parametrize(("status", "error"), [(401, GitHubAuthError), (422, GitHubInvalid)])
def test_auth_and_validation_failures_are_not_retried(github, client, status, error):
    github.script(ScriptedFault("Repository", status=status, body={"message": "no"}))
    with pytest.raises(error):
        client.query(q.REPOSITORY, REPO)
    assert len(github.requests) == 1


def test_a_wrong_token_is_an_auth_error_naming_the_variable(github, clock):
    client = GitHubClient(github, Tokens("wrong"), clock=clock, sleep=clock.sleep)
    with pytest.raises(GitHubAuthError, match="RALPH_GH_TOKEN"):
        client.viewer()


def test_partial_data_is_surfaced_with_what_came_back(github, client):
    too_big = {"errors": [{"type": "RESOURCE_LIMITS_EXCEEDED", "message": "too big"}]}
    github.script(ScriptedFault("Repository", partial=True, body=too_big))
    with pytest.raises(GitHubPartialData, match="too big") as raised:
        client.query(q.REPOSITORY, REPO)
    data = raised.value.data
    assert isinstance(data, dict)
    assert data["repository"]["nameWithOwner"] == "acme/shop"


def test_mutations_start_a_second_apart_and_never_overlap(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Shared")
    slow_post = github.post

    def post(payload, token):  # real time passes inside a request, so overlaps could show
        time.sleep(0.002)
        return slow_post(payload, token)

    tracker.client.transport = type("Slow", (), {"post": staticmethod(post)})()
    github.requests.clear()
    threads = [
        threading.Thread(target=lambda: [tracker.add_comment(1, f"c{i}") for i in range(3)])
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    starts = [r.started for r in github.requests if r.mutation]
    assert len(starts) == 12
    assert github.max_mutations_in_flight == 1
    assert all(b - a >= 1.0 for a, b in itertools.pairwise(starts))


def test_content_creation_stays_within_80_a_minute(github, clock):
    client = client_for(github, clock, PacingPolicy(mutation_interval=0))
    repository = client.query(q.REPOSITORY, REPO)["repository"]["id"]
    for i in range(100):
        client.mutate(
            q.CREATE_ISSUE,
            q.input_of(repositoryId=repository, title=f"t{i}"),
            reconcile=lambda: None,
        )
    starts = [r.started for r in github.requests if r.name == "CreateIssue"]
    assert max(sum(1 for s in starts if t <= s < t + 60) for t in starts) == 80
    assert starts[80] >= starts[0] + 60


def test_content_creation_stays_within_500_an_hour(github, clock):
    policy = PacingPolicy(mutation_interval=0, content_per_minute=10_000, points_per_minute=10**6)
    client = client_for(github, clock, policy)
    repository = client.query(q.REPOSITORY, REPO)["repository"]["id"]
    for i in range(501):
        client.mutate(
            q.CREATE_ISSUE,
            q.input_of(repositoryId=repository, title=f"t{i}"),
            reconcile=lambda: None,
        )
    starts = [r.started for r in github.requests if r.name == "CreateIssue"]
    assert starts[499] == starts[0]
    assert starts[500] >= starts[0] + 3600


def test_every_response_updates_the_known_remaining_points(github, client):
    client.query(q.REPOSITORY, REPO)
    client.query(q.REPOSITORY, REPO)
    assert client.pacer.remaining == github.remaining == github.points - 2


def test_the_fake_raised_no_internal_errors(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("x", labels=["bug"])
    tracker.get_issue(1)
    assert github.internal_errors == []


def test_secondary_points_stay_within_2000_a_minute(github, clock):
    client = client_for(github, clock, PacingPolicy(points_per_minute=20))
    for _ in range(25):
        client.query(q.REPOSITORY, REPO)
    starts = [r.started for r in github.requests]
    assert max(sum(1 for s in starts if t <= s < t + 60) for t in starts) == 20
    assert starts[20] >= starts[0] + 60


def test_when_the_hours_points_are_spent_the_next_request_waits_for_the_reset(clock):
    github = FakeGitHub(clock=clock, points=2)
    github.add_token("token", "ralph")
    github.add_repository("acme/shop")
    client = client_for(github, clock)
    client.query(q.REPOSITORY, REPO)
    client.query(q.REPOSITORY, REPO)  # remaining: 0, reset in an hour
    reset = github.reset_at
    assert clock.sleeps == []
    client.query(q.REPOSITORY, REPO)
    assert clock.now == int(reset) + 1
    assert github.requests[-1].started == int(reset) + 1


# -- GitHub's content-creation throttle, lost answers to writes, too-large pages -----------


def long_waits(clock) -> list[float]:
    """The waits of a minute or more (rate limits), without the pacer's short ones."""
    return [s for s in clock.sleeps if s >= 60]


def test_a_create_issue_throttled_as_submitted_too_quickly_waits_and_is_not_duplicated(
    github, clock
):
    tracker = tracker_on(github, clock)
    github.requests.clear()
    github.script(*[ScriptedFault.submitted_too_quickly("CreateIssue") for _ in range(2)])
    issue = tracker.create_issue("Add login", body="Why.")
    assert long_waits(clock) == [60.0, 120.0]
    assert [i.number for i in github.repository("acme/shop").issue_list] == [issue.number]
    sent = [n for n in names(github) if n in ("CreateIssue", "IssueByMarker")]
    assert sent == ["CreateIssue", "IssueByMarker"] * 2 + ["CreateIssue"]


def test_a_comment_throttled_as_submitted_too_quickly_waits_and_lands_once(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login")
    github.script(ScriptedFault.submitted_too_quickly("AddComment"))
    tracker.add_comment(1, "Research complete.")
    assert long_waits(clock) == [60.0]
    assert [c.body for c in tracker.get_issue(1).comments] == ["Research complete."]
    assert names(github).count("AddComment") == 2
    assert "CommentByMarker" in names(github)


def test_a_pull_request_throttled_as_submitted_too_quickly_waits_and_opens_once(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login")
    github.script(ScriptedFault.submitted_too_quickly("CreatePullRequest"))
    pr = GitHubCodeHost.of(tracker).create_pull_request(
        head="login", base="main", title="Login", body="Closes #1"
    )
    assert long_waits(clock) == [60.0]
    assert [p.number for p in github.repository("acme/shop").pull_list] == [pr.number]
    assert names(github).count("CreatePullRequest") == 2


def test_a_throttle_that_lasts_doubles_its_wait_up_to_an_hour_then_gives_up(github, client, clock):
    repository = client.query(q.REPOSITORY, REPO)["repository"]["id"]
    github.script(*[ScriptedFault.submitted_too_quickly("CreateIssue") for _ in range(20)])
    with pytest.raises(GitHubRateLimited, match="kept throttling CreateIssue"):
        client.mutate(
            q.CREATE_ISSUE, q.input_of(repositoryId=repository, title="x"), reconcile=lambda: None
        )
    assert long_waits(clock) == [60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 3600.0, 3600.0]
    assert github.repository("acme/shop").issue_list == []


def test_the_fake_throttles_content_created_too_quickly_and_the_client_waits_it_out(clock):
    github = FakeGitHub(clock=clock, content_per_minute=3)
    github.add_token("token", "ralph")
    github.add_repository("acme/shop")
    tracker = tracker_on(github, clock)
    for title in ("a", "b", "c", "d", "e"):
        tracker.create_issue(title)
    assert [i.title for i in github.repository("acme/shop").issue_list] == list("abcde")
    assert long_waits(clock)  # the fake refused, the client waited
    assert github.internal_errors == []


def test_a_merge_that_landed_before_its_answer_was_lost_is_success(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login")
    pr = GitHubCodeHost.of(tracker).create_pull_request(
        head="login", base="main", title="Login", body="Closes #1"
    )
    github.script(ScriptedFault("MergePullRequest", status=502, after=True))
    merged = GitHubCodeHost.of(tracker).merge_pull_request(pr.number)
    assert merged.state.value == "merged"
    assert names(github).count("MergePullRequest") == 1
    assert not tracker.get_issue(1).is_open


def test_a_merge_that_landed_but_was_answered_not_mergeable_is_success(github, clock):
    tracker = tracker_on(github, clock)
    pr = GitHubCodeHost.of(tracker).create_pull_request(head="login", base="main", title="Login")
    refused = {
        "data": {"mergePullRequest": None},
        "errors": [{"type": "UNPROCESSABLE", "message": "Pull Request is not mergeable"}],
    }
    github.script(ScriptedFault("MergePullRequest", body=refused, after=True))
    assert GitHubCodeHost.of(tracker).merge_pull_request(pr.number).state.value == "merged"


def test_a_dependency_edge_already_there_after_a_lost_answer_is_success(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("A")
    tracker.create_issue("B")
    github.script(ScriptedFault("AddBlockedBy", transport=True, after=True))
    tracker.add_dependency(1, 2)
    assert tracker.get_issue(1).blocked_by == (2,)
    assert names(github).count("AddBlockedBy") == 1
    github.script(ScriptedFault("RemoveBlockedBy", status=502, after=True))
    tracker.remove_dependency(1, 2)
    assert tracker.get_issue(1).blocked_by == ()
    assert names(github).count("RemoveBlockedBy") == 1


def test_a_sub_issue_removal_lost_before_and_after_it_landed_settles_on_its_end_state(
    github, clock
):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Parent")
    tracker.create_issue("Child", parent=1)
    github.script(
        ScriptedFault("RemoveSubIssue", status=502),  # the reconcile still sees the edge
        ScriptedFault("RemoveSubIssue", status=502, after=True),
    )
    tracker.remove_sub_issue(1, 2)
    assert tracker.get_issue(2).parent is None
    assert names(github).count("RemoveSubIssue") == 2


def test_a_resend_refused_after_a_lost_answer_is_success_when_the_end_state_holds(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Parent")
    tracker.create_issue("Child", parent=1)
    parent, child = (i.id for i in github.repository("acme/shop").issue_list)
    github.script(ScriptedFault("RemoveSubIssue", status=502, after=True))
    # A read that lags the write, then one that sees it.
    reads: Iterator[dict[str, Any] | None] = iter([None, {}])
    tracker.client.mutate(
        q.REMOVE_SUB_ISSUE,
        q.input_of(issueId=parent, subIssueId=child),
        reconcile=lambda: next(reads),
    )
    assert names(github).count("RemoveSubIssue") == 2  # the resend: "not a sub-issue"
    assert tracker.get_issue(2).parent is None


def audit_comments(tracker, number) -> list[str]:
    return [c.body for c in tracker.get_issue(number).comments if "→" in c.body]


def test_a_state_move_whose_comment_fails_is_sent_again_as_a_unit(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    github.requests.clear()
    # The move is one request (fields and comment): it fails as a whole, and is sent again.
    github.script(*[ScriptedFault("MoveState", status=502) for _ in range(4)])  # client gives up
    tracker.set_state(1, "Research Needed", command="human")
    assert tracker.get_issue(1).workflow_state is WorkflowState.RESEARCH_NEEDED
    assert len(audit_comments(tracker, 1)) == 1
    assert names(github).count("MoveState") == 5


def test_a_state_move_whose_comment_never_lands_is_moved_back(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    github.script(*[ScriptedFault("MoveState", status=502) for _ in range(20)])
    with pytest.raises(GitHubUnavailable):
        tracker.set_state(1, "Research Needed", command="human")
    github.faults.clear()
    assert tracker.get_issue(1).workflow_state is WorkflowState.BACKLOG
    assert audit_comments(tracker, 1) == []


def test_a_list_github_finds_too_large_is_read_again_in_half_pages(github, clock):
    tracker = tracker_on(github, clock)
    for title in ("a", "b", "c"):
        tracker.create_issue(title)
    github.requests.clear()
    github.script(ScriptedFault.resource_limits("Issues"), ScriptedFault.resource_limits("Issues"))
    assert [i.title for i in tracker.list_issues()] == ["a", "b", "c"]
    sizes = [r.variables["first"] for r in github.requests if r.name == "Issues"]
    assert sizes == [50, 25, 12]
    tracker.list_issues()  # later lists start from the smaller page
    assert [r.variables["first"] for r in github.requests if r.name == "Issues"][-1] == 12


def test_the_fake_refuses_a_page_that_reads_too_much_and_the_client_halves_it(clock):
    github = FakeGitHub(clock=clock)
    github.add_token("token", "ralph")
    github.add_repository("acme/shop")
    tracker = tracker_on(github, clock)
    for title in "abcdefgh":
        tracker.create_issue(title)
    github.node_limit = 46  # three issues' worth of an Issues page, not four
    github.requests.clear()
    assert [i.title for i in tracker.list_issues()] == list("abcdefgh")
    sizes = [r.variables["first"] for r in github.requests if r.name == "Issues"]
    assert sizes == [50, 25, 12, 6, 3, 3, 3]
    assert [r.status for r in github.requests if r.name == "Issues"] == [200] * 7
