"""The real agent CLIs (Codex, Gemini CLI, opencode), installed from
``tests/agents/package-lock.json``, each driven offline against a fake of its own model
API. Without node and npm these tests skip, saying so in one line."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph.demo import create_sample_repository

from ...agents.install import Missing, installed
from ..conftest import GitProject
from ._clis import CLIS, Dialect

#: Codex refuses a home under the system's temporary folder (it will not put its helper
#: programs there, and without them its sandbox cannot start): the agents' homes go
#: beside it, in /var/tmp, one per test.
HOMES = Path("/var/tmp")


@pytest.fixture(scope="session")
def agent_bin() -> Path:
    try:
        return installed()
    except Missing as missing:
        pytest.skip(f"agent CLIs: {missing}")


@pytest.fixture
def agent_home(tmp_path: Path) -> Iterator[Path]:
    if os.access(HOMES, os.W_OK):
        home = Path(tempfile.mkdtemp(prefix="ralph-test-home-", dir=HOMES))
    else:
        home = tmp_path / "home"
        home.mkdir()
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(params=sorted(CLIS))
def cli(request: pytest.FixtureRequest, agent_bin: Path) -> Dialect:
    return CLIS[request.param]


@pytest.fixture
def start_api() -> Iterator[Callable[[Dialect, Any], Any]]:
    """Start a CLI's fake API with a script; stopped at the end of the test."""
    started: list[Any] = []

    def start(cli: Dialect, script: Any) -> Any:
        api = cli.start(script)
        started.append(api)
        return api

    yield start
    for api in started:
        api.__exit__(None, None, None)


@pytest.fixture
def agent_env(agent_bin: Path, agent_home: Path) -> Callable[[Dialect, Any], dict[str, str]]:
    """The environment a CLI needs for its fake: its config in the test's home, the
    throwaway key, and the installed CLIs first on the PATH."""

    def make(cli: Dialect, api: Any) -> dict[str, str]:
        path = f"{agent_bin}{os.pathsep}{os.environ.get('PATH', '')}"
        return {**cli.configure(agent_home, api), "PATH": path}

    return make


@pytest.fixture
def ralph(ralph_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``ralph`` in the sample project, with its ralph.toml open for the test to edit."""
    repo = GitProject(create_sample_repository(tmp_path / "sample"))
    monkeypatch.chdir(repo.path)
    monkeypatch.delenv("RALPH_AGENT")  # ralph.toml chooses the agents
    monkeypatch.setenv("RALPH_TEST_COMMAND", f"{sys.executable} -m unittest -q")
    assert ralph_cli("init")[0] == 0
    ralph_cli.repo = repo
    ralph_cli.config = repo.path / "ralph.toml"
    return ralph_cli
