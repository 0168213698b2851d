"""T7: random sequences of adds, claims, completions, failures, waits, wake-ups, crashes,
clock moves and reaps, checked step by step against a small reference model, on every backend."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    multiple,
    rule,
    run_state_machine_as_test,
)

from ralph.graph import Role, TaskKind, TaskSpec
from ralph.tasks import LeaseLost, TaskStatus

LEASE = 10.0
MAX_ATTEMPTS = 2
BASE = 30.0


@dataclass
class ModelTask:
    id: int
    deps: list[int]
    status: str = "pending"
    attempts: int = 0
    token: int = 0
    lease_until: float = 0.0
    not_before: float = 0.0
    #: Deferred to wait, and not claimed since.
    waiting: bool = False


@dataclass
class Model:
    tasks: dict[int, ModelTask] = field(default_factory=dict)

    def claimable(self, now):
        return [
            t.id
            for t in sorted(self.tasks.values(), key=lambda t: t.id)
            if t.status == "pending"
            and t.not_before <= now
            and all(self.tasks[d].status == "done" for d in t.deps)
        ]

    def expire(self, now):
        for t in self.tasks.values():
            if t.status == "running" and t.lease_until < now:
                t.status = "dead" if t.attempts >= MAX_ATTEMPTS else "pending"


def machine_for(store, clock):
    class StoreMachine(RuleBasedStateMachine):
        claims = Bundle("claims")
        stale = Bundle("stale")

        @initialize()
        def new_run(self):
            self.model = Model()
            self.run = store.create_run("stateful")
            self.keys = 0

        @rule(dep_picks=st.lists(st.integers(0, 10_000), max_size=2))
        def add_task(self, dep_picks):
            existing = sorted(self.model.tasks)
            deps = sorted({existing[p % len(existing)] for p in dep_picks}) if existing else []
            key_of = {t.id: t.key for t in store.list_tasks(self.run.id)}
            self.keys += 1
            [task] = store.add_tasks(
                self.run.id,
                [
                    TaskSpec(
                        f"k{self.keys}",
                        TaskKind.RESEARCH,
                        Role.ANALYST,
                        (1,),
                        "s",
                        "s",
                        tuple(key_of[d] for d in deps),
                        max_attempts=MAX_ATTEMPTS,
                    )
                ],
            )
            self.model.tasks[task.id] = ModelTask(task.id, deps)

        @rule(target=claims)
        def claim(self):
            now = clock()
            self.model.expire(now)
            expected = self.model.claimable(now)
            claim = store.claim(self.run.id, "w", ["analyst"])
            if not expected:
                assert claim is None
                return multiple()
            assert claim is not None
            assert claim.task.id == expected[0], "not the oldest claimable task"
            task = self.model.tasks[claim.task.id]
            task.status, task.token = "running", task.token + 1
            task.attempts += 1
            task.waiting = False
            task.lease_until = now + LEASE
            assert claim.token == task.token
            return claim

        @rule(claim=consumes(claims), target=stale)
        def complete(self, claim):
            task = self.model.tasks[claim.task_id]
            live = task.status == "running" and task.token == claim.token
            try:
                store.complete(claim, {"t": claim.token})
            except LeaseLost:
                assert not live, "a live claim was refused"
                return claim
            assert live, "a stale claim completed"
            task.status = "done"
            return claim

        @rule(claim=consumes(claims), retryable=st.booleans(), target=stale)
        def fail(self, claim, retryable):
            task = self.model.tasks[claim.task_id]
            live = task.status == "running" and task.token == claim.token
            try:
                store.fail(claim, "boom", retryable=retryable)
            except LeaseLost:
                assert not live
                return claim
            assert live
            if not retryable:
                task.status = "failed"
            elif task.attempts >= MAX_ATTEMPTS:
                task.status = "dead"
            else:
                task.status = "pending"
                task.not_before = clock() + BASE * 2 ** (task.attempts - 1)
            return claim

        @rule(claim=consumes(claims), seconds=st.sampled_from([1.0, 15.0, 300.0]), target=stale)
        def defer(self, claim, seconds):
            task = self.model.tasks[claim.task_id]
            live = task.status == "running" and task.token == claim.token
            try:
                store.defer(claim, until=clock() + seconds, waiting_for="review", for_person=True)
            except LeaseLost:
                assert not live
                return claim
            assert live
            task.status, task.waiting = "pending", True
            task.attempts -= 1  # waiting is not failing
            task.not_before = clock() + seconds
            return claim

        @rule()
        def wake(self):
            now = clock()
            expected = sorted(
                t.id
                for t in self.model.tasks.values()
                if t.status == "pending" and t.waiting and t.not_before > now
            )
            woken = store.wake(list(self.model.tasks))
            assert sorted(t.id for t in woken) == expected
            for task_id in expected:
                self.model.tasks[task_id].not_before = now

        @rule(claim=consumes(claims))
        def crash_worker(self, claim):
            """The worker dies holding the claim: nothing is written."""

        @rule(claim=stale)
        def stale_writes_are_fenced(self, claim):
            with pytest.raises(LeaseLost):
                store.heartbeat(claim)

        @rule(seconds=st.sampled_from([1.0, LEASE / 2, LEASE + 1, BASE + 1, 4 * BASE]))
        def advance_clock(self, seconds):
            clock.advance(seconds)

        @rule()
        def reap(self):
            store.reap()
            self.model.expire(clock())

        @invariant()
        def matches_the_model(self):
            if not hasattr(self, "run"):
                return
            tasks = {t.id: t for t in store.list_tasks(self.run.id)}
            for task in tasks.values():
                model = self.model.tasks[task.id]
                if task.status is TaskStatus.RUNNING:
                    assert all(tasks[d].status is TaskStatus.DONE for d in task.deps)
                    # A lease that ran out is only visible after a reap or a claim.
                    assert model.status in ("running", "pending", "dead")
                else:
                    assert task.status.value == model.status
                assert task.attempts <= task.max_attempts
                assert task.attempts == model.attempts
                assert task.claim_token == model.token
                waits = model.waiting and model.status == "pending"
                assert (task.waiting_for is not None) == waits

    return StoreMachine


def test_t7_random_histories_match_the_model(make_store, clock, backend):
    store = make_store(clock=clock, lease_seconds=LEASE)
    examples = 25 if backend == "postgres" else 120
    run_state_machine_as_test(
        machine_for(store, clock),
        settings=settings(
            max_examples=examples,
            stateful_step_count=40,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
