"""A lock whose holder is gone is released, in every case: also when nobody asks for its
issue again. A process killed between a phase's last move and its release (a merge that
moved its issues to Done) leaves locks on issues whose work is finished; a rerun finds
the phase done before it locks anything, so no acquirer ever meets them. The service
releases them when it starts (and at each renewal of its leases), a session when it
starts and ends; a lock of a holder Ralph cannot see (another machine) once its lease
runs out."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import Ending, SessionOptions, SessionResult, hero_crew, run_session
from ralph.project import Project, open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import IssueLock
from ralph.workflow import Estimate, WorkflowState

from ..conftest import spawn_ralph
from .test_serve import _stop
from .test_team import wait_until

#: What the phase runner takes for a merge: its agent timeout per attempt and then some.
PHASE_LEASE_SECONDS = 1800.0 * 2 + 600


def _dead_owner(worker: str) -> str:
    """A holder name of a process of this machine that has exited."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait(timeout=30)
    return f"{socket.gethostname()}:{process.pid}/{worker}"


def _finished_epic(project: Project, demo_epic: int) -> tuple[int, list[int]]:
    """An epic and its three children, every one Done and closed: the work is over (the
    demo's own epic closed too, so the board has nothing to do)."""
    tracker = project.tracker
    done = WorkflowState.DONE
    epic = tracker.create_issue("Say goodbye", state=done, estimate=Estimate.L).number
    children = [
        tracker.create_issue(f"Part {i}", parent=epic, state=done, estimate=Estimate.XS).number
        for i in range(3)
    ]
    for number in [*children, epic, demo_epic]:
        tracker.close_issue(number)
    return epic, children


def _left_by_a_killed_merge(project: Project, children: list[int]) -> list[IssueLock]:
    """The merge's locks on the children, its process killed before it released them."""
    repo = project.config.repo or project.git.path.name
    owner = _dead_owner("integrator-1")
    return [
        project.store.acquire_issue_lock(repo, n, owner, "token", lease_seconds=PHASE_LEASE_SECONDS)
        for n in children
    ]


def _locks(project: Project) -> list[IssueLock]:
    repo = project.config.repo or project.git.path.name
    return project.store.issue_locks(repo)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def finished(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, Project, int]]:
    """The state the kill sweep found: every issue Done, three locks of a dead holder."""
    url = request.getfixturevalue("pg_schema_url") if request.param == "postgres" else None
    repo, demo_epic = create_demo_project(tmp_path / "greet", store_url=url)
    with open_project(load_config(repo)) as project:
        epic, children = _finished_epic(project, demo_epic)
        assert len(_left_by_a_killed_merge(project, children)) == 3
        yield repo, project, epic


def test_a_service_started_after_the_kill_releases_the_dead_holders_locks(finished):
    repo, project, _ = finished
    server = spawn_ralph("serve", "--poll-seconds", "1", cwd=repo, env={"RALPH_AGENT": "scripted"})
    try:
        wait_until(lambda: not _locks(project))
    finally:
        code, out = _stop(server)
    assert code == 0, out


def test_a_session_releases_the_dead_holders_locks_though_it_has_nothing_to_do(finished):
    _, project, epic = finished
    result = _hero(project, epic)
    assert result.ending is Ending.NOTHING_TO_DO
    assert _locks(project) == []


def test_a_live_holders_lock_stays_and_one_elsewhere_goes_when_its_lease_ran_out(finished):
    _, project, epic = finished
    repo = project.config.repo or project.git.path.name
    live = project.store.acquire_issue_lock(repo, 98, f"{socket.gethostname()}:1/x", "t")
    # A holder on another machine: Ralph cannot tell it is gone until its lease runs out.
    project.store.acquire_issue_lock(repo, 99, "elsewhere:7/x", "t", lease_seconds=0.001)
    wait_until(lambda: project.store.get_issue_lock(repo, 99).expires_at < time.time())
    _hero(project, epic)
    assert [lock.number for lock in _locks(project)] == [live.number]


def _hero(project: Project, epic: int) -> SessionResult:
    options = SessionOptions.from_config(project.config, mode="hero")
    return run_session(project, epic, ScriptedRuntime(env={}), options, crew=hero_crew(1))
