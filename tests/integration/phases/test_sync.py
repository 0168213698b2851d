"""Sync with what people do outside Ralph, on the local tracker, on the fake GitHub and on
the fake Linear (its pull requests on the local code host):
an issue closed or reopened moves to the Workflow State that says so, with its audit
comment; a pull request a person merged is finished as the merge phase finishes one
(its issues Done, the parent advanced, the worktree pruned); a second sync changes
nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph.config import Config, GitHubSettings, LinearSettings
from ralph.db import SqliteDatabase
from ralph.git import GitRepo, Worktrees
from ralph.github import queries as q
from ralph.github.fake import FakeGitHub
from ralph.linear.fake import FakeLinear
from ralph.phases import sync_board, sync_issue, sync_pull_request
from ralph.project import Project, migrate_database
from ralph.tasks import open_store
from ralph.tracker import CloseReason, GitHubCodeHost, GitHubTracker, LocalCodeHost, LocalTracker
from ralph.workflow import WorkflowState

from ..conftest import GitProject
from ..tracker.conftest import github_tracker, linear_tracker

S = WorkflowState


#: Linear closes an issue by its state, so a close never disagrees with the state there:
#: what is synced on Linear is what the code host did (a merge).
ANY_TRACKER = pytest.mark.parametrize("synced", ["local", "github", "linear"], indirect=True)


@pytest.fixture(params=["local", "github"])
def synced(request, project: GitProject, clock, tmp_path: Path) -> Iterator[Project]:
    git = GitRepo(project.path)
    store = open_store("memory://")
    if request.param == "linear":
        linear = linear_tracker(clock)
        db = SqliteDatabase(tmp_path / "ralph.db")
        migrate_database(db)
        host = LocalCodeHost(db, repo="ENG", tracker=linear, git=git, clock=clock)
        linear_settings = LinearSettings(team="ENG")
        config = Config(root=project.path, repo="ENG", tracker="linear", linear=linear_settings)
        yield Project(config, linear, host, store, git)
        db.close()
        assert isinstance(linear.client.transport, FakeLinear)
        assert linear.client.transport.internal_errors == []
        return
    if request.param == "local":
        db = SqliteDatabase(tmp_path / "ralph.db")
        tracker: Any = LocalTracker(db, repo="project", clock=clock)
        host = LocalCodeHost(db, repo="project", tracker=tracker, git=git, clock=clock)
        yield Project(Config(root=project.path, repo="project"), tracker, host, store, git)
        db.close()
        return
    tracker = github_tracker(project.path, clock)
    settings = GitHubSettings(owner="acme", repo="project", project=tracker.project_number)
    config = Config(root=project.path, repo="project", tracker="github", github=settings)
    yield Project(config, tracker, GitHubCodeHost.of(tracker), store, git)
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    assert fake.internal_errors == []


def audits(project: Project, number: int) -> list[str]:
    return [c.body for c in project.tracker.get_issue(number).comments if "ralph_sync" in c.body]


@pytest.mark.parametrize(
    ("reason", "state"),
    [
        (CloseReason.COMPLETED, S.DONE),
        (CloseReason.NOT_PLANNED, S.CANCELED),
        (CloseReason.DUPLICATE, S.CANCELED),
    ],
)
def test_a_closed_issue_moves_to_done_or_canceled_once(synced, reason, state):
    tracker = synced.tracker
    tracker.create_issue("Login", state=S.RESEARCH_NEEDED)
    tracker.close_issue(1, reason)
    first = sync_issue(synced, 1)
    assert [(c.previous, c.new) for c in first.changes] == [(S.RESEARCH_NEEDED, state)]
    assert tracker.get_issue(1).workflow_state is state
    (audit,) = audits(synced, 1)
    assert f"Research Needed → {state.value}" in audit
    again = sync_issue(synced, 1)
    assert again.changes == ()
    assert "nothing to sync" in again.lines[0]
    assert len(audits(synced, 1)) == 1


def test_a_reopened_issue_goes_back_to_backlog(synced):
    tracker = synced.tracker
    tracker.create_issue("Login", state=S.IN_PROGRESS)
    tracker.close_issue(1, CloseReason.NOT_PLANNED)
    sync_issue(synced, 1)
    tracker.reopen_issue(1)
    assert tracker.get_issue(1).reopened
    moved = sync_issue(synced, 1)
    assert [(c.previous, c.new) for c in moved.changes] == [(S.CANCELED, S.BACKLOG)]
    assert sync_issue(synced, 1).changes == ()


def test_what_agrees_with_the_tracker_is_left_alone(synced):
    tracker = synced.tracker
    tracker.create_issue("Open and working", state=S.IN_PROGRESS)
    tracker.create_issue("Not on the board")
    tracker.close_issue(2)
    tracker.create_issue("Done, then closed by triage as obsolete", state=S.DONE)
    tracker.close_issue(3, CloseReason.NOT_PLANNED)
    tracker.create_issue("Done but not closed yet", state=S.DONE)
    for number in (1, 2, 3, 4):
        assert sync_issue(synced, number).changes == (), number
    assert sync_board(synced) == []
    assert all(audits(synced, n) == [] for n in (1, 2, 3, 4))


def test_the_board_sync_finds_every_issue_a_person_changed(synced):
    tracker = synced.tracker
    for title in ("A", "B", "C"):
        tracker.create_issue(title, state=S.BACKLOG)
    tracker.close_issue(1)
    tracker.close_issue(3, CloseReason.NOT_PLANNED)
    done = sync_board(synced)
    assert sorted(s.subject for s in done) == ["#1", "#3"]
    assert [tracker.get_issue(n).workflow_state for n in (1, 2, 3)] == [
        S.DONE,
        S.BACKLOG,
        S.CANCELED,
    ]
    assert sync_board(synced) == []


def _branch(project: GitProject, number: int) -> None:
    project.commit(f"feature/GH-{number}", {f"feature-{number}.txt": "work\n"}, "Work")


def _merged_by_a_person(synced: Project, number: int) -> None:
    """The pull request merged on GitHub's side (its UI), or locally by the tracker
    alone: Ralph's merge phase did not run."""
    tracker = synced.tracker
    if isinstance(tracker, GitHubTracker):
        pr_id = tracker.client.query(q.PULL_REQUEST, {**tracker.where, "number": number})[
            "repository"
        ]["pullRequest"]["id"]
        tracker.client.mutate(
            q.MERGE_PULL_REQUEST, q.input_of(pullRequestId=pr_id, mergeMethod="MERGE")
        )
    else:
        synced.code_host.merge_pull_request(number)


@ANY_TRACKER
def test_a_pull_request_a_person_merged_is_finished_as_the_merge_phase_finishes(
    synced, project: GitProject
):
    tracker = synced.tracker
    tracker.create_issue("Epic", state=S.IN_PROGRESS)
    tracker.create_issue("Child", parent=1, state=S.IN_REVIEW)
    _branch(project, 2)
    worktree = Worktrees(synced.git).ensure("GH-2", "feature/GH-2", "main")
    assert worktree.path.is_dir()
    pr = synced.code_host.create_pull_request(
        head="feature/GH-2", base="main", title="Child", body=synced.tracker.closing_words(2)
    )
    _merged_by_a_person(synced, pr.number)
    finished = sync_pull_request(synced, pr.number)
    assert finished.finished, finished.lines
    child, epic = tracker.get_issue(2), tracker.get_issue(1)
    assert (child.workflow_state, child.is_open) == (S.DONE, False)
    assert epic.workflow_state is S.DONE  # its only child is Done
    assert not worktree.path.exists()
    assert any("Merged pull request" in c.body for c in child.comments)
    assert any("→ Done" in c.body for c in child.comments)
    again = sync_pull_request(synced, pr.number)
    assert again.changes == ()
    assert "finished already" in again.lines[0]
    comments = len(tracker.get_issue(2).comments)
    assert sync_issue(synced, 2).changes == ()
    assert len(tracker.get_issue(2).comments) == comments


@ANY_TRACKER
def test_syncing_the_issue_a_merge_closed_finishes_the_merge(synced, project: GitProject):
    tracker = synced.tracker
    tracker.create_issue("Child", state=S.IN_REVIEW)
    _branch(project, 1)
    pr = synced.code_host.create_pull_request(
        head="feature/GH-1", base="main", title="C", body=synced.tracker.closing_words(1)
    )
    _merged_by_a_person(synced, pr.number)
    done = sync_issue(synced, 1)
    assert done.finished
    assert tracker.get_issue(1).workflow_state is S.DONE
    assert any("Merged pull request" in c.body for c in tracker.get_issue(1).comments)


@ANY_TRACKER
def test_an_open_or_unmerged_pull_request_changes_nothing(synced, project: GitProject):
    tracker = synced.tracker
    tracker.create_issue("Child", state=S.IN_REVIEW)
    _branch(project, 1)
    pr = synced.code_host.create_pull_request(
        head="feature/GH-1", base="main", title="C", body=synced.tracker.closing_words(1)
    )
    assert "is open: nothing to sync" in sync_pull_request(synced, pr.number).lines[0]
    synced.code_host.close_pull_request(pr.number)
    assert "is closed: nothing to sync" in sync_pull_request(synced, pr.number).lines[0]
    assert tracker.get_issue(1).workflow_state is S.IN_REVIEW
