"""The guard's reads of the person's checkout: the files its index tracks are listed by
git once per version of the index, and the changed files are hashed by one git process
however many there are; each read still sees every change."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.git import GitRepo, working_changes
from ralph.git._tracked import tracked_files
from tests.integration.git._counting import gits_started

from ..conftest import GitProject, git


def test_the_tracked_files_are_listed_once_per_version_of_the_index(
    project: GitProject, monkeypatch: pytest.MonkeyPatch
):
    repo = GitRepo(project.path)
    assert tracked_files(repo) == {"README.md"}
    started = gits_started(monkeypatch)
    assert tracked_files(repo) == {"README.md"}
    assert tracked_files(GitRepo(project.path)) == {"README.md"}
    assert started == []


def test_a_file_staged_or_unstaged_after_the_first_listing_is_seen(project: GitProject):
    repo = GitRepo(project.path)
    assert tracked_files(repo) == {"README.md"}
    (project.path / "new.py").write_text("x = 1\n")
    git(project.path, "add", "new.py")
    assert tracked_files(repo) == {"README.md", "new.py"}
    git(project.path, "rm", "-q", "--cached", "README.md")
    assert tracked_files(repo) == {"new.py"}


def test_a_linked_worktrees_own_index_is_listed(project: GitProject, tmp_path: Path):
    project.commit("side", {"side.txt": "s\n"}, "side")
    git(project.path, "worktree", "add", "-q", str(tmp_path / "side"), "side")
    assert tracked_files(GitRepo(project.path)) == {"README.md"}
    assert tracked_files(GitRepo(tmp_path / "side")) == {"README.md", "side.txt"}


def test_changed_files_are_hashed_by_one_git_and_each_change_is_seen(
    project: GitProject, monkeypatch: pytest.MonkeyPatch
):
    repo = GitRepo(project.path)
    (project.path / "README.md").write_text("changed\n")
    (project.path / "a new file.txt").write_text("new\n")
    (project.path / "line\nbreak.txt").write_text("odd\n")
    (project.path / "folder").mkdir()
    (project.path / "folder" / "deep.txt").write_text("deep\n")
    started = gits_started(monkeypatch)
    before = working_changes(repo)
    assert [args[0] for args in started] == ["status", "hash-object", "hash-object"]
    assert set(before) == {"README.md", "a new file.txt", "line\nbreak.txt", "folder/deep.txt"}
    assert before["a new file.txt"] == "??:" + git(project.path, "hash-object", "a new file.txt")
    (project.path / "folder" / "deep.txt").write_text("deeper\n")
    (project.path / "line\nbreak.txt").write_text("odder\n")
    after = working_changes(repo)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"folder/deep.txt", "line\nbreak.txt"}
