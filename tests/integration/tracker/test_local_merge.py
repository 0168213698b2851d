"""Local pull requests are real merges in the project's git repository, and they never
disturb work a person has not committed."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.db import SqliteDatabase
from ralph.errors import GitError, InvalidInput, MergeConflict
from ralph.git import GitRepo
from ralph.tracker import IssueStatus, LocalCodeHost, LocalTracker, MergeStrategy, PullRequestState
from ralph.workflow import WorkflowState

from ..conftest import GitProject, git


@pytest.fixture
def host(project: GitProject, tmp_path: Path, clock):
    with SqliteDatabase(tmp_path / "ralph.db") as db:
        tracker = LocalTracker(db, repo="project", clock=clock)
        yield LocalCodeHost(
            db, repo="project", tracker=tracker, git=GitRepo(project.path), clock=clock
        )


def snapshot(path: Path) -> tuple[str, str, str, str]:
    """Everything a person could lose: HEAD, the index, and the working tree's state."""
    return (
        git(path, "symbolic-ref", "HEAD"),
        git(path, "diff", "--cached"),
        git(path, "status", "--porcelain", "--untracked-files=all"),
        git(path, "diff"),
    )


def test_a_clean_merge_makes_a_merge_commit_on_base_and_leaves_another_checkout_alone(
    host, project
):
    git(project.path, "switch", "-q", "-c", "my-work")
    (project.path / "README.md").write_text("my unfinished edit\n")
    (project.path / "notes.txt").write_text("scratch\n")
    git(project.path, "add", "notes.txt")
    before = snapshot(project.path)
    host.tracker.create_issue("Add a", state=WorkflowState.IN_REVIEW)
    base_before = project.rev("main")
    head = project.commit("feature", {"a.txt": "a\n"}, "add a")
    pr = host.create_pull_request(head="feature", base="main", title="Add a", body="Closes #1")

    merged = host.merge_pull_request(pr.number)

    assert snapshot(project.path) == before
    assert project.rev("main") == merged.merge_commit
    parents = git(project.path, "rev-list", "--parents", "-n", "1", "main").split()[1:]
    assert parents == [base_before, head]
    assert project.show("main", "a.txt") == "a"
    assert host.tracker.get_issue(1).workflow_state is WorkflowState.DONE


def test_a_conflicting_merge_is_refused_naming_the_files_and_nothing_moves(host, project):
    host.tracker.create_issue("Change readme", state=WorkflowState.IN_REVIEW)
    project.commit("feature", {"README.md": "theirs\n"}, "theirs")
    project.commit("main", {"README.md": "ours\n"}, "ours")
    git(project.path, "reset", "-q", "--hard")
    base_before, before = project.rev("main"), snapshot(project.path)
    pr = host.create_pull_request(head="feature", base="main", title="x", body="Closes #1")
    assert host.get_pull_request(pr.number).mergeable is False

    with pytest.raises(MergeConflict, match=r"README\.md.*resolve"):
        host.merge_pull_request(pr.number)

    assert project.rev("main") == base_before
    assert snapshot(project.path) == before
    assert host.get_pull_request(pr.number).state is PullRequestState.OPEN
    assert host.tracker.get_issue(1).status is IssueStatus.OPEN


def test_a_checked_out_base_follows_the_merge_and_keeps_unrelated_uncommitted_work(host, project):
    (project.path / "README.md").write_text("edited, not committed\n")
    project.commit("feature", {"a.txt": "a\n"}, "add a")
    pr = host.create_pull_request(head="feature", base="main", title="x")

    host.merge_pull_request(pr.number)

    assert (project.path / "a.txt").read_text() == "a\n"
    assert (project.path / "README.md").read_text() == "edited, not committed\n"
    assert git(project.path, "status", "--porcelain") == "M README.md"


def test_a_merge_that_would_overwrite_uncommitted_work_is_refused_before_anything_moves(
    host, project
):
    (project.path / "README.md").write_text("precious\n")
    project.commit("feature", {"README.md": "from the feature\n"}, "change readme")
    base_before = project.rev("main")
    pr = host.create_pull_request(head="feature", base="main", title="x")

    with pytest.raises(GitError, match="uncommitted changes"):
        host.merge_pull_request(pr.number)

    assert project.rev("main") == base_before
    assert (project.path / "README.md").read_text() == "precious\n"
    assert host.get_pull_request(pr.number).state is PullRequestState.OPEN


def test_a_squash_merge_makes_one_commit_with_one_parent(host, project):
    base_before = project.rev("main")
    project.commit("feature", {"a.txt": "a\n"}, "one")
    project.commit("feature", {"b.txt": "b\n"}, "two")
    pr = host.create_pull_request(head="feature", base="main", title="x")
    merged = host.merge_pull_request(pr.number, MergeStrategy.SQUASH)
    assert git(project.path, "rev-list", "--parents", "-n", "1", merged.merge_commit).split()[
        1:
    ] == [base_before]
    assert project.show("main", "b.txt") == "b"


def test_a_merge_that_already_landed_in_git_is_recorded_without_a_second_commit(host, project):
    """The state a crash between moving the branch and recording it leaves behind."""
    project.commit("feature", {"a.txt": "a\n"}, "add a")
    pr = host.create_pull_request(head="feature", base="main", title="x")
    landed = GitRepo(project.path).merge("feature", "main", "merged by hand").commit
    merged = host.merge_pull_request(pr.number)
    assert merged.state is PullRequestState.MERGED
    assert merged.merge_commit == landed
    assert project.rev("main") == landed


def test_a_pull_request_needs_two_existing_branches(host, project):
    with pytest.raises(InvalidInput, match="no branch 'nope'"):
        host.create_pull_request(head="nope", base="main", title="x")
    with pytest.raises(InvalidInput, match="two branches"):
        host.create_pull_request(head="main", base="main", title="x")
    assert host.list_pull_requests() == []


# -- rebase merges -------------------------------------------------------------------------


def worktree_paths(project: GitProject) -> list[str]:
    listing = git(project.path, "worktree", "list", "--porcelain").splitlines()
    return [line for line in listing if line.startswith("worktree ")]


def test_a_rebase_merge_replays_the_head_onto_the_base_and_leaves_the_head_alone(host, project):
    project.commit("feature", {"a.txt": "a\n"}, "one")
    head = project.commit("feature", {"b.txt": "b\n"}, "two")
    project.commit("main", {"c.txt": "c\n"}, "meanwhile on main")
    git(project.path, "reset", "-q", "--hard")
    base_before = project.rev("main")
    worktrees_before = worktree_paths(project)
    pr = host.create_pull_request(head="feature", base="main", title="x")

    merged = host.merge_pull_request(pr.number, MergeStrategy.REBASE)

    assert merged.merge_commit == project.rev("main")
    log = git(project.path, "log", "--format=%s %P", f"{base_before}..main").splitlines()
    assert [line.split()[0] for line in log] == ["two", "one"]
    assert all(len(line.split()) == 2 for line in log)  # one parent each: no merge commit
    assert git(project.path, "rev-list", "-n", "1", "main~2") == base_before
    assert (project.path / "b.txt").read_text() == "b\n"  # the checkout of main followed
    assert project.rev("feature") == head
    assert worktree_paths(project) == worktrees_before  # its scratch is gone


def test_a_rebase_that_does_not_apply_is_refused_naming_the_file_and_nothing_moves(host, project):
    project.commit("feature", {"README.md": "theirs\n"}, "theirs")
    project.commit("main", {"README.md": "ours\n"}, "ours")
    git(project.path, "reset", "-q", "--hard")
    base_before, before = project.rev("main"), snapshot(project.path)
    worktrees_before = worktree_paths(project)
    pr = host.create_pull_request(head="feature", base="main", title="x")

    with pytest.raises(MergeConflict, match=r"README\.md"):
        host.merge_pull_request(pr.number, MergeStrategy.REBASE)

    assert project.rev("main") == base_before
    assert snapshot(project.path) == before
    assert worktree_paths(project) == worktrees_before
    assert host.get_pull_request(pr.number).state is PullRequestState.OPEN


def test_a_rebase_merge_retried_after_it_landed_adds_nothing(host, project):
    """A crash after git moved the base but before the host recorded it."""
    project.commit("feature", {"a.txt": "a\n"}, "add a")
    project.commit("main", {"c.txt": "c\n"}, "meanwhile on main")
    git(project.path, "reset", "-q", "--hard")
    pr = host.create_pull_request(head="feature", base="main", title="x")
    from ralph.git import rebase_merge

    landed = rebase_merge(GitRepo(project.path), "feature", "main").commit
    merged = host.merge_pull_request(pr.number, MergeStrategy.REBASE)
    assert (merged.merge_commit, project.rev("main")) == (landed, landed)


def test_a_person_s_git_settings_do_not_steer_the_rebase(host, project):
    git(project.path, "config", "rebase.updateRefs", "true")
    git(project.path, "config", "commit.gpgSign", "true")
    project.commit("feature", {"a.txt": "a\n"}, "one")
    other = project.commit("other", {"a.txt": "a\n"}, "one", start="feature")
    project.commit("feature", {"b.txt": "b\n"}, "two")
    project.commit("main", {"c.txt": "c\n"}, "meanwhile on main")
    git(project.path, "reset", "-q", "--hard")
    pr = host.create_pull_request(head="feature", base="main", title="x")
    host.merge_pull_request(pr.number, MergeStrategy.REBASE)
    assert project.rev("other") == other  # no branch of theirs was moved along


def test_whether_a_pull_request_merges_is_asked_of_git_once_per_base_and_head(
    host, project, monkeypatch
):
    host.tracker.create_issue("Change readme", state=WorkflowState.IN_REVIEW)
    project.commit("feature", {"a.txt": "a\n"}, "add a")
    asked: list[tuple[str, ...]] = []
    real = GitRepo.run

    def counted(self, *args, **kwargs):
        if "merge-tree" in args:
            asked.append(args)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(GitRepo, "run", counted)
    pr = host.create_pull_request(head="feature", base="main", title="x", body="Closes #1")
    assert [host.get_pull_request(pr.number).mergeable for _ in range(3)] == [True] * 3
    assert len(asked) == 1
    # A base that moves into a conflict is asked about again, and so is a push.
    project.commit("main", {"a.txt": "ours\n"}, "ours")
    git(project.path, "reset", "-q", "--hard")
    assert host.get_pull_request(pr.number).mergeable is False
    project.commit("feature", {"b.txt": "b\n"}, "add b")
    assert host.get_pull_request(pr.number).mergeable is False
    assert len(asked) == 3
