"""``ralph hero N --background`` / ``ralph team N --background``, as real processes: the
command returns once the run is in the store, naming it and its log; the run goes on
detached, and ``ralph runs show N --json`` follows it to its end and what waits for a
person. A run that cannot start says why, with its own exit code."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from ralph.cli._background import ENDED

from ..conftest import GitProject, ralph_process

pytestmark = pytest.mark.slow

SIMULATED = {"RALPH_AGENT": "scripted"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = GitProject(tmp_path / "project").path
    assert ralph_process("init", cwd=repo).returncode == 0
    # A ```diff the simulated builder cannot apply: the run ends waiting for a person.
    stale = "```diff\n--- a/gone.py\n+++ b/gone.py\n@@ -1 +1 @@\n-old\n+new\n```\n"
    filed = ralph_process("issue", "new", "Say hi", "-e", "XS", "--body", stale, cwd=repo)
    assert filed.returncode == 0, filed.stderr
    return repo


def followed(project: Path, run: int, seconds: float = 120) -> dict[str, Any]:
    """``ralph runs show RUN --json`` until the run is no longer active."""
    deadline = time.monotonic() + seconds
    while True:
        done = ralph_process("runs", "show", str(run), "--json", cwd=project)
        assert done.returncode == 0, done.stderr
        shown: dict[str, Any] = json.loads(done.stdout)
        if shown["status"] != "active" or time.monotonic() > deadline:
            return shown
        time.sleep(0.5)


@pytest.mark.parametrize("mode", ["hero", "team"])
def test_the_command_returns_with_the_run_and_its_log_and_the_run_goes_on(project, mode):
    done = ralph_process(mode, "1", "--background", cwd=project, env=SIMULATED)
    assert done.returncode == 0, done.stdout + done.stderr
    said = re.match(
        rf"Run (\d+) \({mode} #1\) runs in the background \(pid \d+\); "
        rf"its output goes to (\.ralph/background/{mode}-1-[-\d]+\.log)\.\n"
        r"Follow it: ralph runs show \1 --json",
        done.stdout,
    )
    assert said is not None, done.stdout
    run, log = int(said[1]), project / said[2]
    shown = followed(project, run)
    assert shown["status"] == "finished"
    assert shown["rootIssue"] == 1
    assert shown["tasks"]["done"] >= 3
    (needs,) = shown["report"]["needsPerson"]
    assert needs.startswith("Implement GH-1: #1 needs a person")
    # The command's own output, ending with its exit code (1: a person is needed).
    deadline = time.monotonic() + 30
    while not log.read_text().rstrip().endswith(f"{ENDED} 1") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert log.read_text().rstrip().endswith(f"{ENDED} 1")
    assert f"{mode} #1 — simulated agent" in log.read_text()


def test_a_run_that_cannot_start_is_said_with_its_log_and_exit_code(project):
    assert ralph_process("hero", "1", cwd=project, env=SIMULATED).returncode == 1
    done = ralph_process("hero", "1", "--background", cwd=project, env=SIMULATED)
    assert done.returncode == 1
    assert done.stdout.startswith("The hero run stopped before it started (.ralph/background/")
    assert "#1: nothing to do until a person resolves it and runs `ralph issue retry 1`" in (
        done.stdout
    )
    assert ENDED not in done.stdout


def test_an_issue_that_does_not_exist_is_refused_before_anything_starts(project):
    done = ralph_process("hero", "9", "--background", cwd=project, env=SIMULATED)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "ralph: error: Issue #9 not found\n"
    assert not (project / ".ralph" / "background").exists()


def test_the_options_given_reach_the_detached_run(project):
    done = ralph_process(
        "team", "1", "--background", "--workers", "analyst=2", cwd=project, env=SIMULATED
    )
    assert done.returncode == 0, done.stdout + done.stderr
    run = int(done.stdout.split()[1])
    followed(project, run)
    (log,) = (project / ".ralph" / "background").iterdir()
    assert "workers: analyst-1, analyst-2," in log.read_text()
