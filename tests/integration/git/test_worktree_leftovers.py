"""Ralph owns its worktrees: what a crash leaves of one is repaired or removed before it
is used, and worktrees are added and removed one at a time across threads and processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ralph.git import GitRepo, Worktrees

from ..conftest import GitProject, git


@pytest.fixture
def worktrees(project: GitProject) -> Worktrees:
    return Worktrees(GitRepo(project.path))


def admin(project: GitProject, name: str) -> Path:
    return project.path / ".git" / "worktrees" / name


def half_made(project: GitProject, path: Path, *, keep_files: bool = False) -> None:
    """Leave ``path`` as a kill during ``git worktree add`` does: still locked as
    initializing, ``index.lock`` taken, no index, the checkout partly written."""
    entry = admin(project, path.name)
    (entry / "locked").write_text("initializing\n")
    (entry / "index.lock").write_text("")
    (entry / "index").unlink()
    if not keep_files:
        for file in path.iterdir():
            if file.name != ".git":
                file.unlink()


def listed(project: GitProject) -> list[str]:
    return git(project.path, "worktree", "list", "--porcelain").splitlines()


def test_a_half_made_scratch_worktree_is_removed_and_made_again(project: GitProject, worktrees):
    path = project.path / ".ralph" / "scratch" / "split-GH-1"
    git(project.path, "worktree", "add", "-q", "--detach", str(path), "main")
    half_made(project, path)
    with worktrees.scratch("split-GH-1", "main") as made:
        assert (made / "README.md").read_text() == "hello\n"
        assert git(made, "status", "--porcelain") == ""
    assert not path.exists()
    assert [line for line in listed(project) if line.startswith("worktree ")] == [
        f"worktree {project.path}"
    ]


def test_a_locked_scratch_worktree_whose_folder_is_gone_is_cleared(project: GitProject, worktrees):
    path = project.path / ".ralph" / "scratch" / "research-GH-2"
    git(project.path, "worktree", "add", "-q", "--detach", str(path), "main")
    half_made(project, path)
    subprocess.run(["rm", "-rf", str(path)], check=True)
    with worktrees.scratch("research-GH-2", "main") as made:
        assert (made / "README.md").is_file()
    assert not any(line.startswith("locked") for line in listed(project))


def test_a_half_made_implementation_worktree_is_made_again_from_its_branch(
    project: GitProject, worktrees
):
    made = worktrees.ensure("GH-1", "feature/GH-1", "main")
    (made.path / "feature.txt").write_text("committed work\n")
    git(made.path, "add", "feature.txt")
    git(made.path, "commit", "-qm", "work")
    tip = project.rev("feature/GH-1")
    half_made(project, made.path)
    again = worktrees.ensure("GH-1", "feature/GH-1", "main")
    assert again.created
    assert git(again.path, "rev-parse", "HEAD") == tip  # the committed work is kept
    assert (again.path / "feature.txt").read_text() == "committed work\n"
    assert (again.path / "README.md").read_text() == "hello\n"
    assert git(again.path, "status", "--porcelain") == ""
    assert not any(line.startswith("locked") for line in listed(project))


def test_a_worktree_with_a_leftover_index_lock_is_not_reused(project: GitProject, worktrees):
    made = worktrees.ensure("GH-3", "feature/GH-3", "main")
    (admin(project, "GH-3") / "index.lock").write_text("")
    again = worktrees.ensure("GH-3", "feature/GH-3", "main")
    assert again.created
    assert not (admin(project, "GH-3") / "index.lock").exists()
    assert git(made.path, "status", "--porcelain") == ""
    git(made.path, "commit", "-q", "--allow-empty", "-m", "git works in it again")


def test_a_whole_worktree_a_person_locked_is_reused_as_it_is(project: GitProject, worktrees):
    made = worktrees.ensure("GH-4", "feature/GH-4", "main")
    (made.path / "notes.txt").write_text("uncommitted\n")
    git(project.path, "worktree", "lock", "--reason", "keep it", str(made.path))
    again = worktrees.ensure("GH-4", "feature/GH-4", "main")
    assert not again.created
    assert (made.path / "notes.txt").read_text() == "uncommitted\n"


def _scratches(worktrees: Worktrees, prefix: str, count: int, errors: list[str]) -> None:
    for i in range(count):
        try:
            with worktrees.scratch(f"{prefix}-{i}", "main") as path:
                assert (path / "README.md").is_file()
        except Exception as exc:  # collected: the test reports every failure
            errors.append(repr(exc))


def test_scratch_worktrees_made_in_parallel_threads_never_collide(project: GitProject, worktrees):
    errors: list[str] = []
    for round_ in range(15):
        threads = [
            threading.Thread(target=_scratches, args=(worktrees, f"r{round_}-t{n}", 1, errors))
            for n in range(6)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert len([line for line in listed(project) if line.startswith("worktree ")]) == 1


_CHILD = """
import sys, threading
from pathlib import Path
from ralph.git import GitRepo, Worktrees
from tests.integration.git.test_worktree_leftovers import _scratches
errors = []
worktrees = Worktrees(GitRepo(Path(sys.argv[1])))
threads = [threading.Thread(target=_scratches, args=(worktrees, f"{sys.argv[2]}-{n}", 5, errors))
           for n in range(3)]
for thread in threads: thread.start()
for thread in threads: thread.join(timeout=100)
print("\\n".join(errors))
sys.exit(1 if errors or any(t.is_alive() for t in threads) else 0)
"""


def test_scratch_worktrees_made_by_parallel_processes_never_collide(project: GitProject):
    root = Path(__file__).parents[3]
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, "-c", _CHILD, str(project.path)]
    children = [
        subprocess.Popen([*command, f"p{n}"], cwd=root, env=env, stdout=subprocess.PIPE, text=True)
        for n in range(3)
    ]
    outputs = [child.communicate(timeout=100)[0] for child in children]
    assert [child.returncode for child in children] == [0, 0, 0], outputs
    assert len([line for line in listed(project) if line.startswith("worktree ")]) == 1


def test_a_whole_scratch_worktree_is_removed_by_one_git(
    project: GitProject, worktrees, monkeypatch: pytest.MonkeyPatch
):
    started: list[str] = []
    real_run = subprocess.run

    def counting(args: list[str], *rest: object, **options: object) -> object:
        if args[0] == "git":
            started.append(" ".join(a for a in args[3:] if not a.startswith("/")))
        return real_run(args, *rest, **options)  # type: ignore[call-overload]

    with worktrees.scratch("research-GH-2", "main"):
        monkeypatch.setattr(subprocess, "run", counting)
    assert started == ["worktree remove --force --force"]
    assert len(listed(project)) == 3  # the person's checkout alone: worktree, HEAD, branch
