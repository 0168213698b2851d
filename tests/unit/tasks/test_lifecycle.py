"""The task lifecycle, transition by transition: every (status, event) pair either moves
the task to one status, leaves it alone (no decision), or is refused."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from ralph.errors import LeaseLost, TaskNotClaimable
from ralph.tasks import EventKind, Task, TaskStatus
from ralph.tasks import _lifecycle as life

NOW = 1_000.0
LEASE = 60.0
POLICY = life.RetryPolicy(base_seconds=30.0, cap_seconds=3600.0)
S = TaskStatus


def task(status: TaskStatus = S.PENDING, **changes: Any) -> Task:
    """Task 1 of run 1 in ``status``, claimed once (token 1, attempt 1 of 3); a running
    one is owned by ``w1`` with a lease that runs out at NOW + 10."""
    running = status is S.RUNNING
    fields: dict[str, Any] = {
        "id": 1,
        "run_id": 1,
        "key": "research:42",
        "kind": "research",
        "role": "analyst",
        "issues": (42,),
        "subject": "Research GH-42",
        "status": status,
        "owner": "w1" if running else None,
        "claim_token": 1,
        "attempts": 1,
        "max_attempts": 3,
        "lease_expires_at": NOW + 10 if running else None,
    }
    return Task(**{**fields, **changes})


def last_attempt(t: Task) -> Task:
    return dataclasses.replace(t, attempts=t.max_attempts)


def _status(decision: Task | tuple[Task, EventKind] | None) -> TaskStatus | None:
    if decision is None:
        return None
    return decision[0].status if isinstance(decision, tuple) else decision.status


#: Each event as the lifecycle sees it, applied with the live claim token (1).
EVENTS: dict[str, Callable[[Task], Task | tuple[Task, EventKind] | None]] = {
    "claim": lambda t: life.claim(t, "w2", now=NOW, lease_seconds=LEASE),
    "heartbeat": lambda t: life.heartbeat(t, 1, now=NOW, lease_seconds=LEASE),
    "complete": lambda t: life.complete(t, 1, {"ok": True}, now=NOW),
    "fail, retryable": lambda t: life.fail(
        t, 1, "flaky", retryable=True, retry_after=None, now=NOW, policy=POLICY
    ),
    "fail, retryable, last attempt": lambda t: life.fail(
        last_attempt(t), 1, "flaky", retryable=True, retry_after=None, now=NOW, policy=POLICY
    ),
    "fail, not retryable": lambda t: life.fail(
        t, 1, "impossible", retryable=False, retry_after=None, now=NOW, policy=POLICY
    ),
    "release": lambda t: life.release(t, 1, now=NOW),
    "defer": lambda t: life.defer(
        t, 1, until=NOW + 15, waiting_for="review", for_person=True, now=NOW
    ),
    "wake": lambda t: life.wake(t, now=NOW),
    "lease not yet out": lambda t: life.expire(t, now=NOW),
    "lease out": lambda t: life.expire(t, now=NOW + 11),
    "lease out, last attempt": lambda t: life.expire(last_attempt(t), now=NOW + 11),
    "owner gone": lambda t: life.abandon(t, "w1", now=NOW),
    "someone else gone": lambda t: life.abandon(t, "w9", now=NOW),
    "cancel": lambda t: life.cancel(t, now=NOW),
    "reopen": lambda t: life.reopen(t, now=NOW),
}

Outcome = TaskStatus | type[Exception] | None

#: What a worker may no longer do to a task that is not running (LeaseLost) ...
_WORKER_WRITES: dict[str, Outcome] = {
    "heartbeat": LeaseLost,
    "complete": LeaseLost,
    "fail, retryable": LeaseLost,
    "fail, retryable, last attempt": LeaseLost,
    "fail, not retryable": LeaseLost,
    "release": LeaseLost,
    "defer": LeaseLost,
}
#: ... and what the reaper leaves alone: only running tasks expire or are abandoned (and
#: only a waiting task wakes: none of these waits).
_NOT_RUNNING: dict[str, Outcome] = {
    "wake": None,
    "lease not yet out": None,
    "lease out": None,
    "lease out, last attempt": None,
    "owner gone": None,
    "someone else gone": None,
}
_FINISHED: dict[str, Outcome] = {
    "claim": TaskNotClaimable,
    **_WORKER_WRITES,
    **_NOT_RUNNING,
    "cancel": None,
    "reopen": S.PENDING,
}

#: (status, event) -> the status it leads to, None (no decision: nothing changes), or the
#: error that refuses it. Every status meets every event.
TABLE: dict[TaskStatus, dict[str, Outcome]] = {
    S.PENDING: {
        "claim": S.RUNNING,
        **_WORKER_WRITES,
        **_NOT_RUNNING,
        "cancel": S.CANCELED,
        "reopen": TaskNotClaimable,
    },
    S.RUNNING: {
        "claim": TaskNotClaimable,
        "heartbeat": S.RUNNING,
        "complete": S.DONE,
        "fail, retryable": S.PENDING,
        "fail, retryable, last attempt": S.DEAD,
        "fail, not retryable": S.FAILED,
        "release": S.PENDING,
        "defer": S.PENDING,
        "wake": None,
        "lease not yet out": None,
        "lease out": S.PENDING,
        "lease out, last attempt": S.DEAD,
        "owner gone": S.PENDING,
        "someone else gone": None,
        "cancel": S.CANCELED,
        "reopen": TaskNotClaimable,
    },
    S.DONE: _FINISHED,
    S.FAILED: _FINISHED,
    S.DEAD: _FINISHED,
    S.CANCELED: _FINISHED,
}

CASES = [
    pytest.param(status, event, outcome, id=f"{status.value}-{event.replace(' ', '')}")
    for status, row in TABLE.items()
    for event, outcome in row.items()
]


def test_the_table_covers_every_status_and_every_event():
    assert set(TABLE) == set(TaskStatus)
    for row in TABLE.values():
        assert set(row) == set(EVENTS)


@pytest.mark.parametrize(("status", "event", "outcome"), CASES)
def test_transition(status, event, outcome):
    before = task(status)
    apply = EVENTS[event]
    if isinstance(outcome, type):
        with pytest.raises(outcome):
            apply(before)
    else:
        assert _status(apply(before)) == outcome


@pytest.mark.parametrize(
    "write",
    [
        lambda t: life.heartbeat(t, 0, now=NOW, lease_seconds=LEASE),
        lambda t: life.complete(t, 0, None, now=NOW),
        lambda t: life.fail(t, 0, "x", retryable=True, retry_after=None, now=NOW, policy=POLICY),
        lambda t: life.release(t, 0, now=NOW),
        lambda t: life.defer(t, 0, until=NOW + 15, waiting_for="checks", for_person=False, now=NOW),
    ],
    ids=["heartbeat", "complete", "fail", "release", "defer"],
)
def test_a_stale_claim_token_is_fenced_off_even_while_the_task_runs(write):
    with pytest.raises(LeaseLost, match="claimed again"):
        write(task(S.RUNNING))


def test_a_claim_counts_the_attempt_and_issues_a_new_token_and_lease():
    claimed = life.claim(task(S.PENDING), "w2", now=NOW, lease_seconds=LEASE)
    assert (claimed.owner, claimed.claim_token, claimed.attempts) == ("w2", 2, 2)
    assert claimed.lease_expires_at == NOW + LEASE


def test_a_heartbeat_extends_the_lease_from_now():
    assert life.heartbeat(task(S.RUNNING), 1, now=NOW, lease_seconds=LEASE).lease_expires_at == (
        NOW + LEASE
    )


def test_completing_keeps_the_result_and_clears_the_lease():
    done, kind = life.complete(task(S.RUNNING, error="earlier"), 1, {"ok": True}, now=NOW)
    assert (done.result, done.error, done.lease_expires_at, kind) == (
        {"ok": True},
        None,
        None,
        EventKind.TASK_DONE,
    )


def test_a_retryable_failure_waits_for_the_backoff_or_the_given_delay():
    running = task(S.RUNNING, attempts=2)
    backoff, kind = life.fail(
        running, 1, "flaky", retryable=True, retry_after=None, now=NOW, policy=POLICY
    )
    assert (backoff.not_before, backoff.owner, backoff.error, kind) == (
        NOW + 60,
        None,
        "flaky",
        EventKind.TASK_FAILED,
    )
    told, _ = life.fail(running, 1, "429", retryable=True, retry_after=5, now=NOW, policy=POLICY)
    assert told.not_before == NOW + 5


@pytest.mark.parametrize("event", ["fail, not retryable", "fail, retryable, last attempt"])
def test_a_failure_for_good_keeps_its_owner_and_is_announced_as_dead(event):
    decision = EVENTS[event](task(S.RUNNING))
    assert isinstance(decision, tuple)
    changed, kind = decision
    assert (changed.owner, changed.lease_expires_at, kind) == ("w1", None, EventKind.TASK_DEAD)


def test_a_release_keeps_the_attempt_it_used():
    released = life.release(task(S.RUNNING), 1, now=NOW)
    assert (released.owner, released.attempts, released.lease_expires_at) == (None, 1, None)


def test_a_claim_handed_back_before_anything_ran_gives_its_attempt_back():
    released = life.release(task(S.RUNNING), 1, now=NOW, untried=True)
    assert (released.status, released.owner, released.attempts) == (S.PENDING, None, 0)


def test_an_expired_lease_says_whose_and_which_attempt():
    expired, kind = life.expire(task(S.RUNNING), now=NOW + 11) or (None, None)
    assert expired is not None
    assert (expired.error, kind) == ("lease expired (owner w1, attempt 1)", EventKind.TASK_EXPIRED)
    dead, kind = life.expire(last_attempt(task(S.RUNNING)), now=NOW + 11) or (None, None)
    assert dead is not None
    assert kind is EventKind.TASK_DEAD


def test_a_lease_that_ends_exactly_now_has_not_expired():
    assert life.expire(task(S.RUNNING), now=NOW + 10) is None


def test_an_abandoned_task_names_the_claimer_that_is_gone():
    decision = life.abandon(task(S.RUNNING), "w1", now=NOW)
    assert decision is not None
    assert decision[0].error == "claimer w1 is gone (attempt 1)"


def test_reopening_starts_the_attempts_over_but_keeps_counting_tokens():
    reopened = life.reopen(task(S.DONE, attempts=3, claim_token=4, result="r"), now=NOW)
    assert (reopened.attempts, reopened.claim_token, reopened.result) == (0, 4, None)
    assert reopened.not_before == NOW


def test_backoff_doubles_per_attempt_up_to_the_cap():
    delays = [life.RetryPolicy(base_seconds=30, cap_seconds=200).delay(n) for n in range(5)]
    assert delays == [30.0, 30.0, 60.0, 120.0, 200.0]


@pytest.mark.parametrize(
    ("changes", "roles", "deps_done", "serial_busy", "expected"),
    [
        ({}, {"analyst"}, True, False, True),
        ({"status": S.RUNNING}, {"analyst"}, True, False, False),
        ({"not_before": NOW + 1}, {"analyst"}, True, False, False),
        ({}, {"builder"}, True, False, False),
        ({}, {"analyst"}, False, False, False),
        ({}, {"analyst"}, True, True, False),
    ],
    ids=["ready", "not-pending", "backing-off", "other-role", "deps-open", "serial-busy"],
)
def test_claimable_only_when_pending_due_in_role_unblocked_and_not_serialised(
    changes, roles, deps_done, serial_busy, expected
):
    candidate = dataclasses.replace(task(S.PENDING), **changes)
    assert (
        life.claimable(
            candidate, now=NOW, roles=roles, deps_done=deps_done, serial_busy=serial_busy
        )
        is expected
    )


def waiting(reason: str = "review", *, for_person: bool = True, **changes: Any) -> Task:
    """Task 1 claimed once and deferred at NOW until NOW + 15."""
    running = task(S.RUNNING, **changes)
    deferred, _ = life.defer(
        running,
        running.claim_token,
        until=NOW + 15,
        waiting_for=reason,
        for_person=for_person,
        now=NOW,
    )
    return deferred


def test_waiting_gives_the_attempt_back_and_keeps_nothing_of_the_claim():
    running = task(S.RUNNING, attempts=2, error="an earlier failure", metadata={"a": 1})
    deferred, kind = life.defer(
        running, 1, until=NOW + 15, waiting_for="checks (2 pending)", for_person=False, now=NOW
    )
    assert kind is EventKind.TASK_WAITING
    assert (deferred.status, deferred.owner, deferred.lease_expires_at) == (S.PENDING, None, None)
    assert (deferred.attempts, deferred.not_before, deferred.error) == (1, NOW + 15, None)
    assert deferred.claim_token == running.claim_token
    assert deferred.metadata == {
        "a": 1,
        "waiting_for": "checks (2 pending)",
        "for_person": False,
        "waits": 1,
        "waiting_since": NOW,
        "waiting_token": 1,
    }


def test_a_deferred_task_waits_until_it_is_claimed_again():
    deferred = waiting("review")
    assert (deferred.waiting_for, deferred.waiting_for_person) == ("review", True)
    assert not life.claimable(
        deferred, now=NOW + 14, roles={"analyst"}, deps_done=True, serial_busy=False
    )
    assert life.claimable(
        deferred, now=NOW + 15, roles={"analyst"}, deps_done=True, serial_busy=False
    )
    claimed = life.claim(deferred, "w2", now=NOW + 15, lease_seconds=LEASE)
    assert (claimed.waiting_for, claimed.waiting_for_person) == (None, False)
    assert claimed.attempts == 1  # the wait cost nothing; this claim counts
    released = life.release(claimed, claimed.claim_token, now=NOW + 16)
    assert released.waiting_for is None  # pending again, but not waiting: it was taken since


def test_a_wait_that_is_not_for_a_person_says_so():
    deferred = waiting("checks (1 pending)", for_person=False)
    assert (deferred.waiting_for, deferred.waiting_for_person) == ("checks (1 pending)", False)


def test_waits_count_up_and_a_stretch_of_waiting_for_one_thing_keeps_its_start():
    first = waiting("review")
    again = life.claim(first, "w2", now=NOW + 15, lease_seconds=LEASE)
    second, _ = life.defer(
        again,
        again.claim_token,
        until=NOW + 45,
        waiting_for="review",
        for_person=True,
        now=NOW + 15,
    )
    assert (second.metadata["waits"], second.metadata["waiting_since"]) == (2, NOW)
    other = life.claim(second, "w2", now=NOW + 45, lease_seconds=LEASE)
    third, _ = life.defer(
        other,
        other.claim_token,
        until=NOW + 105,
        waiting_for="checks (1 pending)",
        for_person=False,
        now=NOW + 45,
    )
    assert (third.metadata["waits"], third.metadata["waiting_since"]) == (3, NOW + 45)


def test_waking_makes_a_waiting_task_claimable_now_and_leaves_others_alone():
    woken = life.wake(waiting(), now=NOW + 5)
    assert woken is not None
    assert (woken.not_before, woken.waiting_for, woken.status) == (NOW + 5, "review", S.PENDING)
    assert life.wake(waiting(), now=NOW + 15) is None  # due already
    backing_off, _ = life.fail(
        task(S.RUNNING), 1, "flaky", retryable=True, retry_after=None, now=NOW, policy=POLICY
    )
    assert life.wake(backing_off, now=NOW + 1) is None  # a retry's backoff is not a wait


@pytest.mark.parametrize(
    ("first", "cap", "expected"),
    [
        (15.0, 300.0, [15.0, 30.0, 60.0, 120.0, 240.0, 300.0, 300.0]),
        (1.0, 1.0, [1.0] * 7),
        (0.5, 3.0, [0.5, 1.0, 2.0, 3.0, 3.0, 3.0, 3.0]),
    ],
)
def test_the_wait_backoff_doubles_from_the_first_step_up_to_its_cap(first, cap, expected):
    policy = life.WaitPolicy(first_seconds=first, max_seconds=cap)
    assert [policy.delay(n) for n in range(7)] == expected


def test_the_wait_backoff_never_overflows_and_starts_at_the_first_step():
    policy = life.WaitPolicy()
    assert (policy.first_seconds, policy.max_seconds) == (15.0, 300.0)
    assert policy.delay(10**6) == 300.0
    assert policy.delay(-3) == 15.0
