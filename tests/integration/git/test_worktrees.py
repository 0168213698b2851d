"""Worktrees are created or reused, and never deleted with work in them."""

from __future__ import annotations

import pytest

from ralph.errors import GitError
from ralph.git import GitRepo, Worktrees, changed_between, working_changes

from ..conftest import GitProject, git


@pytest.fixture
def worktrees(project: GitProject) -> Worktrees:
    return Worktrees(GitRepo(project.path))


def test_a_worktree_is_created_on_a_new_branch_then_reused(project: GitProject, worktrees):
    first = worktrees.ensure("GH-7", "feature/GH-7", "main")
    assert first.created
    assert first.path == project.path / "worktrees" / "GH-7"
    assert git(first.path, "branch", "--show-current") == "feature/GH-7"
    again = worktrees.ensure("GH-7", "feature/GH-7", "main")
    assert not again.created
    assert again.path == first.path
    # The main checkout does not see the worktrees folder as untracked.
    assert git(project.path, "status", "--porcelain") == ""


def test_an_existing_branch_is_checked_out_not_recreated(project: GitProject, worktrees):
    tip = project.commit("feature/GH-8", {"a.txt": "a\n"}, "work")
    created = worktrees.ensure("GH-8", "feature/GH-8", "main")
    assert git(created.path, "rev-parse", "HEAD") == tip


def test_a_folder_in_the_way_is_refused(project: GitProject, worktrees):
    (project.path / "worktrees" / "GH-9").mkdir(parents=True)
    with pytest.raises(GitError, match="not a worktree"):
        worktrees.ensure("GH-9", "feature/GH-9", "main")


def test_pruning_keeps_a_dirty_worktree(worktrees):
    made = worktrees.ensure("GH-1", "feature/GH-1", "main")
    (made.path / "README.md").write_text("edited\n")
    (made.path / "wip.txt").write_text("unsaved\n")
    pruned = worktrees.prune("GH-1", "main")
    assert not pruned.removed
    assert "uncommitted changes: README.md, wip.txt" in pruned.reason
    assert made.path.exists()


def test_pruning_keeps_unmerged_commits_and_removes_merged_ones(project: GitProject, worktrees):
    made = worktrees.ensure("GH-2", "feature/GH-2", "main")
    (made.path / "new.txt").write_text("n\n")
    git(made.path, "add", "new.txt")
    git(made.path, "commit", "-qm", "work")
    kept = worktrees.prune("GH-2", "main")
    assert not kept.removed
    assert kept.reason == "feature/GH-2 has 1 commit(s) not merged into main"
    GitRepo(project.path).merge("feature/GH-2", "main", "merge", squash=True)
    assert worktrees.prune("GH-2", "main").removed
    assert not made.path.exists()
    assert GitRepo(project.path).has_branch("feature/GH-2")


def test_pruning_nothing_is_not_an_error(worktrees):
    assert worktrees.prune("GH-404", "main").removed is False


def test_a_scratch_checkout_is_removed_afterwards_whatever_it_holds(project: GitProject, worktrees):
    with worktrees.scratch("research-GH-3", "main") as path:
        assert (path / "README.md").read_text() == "hello\n"
        (path / "draft.md").write_text("draft\n")
    assert not path.exists()
    assert git(project.path, "status", "--porcelain") == ""


def test_a_change_snapshot_sees_every_write(project: GitProject):
    repo = GitRepo(project.path)
    (project.path / "README.md").write_text("edited once\n")
    before = working_changes(repo)
    (project.path / "README.md").write_text("edited twice\n")  # same status, new content
    (project.path / "new.txt").write_text("n\n")
    after = working_changes(repo)
    assert changed_between(before, after) == ["README.md", "new.txt"]
    assert changed_between(before, after, allowed=["new.txt"]) == ["README.md"]
    assert changed_between(after, working_changes(repo)) == []
