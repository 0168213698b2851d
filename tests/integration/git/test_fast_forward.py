"""Catching the local base branch up with its remote after GitHub merged there."""

from __future__ import annotations

import subprocess

import pytest

from ralph.errors import GitError
from ralph.git import GitRepo

from ..conftest import git


@pytest.fixture
def remote(project, tmp_path):
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(project.path), str(origin)], check=True)
    git(project.path, "remote", "add", "origin", str(origin))
    return origin


def advance_remote(tmp_path, origin, name):
    clone = tmp_path / f"clone-{name}"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    (clone / f"{name}.txt").write_text(name)
    git(clone, "add", "-A")
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", name)
    git(clone, "push", "-q", "origin", "HEAD:main")


def test_the_local_branch_and_its_checkout_follow_the_remote(project, remote, tmp_path):
    advance_remote(tmp_path, remote, "merged")
    repo = GitRepo(project.path)
    assert repo.fast_forward_from("main") is True
    assert repo.resolve("refs/heads/main") == git(remote, "rev-parse", "main")
    assert (project.path / "merged.txt").read_text() == "merged"
    assert repo.fast_forward_from("main") is False


def test_a_branch_the_remote_lacks_is_left_alone(project, remote):
    assert GitRepo(project.path).fast_forward_from("no-such-branch") is False


def test_a_diverged_branch_is_refused_and_left_where_it_was(project, remote, tmp_path):
    advance_remote(tmp_path, remote, "theirs")
    before = project.commit("main", {"mine.txt": "mine"}, "mine")
    with pytest.raises(GitError, match="diverged"):
        GitRepo(project.path).fast_forward_from("main")
    assert GitRepo(project.path).resolve("refs/heads/main") == before
