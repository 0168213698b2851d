"""``ralph loop``: one pass takes every root on the board to Done or to a person, most
urgent first; a rerun finds no work; a pass killed with ``kill -9`` resumes its runs
and does nothing twice. ``ralph run PHASE`` without a number takes the next issue."""

from __future__ import annotations

import signal
from collections import Counter
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.demo._sample import SHOUT, WHISPER
from ralph.project import open_project
from ralph.tasks import RunStatus
from ralph.tracker import IssueQuery
from ralph.workflow import Estimate, Priority, WorkflowState

from ..conftest import ralph_process
from .test_kill_recovery import crash

_S = WorkflowState

SMALL_EPIC = f"""Two helpers of their own.

## Split

### XS: Add a shout helper
A module that shouts the greeting.

{SHOUT}

### XS: Add a whisper helper
A module that whispers the greeting.

{WHISPER}
"""


def _new_module(name: str) -> str:
    return (
        f"Add the `{name}` module.\n\n```diff\n--- /dev/null\n+++ b/greet/{name}.py\n"
        f"@@ -0,0 +1 @@\n+NAME = {name!r}\n```\n"
    )


@pytest.fixture
def board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Five issues in Backlog: two M epics (the demo's, and a smaller one) and three XS
    issues, the last of them P1."""
    repo, demo_epic = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        tracker = project.tracker
        tracker.update_issue(demo_epic, estimate=Estimate.M)
        tracker.create_issue("Say more", body=SMALL_EPIC, estimate=Estimate.M, state=_S.BACKLOG)
        for name in ("alpha", "beta"):
            tracker.create_issue(
                f"Add {name}", body=_new_module(name), estimate=Estimate.XS, state=_S.BACKLOG
            )
        tracker.create_issue(
            "Add gamma",
            body=_new_module("gamma"),
            estimate=Estimate.XS,
            priority=Priority.P1,
            state=_S.BACKLOG,
        )
    monkeypatch.chdir(repo)
    return repo


def _issues(repo: Path):
    with open_project(load_config(repo)) as project:
        return project.tracker.list_issues(IssueQuery(status=None))


def assert_drained_once(repo: Path) -> None:
    """Every issue Done or Human Needed; one run per root, all finished; no comment twice."""
    issues = _issues(repo)
    assert len(issues) == 5 + 3 + 2  # the epics' sub-issues
    assert {i.workflow_state for i in issues} <= {_S.DONE, _S.HUMAN_NEEDED}, [
        (i.number, i.workflow_state) for i in issues
    ]
    for issue in issues:
        bodies = Counter(c.body for c in issue.comments)
        assert [b for b, n in bodies.items() if n > 1] == [], issue.number
    with open_project(load_config(repo)) as project:
        runs = project.store.list_runs()
        roots = Counter(run.root_issue for run in runs)
        assert set(roots.values()) == {1}, roots
        assert {run.status for run in runs} == {RunStatus.FINISHED}


def test_a_pass_takes_the_whole_board_to_done_and_a_rerun_finds_no_work(board, ralph_cli):
    code, out, err = ralph_cli("loop")
    assert code in (0, 1), out + err
    assert_drained_once(board)
    # P1 first, then the oldest: gamma, the demo epic, the small epic, alpha, beta.
    started = [line.split()[1] for line in out.splitlines() if line.startswith("→ #")]
    assert started == ["#5", "#1", "#2", "#3", "#4"], out
    waiting = [i.number for i in _issues(board) if i.workflow_state is _S.HUMAN_NEEDED]
    nothing_left = (
        f"No work an agent can do; waiting for a person: {', '.join(f'#{n}' for n in waiting)}."
        if waiting
        else "No work found in any queue."
    )
    assert nothing_left in out
    assert code == (1 if waiting else 0), out
    again, out, err = ralph_cli("loop")
    assert "→ #" not in out
    assert nothing_left in out
    assert again == code, out + err


def test_only_runs_the_phases_named_and_leaves_the_rest_for_a_later_pass(board, ralph_cli):
    code, out, err = ralph_cli("loop", "--only", "triage,split")
    assert code == 0, out + err
    issues = {i.number: i for i in _issues(board)}
    assert len(issues) == 10  # both epics split
    # Triaged and fast-tracked (XS, its diff names one file): In Progress, not implemented.
    assert issues[3].workflow_state is _S.IN_PROGRESS
    assert "Skipped, outside --only:" in out
    code, out, err = ralph_cli("loop")
    assert code in (0, 1), out + err
    assert_drained_once(board)


def test_two_roots_at_once_drain_the_board_as_well(board, ralph_cli, monkeypatch):
    monkeypatch.setenv("RALPH_MAX_CONCURRENT_AGENTS", "2")
    code, out, err = ralph_cli("loop", "--max-roots", "2")
    assert code in (0, 1), out + err
    assert_drained_once(board)


@pytest.mark.slow
def test_a_pass_killed_while_an_agent_plans_resumes_and_does_nothing_twice(board):
    killed = crash(board, "agent:plan", "loop")
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    again = ralph_process("loop", cwd=board)
    assert again.returncode in (0, 1), again.stdout + again.stderr
    assert "Resumed run" in again.stdout
    assert_drained_once(board)
    documents = ralph_process("status", cwd=board)
    assert documents.returncode == 0


def test_run_without_a_number_takes_the_next_issue_for_the_phase(board, ralph_cli):
    code, out, err = ralph_cli("run", "triage")
    assert code == 0, out + err
    assert "triage: took #5 Add gamma" in out  # P1 first
    code, out, _ = ralph_cli("run", "plan")
    said = (0, "No work found for plan: no open issue is in Ready for Plan.")
    assert (code, out.strip()) == said
