"""Every way of running the pipeline on a Linear team with the local code host, as real
``ralph`` processes against FakeLinear served on 127.0.0.1: ``team`` (role workers),
``loop`` (one pass over the board) and ``serve`` (the service), each taking the demo
epic from Backlog to Done with its branches merged here; and a person's moves in Linear
(a state changed by someone else's key, as Linear's UI does) noticed within a poll and
left as the person made them."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from ralph.workflow import Estimate, WorkflowState

from ..orchestrate.test_loop import _new_module
from ..orchestrate.test_team import wait_until
from ._shapes import Shop, git, shop

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

PERSON_KEY = "lin_api_a_person_in_the_ui"

_MOVE = """
mutation PersonMoves($id: String!, $input: IssueUpdateInput!) {
  issueUpdate(id: $id, input: $input) { success }
}
"""


def person_moves(served: Shop, number: int, state: str) -> None:
    """A person moves the issue in Linear's UI: an ``issueUpdate`` with their own key."""
    team = served.linear.workspace.team("ENG")
    (issue,) = [i for i in team.issue_list if i.number == number]
    (target,) = [s for s in team.state_list if s.name == state]
    reply = served.linear.post(
        {"query": _MOVE, "variables": {"id": issue.id, "input": {"stateId": target.id}}},
        PERSON_KEY,
    )
    assert reply.status == 200, reply


def state_of(served: Shop, number: int) -> str:
    with served.linear.workspace.lock:  # the served fake answers on its own threads
        team = served.linear.workspace.team("ENG")
        return next(i.state.name for i in team.issue_list if i.number == number)


def all_done(served: Shop, count: int) -> bool:
    with served.linear.workspace.lock:
        issues = served.linear.workspace.team("ENG").issue_list
        return len(issues) == count and {i.state.name for i in issues} == {"Done"}


def merged_here(served: Shop) -> str:
    return git(served.work, "log", "--oneline", "main")


def _stop(server: subprocess.Popen[str]) -> tuple[int, str]:
    """SIGTERM once; the exit code and what it printed, however the report wraps."""
    server.send_signal(signal.SIGTERM)
    out, err = server.communicate(timeout=90)
    return server.returncode, " ".join((out + (err or "")).split())


def _status(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {"running": [None]}


def test_team_takes_the_epic_to_done_merging_each_branch_here(tmp_path):
    with shop(tmp_path) as served:
        served.init()
        epic = served.epic()

        run = served.ralph("team", str(epic), timeout=360)

        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        served.assert_epic_done(epic)
        assert "def farewell" in git(served.work, "show", "main:greet/core.py")
        assert "Merge pull request #" in merged_here(served)


def test_loop_takes_every_root_on_the_board_and_leaves_a_persons_move_alone(tmp_path):
    with shop(tmp_path) as served:
        served.linear.add_token(PERSON_KEY, "Grace Hopper")
        served.init()
        epic = served.epic()
        tracker = served.tracker()
        waiting = tracker.create_issue(
            "Add beta", body=_new_module("beta"), estimate=Estimate.XS, state=WorkflowState.BACKLOG
        ).number
        person_moves(served, waiting, "Human Needed")  # a person holds it back

        run = served.ralph("loop", timeout=360)

        # What is left waits for a person: the issue they moved.
        assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
        served.assert_epic_done(epic)
        assert state_of(served, waiting) == "Human Needed"
        assert "def farewell" in git(served.work, "show", "main:greet/core.py")


def test_serve_takes_the_epic_to_done_and_stops_on_sigterm(tmp_path):
    with shop(tmp_path) as served:
        served.init()
        epic = served.epic()
        status = tmp_path / "status.json"
        server = served.spawn("serve", "--poll-seconds", "2", "--status-file", str(status))
        try:
            wait_until(
                lambda: all_done(served, 4) and _status(status)["running"] == [], timeout=300
            )
        finally:
            code, output = _stop(server)
        assert code == 0, output
        assert "Stopped: the tasks in hand finished." in output
        served.assert_epic_done(epic)
        assert "Merge pull request #" in merged_here(served)


def _serve_a_hanging_build(served: Shop, status: Path) -> subprocess.Popen[str]:
    """``ralph serve`` on a 2 s poll whose builds work until stopped."""
    return served.spawn(
        "serve",
        "--poll-seconds",
        "2",
        "--status-file",
        str(status),
        RALPH_SCRIPTED_FAULTS="implement=hang",
    )


def _file_while_it_serves(served: Shop, status: Path) -> int:
    """An XS issue filed in Backlog, once serve's agent builds it."""
    alpha = _new_module("alpha")
    tracker = served.tracker()
    filed = tracker.create_issue(
        "Add alpha", body=alpha, estimate=Estimate.XS, state=WorkflowState.BACKLOG
    ).number
    wait_until(lambda: bool(_at_work(status, "implement")), timeout=60)
    return filed


def test_serve_notices_a_persons_moves_within_a_poll_and_does_not_undo_them(tmp_path):
    with shop(tmp_path) as served:
        served.linear.add_token(PERSON_KEY, "Grace Hopper")
        served.init()
        status = tmp_path / "status.json"
        server = _serve_a_hanging_build(served, status)
        try:
            filed = _file_while_it_serves(served, status)
            started = time.monotonic()
            person_moves(served, filed, "Human Needed")
            wait_until(lambda: _status(status)["running"] == [], timeout=60)
            noticed_in = time.monotonic() - started
            time.sleep(5)  # two more polls: Ralph leaves the issue where the person put it
            still = state_of(served, filed)

            person_moves(served, filed, "In Progress")  # the person is done with it
            wait_until(lambda: state_of(served, filed) == "Done", timeout=120)
        finally:
            code, output = _stop(server)
        assert code == 0, output
        # Measured 2.4 s with a 2 s poll; the hang would have lasted the agent's timeout.
        assert noticed_in < 30, noticed_in
        assert still == "Human Needed"
        said = "was moved to Human Needed by a person while implement ran; its agent was stopped"
        assert said in output, output[-3000:]
        assert "Merge pull request #" in merged_here(served)


def _at_work(status: Path, phase: str) -> list[dict[str, Any]]:
    """The running roots of the status file with a task of ``phase`` in hand."""
    running = _status(status)["running"]
    return [
        r
        for r in running
        if r is not None and any(t["task"].startswith(phase) for t in r["at_work"])
    ]


def test_serve_does_not_spin_on_an_issue_a_person_moves_back_to_backlog(tmp_path):
    with shop(tmp_path) as served:
        served.linear.add_token(PERSON_KEY, "Grace Hopper")
        served.init()
        status = tmp_path / "status.json"
        server = _serve_a_hanging_build(served, status)
        try:
            filed = _file_while_it_serves(served, status)
            person_moves(served, filed, "Human Needed")
            wait_until(lambda: _status(status)["running"] == [], timeout=60)
            person_moves(served, filed, "Backlog")  # start over, says the person
            time.sleep(10)  # five polls
        finally:
            code, output = _stop(server)
        assert code == 0, output
        # One run before the person's moves, and at most one after.
        assert output.count("Run ") <= 2, output.count("Run ")
