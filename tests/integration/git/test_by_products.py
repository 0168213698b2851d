"""What the project's own commands leave in a worktree (a test run's bytecode and
caches, a hook's reports) is told apart from the agent's work: new files are removed
after the command, the files the agent had written stay, and a tracked file the command
edited stays for a person to see. A preparing hook's new files stay, noted, out of the
checks for uncommitted work."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ralph.git import (
    GitRepo,
    Worktrees,
    by_products_removed,
    new_files_noted,
    noted_files,
    noted_list,
)
from ralph.sandbox import git_commit_paths

from ..conftest import GitProject, git


@pytest.fixture
def worktree(project: GitProject) -> Path:
    project.commit("main", {"pkg/__init__.py": "", "pkg/core.py": "x = 1\n"}, "package")
    return Worktrees(GitRepo(project.path)).ensure("GH-1", "feature/GH-1", "main").path


def run_tests(where: Path) -> None:
    """What a test run writes: bytecode beside the sources, a cache folder with a
    nested folder, coverage data, and a nested repository (a test fixture)."""
    script = (
        "import compileall, pathlib, subprocess;"
        "compileall.compile_dir('pkg', quiet=1);"
        "pathlib.Path('.cache/v/cache').mkdir(parents=True);"
        "pathlib.Path('.cache/v/cache/lastfailed').write_text('{}');"
        "pathlib.Path('.coverage').write_text('data');"
        "subprocess.run(['git', 'init', '-q', 'fixture-repo'], check=True)"
    )
    subprocess.run(["python3", "-c", script], cwd=where, check=True, env={"PATH": "/usr/bin:/bin"})


def status(where: Path) -> list[str]:
    return git(where, "status", "--porcelain", "--untracked-files=all").splitlines()


def test_new_files_a_command_leaves_are_removed_and_the_agents_own_stay(project, worktree):
    (worktree / "pkg" / "new_module.py").write_text("y = 2\n")  # the agent's, uncommitted
    with by_products_removed(GitRepo(project.path), worktree) as found:
        run_tests(worktree)
        assert list((worktree / "pkg" / "__pycache__").iterdir())
    assert status(worktree) == ["?? pkg/new_module.py"]
    assert not (worktree / "pkg" / "__pycache__").exists()
    assert not (worktree / ".cache").exists()
    assert "pkg/__pycache__/core.cpython-" in " ".join(found.removed)
    assert ".coverage" in found.removed


def test_a_tracked_file_the_command_edits_stays_edited(project, worktree):
    with by_products_removed(GitRepo(project.path), worktree) as found:
        (worktree / "pkg" / "core.py").write_text("x = 'formatted'\n")
    assert found.removed == []
    assert git(worktree, "diff", "--name-only") == "pkg/core.py"
    assert status(worktree) == ["M pkg/core.py"]


def test_files_that_are_ignored_are_left_alone(project, worktree):
    (worktree / ".gitignore").write_text("build/\n")
    with by_products_removed(GitRepo(project.path), worktree):
        (worktree / "build").mkdir()
        (worktree / "build" / "out.o").write_text("o")
    assert (worktree / "build" / "out.o").is_file()


def test_what_a_preparing_command_installs_stays_noted_and_is_pruned_with_the_worktree(
    project, worktree
):
    repo = GitRepo(project.path)
    with new_files_noted(repo, worktree):
        (worktree / "node_modules" / "left-pad").mkdir(parents=True)
        (worktree / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1\n")
    assert (worktree / "node_modules" / "left-pad" / "index.js").is_file()
    assert noted_files(repo, worktree) == {"node_modules/left-pad/index.js"}
    # Another worktree notes nothing of it.
    other = Worktrees(repo).ensure("GH-2", "feature/GH-2", "main").path
    assert noted_files(repo, other) == frozenset()
    assert Worktrees(repo).prune("GH-1", "main").removed
    assert not worktree.exists()


def test_the_list_of_installed_files_is_out_of_the_agents_reach_and_excuses_no_edit(
    project, worktree
):
    """An agent may write its worktree's git folder (its commits go there), never the
    list that keeps files out of its uncommitted work; and a tracked file it edited is
    its own, listed or not. A new worktree of the same name starts with no list."""
    repo = GitRepo(project.path)
    with new_files_noted(repo, worktree):
        (worktree / "vendor.txt").write_text("installed\n")
    listed = noted_list(repo, worktree)
    assert listed is not None
    assert not any(listed.is_relative_to(p) for p in git_commit_paths(worktree))
    listed.write_text("vendor.txt\npkg/core.py\n")  # as an agent would, could it
    (worktree / "pkg" / "core.py").write_text("x = 2\n")
    assert noted_files(repo, worktree) == {"vendor.txt"}
    Worktrees(repo).remove("GH-1")
    again = Worktrees(repo).ensure("GH-1", "feature/GH-1", "main").path
    (again / "vendor.txt").write_text("left by the agent\n")
    assert noted_files(repo, again) == frozenset()
