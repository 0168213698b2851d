"""A person's own Python project, tried as they would: no ``.gitignore`` (so nothing
ignores ``__pycache__``), ``ralph init``, one issue, ``ralph hero`` with the simulated
agents, through the real ``ralph`` command, in a person's environment rather than the
suite's (no ``PYTHONDONTWRITEBYTECODE``). What the test runs leave is not the agent's
work: the change is merged and no by-product reaches ``main``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from ralph.demo import create_sample_repository
from ralph.demo._sample import FAREWELL

from ..conftest import git, ralph_process

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("persons_environment")]

BODY = f"Add `farewell` to the core module.\n\n{FAREWELL}\n"


def project_without_gitignore(path: Path) -> Path:
    repo = create_sample_repository(path)
    git(repo, "rm", "-q", ".gitignore")
    git(repo, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qm", "No ignores")
    return repo


def test_the_suite_runs_this_test_as_a_person_would():
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ


def test_a_project_without_gitignore_goes_from_init_to_a_merged_change(tmp_path: Path):
    repo = project_without_gitignore(tmp_path / "project")
    env = {"RALPH_AGENT": "scripted"}
    init = ralph_process("init", cwd=repo, env=env)
    assert init.returncode == 0, init.stderr
    assert "python3 -m unittest" in init.stdout
    made = ralph_process("issue", "new", "Add a farewell", "-e", "XS", "--body", BODY, cwd=repo)
    assert made.returncode == 0, made.stderr
    done = ralph_process("hero", "1", cwd=repo, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = json.loads(ralph_process("issue", "show", "1", "--json", cwd=repo).stdout)
    assert shown["workflowState"] == "Done"
    assert "def farewell" in git(repo, "show", "main:greet/core.py")
    on_main = git(repo, "ls-tree", "-r", "--name-only", "main").splitlines()
    assert not [name for name in on_main if "__pycache__" in name or name.endswith(".pyc")]
    # The test runs did write bytecode (nothing told Python not to); it was cleared.
    worktree = repo / "worktrees" / "GH-1"
    if worktree.exists():
        left = subprocess.run(
            ["git", "status", "--porcelain"], cwd=worktree, capture_output=True, text=True
        ).stdout
        assert left == ""
