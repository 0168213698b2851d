"""``ralph serve`` reacts to the board as people change it, from other processes: an issue
filed with ``ralph issue new`` starts long before the next poll (the local tracker's
writes wake the service, on SQLite and PostgreSQL); an agent whose issue a person
cancels or escalates is stopped (its worktree kept, what waits for it canceled, the
report says so); and an issue moved back is taken up again."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import Interrupt, SessionOptions, serve
from ralph.pipeline import QueuedRoot
from ralph.project import open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import EventKind, RunStatus, TaskStatus
from ralph.tracker import PullRequestState
from ralph.workflow import Estimate, Priority, WorkflowState

from ..conftest import ralph_process, spawn_ralph
from .test_loop import _new_module
from .test_team import wait_until

_S = WorkflowState
#: Far longer than any test: only a wake-up can make the service look at the board.
_NEVER = "600"


def _project(tmp_path: Path, store_url: str | None = None) -> Path:
    """The demo project with its epic closed: a board with nothing to do."""
    repo, epic = create_demo_project(tmp_path / "greet", store_url=store_url)
    with open_project(load_config(repo)) as project:
        project.tracker.close_issue(epic)
    return repo


def _serve(repo: Path, status: Path, faults: str = "") -> subprocess.Popen[str]:
    env = {"RALPH_AGENT": "scripted", "RALPH_SCRIPTED_FAULTS": faults}
    server = spawn_ralph(
        "serve", "--poll-seconds", _NEVER, "--status-file", str(status), cwd=repo, env=env
    )
    wait_until(status.is_file, timeout=60)  # the board was read once: nothing to do
    return server


def _stop(server: subprocess.Popen[str]) -> tuple[int, str]:
    server.send_signal(signal.SIGTERM)
    out, err = server.communicate(timeout=60)
    return server.returncode, " ".join((out + err).split())  # however the report wraps


def _person(repo: Path, *args: str) -> str:
    """What a person types in another terminal; returns what it printed."""
    done = ralph_process(*args, cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _state(repo: Path, number: int) -> WorkflowState | None:
    with open_project(load_config(repo)) as project:
        return project.tracker.get_issue(number).workflow_state


def _tasks(repo: Path, root: int) -> list[dict[str, str]]:
    """Every run of ``root``, oldest first, as {task key: status}."""
    with open_project(load_config(repo)) as project:
        runs = sorted(project.store.list_runs(root_issue=root), key=lambda run: run.id)
        return [{t.key: t.status.value for t in project.store.list_tasks(run.id)} for run in runs]


def _running(repo: Path, root: int, kind: str) -> bool:
    return any(
        key.startswith(f"{kind}:") and status == TaskStatus.RUNNING.value
        for run in _tasks(repo, root)
        for key, status in run.items()
    )


def _ended(repo: Path, root: int, runs: int = 1) -> bool:
    """``root`` has had ``runs`` runs, and none is active any more."""
    with open_project(load_config(repo)) as project:
        found = project.store.list_runs(root_issue=root)
        return len(found) == runs and all(run.status is not RunStatus.ACTIVE for run in found)


def _claimed(repo: Path, root: int) -> bool:
    with open_project(load_config(repo)) as project:
        return any(
            event.kind is EventKind.TASK_CLAIMED
            for run in project.store.list_runs(root_issue=root)
            for event in project.store.events(run.id)
        )


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_an_issue_filed_from_another_process_starts_without_waiting_for_the_poll(
    tmp_path, store, request
):
    url = request.getfixturevalue("pg_schema_url") if store == "postgresql" else None
    repo = _project(tmp_path, url)
    status = tmp_path / "status.json"
    server = _serve(repo, status)
    try:
        filed = json.loads(
            _person(repo, "issue", "new", "Add alpha", "-e", "XS", "-b", _new_module("a"), "--json")
        )["number"]
        wait_until(lambda: _claimed(repo, filed), timeout=30)  # the poll is 600 s away
    finally:
        code, output = _stop(server)
    assert code == 0, output
    assert f"→ #{filed}: triage next" in output


def test_an_agent_whose_issue_a_person_cancels_is_stopped_and_the_report_says_so(tmp_path):
    repo = _project(tmp_path)
    status = tmp_path / "status.json"
    server = _serve(repo, status, faults="triage=hang")  # works until stopped
    try:
        filed = json.loads(
            _person(repo, "issue", "new", "Add alpha", "-e", "XS", "-b", _new_module("a"), "--json")
        )["number"]
        wait_until(lambda: _running(repo, filed, "triage"), timeout=60)
        started = time.monotonic()
        _person(repo, "issue", "move", str(filed), "Canceled")
        wait_until(lambda: _ended(repo, filed), timeout=60)
        stopped_in = time.monotonic() - started
    finally:
        code, output = _stop(server)
    assert code == 0, output
    assert stopped_in < 30  # the hang would have lasted the agent's 1800 s timeout
    assert _state(repo, filed) is _S.CANCELED
    (run,) = _tasks(repo, filed)
    assert run[f"triage:{filed}"] == "failed"
    assert {status for key, status in run.items() if key != f"triage:{filed}"} == {"canceled"}
    said = f"#{filed} was moved to Canceled by a person while triage ran; its agent was stopped"
    assert said in output


def test_an_issue_escalated_by_a_person_while_it_is_built_is_taken_up_again_when_moved_back(
    tmp_path,
):
    repo = _project(tmp_path)
    status = repo / ".ralph" / "status.json"  # in the checkout: no agent wrote it
    server = _serve(repo, status, faults="implement=hang")  # the first build hangs
    try:
        filed = json.loads(
            _person(repo, "issue", "new", "Add alpha", "-e", "XS", "-b", _new_module("a"), "--json")
        )["number"]
        wait_until(lambda: _running(repo, filed, "implement"), timeout=60)
        worktree = repo / "worktrees" / f"GH-{filed}"
        wait_until(worktree.is_dir, timeout=30)
        _person(repo, "issue", "move", str(filed), "Human Needed")
        wait_until(lambda: _ended(repo, filed), timeout=60)
        assert worktree.is_dir()  # kept, as the agent left it
        (tasks,) = _tasks(repo, filed)
        # Each task's last generation: triage fast-tracked the issue (XS, its diff names
        # one file), which planned the chain again.
        first = {key.partition("~")[0]: status for key, status in tasks.items()}
        assert first[f"implement:{filed}"] == "failed"
        assert first[f"pr:{filed}"] == first[f"merge:{filed}"] == "canceled"

        _person(repo, "issue", "move", str(filed), "In Progress")  # the person is done
        wait_until(lambda: _ended(repo, filed, runs=2), timeout=90)
    finally:
        code, output = _stop(server)
    assert code == 0, output
    said = (
        f"#{filed} was moved to Human Needed by a person while implement ran; its agent was stopped"
    )
    assert said in output
    assert output.count(f"→ #{filed}:") == 2
    assert f"→ #{filed}: implement next" in output
    _, second = _tasks(repo, filed)
    assert set(second.values()) == {"done"}
    with open_project(load_config(repo)) as project:
        runs = project.store.list_runs(root_issue=filed)
        assert {run.status for run in runs} == {RunStatus.FINISHED}
        (merged,) = project.code_host.list_pull_requests(state=None)
        assert merged.state is PullRequestState.MERGED
        assert project.tracker.get_issue(filed).workflow_state is _S.DONE


def test_a_priority_changed_while_roots_wait_reorders_them(tmp_path):
    repo = _project(tmp_path)
    with open_project(load_config(repo)) as project:
        tracker = project.tracker
        first, second, third = (
            tracker.create_issue(
                f"Add {name}", body=_new_module(name), estimate=Estimate.XS, state=_S.BACKLOG
            ).number
            for name in ("alpha", "beta", "gamma")
        )
        interrupt = Interrupt()
        started: list[int] = []

        def on_start(queued: QueuedRoot) -> None:
            started.append(queued.root)
            if queued.root == first:  # while it runs, a person makes the last one urgent
                tracker.update_issue(third, priority=Priority.P0)
            if len(started) == 2:
                interrupt.signal()  # no need to run it: the order is what is asked

        options = SessionOptions.from_config(
            project.config, mode="hero", max_roots=1, max_agents=1, interrupt=interrupt
        )
        serve(project, ScriptedRuntime(env={}), options, poll_seconds=60, on_start=on_start)
    assert started == [first, third]
    assert second not in started
