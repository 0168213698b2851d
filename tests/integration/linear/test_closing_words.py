"""Issues on Linear, pull requests on GitHub: the tracker owns the words that close an
issue when its pull request merges. A Linear issue is named by its identifier ("Fixes
ENG-12", as Linear's GitHub integration reads it), never by ``#12``, which GitHub takes
for the repository's own issue #12 and closes at the merge."""

from __future__ import annotations

from ralph.db import open_database
from ralph.git import GitRepo
from ralph.github import GitHubClient, PacingPolicy, Tokens
from ralph.github import Pacer as GitHubPacer
from ralph.github.fake import FakeGitHub
from ralph.tracker import GitHubCodeHost, LocalTracker
from ralph.workflow import WorkflowState

from ..tracker.conftest import linear_tracker


def test_a_linear_issues_pull_request_on_github_leaves_githubs_own_issue_open(project, clock):
    linear = linear_tracker(clock)
    for n in range(1, 13):
        linear.create_issue(f"Linear issue {n}")
    github = FakeGitHub(clock=clock)
    github.add_token("token", "ralph")
    repository = github.add_repository("acme/project", git_path=project.path)
    for n in range(1, 13):
        github.add_issue("acme/project", f"The repository's own issue {n}")
    pacer = GitHubPacer(PacingPolicy(mutation_interval=0), clock=clock, sleep=clock.advance)
    client = GitHubClient(github, Tokens("token"), pacer=pacer, clock=clock, sleep=clock.advance)
    host = GitHubCodeHost(client, owner="acme", repo="project", tracker=linear, clock=clock)

    words = linear.closing_words(12)
    assert words == "Fixes ENG-12"
    project.commit("feature/ENG-12", {"farewell.txt": "bye\n"}, "farewell")
    pr = host.create_pull_request(
        head="feature/ENG-12", base="main", title="Say farewell", body=f"## Summary\n\n- {words}"
    )
    assert pr.closes == (12,)
    assert [p.number for p in host.list_pull_requests(issue=12)] == [pr.number]
    host.merge_pull_request(pr.number)

    (twelve,) = [i for i in repository.issue_list if i.number == 12]
    assert twelve.state == "OPEN"  # GitHub closed nothing of its own
    closed = linear.get_issue(12)
    assert (closed.workflow_state, closed.is_open) == (WorkflowState.DONE, False)


def test_each_tracker_reads_its_own_closing_words_and_no_one_elses(clock):
    linear = linear_tracker(clock)
    body = "Fixes ENG-3\ncloses: eng-4\nResolved ENG-5\nCloses #6\nsee ENG-7\nFixes OPS-8"
    assert linear.closed_by(body) == (3, 4, 5)
    local = LocalTracker(open_database("memory://"), repo="project")
    assert local.closing_words(6) == "Closes #6"
    assert local.closed_by(body) == (6,)


def test_a_local_merge_closes_the_linear_issue_its_words_name(project, clock):
    from ralph.tracker import LocalCodeHost

    linear = linear_tracker(clock)
    linear.create_issue("Say farewell")
    db = open_database("memory://")
    host = LocalCodeHost(db, repo="project", tracker=linear, git=GitRepo(project.path))
    project.commit("feature/ENG-1", {"farewell.txt": "bye\n"}, "farewell")
    pr = host.create_pull_request(
        head="feature/ENG-1", base="main", title="Farewell", body=linear.closing_words(1)
    )
    assert pr.closes == (1,)
    host.merge_pull_request(pr.number)
    assert linear.get_issue(1).workflow_state is WorkflowState.DONE
