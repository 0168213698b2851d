"""The guards in a run with the scripted agents: a phase failing again and again trips
the no-progress breaker (the issue held, not sent to a person, its attempts stopped); a
run whose merge waits for checks spends nothing meanwhile and is never held for it; and
a phase the project's history says cannot fit in what is left is not started."""

from __future__ import annotations

import dataclasses

import pytest

from ralph.config import MergeWaitSettings
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.phases import get_phase
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime
from ralph.tasks import HoldReason, TaskStatus
from ralph.workflow import WorkflowState

from .conftest import Demo
from .waiting_gate import WaitGate

pytestmark = pytest.mark.timeout(120)

MERGE = type(get_phase("merge"))


def configured(demo: Demo, **settings) -> Demo:
    config = dataclasses.replace(demo.project.config, **settings)
    demo.project = dataclasses.replace(demo.project, config=config)
    return demo


@pytest.mark.parametrize("mode", ["hero", "team"])
def test_a_plan_failing_again_and_again_trips_the_breaker_and_its_issue_is_held(
    demo: Demo, mode: str
):
    number = demo.issue("farewell")
    configured(demo, budget_stall_usd=0.9)
    runtime = ScriptedRuntime({"plan": [AgentFault.FAIL] * 5}, env={}, cost_usd=0.5)
    run = demo.hero if mode == "hero" else demo.team
    result = run(number, runtime, attempts=5)
    store, repo = demo.project.store, demo.project.config.repo
    hold = store.hold_of(repo, number)
    assert hold is not None
    assert hold.reason is HoldReason.NO_PROGRESS
    # Research moved it forward ($0.50); two failed plans spent $1.00 since.
    assert hold.detail.startswith(f"spent $1.00 since #{number} last moved forward (research, ")
    assert hold.lift == f"ralph budget lift {number} (or raise budget_stall_usd)"
    assert hold.detail in result.detail
    # Not sent to a person; the third try never started, and the task waits untried
    # for the hold to be lifted.
    assert demo.state(number) is WorkflowState.READY_FOR_PLAN
    assert [b.phase for b in runtime.briefs].count("plan") == 2
    assert result.run is not None
    plan = store.list_tasks(result.run.id, kind="plan")[0]
    assert (plan.status, plan.attempts) == (TaskStatus.PENDING, 0)
    # Lifted by hand (ralph budget lift N), the issue has a fresh allowance and goes on.
    store.lift_hold(repo, number)
    again = run(number, ScriptedRuntime(env={}, cost_usd=0.5), attempts=5)
    assert again.resumed
    assert demo.state(number) is WorkflowState.DONE
    assert store.hold_of(repo, number) is None


def test_a_merge_waiting_for_checks_spends_nothing_and_never_trips_the_breaker(
    demo: Demo, monkeypatch: pytest.MonkeyPatch
):
    number = demo.issue("farewell")
    # Every phase costs $0.50 and the breaker trips past $0.60: only progress resets it.
    configured(
        demo,
        budget_stall_usd=0.6,
        merge=MergeWaitSettings(wait_seconds=0.1, max_wait_seconds=0.2),
    )
    monkeypatch.setattr(MERGE, "check", MERGE.check)  # put back after
    gate = WaitGate("checks (2 pending)", looks=6)
    gate.install(MERGE)
    result = demo.hero(number, ScriptedRuntime(env={}, cost_usd=0.5))
    assert demo.state(number) is WorkflowState.DONE
    assert gate.waited == 6
    assert demo.project.store.hold_of(demo.project.config.repo, number) is None
    assert result.run is not None
    assert demo.project.store.spent(run_id=result.run.id) > 0.6


def _history(demo: Demo, usd: float, *, phase: str, samples: int = 3) -> None:
    """Earlier tasks of ``phase`` on XS issues of this project, each costing ``usd``."""
    store, repo = demo.project.store, demo.project.config.repo
    for n in range(samples):
        run = store.create_run(f"earlier {n}")
        spec = TaskSpec(
            key=f"{phase}:900",
            kind=TaskKind(phase),
            role=Role.ANALYST,
            issues=(900,),
            subject=f"{phase} GH-900",
            active_form="working",
        )
        (task,) = store.add_tasks(run.id, [spec])
        store.record_charge(run.id, task.id, usd, repo=repo, issue=900, phase=phase, estimate="XS")


def test_a_plan_the_history_says_cannot_fit_is_not_started_and_its_issue_held(demo: Demo):
    number = demo.issue("farewell")
    _history(demo, 0.9, phase="plan")
    configured(demo, budget_run_usd=1.0)
    runtime = ScriptedRuntime(env={}, cost_usd=0.5)
    result = demo.hero(number, runtime, concurrency=1)
    hold = demo.project.store.hold_of(demo.project.config.repo, number)
    assert hold is not None
    assert hold.reason is HoldReason.BUDGET
    assert hold.detail == (
        f"not starting plan of #{number}: it usually takes ~$0.90 and $0.50 are left of the "
        "run's cap (raise budget_run_usd in ralph.toml or run with RALPH_BUDGET_RUN_USD=N)"
    )
    assert hold.detail in result.detail
    assert [b.phase for b in runtime.briefs] == ["research"]
    assert demo.state(number) is not WorkflowState.HUMAN_NEEDED
    assert result.run is not None
    plan = demo.project.store.list_tasks(result.run.id, kind="plan")[0]
    assert (plan.status, plan.attempts) == (TaskStatus.PENDING, 0)
