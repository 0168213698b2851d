"""``ralph team`` and ``ralph serve`` take the demo epic to Done on Jira, as real
processes against FakeJira served on 127.0.0.1: with the local code host (branches
merged in this clone) and, for ``team``, with pull requests on a served FakeGitHub."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..conftest import spawn_ralph
from ..orchestrate.test_team import wait_until
from .test_jira_shapes import TOKEN, Site, git, site

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]


def all_done(served: Site, count: int) -> bool:
    with served.jira.site.lock:  # the served fake answers on its own threads
        issues = list(served.jira.site.issues.values())
        return len(issues) == count and {i.status.name for i in issues} == {"Done"}


def _status(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {"running": [None]}


def _stop(server: subprocess.Popen[str]) -> tuple[int, str]:
    """SIGTERM once; the exit code and what it printed, however the report wraps."""
    server.send_signal(signal.SIGTERM)
    out, err = server.communicate(timeout=90)
    return server.returncode, " ".join((out + (err or "")).split())


def test_team_takes_the_epic_to_done_on_jira_merging_each_branch_here(tmp_path):
    with site(tmp_path) as served:
        served.init()
        run = served.ralph("team", str(served.epic()), timeout=360)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        served.assert_epic_done()
        assert "def farewell" in git(served.work, "show", "main:greet/core.py")
        assert "Merge pull request #" in git(served.work, "log", "--oneline", "main")


def test_team_takes_the_epic_to_done_on_jira_with_pull_requests_on_github(tmp_path):
    with site(tmp_path, github=True) as served:
        served.init("--github", "acme/greet")
        run = served.ralph("team", str(served.epic()), timeout=360)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        served.assert_epic_done()
        assert served.github is not None
        assert served.origin is not None
        pulls = served.github.repository("acme/greet").pull_list
        assert pulls
        assert {p.state for p in pulls} == {"MERGED"}
        assert all("Fixes PROJ-" in p.body for p in pulls), [p.body for p in pulls]
        assert "def farewell" in git(served.origin, "show", "main:greet/core.py")


def test_serve_takes_the_epic_to_done_on_jira_and_stops_on_sigterm(tmp_path):
    with site(tmp_path) as served:
        served.init()
        served.epic()
        status = tmp_path / "status.json"
        server = spawn_ralph(
            "serve",
            "--poll-seconds",
            "2",
            "--status-file",
            str(status),
            cwd=served.work,
            env={"COLUMNS": "160", "RALPH_JIRA_TOKEN": TOKEN},
        )
        try:
            wait_until(
                lambda: all_done(served, 4) and _status(status)["running"] == [], timeout=300
            )
        finally:
            code, output = _stop(server)
        assert code == 0, output
        assert "Stopped: the tasks in hand finished." in output
        served.assert_epic_done()
        assert "Merge pull request #" in git(served.work, "log", "--oneline", "main")
