"""The budget over the store's ledger: a cap reached stops work; a charge of a model
without a price stops it too while a dollar cap is set (what was spent is unknown),
and is nothing without one."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

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
    assert said == "the run's budget is spent ($1.00 of $1.00)"


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
