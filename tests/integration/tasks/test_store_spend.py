"""Spend, holds and provider waits in the task store, on every backend (memory,
SQLite, PostgreSQL): the ledger adds up per run, per issue across runs and per task,
with sessions counted; a phase's history is per task, latest first; a hold is one per
issue, replaced and lifted; a provider's wait keeps its latest reset."""

from __future__ import annotations

from ralph.tasks import HoldReason, Spend
from tests.integration.tasks.test_store_contract import spec


def charge(store, run, task=None, *, usd=0.0, tokens=0, issue=None, **more):
    return store.record_charge(
        run.id, task.id if task else None, usd, tokens=tokens, repo="o/r", issue=issue, **more
    )


def test_spend_adds_up_per_run_per_issue_across_runs_and_per_task(store):
    first, second = store.create_run("one"), store.create_run("two")
    (task,) = store.add_tasks(first.id, [spec("research")])
    charge(store, first, task, usd=0.5, tokens=1000, issue=7)
    charge(store, first, task, usd=0.25, tokens=500, issue=7)
    charge(store, second, usd=1.0, tokens=2000, issue=7)
    charge(store, second, usd=2.0, tokens=4000, issue=8)
    assert store.spend(run_id=first.id) == Spend(usd=0.75, tokens=1500, sessions=2)
    assert store.spend(repo="o/r", issue=7) == Spend(usd=1.75, tokens=3500, sessions=3)
    assert store.spend(task_id=task.id).tokens == 1500
    assert store.spend(repo="elsewhere", issue=7) == Spend()
    assert store.spend().sessions == 4


def test_a_charge_keeps_its_issue_agent_phase_and_estimate(store):
    run = store.create_run("one")
    kept = charge(store, run, issue=3, agent="codex", phase="plan", estimate="XS")
    assert (kept.repo, kept.issue, kept.agent, kept.phase, kept.estimate) == (
        "o/r",
        3,
        "codex",
        "plan",
        "XS",
    )


def test_a_phase_history_is_summed_per_task_latest_first(store):
    run = store.create_run("one")
    older, newer, other = store.add_tasks(run.id, [spec("a"), spec("b"), spec("c")])
    charge(store, run, older, tokens=100, phase="plan", estimate="XS")
    charge(store, run, older, tokens=50, phase="plan", estimate="XS")
    charge(store, run, newer, tokens=300, phase="plan", estimate="XS")
    charge(store, run, other, tokens=999, phase="plan", estimate="M")
    history = store.phase_history("o/r", "plan", "XS")
    assert [s.tokens for s in history] == [300, 150]
    assert [s.sessions for s in history] == [1, 2]
    assert store.phase_history("o/r", "plan", "XS", limit=1)[0].tokens == 300


def test_an_issue_has_one_hold_the_latest_which_lifts(store):
    store.hold_issue("o/r", 5, HoldReason.BUDGET, detail="cap", lift="raise it")
    store.hold_issue("o/r", 5, HoldReason.NO_PROGRESS, detail="stuck", lift="ralph x")
    store.hold_issue("o/other", 5, HoldReason.BUDGET, detail="cap", lift="raise it")
    (held,) = store.holds("o/r")
    assert (held.reason, held.detail, held.lift) == (HoldReason.NO_PROGRESS, "stuck", "ralph x")
    assert len(store.holds()) == 2
    assert store.lift_hold("o/r", 5) == held
    assert store.hold_of("o/r", 5) is None
    assert store.lift_hold("o/r", 5) is None


def test_a_provider_wait_keeps_the_latest_reset_and_ends_by_itself(store):
    store.wait_for_provider("claude", 1000.0, "usage limit reached")
    store.wait_for_provider("claude", 900.0, "429")  # heard late: the later reset stands
    store.wait_for_provider("codex", 500.0, "overloaded")
    assert [(w.agent, w.until, w.said) for w in store.provider_waits(now=100.0)] == [
        ("codex", 500.0, "overloaded"),
        ("claude", 1000.0, "usage limit reached"),
    ]
    assert [w.agent for w in store.provider_waits(now=600.0)] == ["claude"]
    assert store.provider_wait("codex", now=600.0) is None
    assert store.provider_waits(now=1000.0) == []


def test_a_provider_wait_ends_within_the_longest_wait_however_far_its_reset(store):
    import time

    from ralph.tasks import LONGEST_PROVIDER_WAIT

    # A reset in milliseconds read as seconds: tens of thousands of years ahead.
    wait = store.wait_for_provider("claude", time.time() * 1000, "429")
    assert wait.until <= time.time() + LONGEST_PROVIDER_WAIT
