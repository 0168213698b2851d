"""``ralph team``, ``ralph loop`` and ``ralph serve`` take the demo epic to Done on Jira,
as real processes against FakeJira served on 127.0.0.1: with the local code host
(branches merged in this clone) and, for ``team``, with pull requests on a served
FakeGitHub. A person's move in Jira (a transition by another account, as Jira's UI
makes) is noticed by serve within a poll and left as the person made it."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from ralph.jira import JiraClient
from ralph.tracker.jira import JiraTracker
from ralph.workflow import Estimate, WorkflowState

from ..conftest import spawn_ralph
from ..orchestrate.test_loop import _new_module
from ..orchestrate.test_team import wait_until
from .test_jira_shapes import TOKEN, Site, git, site

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]


PERSON, PERSON_TOKEN = "grace@example.com", "jira-person-token"


def person_moves(served: Site, number: int, status: str) -> None:
    """A person moves the issue in Jira's UI: its workflow's transition to ``status``,
    made with their own account."""
    person = JiraClient(served.jira.session(PERSON, PERSON_TOKEN))
    offered = person.get(f"/issue/PROJ-{number}/transitions")["transitions"]
    (move,) = [t for t in offered if t["to"]["name"] == status]
    person.post(f"/issue/PROJ-{number}/transitions", {"transition": {"id": move["id"]}})


def status_of(served: Site, number: int) -> str:
    with served.jira.site.lock:
        return next(
            i.status.name for i in served.jira.site.issues.values() if i.key == f"PROJ-{number}"
        )


def tracker_of(served: Site) -> JiraTracker:
    return JiraTracker(JiraClient(served.jira), "PROJ")


def spawn_serve(served: Site, status: Path, **extra: str) -> subprocess.Popen[str]:
    """``ralph serve`` on a 2 s poll, writing ``status``."""
    env = {"COLUMNS": "160", "RALPH_JIRA_TOKEN": TOKEN, **extra}
    poll = ("--poll-seconds", "2", "--status-file", str(status))
    return spawn_ralph("serve", *poll, cwd=served.work, env=env)


def _at_work(status: Path, phase: str) -> list[dict[str, Any]]:
    running = _status(status)["running"]
    return [
        r
        for r in running
        if r is not None and any(t["task"].startswith(phase) for t in r["at_work"])
    ]


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
        server = spawn_serve(served, status)
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


def test_loop_takes_the_epic_and_leaves_a_persons_move_alone(tmp_path):
    with site(tmp_path) as served:
        served.jira.add_account(PERSON, PERSON_TOKEN, "Grace Hopper")
        served.init()
        served.epic()
        waiting = (
            tracker_of(served)
            .create_issue(
                "Add beta",
                body=_new_module("beta"),
                estimate=Estimate.XS,
                state=WorkflowState.BACKLOG,
            )
            .number
        )
        person_moves(served, waiting, "Human Needed")  # a person holds it back

        run = served.ralph("loop", timeout=360)

        # What is left waits for a person: the issue they moved.
        assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
        assert status_of(served, waiting) == "Human Needed"
        assert {status_of(served, n) for n in (1, 3, 4, 5)} == {"Done"}
        assert "def farewell" in git(served.work, "show", "main:greet/core.py")


def test_serve_notices_a_persons_move_within_a_poll_and_does_not_undo_it(tmp_path):
    with site(tmp_path) as served:
        served.jira.add_account(PERSON, PERSON_TOKEN, "Grace Hopper")
        served.init()
        status = tmp_path / "status.json"
        server = spawn_serve(served, status, RALPH_SCRIPTED_FAULTS="implement=hang")
        try:
            filed = (
                tracker_of(served)
                .create_issue(
                    "Add alpha",
                    body=_new_module("alpha"),
                    estimate=Estimate.XS,
                    state=WorkflowState.BACKLOG,
                )
                .number
            )
            wait_until(lambda: bool(_at_work(status, "implement")), timeout=60)
            started = time.monotonic()
            person_moves(served, filed, "Human Needed")
            wait_until(lambda: _status(status)["running"] == [], timeout=60)
            noticed_in = time.monotonic() - started
            time.sleep(5)  # two more polls: Ralph leaves the issue where the person put it
            still = status_of(served, filed)
        finally:
            code, output = _stop(server)
        assert code == 0, output
        assert noticed_in < 30, noticed_in
        assert still == "Human Needed"
        said = "was moved to Human Needed by a person while implement ran; its agent was stopped"
        assert said in output, output[-3000:]
