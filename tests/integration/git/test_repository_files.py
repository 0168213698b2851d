"""A checkout's branch, its git directories and the worktree list are read from the
repository's own files, as git reads them, without starting git; whatever is unusual
(a symbolic-link HEAD, a reftable, a bare repository, GIT_DIR set) is asked of git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ralph.git import GitRepo, working_changes
from ralph.git._files import Head, common_dir_of, git_dir_of, head_of
from ralph.git._repo import WorktreeEntry
from tests.integration.git._counting import gits_started


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=30
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "T")
    git(path, "config", "user.email", "t@example.com")
    (path / "a.txt").write_text("a\n")
    git(path, "add", "a.txt")
    git(path, "commit", "-qm", "first")
    return GitRepo(path)


def _head(checkout: Path) -> Head | None:
    found = git_dir_of(checkout)
    return None if found is None else head_of(found)


def test_the_branch_of_a_checkout_is_read_and_a_move_to_another_is_seen(repo: GitRepo):
    assert _head(repo.path) == Head("main")
    git(repo.path, "switch", "-q", "-c", "feature/GH-1")
    assert _head(repo.path) == Head("feature/GH-1")
    git(repo.path, "switch", "-q", "--detach")
    assert _head(repo.path) == Head(None)


def test_a_linked_worktrees_head_and_git_dirs_are_its_own(repo: GitRepo, tmp_path: Path):
    git(repo.path, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    admin = git_dir_of(tmp_path / "side")
    assert admin == Path(git(tmp_path / "side", "rev-parse", "--absolute-git-dir")).resolve()
    assert common_dir_of(admin) == (repo.path / ".git").resolve()
    assert head_of(admin) == Head("side")
    assert _head(repo.path) == Head("main")


def test_a_symbolic_link_head_is_left_to_git(repo: GitRepo):
    head = repo.path / ".git" / "HEAD"
    head.unlink()
    head.symlink_to("refs/heads/main")
    assert git(repo.path, "symbolic-ref", "HEAD") == "refs/heads/main"  # git reads it
    assert _head(repo.path) is None


def test_a_reftable_repository_and_a_redirected_git_are_left_to_git(repo, monkeypatch):
    (repo.path / ".git" / "HEAD").write_text("ref: refs/heads/.invalid\n")
    assert _head(repo.path) is None
    (repo.path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    monkeypatch.setenv("GIT_DIR", str(repo.path / ".git"))
    assert git_dir_of(repo.path) is None


def test_holding_a_checkout_still_reads_its_branch_without_git(repo: GitRepo, monkeypatch):
    (repo.path / "a.txt").write_text("changed\n")
    started = gits_started(monkeypatch)
    assert list(working_changes(repo)) == ["a.txt"]
    assert [args[0] for args in started] == ["status", "hash-object"]  # no symbolic-ref


def test_the_worktree_list_is_read_as_git_lists_it(repo: GitRepo, tmp_path: Path):
    git(repo.path, "worktree", "add", "-q", "-b", "feature/GH-1", str(tmp_path / "wt one"))
    git(repo.path, "worktree", "add", "-q", "--detach", str(tmp_path / "été"))
    git(repo.path, "worktree", "add", "-q", "-b", "held", str(tmp_path / "held"))
    git(repo.path, "worktree", "lock", "--reason", "initializing", str(tmp_path / "held"))
    git(repo.path, "worktree", "add", "-q", "-b", "locked", str(tmp_path / "locked"))
    git(repo.path, "worktree", "lock", str(tmp_path / "locked"))
    git(repo.path, "worktree", "add", "-q", "-b", "gone", str(tmp_path / "gone"))
    subprocess.run(["rm", "-rf", str(tmp_path / "gone")], check=True, timeout=30)
    expected = {
        WorktreeEntry(repo.path.resolve(), "main"),
        WorktreeEntry((tmp_path / "wt one").resolve(), "feature/GH-1"),
        WorktreeEntry((tmp_path / "été").resolve(), None),
        WorktreeEntry((tmp_path / "held").resolve(), "held", "initializing"),
        WorktreeEntry((tmp_path / "locked").resolve(), "locked", ""),
        WorktreeEntry((tmp_path / "gone").resolve(), "gone"),
    }
    assert set(repo.worktree_entries()) == expected
    assert set(_listed_by_git(repo.path)) == expected
    assert repo.worktree_entries()[0] == WorktreeEntry(repo.path.resolve(), "main")


def test_the_worktree_list_follows_each_change_without_git(repo: GitRepo, tmp_path, monkeypatch):
    assert repo.worktrees() == {repo.path.resolve(): "main"}
    git(repo.path, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    started = gits_started(monkeypatch)
    assert repo.worktree_of("side") == (tmp_path / "side").resolve()
    git(tmp_path / "side", "switch", "-q", "-c", "other")
    assert repo.worktree_of("side") is None
    assert repo.worktree_of("other") == (tmp_path / "side").resolve()
    assert [args[0] for args in started] == ["switch"]  # the test's own


def test_a_bare_repositorys_worktrees_are_asked_of_git(tmp_path: Path, repo: GitRepo):
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(bare))
    git(bare, "worktree", "add", "-q", str(tmp_path / "checkout"), "main")
    found = GitRepo(bare).worktree_entries()
    assert found == _listed_by_git(bare)
    assert WorktreeEntry((tmp_path / "checkout").resolve(), "main") in found


def _listed_by_git(path: Path) -> list[WorktreeEntry]:
    listing = git(path, "worktree", "list", "--porcelain")
    found = []
    for block in listing.split("\n\n"):
        fields = dict(line.partition(" ")[::2] for line in block.splitlines() if line)
        branch = fields.get("branch", "")
        found.append(
            WorktreeEntry(
                Path(fields["worktree"]).resolve(),
                branch.removeprefix("refs/heads/") or None,
                fields.get("locked"),
            )
        )
    return found
