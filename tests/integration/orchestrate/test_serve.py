"""``ralph serve``: a real process that keeps draining the board. It takes an issue filed
while it runs, stops cleanly on SIGTERM (tasks in hand finish, or are handed back after
a second signal), resumes after ``kill -9`` doing nothing twice, and two of them on one
PostgreSQL store never run one root twice."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project, create_sample_repository
from ralph.project import open_project
from ralph.tasks import EventKind, RunStatus, TaskStatus
from ralph.tracker import CloseReason, IssueQuery
from ralph.workflow import Estimate, WorkflowState

from ..conftest import ralph_process, spawn_ralph
from .test_loop import _new_module
from .test_team import wait_until

_S = WorkflowState
_SETTLED = {_S.DONE, _S.HUMAN_NEEDED}


def _serve(
    repo: Path, *args: str, delay: float = 0.0, poll: float = 1, **popen: Any
) -> subprocess.Popen[str]:
    env = {"RALPH_AGENT": "scripted", "RALPH_SCRIPTED_DELAY": str(delay)}
    return spawn_ralph("serve", "--poll-seconds", f"{poll:g}", *args, cwd=repo, env=env, **popen)


def _stop(process: subprocess.Popen[str]) -> tuple[int, str]:
    """SIGTERM once; the exit code and what the process printed."""
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    return process.returncode, out + (err or "")


def _file(repo: Path, name: str) -> int:
    with open_project(load_config(repo)) as project:
        issue = project.tracker.create_issue(
            f"Add {name}", body=_new_module(name), estimate=Estimate.XS, state=_S.BACKLOG
        )
        return issue.number


def _states(repo: Path) -> dict[int, WorkflowState | None]:
    with open_project(load_config(repo)) as project:
        issues = project.tracker.list_issues(IssueQuery(status=None))
        return {i.number: i.workflow_state for i in issues}


def _settled(repo: Path, count: int) -> bool:
    """``count`` issues, each Done or Human Needed, and every run over."""
    states = _states(repo)
    if len(states) != count or not set(states.values()) <= _SETTLED:
        return False
    with open_project(load_config(repo)) as project:
        return not project.store.list_runs(status=RunStatus.ACTIVE)


def _running_tasks(repo: Path) -> int:
    with open_project(load_config(repo)) as project:
        return sum(
            len(project.store.list_tasks(run.id, status=TaskStatus.RUNNING))
            for run in project.store.list_runs()
        )


def assert_once(repo: Path) -> None:
    """One run per root, all finished; no comment twice on any issue."""
    with open_project(load_config(repo)) as project:
        for issue in project.tracker.list_issues(IssueQuery(status=None)):
            bodies = Counter(c.body for c in issue.comments)
            assert [b for b, n in bodies.items() if n > 1] == [], issue.number
        runs = project.store.list_runs()
        roots = Counter(run.root_issue for run in runs)
        assert set(roots.values()) == {1}, roots
        assert {run.status for run in runs} == {RunStatus.FINISHED}


def test_serve_takes_an_issue_filed_while_it_runs_and_stops_on_sigterm(tmp_path):
    repo, _ = create_demo_project(tmp_path / "greet")
    status = tmp_path / "status.json"
    server = _serve(repo, "--status-file", str(status))
    try:
        wait_until(lambda: _settled(repo, 4), timeout=90)  # the epic and its three parts
        filed = _file(repo, "alpha")
        wait_until(lambda: _states(repo)[filed] in _SETTLED, timeout=60)
        wait_until(lambda: json.loads(status.read_text())["running"] == [], timeout=30)
    finally:
        code, output = _stop(server)
    assert code == 0, output
    assert f"→ #{filed}: triage next" in output
    assert f"● Triage GH-{filed} [hero-" in output  # each task said as it starts and ends
    assert "Stopped: the tasks in hand finished." in output
    assert_once(repo)
    document = json.loads(status.read_text())
    assert (document["running"], document["finished_sessions"]) == ([], 2)
    assert (document["left_for_a_person"], document["spent_today_usd"]) == ([], 0)
    # The sessions that ended, newest first, with how their runs ended.
    assert [(e["root"], e["outcome"]) for e in document["ended"]] == [
        (filed, "succeeded"),
        (1, "succeeded"),
    ]
    assert document["ended"][1]["done"]["done"] == document["ended"][1]["done"]["total"] > 1


def test_an_idle_serve_stops_on_sigterm_at_once_not_at_its_next_poll(tmp_path):
    repo = create_sample_repository(tmp_path / "sample")
    assert ralph_process("init", cwd=repo).returncode == 0
    status = tmp_path / "status.json"
    server = _serve(repo, "--status-file", str(status), poll=600)
    try:
        wait_until(status.is_file, timeout=60)  # it read the board: nothing to do
        time.sleep(0.5)  # waiting for its next poll, ten minutes away
        asked = time.monotonic()
        code, output = _stop(server)
    finally:
        server.kill()
    assert code == 0, output
    assert "Stopped: the tasks in hand finished." in output
    assert time.monotonic() - asked < 15, output  # one look, not the poll's wait


def _at_work(status: Path) -> list[dict[str, Any]]:
    """The running roots of the status file whose agents have said what they do."""
    if not status.is_file():
        return []
    running = json.loads(status.read_text())["running"]
    return [r for r in running if any(t["activity"] for t in r["at_work"])]


def test_the_status_file_says_each_running_roots_outcome_and_what_its_agents_do(tmp_path):
    repo, _ = create_demo_project(tmp_path / "greet")
    status = tmp_path / "status.json"
    server = _serve(repo, "--status-file", str(status), delay=3)
    try:
        wait_until(lambda: bool(_at_work(status)), timeout=60)
        (root,) = _at_work(status)
    finally:
        code, output = _stop(server)
    assert code == 0, output
    assert root["outcome"] == "running"
    assert root["done"]["total"] >= 1
    (task,) = root["at_work"]
    assert task["worker"]
    assert task["task"].startswith("triage")
    activity = task["activity"]
    assert activity["agent"] == "scripted"
    assert activity["summary"]
    assert set(activity) >= {"turns", "tokens", "tool", "cost", "at"}


def test_a_second_sigterm_hands_the_running_task_back_and_exits_130(tmp_path):
    repo, _ = create_demo_project(tmp_path / "greet")
    said = tmp_path / "serve.err"
    with said.open("w") as stderr:
        server = _serve(repo, delay=30, stderr=stderr)
        try:
            wait_until(lambda: _running_tasks(repo) > 0, timeout=60)
            server.send_signal(signal.SIGTERM)
            # Two signals before Python handles the first are one: wait until it did.
            wait_until(lambda: "Stopping: no new tasks" in said.read_text())
            assert server.poll() is None  # still finishing its task
        finally:
            code, out = _stop(server)
    output = out + said.read_text()
    assert code == 130, output
    assert _running_tasks(repo) == 0
    with open_project(load_config(repo)) as project:
        (run,) = project.store.list_runs()
        assert run.status is RunStatus.ACTIVE  # resumed by the next `ralph serve`
        released = [e for e in project.store.events(run.id) if e.kind is EventKind.TASK_RELEASED]
        assert released


@pytest.mark.slow
def test_serve_killed_mid_task_resumes_and_finishes_everything_once(tmp_path):
    repo, _ = create_demo_project(tmp_path / "greet")
    _file(repo, "alpha")
    first = _serve(repo, delay=1)
    wait_until(lambda: _running_tasks(repo) > 0, timeout=60)
    first.kill()
    first.communicate(timeout=30)
    assert first.returncode == -signal.SIGKILL
    second = _serve(repo, "--max-roots", "2")
    try:
        wait_until(lambda: _settled(repo, 5), timeout=110)
    finally:
        code, output = _stop(second)
    assert code == 0, output
    assert "Resumed run" in output
    assert_once(repo)


@pytest.mark.postgres
@pytest.mark.slow
def test_two_serve_processes_on_postgresql_never_run_one_root_twice(tmp_path, pg_schema_url):
    repo, _ = create_demo_project(tmp_path / "greet", store_url=pg_schema_url)
    for name in ("alpha", "beta", "gamma"):
        _file(repo, name)
    servers = [_serve(repo, "--max-roots", "2", delay=0.2) for _ in range(2)]
    try:
        wait_until(lambda: _settled(repo, 7), timeout=110)
    finally:
        stopped = [_stop(server) for server in servers]
    assert [code for code, _ in stopped] == [0, 0], stopped
    started = Counter(
        line.split()[1] for _, output in stopped for line in output.splitlines() if "→ #" in line
    )
    assert all(n == 1 for n in started.values()), started
    assert all("→ #" in output for _, output in stopped), stopped  # both took roots
    assert_once(repo)


def test_serve_brings_in_an_issue_a_person_closed_or_reopened_on_each_poll(tmp_path):
    repo, _ = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        waiting = project.tracker.create_issue("Waits for a person", state=_S.HUMAN_NEEDED)
    server = _serve(repo)
    try:
        with open_project(load_config(repo)) as project:
            project.tracker.close_issue(waiting.number, CloseReason.NOT_PLANNED)
        wait_until(lambda: _states(repo)[waiting.number] is _S.CANCELED, timeout=60)
    finally:
        code, output = _stop(server)
    assert code == 0, output
    assert f"#{waiting.number}: Human Needed -> Canceled (closed as not planned)." in output
    with open_project(load_config(repo)) as project:
        comments = project.tracker.get_issue(waiting.number).comments
    assert sum("ralph_sync" in c.body for c in comments) == 1


def test_serve_leaves_an_issue_triage_kept_in_backlog_alone_instead_of_starting_it_again(
    tmp_path,
):
    repo, _ = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        for issue in project.tracker.list_issues(IssueQuery(status=None)):
            project.tracker.close_issue(issue.number, CloseReason.NOT_PLANNED)
        kept = project.tracker.create_issue(
            "Someday", estimate=Estimate.XS, state=_S.BACKLOG, labels=["ralph-triage"]
        ).number
    status = tmp_path / "status.json"
    server = _serve(repo, "--status-file", str(status))
    try:
        wait_until(lambda: status.is_file(), timeout=60)
        time.sleep(4)  # four polls
    finally:
        code, output = _stop(server)
    assert code == 0, output
    assert "Run " not in output
    assert json.loads(status.read_text())["finished_sessions"] == 0
    assert _states(repo)[kept] is _S.BACKLOG
