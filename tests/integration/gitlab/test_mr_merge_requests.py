"""What only GitLab's merge requests do, through the GitLab code host on the fake GitLab
(which merges in a real git repository): pipelines as the checks, the approvals rule,
the project's merge methods (fast-forward after a rebase, squash never), a person's
"requested changes" on GitLab's page, the sha guard's 409, the fake refusing what
GitLab refuses. The code host here sits beside a local tracker, as it would beside
Linear or Jira: GitLab closes only its own issues."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ralph.db import open_database
from ralph.errors import HeadMoved, InvalidInput, MergeBlocked, MergeConflict
from ralph.gitlab import GitLabClient, GitLabInvalid
from ralph.gitlab.fake import FakeGitLab, ScriptedFault
from ralph.gitlab.fake._pipelines import MergeRequestLevers
from ralph.tracker import (
    CheckConclusion,
    LocalTracker,
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
from ralph.workflow import WorkflowState

from ..conftest import GitProject, git

PROJECT = "acme/project"


class GitLab:
    def __init__(self, fake: FakeGitLab, host: GitLabCodeHost, levers: MergeRequestLevers):
        self.fake, self.host, self.levers = fake, host, levers

    def as_user(self, login: str) -> GitLabCodeHost:
        token = f"glpat-{login}"
        if token not in self.fake.state.tokens:
            self.fake.add_token(token, login)
        client = GitLabClient(self.fake, token, clock=self.host.now, sleep=lambda _: None)
        return GitLabCodeHost(client, project=PROJECT, tracker=self.host.tracker)


@pytest.fixture
def gitlab(project: GitProject, clock) -> Iterator[GitLab]:
    fake = FakeGitLab(clock=clock)
    fake.add_token("glpat-ralph", "ralph")
    fake.add_project(PROJECT, repository=project.path)
    db = open_database("memory://")
    tracker = LocalTracker(db, repo="project", clock=clock)
    client = GitLabClient(fake, "glpat-ralph", clock=clock, sleep=lambda _: None)
    yield GitLab(
        fake, GitLabCodeHost(client, project=PROJECT, tracker=tracker), MergeRequestLevers(fake)
    )
    assert fake.internal_errors == []
    assert fake.refused == []
    db.close()


def open_mr(gitlab: GitLab, project: GitProject, *, body: str = "", branch: str = "feature"):
    project.commit("main", {"story.txt": "one\ntwo\n"}, "a story")
    git(project.path, "reset", "-q", "--hard")
    project.commit(branch, {"story.txt": "one\n2\n"}, "feature work")
    return gitlab.host.create_pull_request(head=branch, base="main", title="Change", body=body)


def test_the_head_pipelines_jobs_are_the_checks_and_must_succeed_makes_them_required(
    gitlab, project
):
    pr = open_mr(gitlab, project)
    gitlab.levers.settings(PROJECT, only_allow_merge_if_pipeline_succeeds=True)
    state = lambda: gitlab.host.get_pull_request(pr.number)  # noqa: E731
    assert state().merge_state is MergeState.BLOCKED  # no pipeline: ci_must_pass
    gitlab.levers.job(PROJECT, pr.number, "test", "running")
    gitlab.levers.job(PROJECT, pr.number, "lint", "failed", allow_failure=True)
    read = state()
    checks = {c.name: c for c in read.checks}
    assert (checks["test"].pending, checks["test"].required) == (True, True)
    assert (checks["lint"].failed, checks["lint"].required) == (True, False)
    assert read.merge_state is MergeState.BLOCKED  # ci_still_running
    gitlab.levers.job(PROJECT, pr.number, "test", "success")
    read = state()
    assert {c.name: c.conclusion for c in read.checks}["test"] is CheckConclusion.SUCCESS
    assert read.merge_state is MergeState.UNSTABLE  # passed, with an allowed failure
    project.commit("feature", {"later.txt": "x\n"}, "more")
    after = state()
    assert (after.checks, after.merge_state) == ((), MergeState.BLOCKED)


def test_the_approvals_rule_decides_and_an_author_cannot_approve_their_own(gitlab, project):
    gitlab.levers.settings(PROJECT, approvals_before_merge=2)
    pr = open_mr(gitlab, project)
    with pytest.raises(InvalidInput, match="another account than the merge request's author"):
        gitlab.host.submit_review(pr.number, ReviewEvent.APPROVE)
    gitlab.as_user("alice").submit_review(pr.number, ReviewEvent.APPROVE)
    read = gitlab.host.get_pull_request(pr.number)
    assert (read.review_decision, read.merge_state) == (
        ReviewDecision.REVIEW_REQUIRED,
        MergeState.BLOCKED,  # not_approved: one of two
    )
    gitlab.as_user("bob").submit_review(pr.number, ReviewEvent.APPROVE)
    read = gitlab.host.get_pull_request(pr.number)
    assert (read.review_decision, read.merge_state) == (ReviewDecision.APPROVED, MergeState.CLEAN)
    gitlab.as_user("bob").submit_review(pr.number, ReviewEvent.REQUEST_CHANGES, "No.")
    read = gitlab.host.get_pull_request(pr.number)
    assert read.review_decision is ReviewDecision.CHANGES_REQUESTED
    assert read.merge_state is MergeState.BLOCKED  # bob's approval was taken back
    states = [(r.author, r.state) for r in read.reviews]
    assert ("bob", ReviewState.DISMISSED) in states


def test_a_change_request_made_on_gitlabs_page_counts(gitlab, project, clock):
    gitlab.levers.settings(PROJECT, approvals_before_merge=1)
    pr = open_mr(gitlab, project)
    gitlab.as_user("alice").submit_review(pr.number, ReviewEvent.APPROVE)
    gitlab.fake.add_user("carol")
    clock.advance(1)
    gitlab.levers.reviewer_state(PROJECT, pr.number, "carol", "requested_changes")
    read = gitlab.host.get_pull_request(pr.number)
    assert read.review_decision is ReviewDecision.CHANGES_REQUESTED


def test_fast_forward_only_rebases_the_head_first_and_merges_no_merge_commit(gitlab, project):
    gitlab.levers.settings(PROJECT, merge_method="ff")
    assert gitlab.host.merge_settings() == MergeSettings(merge_commit=False, rebase=True)
    pr = open_mr(gitlab, project)
    project.commit("main", {"other.txt": "theirs\n"}, "someone else's work")
    git(project.path, "reset", "-q", "--hard")
    assert gitlab.host.get_pull_request(pr.number).merge_state is MergeState.BEHIND
    with pytest.raises(InvalidInput, match="does not allow merge merges"):
        gitlab.host.merge_pull_request(pr.number, MergeStrategy.MERGE)
    # GitLab rebases the head; the rebased head is merged only when asked again, after
    # what decides the merge has seen it.
    with pytest.raises(MergeBlocked, match="rebased !1 onto main"):
        gitlab.host.merge_pull_request(pr.number, MergeStrategy.REBASE)
    assert gitlab.host.get_pull_request(pr.number).state is PullRequestState.OPEN
    merged = gitlab.host.merge_pull_request(pr.number, MergeStrategy.REBASE)
    assert merged.state is PullRequestState.MERGED
    assert project.rev("main") == project.rev("feature") == merged.merge_commit
    assert project.show("main", "other.txt") == "theirs"
    assert project.show("main", "story.txt") == "one\n2"


def test_squash_never_refuses_a_squash_merge(gitlab, project):
    gitlab.levers.settings(PROJECT, squash_option="never")
    pr = open_mr(gitlab, project)
    with pytest.raises(InvalidInput, match="does not allow squash merges"):
        gitlab.host.merge_pull_request(pr.number, MergeStrategy.SQUASH)


def test_a_squash_merge_leaves_one_commit_on_main(gitlab, project):
    pr = open_mr(gitlab, project)
    before = project.rev("main")
    merged = gitlab.host.merge_pull_request(pr.number, MergeStrategy.SQUASH)
    assert git(project.path, "rev-parse", "main^") == before
    assert merged.merge_commit == project.rev("main")


def test_gitlab_refuses_a_merge_whose_sha_is_not_the_head_with_409(gitlab, project):
    pr = open_mr(gitlab, project)
    old = pr.head_oid
    project.commit("feature", {"later.txt": "x\n"}, "more")
    with pytest.raises(GitLabInvalid) as refused:
        gitlab.host.client.request(
            "PUT", f"/projects/acme%2Fproject/merge_requests/{pr.number}/merge", body={"sha": old}
        )
    assert refused.value.status == 409
    with pytest.raises(HeadMoved):
        gitlab.host.merge_pull_request(pr.number, expected_head=old)


def test_a_rule_unmet_refuses_the_merge_in_one_line(gitlab, project):
    gitlab.levers.settings(PROJECT, only_allow_merge_if_pipeline_succeeds=True)
    pr = open_mr(gitlab, project)
    gitlab.levers.job(PROJECT, pr.number, "test", "failed", failure_reason="script_failure")
    with pytest.raises(MergeBlocked, match="ci_must_pass"):
        gitlab.host.merge_pull_request(pr.number)
    [check] = gitlab.host.get_pull_request(pr.number).checks
    assert check.summary == "script_failure"


def test_a_conflict_is_refused_before_anything_is_sent(gitlab, project):
    pr = open_mr(gitlab, project)
    project.commit("main", {"story.txt": "uno\ndos\n"}, "a rewrite")
    git(project.path, "reset", "-q", "--hard")
    with pytest.raises(MergeConflict):
        gitlab.host.merge_pull_request(pr.number)


def test_a_merge_closes_gitlabs_own_issues_by_closes_words(gitlab, project):
    issue = gitlab.fake.state.project(PROJECT)
    assert issue is not None
    gitlab.host.client.request("POST", "/projects/acme%2Fproject/issues", body={"title": "Bug"})
    pr = open_mr(gitlab, project, body="Closes #1")
    gitlab.host.merge_pull_request(pr.number)
    closed = gitlab.host.client.request("GET", "/projects/acme%2Fproject/issues/1")
    assert closed["state"] == "closed"


def test_the_fake_refuses_a_page_size_and_a_body_gitlab_would_not_take(gitlab, project):
    pr = open_mr(gitlab, project)
    with pytest.raises(GitLabInvalid):
        gitlab.host.client.request(
            "PUT", f"/projects/acme%2Fproject/merge_requests/{pr.number}/merge", body={"sha": 5}
        )
    assert gitlab.fake.refused
    gitlab.fake.refused.clear()


def test_a_tracker_issue_is_moved_to_done_by_the_merge(gitlab, project):
    issue = gitlab.host.tracker.create_issue("Change", state=WorkflowState.IN_REVIEW)
    pr = open_mr(gitlab, project, body=f"Closes #{issue.number}")
    gitlab.host.merge_pull_request(pr.number)
    assert gitlab.host.tracker.get_issue(issue.number).workflow_state is WorkflowState.DONE


def test_a_merge_request_whose_answer_was_lost_is_found_not_opened_twice(gitlab, project):
    where = "POST /api/v4/projects/acme%2Fproject/merge_requests"
    gitlab.fake.script(ScriptedFault.dropped_after_write(where))
    pr = open_mr(gitlab, project)
    assert [p.number for p in gitlab.host.list_pull_requests()] == [pr.number]


def test_a_review_whose_answer_was_lost_is_found_not_posted_twice(gitlab, project):
    pr = open_mr(gitlab, project)
    where = f"POST /api/v4/projects/acme%2Fproject/merge_requests/{pr.number}/notes"
    gitlab.fake.script(ScriptedFault.dropped_after_write(where))
    given = gitlab.host.submit_review(pr.number, ReviewEvent.COMMENT, "Looks fine.")
    [read] = gitlab.host.get_pull_request(pr.number).reviews
    assert (read.id, read.body) == (given.id, "Looks fine.")


def test_a_merge_that_landed_though_its_answer_failed_is_a_merge(gitlab, project):
    issue = gitlab.host.tracker.create_issue("Change", state=WorkflowState.IN_REVIEW)
    pr = open_mr(gitlab, project, body=f"Closes #{issue.number}")
    where = f"PUT /api/v4/projects/acme%2Fproject/merge_requests/{pr.number}/merge"
    gitlab.fake.script(ScriptedFault(where, status=502, after=True, body={"message": "502"}))
    merged = gitlab.host.merge_pull_request(pr.number, expected_head=pr.head_oid)
    assert merged.state is PullRequestState.MERGED
    assert gitlab.host.tracker.get_issue(issue.number).workflow_state is WorkflowState.DONE


def test_unresolved_threads_block_where_the_project_says_so_until_resolved(gitlab, project):
    gitlab.levers.settings(PROJECT, only_allow_merge_if_all_discussions_are_resolved=True)
    pr = open_mr(gitlab, project)
    question = ReviewComment(path="story.txt", line=2, body="Why 2?")
    gitlab.as_user("alice").submit_review(pr.number, ReviewEvent.COMMENT, "x", comments=[question])
    [thread] = gitlab.host.get_pull_request(pr.number).threads
    assert thread.diff_hunk.startswith("@@ ")
    assert "+2" in thread.diff_hunk
    assert gitlab.host.get_pull_request(pr.number).merge_state is MergeState.BLOCKED
    gitlab.host.reply_to_thread(thread.id, "Because.")
    assert gitlab.host.resolve_thread(thread.id).resolved
    assert gitlab.host.get_pull_request(pr.number).merge_state is MergeState.CLEAN


def test_beside_linear_a_merge_closes_the_linear_issue_its_closing_words_name(
    gitlab, project, clock
):
    from ..tracker.conftest import linear_tracker

    linear = linear_tracker(clock)
    host = GitLabCodeHost(gitlab.host.client, project=PROJECT, tracker=linear)
    issue = linear.create_issue("Change", state=WorkflowState.IN_REVIEW)
    pr = open_mr(gitlab, project, body=linear.closing_words(issue.number))
    assert host.get_pull_request(pr.number).closes == (issue.number,)
    host.merge_pull_request(pr.number)
    assert linear.get_issue(issue.number).workflow_state is WorkflowState.DONE


def test_a_push_removes_the_approvals_of_the_older_head_unless_the_project_keeps_them(
    gitlab, project
):
    gitlab.levers.settings(PROJECT, approvals_before_merge=1)
    pr = open_mr(gitlab, project)
    gitlab.as_user("alice").submit_review(pr.number, ReviewEvent.APPROVE)
    project.commit("feature", {"later.txt": "x\n"}, "more")
    read = gitlab.host.get_pull_request(pr.number)
    assert [(r.author, r.state) for r in read.reviews] == [("alice", ReviewState.DISMISSED)]
    assert read.review_decision is ReviewDecision.REVIEW_REQUIRED
    gitlab.levers.settings(PROJECT, reset_approvals_on_push=False)
    gitlab.as_user("alice").submit_review(pr.number, ReviewEvent.APPROVE)
    project.commit("feature", {"later.txt": "y\n"}, "more")
    assert gitlab.host.get_pull_request(pr.number).review_decision is ReviewDecision.APPROVED
