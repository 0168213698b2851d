"""GitHub's merge queue, on the fake GitHub: the merge phase enqueues and waits; a head
the queue drops (its checks failed in the merge group, a person took it out) goes back
to its builder with the queue's reason instead of being enqueued again for ever; a new
head is queued again; the queue's merge is settled on the next look."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from ralph.config import Config, GitHubSettings
from ralph.git import GitRepo
from ralph.github.fake import FakeGitHub
from ralph.phases import MergeLooks, PhaseRunner, PhaseStatus
from ralph.phases._feedback import feedback_on
from ralph.project import Project
from ralph.runtimes import Limits
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import open_store
from ralph.tracker import GitHubCodeHost, IssueQuery, PullRequestState
from ralph.workflow import WorkflowState

from ..conftest import GitProject
from ..tracker.conftest import github_tracker

S = WorkflowState
REPO = "acme/project"
REFUSED = "Required status check test failed in the merge group"


@pytest.fixture
def queued(project: GitProject, clock) -> Iterator[tuple[Project, FakeGitHub]]:
    tracker = github_tracker(project.path, clock)
    settings = GitHubSettings(owner="acme", repo="project", project=tracker.project_number)
    config = Config(root=project.path, repo="project", tracker="github", github=settings)
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    fake.protect(REPO, merge_queue=True)
    yield (
        Project(
            config,
            tracker,
            GitHubCodeHost.of(tracker),
            open_store("memory://"),
            GitRepo(project.path),
        ),
        fake,
    )
    assert fake.internal_errors == []


def _merge(project: Project) -> PhaseRunner:
    return PhaseRunner(
        project,
        ScriptedRuntime(env={}),
        owner="test",
        limits=Limits(timeout_seconds=10),
        today=lambda: date(2026, 12, 7),
    )


def _in_review(project: Project, repo: GitProject) -> tuple[int, int]:
    number = project.tracker.create_issue("Login", state=S.IN_REVIEW).number
    repo.commit(f"feature/GH-{number}", {"login.txt": "work\n"}, "Work")
    pr = project.code_host.create_pull_request(
        head=f"feature/GH-{number}",
        base="main",
        title="Login",
        body=project.tracker.closing_words(number),
    )
    return number, pr.number


def test_a_head_the_queue_drops_goes_back_to_its_builder_with_the_queues_reason(
    queued, project: GitProject
):
    looked, fake = queued
    number, pr = _in_review(looked, project)
    waiting = _merge(looked).run("merge", number)
    assert waiting.status is PhaseStatus.WAITING, waiting
    assert fake.pull_request(REPO, pr).isInMergeQueue

    fake.fail_in_merge_queue(REPO, pr, REFUSED)
    assert fake.run_merge_queue(REPO) == []
    assert not fake.pull_request(REPO, pr).isInMergeQueue
    sent_back = _merge(looked).run("merge", number)
    assert sent_back.status is PhaseStatus.ADDRESS, sent_back
    assert f"- the merge queue removed it: {REFUSED}" in sent_back.lines
    assert looked.tracker.get_issue(number).workflow_state is S.IN_REVIEW
    assert looked.code_host.get_pull_request(pr).queue_removal == REFUSED
    (told,) = feedback_on(looked.code_host.get_pull_request(pr), None)  # the builder's brief
    assert (told.where, told.text) == ("the merge queue", REFUSED)

    # The builder's fix: a new head, queued again, merged by the queue.
    project.commit(f"feature/GH-{number}", {"login.txt": "fixed\n"}, "Fix")
    again = _merge(looked).run("merge", number)
    assert again.status is PhaseStatus.WAITING, again
    assert fake.pull_request(REPO, pr).isInMergeQueue
    assert looked.code_host.get_pull_request(pr).queue_removal is None
    assert fake.run_merge_queue(REPO) == [pr]

    # The queue merged it while nothing of Ralph ran: the next look settles it.
    board = looked.tracker.list_issues(IssueQuery(status=None, board=True))
    (settled,) = [s for s in MergeLooks(looked).look(board) if s.changed]
    assert settled.finished
    issue = looked.tracker.get_issue(number)
    assert (issue.workflow_state, issue.is_open) == (S.DONE, False)
    assert looked.code_host.get_pull_request(pr).state is PullRequestState.MERGED


def test_a_person_taking_it_out_of_the_queue_sends_it_back_too(queued, project: GitProject):
    looked, fake = queued
    number, pr = _in_review(looked, project)
    assert _merge(looked).run("merge", number).status is PhaseStatus.WAITING
    fake.add_token("token-of-alice", "alice")
    fake.dequeue(REPO, pr, "alice")
    sent_back = _merge(looked).run("merge", number)
    assert sent_back.status is PhaseStatus.ADDRESS, sent_back
    assert "- the merge queue removed it: MANUAL" in sent_back.lines
