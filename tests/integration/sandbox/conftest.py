"""A person's machine in miniature: a repository with Ralph's store and an implementation
worktree, a home with credentials in it, and a folder outside everything; and machines
where bubblewrap is missing or cannot start."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.git import GitRepo, Worktrees
from ralph.runtimes import AgentBrief, Limits
from ralph.sandbox import _policy

from ..conftest import GitProject

SECRET = "PRIVATE-KEY-MATERIAL"


def implement_brief(workdir: Path) -> AgentBrief:
    """The brief of an implementation in ``workdir``, for an agent that is a script."""
    return AgentBrief(
        phase="implement",
        role="implementer",
        issues=(),
        instructions="Implement it.",
        workdir=workdir,
        tools=(),
        limits=Limits(timeout_seconds=60, stall_seconds=60),
        result_schema={"type": "object"},
    )


@dataclass(frozen=True)
class Machine:
    repo: GitProject
    worktree: Path
    home: Path
    #: A folder outside the repository and outside /tmp (which sandboxes get privately).
    outside: Path
    tmp: Path

    @property
    def store(self) -> Path:
        return self.repo.path / ".ralph" / "ralph.db"

    def protected(self) -> dict[Path, bytes]:
        """Every file confined code must not change, with its content now."""
        git = self.repo.path / ".git"
        files = [
            git / "config",
            git / "hooks" / "post-checkout",
            git / "info" / "exclude",
            self.store,
            self.repo.path / "README.md",
            self.outside / "keep.txt",
            self.tmp / "keep.txt",
            self.home / ".ssh" / "id_rsa",
            # Where the worktree's git directory is: pointed elsewhere, Ralph's own git
            # calls there would read a config of the agent's making.
            self.worktree / ".git",
            git / "worktrees" / "GH-1" / "commondir",
        ]
        return {f: f.read_bytes() if f.exists() else b"<absent>" for f in files}


@pytest.fixture
def machine(tmp_path: Path) -> Iterator[Machine]:
    repo = GitProject(tmp_path / "repo")
    made = Worktrees(GitRepo(repo.path)).ensure("GH-1", "feature/GH-1", "main")
    repo.path.joinpath(".ralph").mkdir(exist_ok=True)
    with sqlite3.connect(repo.path / ".ralph" / "ralph.db") as db:
        db.execute("CREATE TABLE tasks (id INTEGER)")
    db.close()
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    (home / ".git-credentials").write_text(f"https://me:{SECRET}@github.com\n")
    (home / ".cache").mkdir()
    (tmp_path / "keep.txt").write_text("tmp\n")
    outside = Path(tempfile.mkdtemp(prefix="ralph-sandbox-test-", dir="/var/tmp"))
    (outside / "keep.txt").write_text("outside\n")
    try:
        yield Machine(repo, made.path, home, outside, tmp_path)
    finally:
        shutil.rmtree(outside, ignore_errors=True)


@pytest.fixture
def missing(tmp_path, monkeypatch) -> None:
    """A PATH without bwrap."""
    (tmp_path / "empty-bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))


@pytest.fixture
def refused(tmp_path, monkeypatch) -> None:
    """A bwrap that cannot make its namespaces, as where user namespaces are off."""
    fake = tmp_path / "fake-bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")


@pytest.fixture
def warned(monkeypatch) -> None:
    """A process that has not warned yet."""
    monkeypatch.setattr(_policy, "_warned", threading.Event())
