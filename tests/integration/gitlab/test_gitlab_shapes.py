"""Every way of running the pipeline on a GitLab project, merge requests there too, as
real ``ralph`` processes against FakeGitLab served on 127.0.0.1: ``team`` (role
workers) and ``serve`` (the service) each take the demo epic from Backlog to Done,
merging its merge request in the clone as GitLab's side."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..orchestrate.test_team import wait_until
from ._site import git, site

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]


def _stop(server: subprocess.Popen[str]) -> tuple[int, str]:
    """SIGTERM once; the exit code and what it printed, however the report wraps."""
    server.send_signal(signal.SIGTERM)
    out, err = server.communicate(timeout=90)
    return server.returncode, " ".join((out + (err or "")).split())


def _status(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {"running": [None]}


def test_team_takes_the_epic_to_done_through_a_merge_request(tmp_path):
    with site(tmp_path) as served:
        served.init()
        epic = served.epic()

        run = served.ralph("team", str(epic), timeout=360)

        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        served.assert_epic_done()
        assert "into 'main'" in git(served.work, "log", "--format=%s", "main")


def test_serve_takes_the_epic_to_done_and_stops_on_sigterm(tmp_path):
    with site(tmp_path) as served:
        served.init()
        served.epic()
        status = tmp_path / "status.json"
        server = served.spawn("serve", "--poll-seconds", "2", "--status-file", str(status))
        try:
            wait_until(lambda: served.all_done() and _status(status)["running"] == [], timeout=300)
        finally:
            code, output = _stop(server)
        assert code == 0, output
        assert "Stopped: the tasks in hand finished." in output
        served.assert_epic_done()
        assert "into 'main'" in git(served.work, "log", "--format=%s", "main")
