"""Real git repositories for the integration tests."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ralph.cli import main

from ..conftest import is_developer_setting


def git(cwd: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return result.stdout.strip()


#: Who commits in a ``GitProject`` (its ``user.name`` and ``user.email``).
_IDENTITY = "Test Person <person@example.com>"


def _data(text: str) -> bytes:
    """``text`` as a fast-import ``data`` command."""
    raw = text.encode()
    return b"data %d\n%s\n" % (len(raw), raw)


def copy_checkout(template: Path, path: Path) -> Path:
    """A copy at ``path`` of the repository checked out at ``template`` (no worktree, and
    no remote that is a folder beside it: nothing in it names where it is): the same
    repository as one made at ``path`` would be, without the git processes that make it."""
    shutil.copytree(template, path, symlinks=True)
    # The copied files have new inodes and times: the index learns them, as a clone's
    # has them, so Ralph's own `status --no-optional-locks` does not hash them again.
    git(path, "update-index", "-q", "--refresh")
    return path


def repoint_service(work: Path, url: str) -> None:
    """ralph.toml in ``work``, a copy of a project ``ralph init`` set up against a fake
    served elsewhere, made to name the fake served at ``url``, as init there would."""
    toml = work / "ralph.toml"
    text, found = re.subn(r'url = "http://127\.0\.0\.1:\d+"', f'url = "{url}"', toml.read_text())
    assert found == 1, text
    toml.write_text(text)


class GitProject:
    """A git repository with ``main`` and a helper to grow branches in it."""

    @classmethod
    def copy_of(cls, template: GitProject, path: Path) -> GitProject:
        """A copy of ``template`` at ``path``: the same repository as a new one at
        ``path`` would be, without the dozen git processes that make one."""
        copy_checkout(template.path, path)
        copy = cls.__new__(cls)
        copy.path = path
        return copy

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q", "-b", "main")
        git(path, "config", "user.name", "Test Person")
        git(path, "config", "user.email", "person@example.com")
        self.commit("main", {"README.md": "hello\n"}, "initial")
        git(path, "reset", "-q", "--hard")  # the person's checkout: main, clean

    def _git(self, *args: str, stdin: str | None = None) -> str:
        result = subprocess.run(
            ["git", *args],
            cwd=self.path,
            input=stdin,
            capture_output=True,
            text=True,
            check=True,
        )
        return result.stdout.strip()

    def has(self, ref: str) -> bool:
        found = subprocess.run(
            ["git", "rev-parse", "--verify", "-q", ref], cwd=self.path, capture_output=True
        )
        return found.returncode == 0

    def commit(
        self, branch: str, files: dict[str, str], message: str, *, start: str = "main"
    ) -> str:
        """Commit ``files`` on ``branch`` (created from ``start``) with no checkout
        involved: ``git fast-import``, one process where plumbing took two a file and
        seven more (each forked from the whole pytest process)."""
        parent = self._first_commit(branch, start)
        stream = [
            f"commit refs/heads/{branch}\nmark :1\ncommitter {_IDENTITY} now\n".encode(),
            # What commit-tree -m stores: the message with a newline, added if missing.
            _data(message if not message or message.endswith("\n") else message + "\n"),
            f"from {parent}\n".encode() if parent else b"",
        ]
        for name, content in files.items():
            assert name.isprintable(), name
            assert not name.startswith('"'), name
            stream += [f"M 100644 inline {name}\n".encode(), _data(content)]
        stream.append(b"\nget-mark :1\n")
        made = subprocess.run(
            ["git", "fast-import", "--quiet", "--force", "--date-format=now"],
            cwd=self.path,
            input=b"".join(stream),
            capture_output=True,
            check=True,
        )
        return made.stdout.decode().strip()

    def _first_commit(self, *refs: str) -> str | None:
        """The commit the first of ``refs`` that exists names (None: none does), all
        looked up by one git process."""
        found = self._git("cat-file", "--batch-check", stdin="".join(f"{r}\n" for r in refs))
        for line in found.splitlines():
            sha, _, kind = line.partition(" ")
            if kind.startswith("commit"):
                return sha
        return None

    def rev(self, ref: str) -> str:
        return git(self.path, "rev-parse", ref)

    def show(self, ref: str, path: str) -> str:
        return git(self.path, "show", f"{ref}:{path}")


@pytest.fixture(scope="session")
def _project_template(tmp_path_factory: pytest.TempPathFactory) -> GitProject:
    return GitProject(tmp_path_factory.mktemp("template") / "project")


@pytest.fixture
def project(tmp_path: Path, _project_template: GitProject) -> GitProject:
    """A fresh repository of the test's own: a copy of one made once per worker (a
    thousand tests take one, and copying costs a tenth of making)."""
    return GitProject.copy_of(_project_template, tmp_path / "project")


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


#: What the suite's own environment carries (this machine's, CI's, the Makefile's) that a
#: person's does not: Python told not to write bytecode hides every by-product a test run
#: leaves in a project that does not ignore it. The suite's ``PYTHONPYCACHEPREFIX``
#: (tests/bytecode.py) stays: it says where Ralph's own processes keep their bytecode,
#: outside the checkout, and a project's test runs never see it (their environment is an
#: allow-list without it, an agent's names Ralph's own folder), so what a person sees
#: does not depend on it.
SUITE_ONLY_VARIABLES = (
    "PYTHONDONTWRITEBYTECODE",
    "UV_PROJECT_ENVIRONMENT",
    "UV_COMPILE_BYTECODE",
    "UV_PYTHON_DOWNLOADS",
    "UV_NO_PROGRESS",
)


@pytest.fixture
def persons_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment of a person trying Ralph on their own project, not the suite's:
    for this process (in-process ``ralph``) and every ``ralph`` process it starts."""
    for name in SUITE_ONLY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


#: The installed ``ralph`` command of this virtual environment.
RALPH = shutil.which("ralph", path=str(Path(sys.executable).parent)) or "ralph"


def ralph_environment(settings: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a real ``ralph`` process: this one's without the developer's
    RALPH_* settings and tokens, a wide terminal, then ``settings``."""
    scrubbed = {k: v for k, v in os.environ.items() if not is_developer_setting(k)}
    return {**scrubbed, "COLUMNS": "200", **(settings or {})}


def ralph_process(
    *args: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 110,
    command: Sequence[str] = (RALPH,),
) -> subprocess.CompletedProcess[str]:
    """``ralph ARGS`` as a real process in ``cwd`` (``env``: settings on top of
    ``ralph_environment``), killed after ``timeout`` seconds; for what only a process
    shows: its exit code and streams, signals, the stdio protocol, the installed
    command. Everything else runs in-process through ``ralph_cli``."""
    return subprocess.run(
        [*command, *args],
        cwd=cwd,
        env=ralph_environment(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def spawn_ralph(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, **popen: Any
) -> subprocess.Popen[str]:
    """``ralph ARGS`` started and left running (to be signalled or killed), with the
    environment of ``ralph_process``; its output is piped unless ``popen`` says otherwise.
    The caller bounds every wait on it."""
    options: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **popen}
    return subprocess.Popen(
        [RALPH, *args], cwd=cwd, env=ralph_environment(env), text=True, **options
    )
