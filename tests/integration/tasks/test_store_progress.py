"""Where an issue last moved forward, in the task store, on every backend: the latest
task that did the issue's work (an agent run charged to the issue) and completed; what
was charged to the issue since then, across runs, is what the no-progress breaker
counts. A failed or waiting task moves nothing forward."""

from __future__ import annotations

from ralph.tasks import Spend
from tests.integration.tasks.test_store_contract import spec


def charge(store, run, task, *, usd=0.0, tokens=0, issue=5):
    store.record_charge(run.id, task.id, usd, tokens=tokens, repo="o/r", issue=issue)


def test_an_issue_with_no_completed_work_has_not_moved_forward(store, clock):
    run = store.create_run("one")
    (research,) = store.add_tasks(run.id, [spec("research", issues=(5,))])
    claim = store.claim_task(research.id, "w")
    charge(store, run, research, tokens=1000)
    store.fail(claim, "the agent failed")
    assert store.last_progress("o/r", 5) is None
    assert store.spend(repo="o/r", issue=5) == Spend(tokens=1000, sessions=1)


def test_the_charges_since_the_last_completed_task_add_up_across_runs(store, clock):
    first, second = store.create_run("one"), store.create_run("two")
    research, plan = store.add_tasks(
        first.id, [spec("research", issues=(5,)), spec("plan", ["research"], issues=(5,))]
    )
    claim = store.claim_task(research.id, "w")
    charge(store, first, research, usd=0.5, tokens=9000)
    clock.advance(10)
    store.complete(claim, {"ok": True})
    done_at = clock.now
    clock.advance(10)
    # The plan fails twice in the first run and once in the second: no progress.
    for _ in range(2):
        claim = store.claim_task(plan.id, "w")
        charge(store, first, plan, usd=0.25, tokens=4000)
        store.fail(claim, "the agent failed", retry_after=0)
        clock.advance(10)
    (again,) = store.add_tasks(second.id, [spec("plan", issues=(5,))])
    claim = store.claim_task(again.id, "w")
    charge(store, second, again, usd=0.25, tokens=4000)
    store.fail(claim, "the agent failed", retry_after=0)
    progress = store.last_progress("o/r", 5)
    assert progress is not None
    assert (progress.id, progress.updated_at) == (research.id, done_at)
    assert store.spend(repo="o/r", issue=5, since=progress.updated_at) == Spend(
        usd=0.75, tokens=12000, sessions=3
    )


def test_progress_is_the_latest_completion_and_of_that_issue_only(store, clock):
    run = store.create_run("one")
    research, other = store.add_tasks(
        run.id, [spec("research", issues=(5,)), spec("other", issues=(6,))]
    )
    claim = store.claim_task(research.id, "w")
    charge(store, run, research, tokens=100)
    store.complete(claim)
    clock.advance(60)
    claim = store.claim_task(other.id, "w")
    charge(store, run, other, tokens=100, issue=6)
    store.complete(claim)
    progress = store.last_progress("o/r", 5)
    assert progress is not None
    assert progress.id == research.id
    assert store.last_progress("elsewhere", 5) is None
    latest = store.last_progress("o/r", 6)
    assert latest is not None
    assert latest.id == other.id
