"""Every way a run ends, as ``ralph hero``, ``ralph team`` and ``ralph loop`` say it: the
outcome in words, the exit code (0 only for a success), and the one command that goes on;
``ralph runs list`` and ``ralph runs show --json`` say the same outcome."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.project import open_project
from ralph.tasks import TaskStatus, open_store
from ralph.workflow import Estimate, WorkflowState

from ..cli_project import farewell_project
from ..conftest import ralph_process, spawn_ralph

pytestmark = pytest.mark.timeout(240)

#: A diff whose file does not exist: the simulated implementer escalates the issue.
BROKEN_DIFF = "```diff\n--- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-old\n+new\n```\n"


def said(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def outcome_of(repo: Path) -> tuple[str, str]:
    """The latest run's outcome by ``ralph runs show --json`` and its row of ``runs list``."""
    shown = ralph_process("runs", "show", "--json", cwd=repo)
    assert shown.returncode == 0, said(shown)
    listed = ralph_process("runs", "list", cwd=repo)
    assert listed.returncode == 0, said(listed)
    row = next(line for line in listed.stdout.splitlines() if line.startswith("│ 1 "))
    return json.loads(shown.stdout)["report"]["outcome"], row


@pytest.mark.parametrize("mode", ["hero", "team"])
def test_a_run_stopped_at_the_plan_gate_needs_a_person_exits_1_and_names_the_command(
    tmp_path: Path, mode: str
) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    done = ralph_process(mode, str(n), "--review-mode", "interactive", cwd=repo)
    assert done.returncode == 1, said(done)
    assert "Outcome: needs a person" in done.stdout
    assert (
        f"Stopped at the plan gate: waiting for a person to approve the plan for #{n}. Read "
        f"the plan, then `ralph approve {n} && ralph {mode} {n}` goes on."
    ) in done.stdout
    outcome, row = outcome_of(repo)
    assert outcome == "needs_person"
    assert "needs a person" in row
    assert ralph_process("approve", str(n), cwd=repo).returncode == 0
    again = ralph_process(mode, str(n), "--review-mode", "interactive", cwd=repo)
    assert again.returncode == 0, said(again)
    assert "Outcome: succeeded" in again.stdout
    assert "Merged pull request #" in again.stdout
    outcome, row = outcome_of(repo)
    assert outcome == "succeeded"
    assert "succeeded" in row


def test_a_loop_that_leaves_a_plan_gate_exits_1(tmp_path: Path) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        for issue in project.tracker.list_issues():
            if issue.number != n:  # the demo's epic: leave only the farewell issue
                project.tracker.set_state(issue.number, WorkflowState.DONE)
    done = ralph_process("loop", "--review-mode", "interactive", cwd=repo)
    assert done.returncode == 1, said(done)
    assert "Outcome: needs a person" in done.stdout
    assert f"`ralph approve {n} && ralph hero {n}` goes on" in done.stdout


def test_a_run_with_an_escalated_issue_needs_a_person_and_exits_1(tmp_path: Path) -> None:
    repo, _ = farewell_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        broken = project.tracker.create_issue(
            "Change a file that is not there",
            body=BROKEN_DIFF,
            state=WorkflowState.RESEARCH_NEEDED,
            estimate=Estimate.XS,
        ).number
    done = ralph_process("hero", str(broken), cwd=repo)
    assert done.returncode == 1, said(done)
    assert "Outcome: needs a person" in done.stdout
    assert "Needs a person:" in done.stdout
    assert f"`ralph hero {broken}` goes on" in done.stdout
    assert "Merged pull request" not in done.stdout
    outcome, row = outcome_of(repo)
    assert outcome == "needs_person"
    assert "needs a person" in row
    # Asked again before a person acted: no run, and still not a success.
    again = ralph_process("hero", str(broken), cwd=repo)
    assert again.returncode == 1, said(again)
    assert f"nothing to do until a person resolves it and runs `ralph issue retry {broken}`" in (
        again.stdout
    )


def _running(repo: Path) -> bool:
    with open_store(f"sqlite:///{repo / '.ralph' / 'ralph.db'}") as store:
        runs = store.list_runs()
        return bool(runs) and bool(store.list_tasks(runs[0].id, status=TaskStatus.RUNNING))


def _wait_until(check, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_run_a_person_cancels_while_it_runs_ends_canceled_and_exits_1(tmp_path: Path) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    hero = spawn_ralph("hero", str(n), cwd=repo, env={"RALPH_SCRIPTED_DELAY": "2"})
    try:
        _wait_until(lambda: _running(repo))
        canceled = ralph_process("runs", "cancel", "1", cwd=repo)
        assert canceled.returncode == 0, said(canceled)
        out, err = hero.communicate(timeout=60)
    finally:
        if hero.poll() is None:
            hero.kill()
            hero.communicate(timeout=30)
    assert hero.returncode == 1, out + err
    assert "Outcome: canceled" in out
    assert f"Run 1 was canceled; `ralph hero {n}` starts a new run." in out
    outcome, row = outcome_of(repo)
    assert outcome == "canceled"
    assert "canceled" in row


# SIGHUP: the terminal was closed, or the SSH session lost.
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP], ids=["ctrl-c", "hangup"])
def test_an_interrupted_run_is_stopped_exits_130_and_the_same_command_resumes(
    tmp_path: Path, stop: signal.Signals
) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    hero = spawn_ralph("hero", str(n), cwd=repo, env={"RALPH_SCRIPTED_DELAY": "1"})
    try:
        _wait_until(lambda: _running(repo))
        hero.send_signal(stop)
        out, err = hero.communicate(timeout=60)
    finally:
        if hero.poll() is None:
            hero.kill()
            hero.communicate(timeout=30)
    assert hero.returncode == 130, out + err
    assert "Outcome: stopped" in out
    assert f"Stopped: interrupted; tasks in hand finished first. `ralph hero {n}` resumes." in out
    outcome, _ = outcome_of(repo)
    assert outcome == "stopped"
    again = ralph_process("hero", str(n), cwd=repo)
    assert again.returncode == 0, said(again)
    assert "Outcome: succeeded" in again.stdout
