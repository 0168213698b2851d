"""The budget over the store's ledger: a cap reached (dollars, tokens or agent sessions)
stops work, naming itself, the spend and the one fix; a charge of a model
without a price stops it too while a dollar cap is set (what was spent is unknown),
and is nothing without one."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate import Budget
from ralph.runtimes import UNNAMED_MODEL
from ralph.tasks import TaskStore, open_store

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def store() -> Iterator[TaskStore]:
    with open_store("memory://") as opened:
        yield opened


def test_a_run_cap_reached_stops_work(store):
    run = store.create_run("r")
    store.record_charge(run.id, None, 0.6)
    assert Budget(run_usd=1.0).exhausted(store, run.id) == ""
    store.record_charge(run.id, None, 0.4)
    said = Budget(run_usd=1.0).exhausted(store, run.id)
    assert said == (
        "the run's budget is spent ($1.00 of $1.00); raise budget_run_usd in ralph.toml or "
        "run with RALPH_BUDGET_RUN_USD=N"
    )


@pytest.mark.parametrize(
    "budget", [Budget(run_usd=50.0), Budget(task_usd=5.0), Budget(day_usd=100.0)]
)
def test_an_unknown_cost_stops_work_under_any_dollar_cap_saying_how_to_price_it(store, budget):
    run = store.create_run("r")
    store.record_charge(run.id, None, 0.01, tokens=500, unpriced_model="gpt-9-turbo")
    assert budget.exhausted(store, run.id) == (
        'the cost of model gpt-9-turbo is unknown: add [prices."gpt-9-turbo"] to ralph.toml '
        "or remove the cap"
    )


def test_an_unknown_cost_stops_work_no_more_once_ralph_toml_prices_the_model(store):
    run = store.create_run("r")
    store.record_charge(run.id, None, 0.01, tokens=500, unpriced_model="gpt-9-turbo")
    priced = Budget(run_usd=50.0, priced=frozenset({"gpt-9-turbo"}))
    assert priced.exhausted(store, run.id) == ""


def test_an_unknown_cost_is_nothing_without_a_cap(store):
    run = store.create_run("r")
    store.record_charge(run.id, None, 0.0, tokens=500, unpriced_model="gpt-9-turbo")
    assert Budget().exhausted(store, run.id) == ""


def test_the_day_cap_counts_unknown_costs_of_other_runs_today_and_the_run_cap_only_its_own(
    store,
):
    earlier, run = store.create_run("earlier"), store.create_run("now")
    store.record_charge(earlier.id, None, 0.0, tokens=9, unpriced_model="mystery")
    assert Budget(run_usd=10.0).exhausted(store, run.id) == ""
    assert "model mystery is unknown" in Budget(day_usd=10.0).exhausted(store, run.id)
    tomorrow = time.time() + 86_400
    assert Budget(day_usd=10.0).exhausted(store, run.id, now=tomorrow) == ""


def test_a_model_nobody_named_is_told_to_be_named(store):
    run = store.create_run("r")
    store.record_charge(run.id, None, 0.0, tokens=9, unpriced_model=UNNAMED_MODEL)
    said = Budget(run_usd=1.0).exhausted(store, run.id)
    assert said.startswith("the cost of the agent's model is unknown")
    assert "[agent] model" in said


# -- caps in tokens and sessions ---------------------------------------------------------


def test_the_run_token_cap_names_itself_the_spend_and_the_one_fix(store):
    run = store.create_run("r")
    store.record_charge(run.id, None, 0.0, tokens=60_000)
    assert Budget(run_tokens=100_000).exhausted(store, run.id) == ""
    store.record_charge(run.id, None, 0.0, tokens=60_412)
    assert Budget(run_tokens=100_000).exhausted(store, run.id) == (
        "the run's token cap: 120,412 of 100,000 tokens; raise budget_run_tokens in "
        "ralph.toml or run with RALPH_BUDGET_RUN_TOKENS=N"
    )


def test_the_day_token_cap_counts_every_run_of_today(store):
    earlier, run = store.create_run("earlier"), store.create_run("now")
    store.record_charge(earlier.id, None, 0.0, tokens=900)
    store.record_charge(run.id, None, 0.0, tokens=100)
    said = Budget(day_tokens=1000).exhausted(store, run.id)
    assert said.startswith("today's token cap: 1,000 of 1,000 tokens; raise budget_day_tokens")
    tomorrow = time.time() + 86_400
    assert Budget(day_tokens=1000).exhausted(store, run.id, now=tomorrow) == ""


def test_the_day_session_cap_counts_agent_runs(store):
    run = store.create_run("r")
    store.record_charge(run.id, None, 0.0, tokens=1)
    assert Budget(day_sessions=2).exhausted(store, run.id) == ""
    store.record_charge(run.id, None, 0.0, tokens=1)
    said = Budget(day_sessions=2).exhausted(store, run.id)
    assert said == (
        "today's session cap: 2 of 2 agent sessions; raise budget_day_sessions in "
        "ralph.toml or run with RALPH_BUDGET_DAY_SESSIONS=N"
    )


def test_the_task_and_issue_caps_bind_their_own_task_and_issue_only(store):
    run = store.create_run("r")
    (task,) = store.add_tasks(run.id, [_spec("t")])
    store.record_charge(run.id, task.id, 0.0, tokens=500, repo="shop", issue=5)
    store.record_charge(run.id, None, 0.0, tokens=500, repo="shop", issue=6)
    budget = Budget(task_tokens=500, issue_tokens=600)
    task_cap = budget.task_cap(store, task.id)
    assert task_cap is not None
    assert str(task_cap).startswith("the task's token cap: 500 of 500 tokens")
    assert budget.task_cap(store, task.id + 1) is None
    assert budget.issue_cap(store, "shop", 5) is None
    later = store.create_run("later")  # the issue cap counts across runs
    store.record_charge(later.id, None, 0.0, tokens=100, repo="shop", issue=5)
    issue_cap = budget.issue_cap(store, "shop", 5)
    assert issue_cap is not None
    assert issue_cap.said == "#5's token cap: 600 of 600 tokens"
    assert issue_cap.fix == (
        "raise budget_issue_tokens in ralph.toml or run with RALPH_BUDGET_ISSUE_TOKENS=N"
    )


def test_no_cap_is_set_by_default(store):
    run = store.create_run("r")
    store.record_charge(run.id, None, 0.0, tokens=10**9, repo="shop", issue=5)
    assert Budget().exhausted(store, run.id) == ""
    assert Budget().issue_cap(store, "shop", 5) is None


def _spec(key: str) -> TaskSpec:
    return TaskSpec(
        key=key,
        kind=TaskKind.RESEARCH,
        role=Role.ANALYST,
        issues=(5,),
        subject=key,
        active_form=key,
    )
