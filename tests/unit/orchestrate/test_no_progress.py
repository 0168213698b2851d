"""The no-progress breaker: an issue that spent more than ``budget_stall_tokens`` (or
``budget_stall_usd``) since it last moved forward is held, with what it spent, since
when, and the one command that lifts the hold. Only charges count: an issue waiting
(for checks, a merge slot) spends nothing and is never held for it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph.config import Config
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate._no_progress import no_progress, no_progress_hold, stalled
from ralph.tasks import HoldReason, Spend, TaskStore, open_store

pytestmark = pytest.mark.timeout(30)

CONFIG = Config(root=Path("."), repo="o/r", budget_stall_tokens=100_000)


@pytest.fixture
def store() -> Iterator[TaskStore]:
    with open_store("memory://") as opened:
        yield opened


def test_spending_past_the_breaker_in_tokens_or_dollars_stalls():
    assert stalled(Spend(tokens=100_000), tokens=100_000, usd=0) == ""
    assert stalled(Spend(tokens=412_000), tokens=100_000, usd=0) == "412,000 tokens"
    assert stalled(Spend(usd=3.5), tokens=0, usd=2.0) == "$3.50"
    assert stalled(Spend(usd=3.5, tokens=10), tokens=100, usd=2.0) == "$3.50"


def test_a_breaker_set_to_zero_is_off():
    assert stalled(Spend(usd=1e6, tokens=10**9), tokens=0, usd=0) == ""


def _task(store, run, kind=TaskKind.RESEARCH, issue=5):
    spec = TaskSpec(
        key=f"{kind.value}:{issue}",
        kind=kind,
        role=Role.ANALYST if kind is TaskKind.RESEARCH else Role.INTEGRATOR,
        issues=(issue,),
        subject=f"{kind.value} GH-{issue}",
        active_form="working",
    )
    (task,) = store.add_tasks(run.id, [spec])
    return task


def _charge(store, run, task, tokens, issue=5):
    store.record_charge(run.id, task.id, 0.0, tokens=tokens, repo="o/r", issue=issue)


def test_an_issue_failing_again_and_again_is_held_saying_what_it_spent_since_when(store):
    run = store.create_run("r")
    research = _task(store, run)
    claim = store.claim_task(research.id, "w")
    _charge(store, run, research, 90_000)
    store.complete(claim)
    plan = _task(store, run, TaskKind.PLAN)
    for _ in range(3):
        _charge(store, run, plan, 40_000)
    hold = no_progress_hold(store, CONFIG, run, plan)
    assert hold is not None
    assert (hold.repo, hold.number, hold.reason) == ("o/r", 5, HoldReason.NO_PROGRESS)
    assert hold.detail.startswith("spent 120,000 tokens since #5 last moved forward (research, ")
    assert hold.lift == "ralph budget lift 5 (or raise budget_stall_tokens)"


def test_an_issue_that_never_moved_forward_counts_everything_it_spent(store):
    run = store.create_run("r")
    research = _task(store, run)
    _charge(store, run, research, 60_000)
    assert no_progress_hold(store, CONFIG, run, research) is None
    _charge(store, run, research, 60_000)
    hold = no_progress_hold(store, CONFIG, run, research)
    assert hold is not None
    assert hold.detail == "spent 120,000 tokens on #5, which has not moved forward yet"


def test_the_tries_of_a_phase_still_running_count_before_the_ledger_has_them(store):
    run = store.create_run("r")
    research = _task(store, run)
    _charge(store, run, research, 60_000)
    assert no_progress(store, CONFIG, research, unrecorded=Spend(tokens=30_000)) == ""
    said = no_progress(store, CONFIG, research, unrecorded=Spend(tokens=50_000, sessions=1))
    assert said == "spent 110,000 tokens on #5, which has not moved forward yet"
    # Only the hold records that the breaker tripped.
    assert store.load_checkpoint("no-progress:o/r#5") is None


def test_a_task_no_agent_works_on_is_never_held(store):
    run = store.create_run("r")
    research = _task(store, run)
    _charge(store, run, research, 150_000)
    merge = _task(store, run, TaskKind.MERGE)
    assert no_progress_hold(store, CONFIG, run, merge) is None
    assert no_progress_hold(store, CONFIG, run, research) is not None


def test_a_completed_task_moves_the_issue_forward_and_the_count_starts_again(store):
    run = store.create_run("r")
    research = _task(store, run)
    claim = store.claim_task(research.id, "w")
    _charge(store, run, research, 150_000)
    store.complete(claim)
    plan = _task(store, run, TaskKind.PLAN)
    # Looked at again and again (a wait, a claim handed back): no charge, no hold.
    for _ in range(20):
        assert no_progress_hold(store, CONFIG, run, plan) is None
    _charge(store, run, plan, 100_000)
    assert no_progress_hold(store, CONFIG, run, plan) is None
    _charge(store, run, plan, 1)
    assert no_progress_hold(store, CONFIG, run, plan) is not None


def test_a_lifted_hold_gives_the_issue_a_fresh_allowance(store):
    run = store.create_run("r")
    research = _task(store, run)
    _charge(store, run, research, 150_000)
    hold = no_progress_hold(store, CONFIG, run, research)
    assert hold is not None
    store.hold_issue("o/r", 5, hold.reason, detail=hold.detail, lift=hold.lift)
    store.lift_hold("o/r", 5)  # ralph budget lift 5
    assert no_progress_hold(store, CONFIG, run, research) is None
    _charge(store, run, research, 150_000)
    again = no_progress_hold(store, CONFIG, run, research)
    assert again is not None
    assert again.detail.startswith("spent 150,000 tokens since #5 was last held (")


def test_the_dollar_breaker_names_its_own_setting(store):
    run = store.create_run("r")
    research = _task(store, run)
    store.record_charge(run.id, research.id, 2.5, repo="o/r", issue=5)
    config = dataclasses.replace(CONFIG, budget_stall_tokens=0, budget_stall_usd=2.0)
    hold = no_progress_hold(store, config, run, research)
    assert hold is not None
    assert hold.detail == "spent $2.50 on #5, which has not moved forward yet"
    assert hold.lift == "ralph budget lift 5 (or raise budget_stall_usd)"
