"""The task store contract, run against every backend (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import threading
import time

import pytest

from ralph.db import _postgres as postgres_db
from ralph.errors import GraphError
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.tasks import (
    Event,
    EventKind,
    GraphEdit,
    IssueLocked,
    LeaseLost,
    MessageKind,
    RunNotFound,
    RunStatus,
    TaskBlocked,
    TaskNotClaimable,
    TaskNotFound,
    TaskStatus,
)

ALL_ROLES = [r.value for r in Role]
#: How long a waiter may take to notice news: generous, so a loaded machine never fails a
#: test; latency goals live in benchmarks/bench_store.py.
WAKE_BOUND_SECONDS = 30.0


def spec(key, deps=(), role="analyst", *, serial_key=None, max_attempts=None, issues=(1,)):
    kind = {
        "analyst": TaskKind.RESEARCH,
        "builder": TaskKind.IMPLEMENT,
        "validator": TaskKind.REVIEW,
        "integrator": TaskKind.MERGE,
        "human": TaskKind.HUMAN_GATE,
    }[role]
    return TaskSpec(
        key,
        kind,
        role,
        issues,
        f"Subject {key}",
        f"Doing {key}",
        tuple(deps),
        {"issue_number": issues[0]},
        serial_key=serial_key,
        max_attempts=max_attempts,
    )


def chain(store, *keys, role="analyst"):
    run = store.create_run("run", root_issue=1)
    specs = [spec(k, [keys[i - 1]] if i else [], role) for i, k in enumerate(keys)]
    return run, {t.key: t for t in store.add_tasks(run.id, specs)}


class TestRuns:
    def test_a_run_is_created_read_and_listed_newest_first(self, store):
        first = store.create_run("hero GH-1", root_issue=1, mode="hero", config={"cap": 2})
        second = store.create_run("team GH-2", root_issue=2)
        assert store.get_run(first.id) == first
        assert first.mode == "hero"
        assert first.config == {"cap": 2}
        assert first.status is RunStatus.ACTIVE
        assert [r.id for r in store.list_runs()] == [second.id, first.id]
        assert [r.id for r in store.list_runs(root_issue=1)] == [first.id]

    def test_an_unknown_run_is_an_error(self, store):
        with pytest.raises(RunNotFound):
            store.get_run(999)
        with pytest.raises(RunNotFound):
            store.add_tasks(999, [spec("a")])

    def test_finishing_a_run_is_recorded_and_announced(self, store):
        run = store.create_run("r")
        finished = store.finish_run(run.id)
        assert finished.status is RunStatus.FINISHED
        assert store.list_runs(status=RunStatus.FINISHED) == [finished]
        assert store.events(run.id)[-1].kind is EventKind.RUN_FINISHED

    def test_a_shutdown_request_is_a_flag_and_an_event(self, store):
        run = store.create_run("r")
        store.request_shutdown(run.id)
        assert store.get_run(run.id).shutdown_requested
        assert store.events(run.id)[-1].kind is EventKind.SHUTDOWN_REQUESTED


class TestAddingTasks:
    def test_a_graph_is_stored_with_its_dependencies(self, store):
        run, tasks = chain(store, "a", "b", "c")
        b = store.get_task(tasks["b"].id)
        assert b.deps == (tasks["a"].id,)
        assert b.status is TaskStatus.PENDING
        assert b.kind == "research"
        assert b.role == "analyst"
        assert b.subject == "Subject b"
        assert b.active_form == "Doing b"
        assert b.metadata == {"issue_number": 1}
        assert b.attempts == 0
        assert b.claim_token == 0
        assert [t.key for t in store.list_tasks(run.id)] == ["a", "b", "c"]

    def test_an_unknown_dependency_writes_nothing(self, store):
        run = store.create_run("r")
        with pytest.raises(GraphError, match="unknown task"):
            store.add_tasks(run.id, [spec("a"), spec("b", ["zzz"])])
        assert store.list_tasks(run.id) == []
        assert store.events(run.id) == []

    def test_a_cycle_writes_nothing(self, store):
        run = store.create_run("r")
        with pytest.raises(GraphError, match="cycle"):
            store.add_tasks(run.id, [spec("a", ["b"]), spec("b", ["a"])])
        assert store.list_tasks(run.id) == []

    def test_keys_are_unique_in_a_run_but_not_across_runs(self, store):
        run, _ = chain(store, "a")
        with pytest.raises(GraphError, match="already exists"):
            store.add_tasks(run.id, [spec("b"), spec("a")])
        assert [t.key for t in store.list_tasks(run.id)] == ["a"]
        other = store.create_run("other")
        assert store.add_tasks(other.id, [spec("a")])[0].key == "a"

    def test_new_tasks_may_wait_for_existing_ones(self, store):
        run, tasks = chain(store, "a")
        added = store.add_tasks(run.id, [spec("b", ["a"]), spec("c", ["b", "a"])])
        assert added[0].deps == (tasks["a"].id,)
        assert set(added[1].deps) == {tasks["a"].id, added[0].id}

    def test_list_filters(self, store):
        run = store.create_run("r")
        store.add_tasks(
            run.id,
            [spec("a", issues=(7,)), spec("b", role="builder", issues=(8, 9))],
        )
        assert [t.key for t in store.list_tasks(run.id, role="builder")] == ["b"]
        assert [t.key for t in store.list_tasks(run.id, kind="research")] == ["a"]
        assert [t.key for t in store.list_tasks(run.id, issue=9)] == ["b"]
        assert [t.key for t in store.list_tasks(run.id, status="pending")] == ["a", "b"]
        assert store.list_tasks(run.id, status=TaskStatus.DONE) == []

    def test_an_unknown_task_is_an_error(self, store):
        with pytest.raises(TaskNotFound):
            store.get_task(12345)


class TestListing:
    """A listing reads the tasks as they are now, however little time has passed and
    whichever store of the database changed them."""

    def test_a_listing_sees_every_change_made_at_the_same_instant(self, store, clock):
        run, _tasks = chain(store, "a", "b")
        assert [t.status for t in store.list_tasks(run.id)] == [TaskStatus.PENDING] * 2
        claim = store.claim(run.id, "w1", ALL_ROLES)
        assert claim is not None
        store.update_progress(claim, metadata={"step": 1})
        listed = {t.key: t for t in store.list_tasks(run.id)}
        assert listed["a"].status is TaskStatus.RUNNING
        assert listed["a"].metadata["step"] == 1
        store.update_progress(claim, metadata={"step": 2})
        assert store.list_tasks(run.id)[0].metadata["step"] == 2
        store.complete(claim, {"ok": True})
        assert [t.status for t in store.list_tasks(run.id, status=TaskStatus.DONE)] == [
            TaskStatus.DONE
        ]
        assert store.list_tasks(run.id)[0].result == {"ok": True}

    def test_activity_replaces_the_last_and_wakes_whoever_watches_the_run(self, store):
        run, _tasks = chain(store, "a")
        claim = store.claim(run.id, "w1", ALL_ROLES)
        assert claim is not None
        store.update_progress(claim, metadata={"step": 1})
        cursor = store.events(run.id)[-1].id
        store.record_activity(claim, {"turns": 1, "tool": "Read a.py"}, "turn 1 · Read a.py")
        store.record_activity(claim, {"turns": 2}, "turn 2")
        task = store.get_task(claim.task_id)
        assert (task.metadata["step"], task.metadata["activity"]) == (1, {"turns": 2})
        assert (task.status, task.owner) == (TaskStatus.RUNNING, "w1")
        news = store.wait_for_events(run.id, cursor, 1.0)
        assert [(e.kind, e.task_id, e.data["summary"]) for e in news] == [
            (EventKind.TASK_ACTIVITY, claim.task_id, "turn 1 · Read a.py"),
            (EventKind.TASK_ACTIVITY, claim.task_id, "turn 2"),
        ]
        store.complete(claim, None)
        with pytest.raises(LeaseLost):
            store.record_activity(claim, {"turns": 3}, "turn 3")
        assert store.get_task(claim.task_id).metadata["activity"] == {"turns": 2}

    def test_a_listing_sees_what_another_store_of_the_database_changed(self, make_store, clock):
        first, second = make_store(clock=clock), make_store(clock=clock)
        run, tasks = chain(first, "a", "b")
        assert [t.owner for t in first.list_tasks(run.id)] == [None, None]
        claim = second.claim(run.id, "w2", ALL_ROLES)
        assert claim is not None
        assert claim.task_id == tasks["a"].id
        listed = {t.key: t for t in first.list_tasks(run.id)}
        assert (listed["a"].owner, listed["a"].status) == ("w2", TaskStatus.RUNNING)
        assert (listed["b"].owner, listed["b"].status) == (None, TaskStatus.PENDING)
        second.complete(claim, None)
        assert [t.key for t in first.list_tasks(run.id, status=TaskStatus.DONE)] == ["a"]


class TestClaiming:
    def test_only_tasks_whose_dependencies_are_done_can_be_claimed(self, store):
        run, _tasks = chain(store, "a", "b")
        first = store.claim(run.id, "w1", ["analyst"])
        assert first.task.key == "a"
        assert store.claim(run.id, "w2", ["analyst"]) is None
        store.complete(first, {"ok": True})
        second = store.claim(run.id, "w2", ["analyst"])
        assert second.task.key == "b"

    def test_a_claim_is_atomic_and_counts_the_attempt(self, store, clock):
        run, tasks = chain(store, "a")
        claim = store.claim(run.id, "w1", ["analyst"])
        task = store.get_task(tasks["a"].id)
        assert task.status is TaskStatus.RUNNING
        assert task.owner == "w1"
        assert task.attempts == 1
        assert task.claim_token == claim.token == 1
        assert task.lease_expires_at == pytest.approx(clock.now + store.lease_seconds)

    def test_claims_match_roles_never_subjects(self, store):
        run = store.create_run("r")
        store.add_tasks(run.id, [spec("plan", role="builder"), spec("research")])
        assert store.claim(run.id, "v", ["validator"]) is None
        assert store.claim(run.id, "b", ["builder"]).task.key == "plan"
        assert store.claim(run.id, "a", ["analyst", "validator"]).task.key == "research"
        assert store.claim(run.id, "x", []) is None

    def test_the_oldest_claimable_task_goes_first_but_assigned_tasks_before_it(self, store):
        run = store.create_run("r")
        tasks = store.add_tasks(run.id, [spec("a"), spec("b"), spec("c")])
        store.assign(tasks[2].id, "w2")
        assert store.claim(run.id, "w1", ["analyst"]).task.key == "a"
        assert store.claim(run.id, "w2", ["analyst"]).task.key == "c"
        assert store.claim(run.id, "w1", ["analyst"]).task.key == "b"

    def test_claiming_a_blocked_task_names_what_it_waits_for(self, store):
        _run, tasks = chain(store, "a", "b")
        with pytest.raises(TaskBlocked, match=r"a \(pending\)") as info:
            store.claim_task(tasks["b"].id, "w1")
        assert info.value.unfinished == (("a", "pending"),)

    def test_a_specific_task_can_be_claimed_once(self, store):
        _run, tasks = chain(store, "a")
        claim = store.claim_task(tasks["a"].id, "w1")
        assert claim.task.status is TaskStatus.RUNNING
        with pytest.raises(TaskNotClaimable, match="running, not pending"):
            store.claim_task(tasks["a"].id, "w2")

    def test_tasks_sharing_a_serialisation_key_run_one_at_a_time(self, store):
        run = store.create_run("r")
        store.add_tasks(
            run.id,
            [
                spec("m1", role="integrator", serial_key="merge:o/r"),
                spec("m2", role="integrator", serial_key="merge:o/r"),
                spec("other", role="integrator", serial_key="merge:o/other"),
            ],
        )
        first = store.claim(run.id, "i1", ["integrator"])
        assert first.task.key == "m1"
        assert store.claim(run.id, "i2", ["integrator"]).task.key == "other"
        assert store.claim(run.id, "i3", ["integrator"]) is None
        with pytest.raises(TaskNotClaimable, match="merge:o/r"):
            store.claim_task(store.list_tasks(run.id)[1].id, "i3")
        store.complete(first)
        assert store.claim(run.id, "i3", ["integrator"]).task.key == "m2"

    def test_concurrent_claimers_never_share_a_task(self, make_store, backend):
        store = make_store()
        run = store.create_run("r")
        store.add_tasks(run.id, [spec(f"t{i}") for i in range(60)])
        claimed: list[str] = []
        lock = threading.Lock()

        def worker(name):
            own = make_store() if backend != "memory" else store
            while (claim := own.claim(run.id, name, ["analyst"])) is not None:
                own.complete(claim)
                with lock:
                    claimed.append(claim.task.key)

        threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert sorted(claimed) == sorted(f"t{i}" for i in range(60))
        assert all(t.attempts == 1 for t in store.list_tasks(run.id))


class TestFencing:
    def test_t3u_a_zombie_is_fenced_off_after_its_lease_is_taken_over(self, store, clock):
        run, tasks = chain(store, "a")
        zombie = store.claim(run.id, "A", ["analyst"])
        clock.advance(store.lease_seconds + 1)
        rescuer = store.claim(run.id, "B", ["analyst"])
        assert rescuer.task.id == tasks["a"].id
        with pytest.raises(LeaseLost):
            store.complete(zombie, {"from": "A"})
        with pytest.raises(LeaseLost):
            store.heartbeat(zombie)
        with pytest.raises(LeaseLost):
            store.update_progress(zombie, metadata={"x": 1})
        with pytest.raises(LeaseLost):
            store.record_activity(zombie, {"turns": 1}, "turn 1")
        with pytest.raises(LeaseLost):
            store.fail(zombie, "boom")
        with pytest.raises(LeaseLost):
            store.release(zombie)
        done = store.complete(rescuer, {"from": "B"})
        assert done.result == {"from": "B"}
        assert store.get_task(tasks["a"].id).attempts == 2
        assert store.get_task(tasks["a"].id).result == {"from": "B"}

    def test_a_heartbeat_keeps_the_lease(self, store, clock):
        run, _ = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        for _ in range(3):
            clock.advance(store.lease_seconds * 0.8)
            store.heartbeat(claim)
        assert store.reap() == []
        assert store.claim(run.id, "B", ["analyst"]) is None
        store.complete(claim)

    def test_a_late_heartbeat_before_anyone_reaps_still_counts(self, store, clock):
        run, _ = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        clock.advance(store.lease_seconds + 1)
        store.heartbeat(claim)
        assert store.reap() == []
        store.complete(claim)

    def test_completing_twice_is_fenced(self, store):
        run, _ = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        store.complete(claim)
        with pytest.raises(LeaseLost):
            store.complete(claim)


class TestOutcomes:
    def test_complete_stores_the_result_and_progress_merges_metadata(self, store):
        run, tasks = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        store.update_progress(claim, metadata={"artifact_path": "x.md"}, description="half")
        store.update_progress(claim, metadata={"phase": 2})
        done = store.complete(claim, {"verdict": "APPROVED", "n": [1, 2]})
        task = store.get_task(tasks["a"].id)
        assert task == done
        assert task.status is TaskStatus.DONE
        assert task.result == {"verdict": "APPROVED", "n": [1, 2]}
        assert task.metadata == {"issue_number": 1, "artifact_path": "x.md", "phase": 2}
        assert task.description == "half"
        assert task.lease_expires_at is None

    def test_a_retryable_failure_backs_off_then_retries_until_dead(self, store, clock):
        run, _tasks = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        failed = store.fail(claim, "api 529")
        assert failed.status is TaskStatus.PENDING
        assert failed.error == "api 529"
        assert failed.not_before == pytest.approx(clock.now + 30.0)
        assert store.claim(run.id, "A", ["analyst"]) is None
        clock.advance(31)
        claim = store.claim(run.id, "A", ["analyst"])
        assert claim.task.attempts == 2
        assert store.fail(claim, "again").not_before == pytest.approx(clock.now + 60.0)
        clock.advance(61)
        claim = store.claim(run.id, "A", ["analyst"])
        dead = store.fail(claim, "third time")
        assert dead.status is TaskStatus.DEAD
        assert dead.error == "third time"
        assert store.events(run.id)[-1].kind is EventKind.TASK_DEAD

    def test_retry_after_overrides_the_backoff(self, store, clock):
        run, _ = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        assert store.fail(claim, "429", retry_after=7).not_before == pytest.approx(clock.now + 7)

    def test_a_failure_that_cannot_be_retried_is_final(self, store):
        run, _tasks = chain(store, "a", "b")
        claim = store.claim(run.id, "A", ["analyst"])
        failed = store.fail(claim, "issue is out of scope", retryable=False)
        assert failed.status is TaskStatus.FAILED
        assert store.claim(run.id, "A", ["analyst"]) is None

    def test_release_gives_the_task_back_with_its_attempts(self, store):
        run, _tasks = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        released = store.release(claim)
        assert released.status is TaskStatus.PENDING
        assert released.attempts == 1
        again = store.claim(run.id, "B", ["analyst"])
        assert again.task.attempts == 2
        with pytest.raises(LeaseLost):
            store.complete(claim)

    def test_a_release_of_an_untried_claim_gives_its_attempt_back(self, store):
        run, _tasks = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        assert store.release(claim, untried=True).attempts == 0
        assert store.claim(run.id, "B", ["analyst"]).task.attempts == 1

    def test_the_per_task_attempt_limit_is_kept(self, store, clock):
        run = store.create_run("r")
        store.add_tasks(run.id, [spec("once", max_attempts=1)])
        claim = store.claim(run.id, "A", ["analyst"])
        assert store.fail(claim, "x").status is TaskStatus.DEAD


class TestWaiting:
    """A claimed task deferred to wait for something outside Ralph (checks, a review):
    waiting is not failing."""

    def test_a_deferred_task_waits_until_its_time_without_being_charged_an_attempt(
        self, store, clock
    ):
        run, tasks = chain(store, "merge", role="integrator")
        claim = store.claim(run.id, "i1", ["integrator"])
        waiting = store.defer(
            claim, until=clock.now + 15, waiting_for="checks (2 pending)", for_person=False
        )
        assert waiting == store.get_task(tasks["merge"].id)
        assert (waiting.status, waiting.owner, waiting.lease_expires_at) == (
            TaskStatus.PENDING,
            None,
            None,
        )
        assert waiting.attempts == 0
        assert (waiting.waiting_for, waiting.waiting_for_person) == ("checks (2 pending)", False)
        assert waiting.metadata["waits"] == 1
        assert waiting.metadata["waiting_since"] == pytest.approx(clock.now)
        assert store.claim(run.id, "i2", ["integrator"]) is None
        with pytest.raises(TaskNotClaimable):
            store.claim_task(tasks["merge"].id, "i2")
        clock.advance(15)
        again = store.claim(run.id, "i2", ["integrator"])
        assert again.task.id == tasks["merge"].id
        assert again.task.attempts == 1
        assert again.task.waiting_for is None  # taken again: it no longer waits

    def test_waiting_is_announced_with_what_it_waits_for(self, store, clock):
        run, tasks = chain(store, "merge", role="integrator")
        claim = store.claim(run.id, "i1", ["integrator"])
        store.defer(claim, until=clock.now + 30, waiting_for="review", for_person=True)
        event = store.events(run.id)[-1]
        assert (event.kind, event.task_id) == (EventKind.TASK_WAITING, tasks["merge"].id)
        assert event.data == {
            "worker": "i1",
            "waiting_for": "review",
            "for_person": True,
            "until": pytest.approx(clock.now + 30),
        }

    def test_a_stale_claim_cannot_defer(self, store, clock):
        run, tasks = chain(store, "merge", role="integrator")
        zombie = store.claim(run.id, "A", ["integrator"])
        clock.advance(store.lease_seconds + 1)
        rescuer = store.claim(run.id, "B", ["integrator"])
        with pytest.raises(LeaseLost):
            store.defer(zombie, until=clock.now + 15, waiting_for="review", for_person=True)
        assert store.get_task(tasks["merge"].id).status is TaskStatus.RUNNING
        store.defer(rescuer, until=clock.now + 15, waiting_for="review", for_person=True)
        with pytest.raises(LeaseLost):  # deferring twice: the claim ended with the first
            store.defer(rescuer, until=clock.now + 15, waiting_for="review", for_person=True)

    def test_the_metadata_written_during_the_claim_is_kept(self, store, clock):
        run, _tasks = chain(store, "merge", role="integrator")
        claim = store.claim(run.id, "i1", ["integrator"])
        store.update_progress(claim, metadata={"pull_request": 7})
        waiting = store.defer(claim, until=clock.now + 15, waiting_for="review", for_person=True)
        assert waiting.metadata["pull_request"] == 7
        assert waiting.metadata["issue_number"] == 1

    def test_waits_add_up_for_the_backoff_while_attempts_stay_untouched(self, store, clock):
        run, _tasks = chain(store, "merge", role="integrator")
        for waits in range(1, 6):
            claim = store.claim(run.id, "i1", ["integrator"])
            waiting = store.defer(claim, until=clock.now + 1, waiting_for="review", for_person=True)
            assert waiting.metadata["waits"] == waits
            clock.advance(1)
        claim = store.claim(run.id, "i1", ["integrator"])
        assert claim.task.attempts == 1
        assert store.complete(claim).status is TaskStatus.DONE

    def test_waking_makes_waiting_tasks_claimable_now(self, store, clock):
        run = store.create_run("r")
        merge, other = store.add_tasks(
            run.id, [spec("merge", role="integrator"), spec("other", role="integrator")]
        )
        claim = store.claim_task(merge.id, "i1")
        store.defer(claim, until=clock.now + 300, waiting_for="review", for_person=True)
        woken = store.wake([merge.id, other.id, merge.id])
        assert [t.id for t in woken] == [merge.id]
        assert woken[0].not_before == pytest.approx(clock.now)
        assert woken[0].waiting_for == "review"  # still waiting: it is to be looked at again
        assert [e.kind for e in store.events(run.id)[-1:]] == [EventKind.TASK_WOKEN]
        assert store.wake([merge.id]) == []  # claimable already
        assert store.wake([]) == []
        assert store.claim_task(merge.id, "i2").task.attempts == 1

    def test_a_waiting_task_is_canceled_like_any_pending_one(self, store, clock):
        run, tasks = chain(store, "merge", role="integrator")
        claim = store.claim(run.id, "i1", ["integrator"])
        store.defer(claim, until=clock.now + 15, waiting_for="review", for_person=True)
        [canceled] = store.cancel(tasks["merge"].id)
        assert canceled.status is TaskStatus.CANCELED
        assert canceled.waiting_for is None
        assert store.wake([tasks["merge"].id]) == []

    def test_a_sleeping_worker_wakes_when_a_waiting_task_is_woken(
        self, make_store, backend, monkeypatch
    ):
        monkeypatch.setattr(postgres_db, "FALLBACK_POLL_SECONDS", 10 * WAKE_BOUND_SECONDS)
        store = make_store()
        run, tasks = chain(store, "merge", role="integrator")
        claim = store.claim(run.id, "i1", ["integrator"])
        store.defer(claim, until=time.time() + 3600, waiting_for="review", for_person=True)
        cursor = store.events(run.id)[-1].id
        other = make_store() if backend != "memory" else store
        woke_with: list[list[Event]] = []
        thread = threading.Thread(
            target=lambda: woke_with.append(
                other.wait_for_events(run.id, cursor, timeout=WAKE_BOUND_SECONDS)
            )
        )
        thread.start()
        store.wake([tasks["merge"].id])
        thread.join(timeout=2 * WAKE_BOUND_SECONDS)
        assert woke_with
        assert [e.kind for e in woke_with[0]] == [EventKind.TASK_WOKEN]
        assert other.claim(run.id, "i2", ["integrator"]).task.key == "merge"


class TestReaper:
    def test_t6_expired_leases_return_to_pending_or_die_when_attempts_are_used_up(
        self, make_store, clock
    ):
        store = make_store(clock=clock, lease_seconds=5.0)
        run = store.create_run("r")
        fresh, late, exhausted = store.add_tasks(
            run.id, [spec("fresh"), spec("late"), spec("exhausted", max_attempts=1)]
        )
        start = clock.now
        store.claim_task(late.id, "w")
        store.claim_task(exhausted.id, "w")
        clock.advance(4)
        store.claim_task(fresh.id, "w")
        clock.now = start + 7
        changed = store.reap()
        assert sorted(t.key for t in changed) == ["exhausted", "late"]
        assert store.get_task(fresh.id).status is TaskStatus.RUNNING
        assert store.get_task(late.id).status is TaskStatus.PENDING
        assert store.get_task(late.id).owner is None
        assert "lease expired" in store.get_task(late.id).error
        assert store.get_task(exhausted.id).status is TaskStatus.DEAD
        kinds = [(e.task_id, e.kind) for e in store.events(run.id)[-2:]]
        assert sorted(kinds) == sorted(
            [(late.id, EventKind.TASK_EXPIRED), (exhausted.id, EventKind.TASK_DEAD)]
        )

    def test_reaping_twice_changes_nothing_more(self, store, clock):
        run, _ = chain(store, "a")
        store.claim(run.id, "A", ["analyst"])
        clock.advance(store.lease_seconds + 1)
        assert len(store.reap()) == 1
        assert store.reap() == []


class TestRewritesAndStops:
    def test_reopen_runs_a_finished_task_again(self, store):
        run, tasks = chain(store, "plan", "review")
        claim = store.claim(run.id, "A", ["analyst"])
        store.complete(claim, {"v": 1})
        reopened = store.reopen(tasks["plan"].id)
        assert reopened.status is TaskStatus.PENDING
        assert reopened.attempts == 0
        assert reopened.result is None
        again = store.claim(run.id, "A", ["analyst"])
        assert again.task.key == "plan"
        assert again.token > claim.token

    def test_reopening_an_unfinished_task_is_refused(self, store):
        _run, tasks = chain(store, "a")
        with pytest.raises(TaskNotClaimable):
            store.reopen(tasks["a"].id)

    def test_cancel_with_dependents_spares_independent_work(self, store):
        run = store.create_run("r")
        store.add_tasks(
            run.id,
            [spec("a"), spec("b", ["a"]), spec("c", ["b"]), spec("x")],
        )
        a = store.list_tasks(run.id)[0]
        canceled = store.cancel(a.id, with_dependents=True)
        assert sorted(t.key for t in canceled) == ["a", "b", "c"]
        statuses = {t.key: t.status for t in store.list_tasks(run.id)}
        assert statuses == {
            "a": TaskStatus.CANCELED,
            "b": TaskStatus.CANCELED,
            "c": TaskStatus.CANCELED,
            "x": TaskStatus.PENDING,
        }

    def test_canceling_a_running_task_fences_its_worker(self, store):
        run, tasks = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        store.cancel(tasks["a"].id)
        with pytest.raises(LeaseLost):
            store.complete(claim)

    def test_cancel_run_cancels_unfinished_work_and_closes_the_run(self, store):
        run, tasks = chain(store, "a", "b")
        store.complete(store.claim(run.id, "A", ["analyst"]))
        canceled = store.cancel_run(run.id)
        assert [t.key for t in canceled] == ["b"]
        assert store.get_task(tasks["a"].id).status is TaskStatus.DONE
        assert store.get_run(run.id).status is RunStatus.CANCELED


class TestGraphEdits:
    def test_completing_with_an_edit_replaces_the_waiting_chain_in_one_step(self, store):
        run, tasks = chain(store, "review", "implement", "merge")
        claim = store.claim(run.id, "A", ["analyst"])
        edit = GraphEdit(
            add=(spec("plan~2"), spec("review~2", ["plan~2"]), spec("implement~2", ["review~2"])),
            cancel=(tasks["implement"].id, tasks["merge"].id),
            reason="re-plan",
        )
        store.complete(claim, {"verdict": "NEEDS_ITERATION"}, edit=edit)
        statuses = {t.key: t.status for t in store.list_tasks(run.id)}
        assert statuses == {
            "review": TaskStatus.DONE,
            "implement": TaskStatus.CANCELED,
            "merge": TaskStatus.CANCELED,
            "plan~2": TaskStatus.PENDING,
            "review~2": TaskStatus.PENDING,
            "implement~2": TaskStatus.PENDING,
        }
        assert store.get_task(tasks["implement"].id).error == "re-plan"
        # The old dependent was never claimable: the next claim is the new plan.
        assert store.claim(run.id, "A", ["analyst"]).task.key == "plan~2"

    def test_an_edit_that_names_a_task_not_pending_writes_nothing(self, store):
        run = store.create_run("r")
        _a, _b = store.add_tasks(run.id, [spec("a"), spec("b")])
        first = store.claim(run.id, "A", ["analyst"])
        second = store.claim(run.id, "B", ["analyst"])
        with pytest.raises(GraphError):
            store.complete(first, None, edit=GraphEdit(add=(spec("c"),), cancel=(second.task_id,)))
        assert store.get_task(first.task_id).status is TaskStatus.RUNNING
        assert [t.key for t in store.list_tasks(run.id)] == ["a", "b"]

    def test_an_edit_adding_a_duplicate_key_writes_nothing(self, store):
        run, tasks = chain(store, "a", "b")
        claim = store.claim(run.id, "A", ["analyst"])
        with pytest.raises(GraphError):
            store.complete(claim, None, edit=GraphEdit(add=(spec("b"),), cancel=(tasks["b"].id,)))
        assert store.get_task(tasks["b"].id).status is TaskStatus.PENDING
        assert store.get_task(tasks["a"].id).status is TaskStatus.RUNNING

    def test_a_superseded_task_ends_canceled_and_its_replacement_is_claimable(self, store):
        run, tasks = chain(store, "plan", "review")
        claim = store.claim(run.id, "A", ["analyst"])
        edit = GraphEdit(
            add=(spec("plan:s1"), spec("plan:s2")), cancel=(tasks["review"].id,), reason="streams"
        )
        superseded = store.supersede(claim, edit)
        assert superseded.status is TaskStatus.CANCELED
        assert superseded.error == "streams"
        with pytest.raises(LeaseLost):
            store.complete(claim)
        assert store.claim(run.id, "A", ["analyst"]).task.key == "plan:s1"

    def test_a_stale_claim_cannot_supersede(self, store, clock):
        run, tasks = chain(store, "a")
        stale = store.claim(run.id, "A", ["analyst"])
        store.cancel(tasks["a"].id)
        with pytest.raises(LeaseLost):
            store.supersede(stale, GraphEdit(add=(spec("b"),)))
        assert [t.key for t in store.list_tasks(run.id)] == ["a"]


class TestAbandonedClaims:
    def test_a_task_whose_claimer_is_gone_is_requeued_at_once(self, store):
        run, tasks = chain(store, "a")
        claim = store.claim(run.id, "host:1/worker", ["analyst"])
        requeued = store.requeue_abandoned(tasks["a"].id, "host:1/worker")
        assert requeued.status is TaskStatus.PENDING
        assert "host:1/worker" in requeued.error
        with pytest.raises(LeaseLost):
            store.complete(claim)
        assert store.claim(run.id, "B", ["analyst"]).task.attempts == 2

    def test_only_the_named_claimer_is_requeued(self, store):
        run, tasks = chain(store, "a")
        store.claim(run.id, "alive", ["analyst"])
        assert store.requeue_abandoned(tasks["a"].id, "someone else") is None
        assert store.get_task(tasks["a"].id).status is TaskStatus.RUNNING

    def test_the_last_attempt_of_a_gone_claimer_is_dead(self, store):
        run = store.create_run("r")
        (task,) = store.add_tasks(run.id, [spec("a", max_attempts=1)])
        store.claim(run.id, "gone", ["analyst"])
        assert store.requeue_abandoned(task.id, "gone").status is TaskStatus.DEAD


class TestLedger:
    def test_charges_add_up_per_run_and_per_period(self, store, clock):
        first, second = store.create_run("a"), store.create_run("b")
        store.record_charge(first.id, None, 0.25, tokens=100, turns=2, seconds=1.5)
        clock.advance(100)
        later = clock()
        store.record_charge(first.id, 7, 0.5)
        store.record_charge(second.id, None, 1.0)
        assert store.spent(run_id=first.id) == pytest.approx(0.75)
        assert store.spent() == pytest.approx(1.75)
        assert store.spent(since=later) == pytest.approx(1.5)
        (charge, _) = store.charges(first.id)
        assert (charge.usd, charge.tokens, charge.turns, charge.seconds) == (0.25, 100, 2, 1.5)
        assert store.spent(run_id=999) == 0.0

    def test_a_charge_keeps_cached_tokens_and_refused_tools(self, store):
        run = store.create_run("a")
        store.record_charge(
            run.id,
            None,
            0.5,
            tokens=217_283,
            cache_read_tokens=210_000,
            cache_write_tokens=4_230,
            refused=["Bash", "Write"],
        )
        store.record_charge(run.id, None, 0.1)
        kept, plain = store.charges(run.id)
        assert (kept.tokens, kept.cache_read_tokens, kept.cache_write_tokens) == (
            217_283,
            210_000,
            4_230,
        )
        assert kept.refused == ("Bash", "Write")
        assert (plain.cache_read_tokens, plain.cache_write_tokens, plain.refused) == (0, 0, ())

    def test_the_refused_charges_are_those_of_every_run_that_refused_a_tool(self, store):
        first, second = store.create_run("a"), store.create_run("b")
        store.record_charge(first.id, 1, 0.1, refused=["Bash"])
        store.record_charge(first.id, 1, 0.1)
        store.record_charge(second.id, 2, 0.1, refused=["Write", "Bash"])
        store.record_charge(second.id, None, 0.1)
        refused = store.refused_charges()
        assert [(c.run_id, c.task_id, c.refused) for c in refused] == [
            (first.id, 1, ("Bash",)),
            (second.id, 2, ("Write", "Bash")),
        ]

    def test_a_charge_of_a_model_without_a_price_is_told_per_run_and_period(self, store, clock):
        first, second = store.create_run("a"), store.create_run("b")
        store.record_charge(first.id, None, 0.1, unpriced_model="mystery")
        clock.advance(100)
        later = clock()
        store.record_charge(first.id, None, 0.2)
        store.record_charge(second.id, None, 0.0, unpriced_model="other")
        store.record_charge(second.id, None, 0.0, unpriced_model="mystery")
        assert store.unpriced_models(run_id=first.id) == ["mystery"]
        assert store.unpriced_models(run_id=second.id) == ["other", "mystery"]
        assert store.unpriced_models() == ["mystery", "other"]
        assert store.unpriced_models(since=later) == ["other", "mystery"]
        assert [c.unpriced_model for c in store.charges(first.id)] == ["mystery", ""]
        assert store.unpriced_models(run_id=999) == []


class TestEvents:
    def test_every_change_appends_an_event_in_order(self, store):
        run, tasks = chain(store, "a")
        claim = store.claim(run.id, "A", ["analyst"])
        store.complete(claim)
        events = store.events(run.id)
        assert [e.kind for e in events] == [
            EventKind.TASK_ADDED,
            EventKind.TASK_CLAIMED,
            EventKind.TASK_DONE,
        ]
        assert all(e.task_id == tasks["a"].id for e in events)
        assert events[1].data == {"worker": "A"}
        assert [e.id for e in events] == sorted(e.id for e in events)

    def test_a_cursor_returns_only_newer_events_of_the_run(self, store):
        run, _ = chain(store, "a")
        other, _ = chain(store, "z")
        cursor = store.events(other.id)[-1].id
        store.claim(run.id, "A", ["analyst"])
        newer = store.events(run.id, cursor)
        assert [e.kind for e in newer] == [EventKind.TASK_CLAIMED]
        assert store.events(other.id, cursor) == []
        assert len(store.events(run.id, 0, limit=1)) == 1

    def test_waiting_returns_at_once_when_there_is_news(self, store):
        run, _ = chain(store, "a")
        start = time.monotonic()
        assert store.wait_for_events(run.id, 0, timeout=WAKE_BOUND_SECONDS)
        assert time.monotonic() - start < WAKE_BOUND_SECONDS / 2  # it did not sit out the wait

    def test_waiting_times_out_empty(self, store):
        run, _ = chain(store, "a")
        cursor = store.events(run.id)[-1].id
        start = time.monotonic()
        assert store.wait_for_events(run.id, cursor, timeout=0.3) == []
        assert time.monotonic() - start >= 0.3

    def test_an_idle_waiter_wakes_when_a_blocker_completes(self, make_store, backend, monkeypatch):
        # Only the notification can wake a PostgreSQL waiter within the bound: the fallback
        # poll is pushed past it. How fast it wakes is measured by benchmarks/bench_store.py.
        monkeypatch.setattr(postgres_db, "FALLBACK_POLL_SECONDS", 10 * WAKE_BOUND_SECONDS)
        store = make_store()
        run, _tasks = chain(store, "a", "b")
        claim = store.claim(run.id, "A", ["analyst"])
        cursor = store.events(run.id)[-1].id
        other = make_store() if backend != "memory" else store
        waiting = threading.Event()
        looked = other.events

        def events_then_wait(*args, **kwargs):
            found = looked(*args, **kwargs)
            if not found:
                waiting.set()  # found nothing: from here on the waiter waits for a change
            return found

        monkeypatch.setattr(other, "events", events_then_wait)
        woke_with: list[list[Event]] = []
        thread = threading.Thread(
            target=lambda: woke_with.append(
                other.wait_for_events(run.id, cursor, timeout=WAKE_BOUND_SECONDS)
            )
        )
        thread.start()
        assert waiting.wait(WAKE_BOUND_SECONDS), "the waiter never started waiting"
        store.complete(claim)
        thread.join(timeout=2 * WAKE_BOUND_SECONDS)
        assert woke_with, "the waiter never returned"
        assert [e.kind for e in woke_with[0]] == [EventKind.TASK_DONE], "it timed out instead"
        assert other.claim(run.id, "B", ["analyst"]).task.key == "b"

    def test_waiters_woken_together_share_one_read_of_the_events(
        self, make_store, backend, monkeypatch
    ):
        # A team's idle workers all wake at each event (issue 49): each reading the same
        # new rows was a round trip apiece on PostgreSQL.
        monkeypatch.setattr(postgres_db, "FALLBACK_POLL_SECONDS", 10 * WAKE_BOUND_SECONDS)
        store = make_store()
        run, _tasks = chain(store, "a", "b")
        claim = store.claim(run.id, "A", ["analyst"])
        cursor = store.events(run.id)[-1].id
        other = make_store() if backend != "memory" else store
        reads: list[int] = []
        looked = other.events

        def counted(*args, **kwargs):
            reads.append(1)
            return looked(*args, **kwargs)

        monkeypatch.setattr(other, "events", counted)
        waiters = 6
        asleep: list[int] = []  # waits for a change with time left: after a look
        wait_for_change = other.db.wait_for_change

        def sleeping(*args, **kwargs):
            if args[1] > 0:
                asleep.append(1)
            return wait_for_change(*args, **kwargs)

        monkeypatch.setattr(other.db, "wait_for_change", sleeping)
        woke_with: list[list[Event]] = []
        threads = [
            threading.Thread(
                target=lambda: woke_with.append(
                    other.wait_for_events(run.id, cursor, timeout=WAKE_BOUND_SECONDS)
                )
            )
            for _ in range(waiters)
        ]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + WAKE_BOUND_SECONDS
        while len(asleep) < waiters and time.monotonic() < deadline:
            time.sleep(0.01)  # every waiter has looked, found nothing and waits
        before_wake = len(reads)
        store.complete(claim)
        for thread in threads:
            thread.join(timeout=2 * WAKE_BOUND_SECONDS)
        assert [[e.kind for e in found] for found in woke_with] == [[EventKind.TASK_DONE]] * waiters
        # Each waiter read its own before, at its wake as at its first look.
        assert len(reads) - before_wake < waiters, reads

    def test_an_event_whose_notification_was_lost_is_found_by_the_fallback_poll(
        self, make_store, backend, monkeypatch
    ):
        """A waiter that shares reads still polls the database: a row committed with no
        notification (a lost NOTIFY, a listen connection down) is found at the latest by
        its second poll, not at its timeout."""
        poll = 0.2
        monkeypatch.setattr(postgres_db, "FALLBACK_POLL_SECONDS", poll)
        store = make_store()
        run, _tasks = chain(store, "a")
        cursor = store.events(run.id)[-1].id
        other = make_store() if backend != "memory" else store
        assert other.wait_for_events(run.id, cursor, timeout=poll) == []  # a read kept
        with store.db.write_transaction() as tx:  # an event, and no notification of it
            tx.run(
                "INSERT INTO ralph_events (run_id, task_id, kind, data, at) "
                "VALUES (?, NULL, ?, '{}', ?)",
                (run.id, EventKind.TASK_DONE.value, time.time()),
            )
        started = time.monotonic()
        found = other.wait_for_events(run.id, cursor, timeout=WAKE_BOUND_SECONDS)
        assert [e.kind for e in found] == [EventKind.TASK_DONE]
        assert time.monotonic() - started < WAKE_BOUND_SECONDS / 3, "found at its timeout"


class TestMessages:
    def test_messages_are_stored_counted_and_marked_read(self, store):
        run = store.create_run("r")
        sent = store.send_message(run.id, "builder", "lead", "escalation", "Needs splitting.")
        store.send_message(run.id, "lead", "builder", MessageKind.ANSWER, "Go ahead.")
        assert sent.kind is MessageKind.ESCALATION
        assert [m.body for m in store.messages(run.id, recipient="lead")] == ["Needs splitting."]
        store.mark_read(sent.id)
        assert store.messages(run.id, recipient="lead", unread_only=True) == []
        assert len(store.messages(run.id)) == 2
        assert store.events(run.id)[-1].kind is EventKind.MESSAGE


class TestIssueLocks:
    def test_only_one_holder_at_a_time(self, store):
        lock = store.acquire_issue_lock("o/r", 42, "w1", "t1")
        assert (lock.owner, lock.token) == ("w1", "t1")
        with pytest.raises(IssueLocked, match="o/r#42 is locked by w1"):
            store.acquire_issue_lock("o/r", 42, "w2", "t2")
        assert store.acquire_issue_lock("o/r", 43, "w2", "t2").number == 43
        assert store.get_issue_lock("o/r", 42).owner == "w1"

    def test_the_holder_refreshes_and_releases(self, store, clock):
        first = store.acquire_issue_lock("o/r", 42, "w1", "t1")
        clock.advance(10)
        again = store.acquire_issue_lock("o/r", 42, "w1", "t1")
        assert again.acquired_at == first.acquired_at
        assert again.expires_at > first.expires_at
        with pytest.raises(IssueLocked):
            store.release_issue_lock("o/r", 42, "w2", "t1")
        store.release_issue_lock("o/r", 42, "w1", "t1")
        assert store.get_issue_lock("o/r", 42) is None
        store.release_issue_lock("o/r", 42, "w1", "t1")  # no-op

    def test_a_lock_is_broken_only_while_the_named_owner_holds_it(self, store):
        store.acquire_issue_lock("o/r", 42, "w1", "t1")
        assert not store.break_issue_lock("o/r", 42, "w2")
        assert store.break_issue_lock("o/r", 42, "w1")
        assert store.get_issue_lock("o/r", 42) is None
        assert not store.break_issue_lock("o/r", 42, "w1")

    def test_an_expired_lock_can_be_taken_over(self, store, clock):
        store.acquire_issue_lock("o/r", 42, "w1", "t1", lease_seconds=5)
        clock.advance(6)
        assert store.acquire_issue_lock("o/r", 42, "w2", "t2").owner == "w2"
        with pytest.raises(IssueLocked):
            store.release_issue_lock("o/r", 42, "w1", "t1")

    def test_stale_locks_are_released_though_nobody_asks_for_their_issues(self, store, clock):
        store.acquire_issue_lock("o/r", 1, "live", "t1", lease_seconds=60)
        store.acquire_issue_lock("o/r", 2, "elsewhere", "t2", lease_seconds=5)
        store.acquire_issue_lock("serve:o/r", 3, "dead", "t3", lease_seconds=3600)
        clock.advance(6)
        dropped = store.release_stale_issue_locks(lambda owner: owner == "dead")
        assert sorted((lock.repo, lock.number) for lock in dropped) == [
            ("o/r", 2),  # its lease ran out
            ("serve:o/r", 3),  # its holder is gone
        ]
        assert [lock.number for lock in store.issue_locks("o/r")] == [1]
        assert store.issue_locks("serve:o/r") == []
        assert store.release_stale_issue_locks() == []


class TestCheckpoints:
    def test_a_checkpoint_is_kept_replaced_and_cleared(self, store):
        assert store.load_checkpoint("o/r#42:research") is None
        store.save_checkpoint("o/r#42:research", {"document": "a.md", "files": ["x", "y"]})
        store.save_checkpoint("o/r#43:research", {"document": "b.md"})
        assert store.load_checkpoint("o/r#42:research") == {"document": "a.md", "files": ["x", "y"]}
        store.save_checkpoint("o/r#42:research", {"document": "c.md"})
        assert store.load_checkpoint("o/r#42:research") == {"document": "c.md"}
        store.clear_checkpoint("o/r#42:research")
        store.clear_checkpoint("o/r#42:research")  # no-op
        assert store.load_checkpoint("o/r#42:research") is None
        assert store.load_checkpoint("o/r#43:research") == {"document": "b.md"}

    def test_a_loaded_checkpoint_is_a_copy(self, store):
        store.save_checkpoint("k", {"files": ["x"]})
        store.load_checkpoint("k")["files"].append("y")
        assert store.load_checkpoint("k") == {"files": ["x"]}


class TestBranches:
    def test_a_branch_ralph_created_or_adopted_is_remembered_per_repository(self, store):
        assert store.branch_origin("o/r", "feature/GH-1") is None
        store.record_branch("o/r", "feature/GH-1", "created")
        store.record_branch("o/r", "feature/GH-2", "adopted")
        assert store.branch_origin("o/r", "feature/GH-1") == "created"
        assert store.branch_origin("o/r", "feature/GH-2") == "adopted"
        assert store.branch_origin("o/other", "feature/GH-1") is None

    def test_recording_a_branch_again_keeps_its_first_origin(self, store):
        store.record_branch("o/r", "feature/GH-1", "created")
        store.record_branch("o/r", "feature/GH-1", "adopted")
        assert store.branch_origin("o/r", "feature/GH-1") == "created"


def test_concurrent_acquirers_of_one_issue_get_it_once(make_store, backend):
    store = make_store()
    outcomes: list[str] = []
    lock = threading.Lock()

    def acquire(name):
        own = make_store() if backend != "memory" else store
        try:
            own.acquire_issue_lock("o/r", 7, name, name)
            result = "got"
        except IssueLocked:
            result = "refused"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=acquire, args=(f"w{i}",)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["got"] + ["refused"] * 5
