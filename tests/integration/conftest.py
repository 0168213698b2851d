"""Real git repositories for the integration tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ralph.cli import main


def git(cwd: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return result.stdout.strip()


class Project:
    """A git repository with ``main`` and a helper to grow branches in it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q", "-b", "main")
        git(path, "config", "user.name", "Test Person")
        git(path, "config", "user.email", "person@example.com")
        self.commit("main", {"README.md": "hello\n"}, "initial")
        git(path, "reset", "-q", "--hard")  # the person's checkout: main, clean

    def _git(self, *args: str, index: Path | None = None, stdin: str | None = None) -> str:
        env = {**os.environ, "GIT_INDEX_FILE": str(index)} if index else None
        result = subprocess.run(
            ["git", *args], cwd=self.path, env=env, input=stdin,
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        return result.stdout.strip()

    def has(self, ref: str) -> bool:
        found = subprocess.run(
            ["git", "rev-parse", "--verify", "-q", ref], cwd=self.path, capture_output=True
        )
        return found.returncode == 0

    def commit(
        self, branch: str, files: dict[str, str], message: str, *, start: str = "main"
    ) -> str:
        """Commit ``files`` on ``branch`` (created from ``start``) through a private index,
        so no checkout is involved."""
        parent = branch if self.has(branch) else start if self.has(start) else None
        index = self.path / ".git" / "ralph-test-index"
        self._git("read-tree", parent or "--empty", index=index)
        for name, content in files.items():
            blob = self._git("hash-object", "-w", "--stdin", stdin=content)
            self._git("update-index", "--add", "--cacheinfo", f"100644,{blob},{name}", index=index)
        tree = self._git("write-tree", index=index)
        index.unlink()
        parents = ["-p", self.rev(parent)] if parent else []
        sha = self._git("commit-tree", tree, *parents, "-m", message)
        self._git("update-ref", f"refs/heads/{branch}", sha)
        return sha

    def rev(self, ref: str) -> str:
        return git(self.path, "rev-parse", ref)

    def show(self, ref: str, path: str) -> str:
        return git(self.path, "show", f"{ref}:{path}")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "project")


#: ``ralph ARGS`` run in-process: (exit code, stdout, stderr).
RalphCli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def ralph_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> RalphCli:
    """``ralph ARGS`` in-process in the working directory, with simulated agents and a
    wide terminal (the developer's RALPH_* settings are already cleared)."""
    monkeypatch.setenv("RALPH_AGENT", "scripted")
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        out, err = capsys.readouterr()
        code = info.value.code or 0
        assert isinstance(code, int)
        return code, out, err

    return run
