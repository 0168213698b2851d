"""Admission, before a claimed task's phase runs: an issue held already stays held; a
cap its agent would spend past (the run's, today's, the task's own across its attempts,
its issue's across runs) holds it; a phase that runs no agent meets no cap. A budget
hold whose cap no longer binds lifts when the next session opens the run; a hold of
another reason stays for a person."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph.config import Config
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate import Budget, Held, admission
from ralph.orchestrate._admission import lift_unbound
from ralph.tasks import HoldReason, TaskStore, open_store

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def store() -> Iterator[TaskStore]:
    with open_store("memory://") as opened:
        yield opened


def spec(key: str, kind: TaskKind = TaskKind.RESEARCH, issue: int = 5) -> TaskSpec:
    role = Role.INTEGRATOR if kind is TaskKind.MERGE else Role.ANALYST
    return TaskSpec(key=key, kind=kind, role=role, issues=(issue,), subject=key, active_form=key)


def config(**caps: Any) -> Config:
    return dataclasses.replace(Config(root=Path("/nonexistent"), repo="shop"), **caps)


def test_a_task_whose_charges_reached_its_token_cap_is_not_run_again(store):
    run = store.create_run("r")
    (task,) = store.add_tasks(run.id, [spec("research")])
    capped = config(budget_task_tokens=500)
    assert admission(store, capped, run, task) is None
    store.record_charge(run.id, task.id, 0.0, tokens=500, repo="shop", issue=5)
    held = admission(store, capped, run, task)
    assert held == Held(
        HoldReason.BUDGET,
        "the task's token cap: 500 of 500 tokens",
        "raise budget_task_tokens in ralph.toml or run with RALPH_BUDGET_TASK_TOKENS=N",
    )


def test_the_issue_cap_counts_the_issues_earlier_runs(store):
    earlier, run = store.create_run("earlier"), store.create_run("now")
    store.record_charge(earlier.id, None, 0.0, tokens=900, repo="shop", issue=5)
    (task,) = store.add_tasks(run.id, [spec("research")])
    held = admission(store, config(budget_issue_tokens=900), run, task)
    assert held is not None
    assert held.detail == "#5's token cap: 900 of 900 tokens"


def test_a_phase_without_an_agent_meets_no_cap_but_a_held_issue_stays_held(store):
    run = store.create_run("r")
    (merge,) = store.add_tasks(run.id, [spec("merge", TaskKind.MERGE)])
    store.record_charge(run.id, None, 0.0, tokens=10_000, repo="shop", issue=5)
    assert admission(store, config(budget_run_tokens=100), run, merge) is None
    store.hold_issue(
        "shop", 5, HoldReason.NO_PROGRESS, detail="spent 9,000", lift="ralph budget lift 5"
    )
    held = admission(store, config(), run, merge)
    assert held == Held(HoldReason.NO_PROGRESS, "spent 9,000", "ralph budget lift 5")


def test_a_budget_hold_lifts_once_its_cap_no_longer_binds_and_others_stay(store):
    run = store.create_run("r")
    store.add_tasks(run.id, [spec("research", issue=5), spec("research-6", issue=6)])
    store.record_charge(run.id, None, 0.0, tokens=2_000, repo="shop", issue=5)
    store.hold_issue("shop", 5, HoldReason.BUDGET, detail="the run's token cap", lift="raise")
    store.hold_issue("shop", 6, HoldReason.NO_PROGRESS, detail="no progress", lift="lift")
    assert lift_unbound(store, config(), Budget(run_tokens=1_500), run) == []
    lifted = lift_unbound(store, config(), Budget(run_tokens=5_000), run)
    assert [h.number for h in lifted] == [5]
    assert [h.number for h in store.holds("shop")] == [6]


def test_a_hold_of_the_look_before_spending_stays_while_the_phase_still_cannot_fit(store):
    history = store.create_run("history")
    done = store.add_tasks(history.id, [spec(f"research-{n}", issue=n) for n in (1, 2, 3)])
    for task in done:
        store.record_charge(
            history.id,
            task.id,
            0.0,
            tokens=38_000,
            repo="shop",
            issue=task.issues[0],
            phase="research",
        )
    run = store.create_run("r")
    (task,) = store.add_tasks(run.id, [spec("research")])
    capped = config(budget_run_tokens=20_000)
    held = admission(store, capped, run, task)
    assert held is not None
    assert "usually takes" in held.detail
    store.hold_issue("shop", 5, held.reason, detail=held.detail, lift=held.lift, run_id=run.id)
    # No cap is reached (nothing spent in this run), yet the phase still cannot fit.
    assert lift_unbound(store, capped, Budget(run_tokens=20_000), run) == []
    roomy = config(budget_run_tokens=100_000)
    assert [h.number for h in lift_unbound(store, roomy, Budget(run_tokens=100_000), run)] == [5]
