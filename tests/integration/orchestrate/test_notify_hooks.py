"""What the pipeline tells the project's notifier: a plan waiting for approval, a budget
that stopped the run, and every session's end with its outcome."""

from __future__ import annotations

import dataclasses

from ralph.notify import EventKind, Notifier, NotifyEvent
from ralph.orchestrate import Budget, Ending
from ralph.runtimes.scripted import ScriptedRuntime

from .conftest import Demo


class Recorder(Notifier):
    def __init__(self) -> None:
        self.events: list[NotifyEvent] = []

    def notify(self, event: NotifyEvent) -> None:
        self.events.append(event)


def with_recorder(demo: Demo) -> Recorder:
    recorder = Recorder()
    demo.project = dataclasses.replace(demo.project, notifier=recorder)
    return recorder


def test_a_plan_waiting_for_approval_is_told_and_the_run_ends_waiting(demo: Demo):
    sent = with_recorder(demo)
    number = demo.issue("farewell")
    result = demo.hero(number, review_mode="interactive")
    assert result.ending is Ending.WAITING_FOR_HUMAN
    kinds = [e.event for e in sent.events]
    assert kinds == [EventKind.APPROVAL_NEEDED, EventKind.RUN_ENDED]
    approval, ended = sent.events
    assert approval.issue == number
    assert "waits for a plan to approve" in approval.one_line()
    assert ended.outcome == "needs_person"
    assert result.run is not None
    assert ended.run == result.run.id


def test_a_spent_budget_is_told_with_why_before_the_runs_end(demo: Demo):
    sent = with_recorder(demo)
    number = demo.issue("farewell")
    runtime = ScriptedRuntime(env={}, cost_usd=0.5)
    result = demo.hero(number, runtime, budget=Budget(run_usd=1.0), concurrency=1)
    assert result.ending is Ending.OUT_OF_BUDGET
    budget, ended = sent.events
    assert budget.event is EventKind.BUDGET_STOPPED
    assert "the run's budget is spent ($1.00 of $1.00)" in budget.reason
    assert ended.event is EventKind.RUN_ENDED
    assert ended.outcome == "stopped"
    assert "stopped: out of budget" in ended.one_line()


def test_a_run_that_finishes_tells_its_end_once(demo: Demo):
    sent = with_recorder(demo)
    number = demo.issue("farewell")
    assert demo.hero(number).ending is Ending.FINISHED
    (ended,) = sent.events
    assert ended.outcome == "succeeded"
    assert ended.one_line().endswith(f"of #{number} succeeded")
