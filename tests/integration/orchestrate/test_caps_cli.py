"""Token and session caps, as ``ralph hero`` meets them with the simulated agents (each
agent run reports 1,000 tokens): a cap reached stops the run naming the cap, the spend
and the one fix; the issue is held, not sent to a person, its workflow state kept;
``ralph status`` and ``ralph budget`` say it is held; raising the cap lifts the hold by
itself and the run goes on to Done."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project
from ralph.tasks import TaskStatus
from ralph.workflow import Estimate, WorkflowState

from ..cli_project import farewell_project, state_of
from ..conftest import ralph_process

pytestmark = pytest.mark.timeout(240)

TOKENS = {"RALPH_SCRIPTED_TOKENS": "1000"}


def said(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def hero(repo: Path, n: int, **caps: str) -> subprocess.CompletedProcess[str]:
    return ralph_process("hero", str(n), cwd=repo, env={**TOKENS, **caps})


def test_a_run_token_cap_holds_the_issue_and_a_raised_cap_resumes_it_to_done(
    tmp_path: Path,
) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    done = hero(repo, n, RALPH_BUDGET_RUN_TOKENS="1500")
    assert done.returncode == 1, said(done)
    # Research and plan cost 2,000 tokens: the review never starts.
    fix = "raise budget_run_tokens in ralph.toml or run with RALPH_BUDGET_RUN_TOKENS=N"
    assert (
        f"#{n} held: budget — the run's token cap: 2,000 of 1,500 tokens; {fix}" in done.stdout
    ), said(done)
    assert state_of(repo, n) is WorkflowState.PLAN_IN_REVIEW  # not Human Needed
    status = ralph_process("status", cwd=repo)
    assert status.returncode == 0, said(status)
    assert f"#{n} held: budget — the run's token cap: 2,000 of 1,500 tokens" in status.stdout
    budget = ralph_process("budget", "--json", cwd=repo)
    assert budget.returncode == 0, said(budget)
    shown = json.loads(budget.stdout)
    assert [(h["number"], h["reason"]) for h in shown["holds"]] == [(n, "budget")]
    assert shown["holds"][0]["lift"] == fix
    assert shown["spend"]["day"]["tokens"] == 2000
    assert shown["spend"]["day"]["sessions"] == 2

    again = hero(repo, n, RALPH_BUDGET_RUN_TOKENS="100000")
    assert again.returncode == 0, said(again)
    assert "Outcome: succeeded" in again.stdout
    assert state_of(repo, n) is WorkflowState.DONE
    budget = ralph_process("budget", "--json", cwd=repo)
    assert json.loads(budget.stdout)["holds"] == []


def test_ralph_budget_lift_lifts_a_hold_and_says_so_in_one_line_when_there_is_none(
    tmp_path: Path,
) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    assert hero(repo, n, RALPH_BUDGET_DAY_SESSIONS="1").returncode == 1
    lifted = ralph_process("budget", "lift", str(n), cwd=repo)
    assert lifted.returncode == 0, said(lifted)
    assert f"Lifted the hold on #{n} (budget: today's session cap" in lifted.stdout
    again = ralph_process("budget", "lift", str(n), cwd=repo)
    assert again.returncode != 0
    assert again.stderr.strip().splitlines() == [
        f"ralph: error: #{n} is not held; `ralph budget` lists the holds"
    ]
    assert "Traceback" not in said(again)


def test_the_issue_cap_counts_every_run_of_the_issue(tmp_path: Path) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    first = hero(repo, n, RALPH_BUDGET_RUN_TOKENS="1500")
    assert first.returncode == 1, said(first)
    # The second run may spend; the issue's 2,000 tokens of the first still count: the
    # review brings it to 3,000, and implementation is not started.
    second = hero(repo, n, RALPH_BUDGET_ISSUE_TOKENS="2500")
    assert second.returncode == 1, said(second)
    assert f"#{n} held: budget — #{n}'s token cap: 3,000 of 2,500 tokens" in second.stdout
    assert "RALPH_BUDGET_ISSUE_TOKENS=N" in second.stdout
    assert state_of(repo, n) is WorkflowState.IN_PROGRESS


def test_the_day_session_cap_stops_after_that_many_agent_runs(tmp_path: Path) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    done = hero(repo, n, RALPH_BUDGET_DAY_SESSIONS="1")
    assert done.returncode == 1, said(done)
    assert f"#{n} held: budget — today's session cap: 1 of 1 agent sessions" in done.stdout
    assert state_of(repo, n) is WorkflowState.READY_FOR_PLAN
    status = ralph_process("status", cwd=repo)
    assert f"#{n} held: budget" in status.stdout


def test_budget_on_cap_stop_stops_the_running_agent_and_hands_its_task_back_untried(
    tmp_path: Path,
) -> None:
    repo, n = farewell_project(tmp_path / "greet")
    # The research agent reports its 1,000 tokens at its first turn, then works 10 s more.
    done = hero(
        repo,
        n,
        RALPH_BUDGET_RUN_TOKENS="500",
        RALPH_BUDGET_ON_CAP="stop",
        RALPH_SCRIPTED_DELAY="20",
    )
    assert done.returncode == 1, said(done)
    assert f"#{n} held: budget — the run's token cap: 1,000 of 500 tokens" in done.stdout
    assert state_of(repo, n) is WorkflowState.RESEARCH_NEEDED
    with open_project(load_config(repo)) as project:
        (run,) = project.store.list_runs()
        research = next(t for t in project.store.list_tasks(run.id) if t.kind == "research")
        assert research.status is TaskStatus.PENDING
        assert research.attempts == 0


SHOUT = """Add `shout`.

```diff
--- /dev/null
+++ b/greet/shout.py
@@ -0,0 +1,2 @@
+def shout(name):
+    return f"{name.upper()}!"
```
"""


def test_ralph_loop_does_not_start_a_held_root_and_says_why_once(tmp_path: Path) -> None:
    # Beside the demo's epic, an issue of its own (the epic adds the farewell itself).
    repo, _ = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        n = project.tracker.create_issue(
            "Add a shout function",
            body=SHOUT,
            state=WorkflowState.RESEARCH_NEEDED,
            estimate=Estimate.XS,
        ).number
    assert hero(repo, n, RALPH_BUDGET_RUN_TOKENS="1500").returncode == 1
    loop = ralph_process("loop", cwd=repo, env={**TOKENS, "RALPH_BUDGET_RUN_TOKENS": "1500"})
    # (The demo's epic, not held, is started and meets the cap in turn: its session says
    # its holds, once.)
    assert said(loop).count(f"#{n} held: budget") == 1, said(loop)
    assert said(loop).count("#3 held: budget") == 1, said(loop)
    assert f"(root #{n} not started)" in said(loop)
    assert state_of(repo, n) is not WorkflowState.HUMAN_NEEDED
    # The cap raised, the next pass lifts the hold itself and takes the root to Done.
    again = ralph_process("loop", cwd=repo, env={**TOKENS, "RALPH_BUDGET_RUN_TOKENS": "100000"})
    assert again.returncode == 0, said(again)
    assert state_of(repo, n) is WorkflowState.DONE
