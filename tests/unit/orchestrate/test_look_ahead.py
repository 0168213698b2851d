"""The look before spending: a phase whose history (at least three earlier tasks of the
same phase and estimate in this project) says it usually costs more than is left of a
cap is not started; its issue is held (budget) with the cap named and how to raise it.
With fewer than three samples there is no look."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph.config import Config
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate._look_ahead import (
    MIN_SAMPLES,
    Headroom,
    expected_cost,
    look_ahead_hold,
    short_of,
)
from ralph.tasks import HoldReason, Spend, TaskStore, open_store

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def store() -> Iterator[TaskStore]:
    with open_store("memory://") as opened:
        yield opened


def test_the_expected_cost_is_the_median_of_at_least_three_samples():
    assert MIN_SAMPLES == 3
    assert expected_cost([Spend(tokens=10), Spend(tokens=20)]) is None
    samples = [Spend(usd=0.1, tokens=10), Spend(usd=0.9, tokens=90), Spend(usd=0.3, tokens=38)]
    assert expected_cost(samples) == Spend(usd=0.3, tokens=38, sessions=0)


def test_a_phase_that_usually_costs_more_than_is_left_does_not_fit():
    expected = Spend(usd=0.4, tokens=38_000, sessions=1)
    run = Headroom("budget_run_tokens", "the run's cap", "tokens", 12_000)
    day = Headroom("budget_day_usd", "today's cap", "usd", 5.0)
    assert short_of(expected, [day, run]) == run
    assert short_of(expected, [day]) is None
    assert short_of(expected, [Headroom("budget_day_usd", "today's cap", "usd", 0.39)]) is not None


def test_the_message_says_what_it_usually_takes_and_how_to_raise_the_cap():
    run = Headroom("budget_run_tokens", "the run's cap", "tokens", 12_000)
    assert run.refusal("plan", 5, Spend(tokens=38_000)) == (
        "not starting plan of #5: it usually takes ~38,000 tokens and 12,000 are left of "
        "the run's cap (raise budget_run_tokens in ralph.toml or run with "
        "RALPH_BUDGET_RUN_TOKENS=N)"
    )
    day = Headroom("budget_day_usd", "today's cap", "usd", 0.25)
    assert day.refusal("implement", 7, Spend(usd=1.5)).startswith(
        "not starting implement of #7: it usually takes ~$1.50 and $0.25 are left of today's cap"
    )


def _task(store, run, kind=TaskKind.PLAN, issue=5, estimate="XS"):
    spec = TaskSpec(
        key=f"{kind.value}:{issue}:{run.id}",
        kind=kind,
        role=Role.ANALYST,
        issues=(issue,),
        subject=f"{kind.value} GH-{issue}",
        active_form="working",
        metadata={"estimate": estimate},
    )
    (task,) = store.add_tasks(run.id, [spec])
    return task


def _history(store, tokens, *, phase="plan", estimate="XS"):
    """Earlier plans of XS issues, one run each, costing ``tokens`` each."""
    for spent in tokens:
        run = store.create_run("earlier")
        task = _task(store, run, issue=99)
        store.record_charge(
            run.id, task.id, 0.1, tokens=spent, repo="o/r", issue=99, phase=phase, estimate=estimate
        )


CONFIG = Config(root=Path("."), repo="o/r", budget_run_usd=100.0)


@dataclasses.dataclass(frozen=True, kw_only=True)
class TokenCapped(Config):
    """Settings with a run's token cap (the caps are read by name, where they exist)."""

    budget_run_tokens: int = 0


def test_a_phase_the_history_says_cannot_fit_in_the_run_is_held_not_started(store):
    _history(store, [36_000, 38_000, 41_000])
    run = store.create_run("now")
    spent = _task(store, run, TaskKind.RESEARCH)
    store.record_charge(run.id, spent.id, 0.1, tokens=8_000, repo="o/r", issue=5)
    plan = _task(store, run)
    config = TokenCapped(root=Path("."), repo="o/r", budget_run_tokens=20_000)
    hold = look_ahead_hold(store, config, run, plan)
    assert hold is not None
    assert hold.reason is HoldReason.BUDGET
    assert "it usually takes ~38,000 tokens and 12,000 are left of the run's cap" in hold.detail
    assert hold.lift == (
        "raise budget_run_tokens in ralph.toml or run with RALPH_BUDGET_RUN_TOKENS=N"
    )
    assert (
        look_ahead_hold(store, dataclasses.replace(config, budget_run_tokens=50_000), run, plan)
        is None
    )
    # In dollars, on every branch: $0.10 usual, $0.05 left of $0.15.
    hold = look_ahead_hold(store, dataclasses.replace(CONFIG, budget_run_usd=0.15), run, plan)
    assert hold is not None
    assert (hold.repo, hold.number, hold.reason) == ("o/r", 5, HoldReason.BUDGET)
    assert hold.detail == (
        "not starting plan of #5: it usually takes ~$0.10 and $0.05 are left of the run's cap "
        "(raise budget_run_usd in ralph.toml or run with RALPH_BUDGET_RUN_USD=N)"
    )


def test_a_phase_that_fits_or_lacks_history_or_runs_no_agent_starts(store):
    _history(store, [0, 0])  # two samples: no look
    run = store.create_run("now")
    config = dataclasses.replace(CONFIG, budget_run_usd=0.05)
    store.record_charge(run.id, None, 0.04, repo="o/r", issue=5)
    assert look_ahead_hold(store, config, run, _task(store, run)) is None
    _history(store, [10])  # a third: $0.10 usual, $0.01 left
    hold = look_ahead_hold(store, config, run, _task(store, run, issue=6))
    assert hold is not None
    assert hold.number == 6
    # Another estimate has no history; a merge runs no agent.
    assert look_ahead_hold(store, config, run, _task(store, run, issue=7, estimate="M")) is None
    assert look_ahead_hold(store, config, run, _task(store, run, TaskKind.MERGE, 8)) is None


def test_without_any_cap_there_is_nothing_to_look_at(store):
    _history(store, [10, 10, 10])
    run = store.create_run("now")
    config = dataclasses.replace(CONFIG, budget_run_usd=0.0)
    assert look_ahead_hold(store, config, run, _task(store, run)) is None
