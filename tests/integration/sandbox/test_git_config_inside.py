"""A confined agent and the test command read the repository's git config without the
credentials in it (a token in the remote URL, a credential helper); git still works
there, and the person's file is left as it was."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from ralph.phases._branches import run_tests
from ralph.runtimes import AgentStatus
from ralph.runtimes.command import CommandRuntime
from ralph.sandbox import probe

from .conftest import implement_brief

pytestmark = pytest.mark.skipif(not probe().available, reason=probe().reason)

TOKEN = "ghp_PLANTEDREMOTETOKEN0013"
_READ = (
    "import json, subprocess, sys\n"
    "url = subprocess.run(['git', 'remote', 'get-url', 'origin'], capture_output=True,"
    " text=True).stdout.strip()\n"
    "config = open(subprocess.run(['git', 'rev-parse', '--git-common-dir'], capture_output=True,"
    " text=True).stdout.strip() + '/config').read()\n"
    "json.dump(dict(url=url, config=config), open(sys.argv[1], 'w'))\n"
)


@pytest.fixture
def remote_with_token(machine):
    config = machine.repo.path / ".git" / "config"
    git = ["git", "-C", str(machine.repo.path), "config"]
    subprocess.run(
        [*git, "remote.origin.url", f"https://x-access-token:{TOKEN}@github.com/acme/app.git"],
        check=True,
        timeout=30,
    )
    subprocess.run([*git, "credential.helper", f"store --token {TOKEN}"], check=True, timeout=30)
    return config, config.read_text()


def test_an_agent_reads_the_git_config_without_its_credentials(machine, remote_with_token):
    config, persons = remote_with_token
    runtime = CommandRuntime(
        shlex.join([sys.executable, "-c", _READ]) + " {result_file}",
        environ={**os.environ, "HOME": str(machine.home)},
        sandbox=True,
    )
    brief = implement_brief(machine.worktree)
    result = runtime.run(brief)
    assert result.status is AgentStatus.OK, result.error
    assert result.result is not None
    assert result.result["url"] == "https://github.com/acme/app.git"
    assert TOKEN not in result.result["config"]
    assert '[remote "origin"]' in result.result["config"]
    assert config.read_text() == persons


def test_the_test_command_reads_it_without_them_too(machine, remote_with_token):
    config, persons = remote_with_token
    run = run_tests(f"cat {shlex.quote(str(config))}; git remote get-url origin", machine.worktree)
    assert run.passed, run.output
    assert "https://github.com/acme/app.git" in run.output
    assert TOKEN not in run.output
    assert "credential" not in run.output
    assert config.read_text() == persons
