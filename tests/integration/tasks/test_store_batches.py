"""Merge batches in the task store, on every backend (memory, SQLite, PostgreSQL): each
train's record is kept and found again, one unfinished per repository, a car sent back
is found by its pull request and head, and a conductor finds the merges waiting on its
key in every run."""

from __future__ import annotations

import pytest

from ralph.tasks import (
    BatchNotFound,
    BatchRefused,
    BatchStatus,
    RunNotFound,
    TaskNotFound,
    TaskStatus,
)
from ralph.workflow import (
    Car,
    Rejection,
    TestRun,
    Train,
    after_landing,
    after_rejection,
    after_test,
)
from tests.integration.tasks.test_store_contract import spec

KEY = "merge:o/r"


def car(pr, head=None, issues=None):
    return {"pr": pr, "head": head or f"{pr:040x}", "issues": list(issues or (pr + 100,))}


def train(*cars, runs=(), landed=(), rejected=(), base="b0"):
    return {
        "base": base,
        "cars": list(cars),
        "runs": list(runs),
        "landed": list(landed),
        "rejected": list(rejected),
    }


def rejection(pr, head=None, reason="tests fail", *, conflict=False, after=()):
    return {
        "pr": pr,
        "head": head or f"{pr:040x}",
        "reason": reason,
        "after": list(after),
        "conflict": conflict,
    }


def conductor(store, name="run"):
    """A run with a merge task (the conductor); returns both."""
    run = store.create_run(name)
    (task,) = store.add_tasks(run.id, [spec("merge", role="integrator", serial_key=KEY)])
    return run, task


class TestTheRecord:
    def test_a_batch_is_opened_running_and_found_by_run_and_by_repository(self, store, clock):
        run, task = conductor(store)
        opened = store.open_batch(run.id, task.id, "o/r", train(car(1), car(2)))
        assert opened.status is BatchStatus.RUNNING
        assert (opened.run_id, opened.task_id, opened.repo) == (run.id, task.id, "o/r")
        assert opened.train == train(car(1), car(2))
        assert opened.started_at == opened.updated_at == clock.now
        assert store.batches(run_id=run.id) == [opened]
        assert store.batches(repo="o/r") == [opened]
        assert store.batches(repo="o/other") == []
        assert store.unfinished_batch("o/r") == opened

    def test_each_save_keeps_the_train_and_an_ended_batch_is_unfinished_no_more(self, store, clock):
        run, task = conductor(store)
        batch = store.open_batch(run.id, task.id, "o/r", train(car(1)))
        clock.advance(5)
        ran = {"cars": [1], "base": "b0", "passed": True, "summary": "", "seconds": 3.0}
        saved = store.save_batch(batch.id, train(car(1), runs=[ran]))
        assert saved.train["runs"] == [ran]
        assert saved.status is BatchStatus.RUNNING
        assert saved.updated_at == batch.started_at + 5 == clock.now
        assert saved.started_at == batch.started_at
        done = store.save_batch(batch.id, train(car(1), runs=[ran], landed=[1]), BatchStatus.DONE)
        assert done.status is BatchStatus.DONE
        assert store.unfinished_batch("o/r") is None
        assert store.batches(run_id=run.id) == [done]

    def test_an_ended_batch_is_kept_as_it_ended(self, store):
        run, task = conductor(store)
        batch = store.open_batch(run.id, task.id, "o/r", train(car(1)))
        ended = store.save_batch(batch.id, train(car(1)), BatchStatus.ABANDONED)
        with pytest.raises(BatchRefused, match="abandoned"):
            store.save_batch(batch.id, train(car(1), landed=[1]), BatchStatus.DONE)
        assert store.batches() == [ended]

    def test_one_unfinished_batch_per_repository(self, store):
        run, task = conductor(store)
        first = store.open_batch(run.id, task.id, "o/r", train(car(1)))
        with pytest.raises(BatchRefused, match=f"merge batch {first.id} of o/r is still running"):
            store.open_batch(run.id, task.id, "o/r", train(car(2)))
        other = store.open_batch(run.id, task.id, "o/other", train(car(3)))
        store.save_batch(first.id, train(car(1), landed=[1]), BatchStatus.DONE)
        second = store.open_batch(run.id, task.id, "o/r", train(car(2)))
        assert [b.id for b in store.batches()] == [first.id, other.id, second.id]
        assert store.unfinished_batch("o/r") == second

    def test_unknown_runs_tasks_and_batches_are_errors(self, store):
        run, task = conductor(store)
        with pytest.raises(RunNotFound):
            store.open_batch(999, task.id, "o/r", train())
        with pytest.raises(TaskNotFound):
            store.open_batch(run.id, 999, "o/r", train())
        with pytest.raises(BatchNotFound):
            store.save_batch(999, train())
        assert store.batches() == []

    def test_batches_are_listed_by_run_and_by_time_still_at_work(self, store, clock):
        run, task = conductor(store, "one")
        other_run, other_task = conductor(store, "two")
        old = store.open_batch(run.id, task.id, "o/r", train(car(1)))
        store.save_batch(old.id, train(car(1), landed=[1]), BatchStatus.DONE)
        clock.advance(60)
        since = clock.now
        new = store.open_batch(other_run.id, other_task.id, "o/r", train(car(2)))
        assert [b.id for b in store.batches(run_id=run.id)] == [old.id]
        assert [b.id for b in store.batches(run_id=other_run.id)] == [new.id]
        assert [b.id for b in store.batches(since=since)] == [new.id]
        assert [b.id for b in store.batches(run.id, "o/r", since=since)] == []


class TestRejections:
    def test_a_car_sent_back_is_found_by_its_pull_request_and_head(self, store):
        run, task = conductor(store)
        sent = rejection(2, reason="test_x failed on top of #1", after=(1,))
        batch = store.open_batch(run.id, task.id, "o/r", train(car(1), car(2), rejected=[sent]))
        assert store.rejection_of("o/r", 2, car(2)["head"]) == sent
        # The same pull request on a new head, another pull request, another repository.
        assert store.rejection_of("o/r", 2, "f" * 40) is None
        assert store.rejection_of("o/r", 1, car(1)["head"]) is None
        assert store.rejection_of("o/other", 2, car(2)["head"]) is None
        store.save_batch(batch.id, train(car(1), car(2), rejected=[sent]), BatchStatus.DONE)
        assert store.rejection_of("o/r", 2, car(2)["head"]) == sent

    def test_a_car_left_out_for_a_conflict_was_not_sent_back(self, store):
        run, task = conductor(store)
        left = rejection(2, reason="conflicts with #1", conflict=True)
        store.open_batch(run.id, task.id, "o/r", train(car(1), car(2), rejected=[left]))
        assert store.rejection_of("o/r", 2, car(2)["head"]) is None

    def test_the_latest_train_that_sent_it_back_says_why(self, store):
        run, task = conductor(store)
        first = store.open_batch(
            run.id, task.id, "o/r", train(car(2), rejected=[rejection(2, reason="first")])
        )
        store.save_batch(first.id, first.train, BatchStatus.DONE)
        store.open_batch(
            run.id, task.id, "o/r", train(car(2), rejected=[rejection(2, reason="second")])
        )
        found = store.rejection_of("o/r", 2, car(2)["head"])
        assert found is not None
        assert found["reason"] == "second"

    def test_a_head_with_pattern_characters_matches_only_itself(self, store):
        run, task = conductor(store)
        sent = rejection(2, head="a_b%c!")
        store.open_batch(run.id, task.id, "o/r", train(car(2, head="a_b%c!"), rejected=[sent]))
        assert store.rejection_of("o/r", 2, "a_b%c!") == sent
        assert store.rejection_of("o/r", 2, "aXbYc!") is None
        assert store.rejection_of("o/r", 2, "a_b%") is None


class TestWaitingOnAKey:
    def test_the_merges_ready_but_for_the_key_in_every_run_in_id_order(self, store, clock):
        run = store.create_run("one")
        other = store.create_run("two")
        first, ready, blocked = store.add_tasks(
            run.id,
            [
                spec("pr", role="integrator"),
                spec("ready", role="integrator", serial_key=KEY),
                spec("blocked", ["pr"], role="integrator", serial_key=KEY),
            ],
        )
        (elsewhere,) = store.add_tasks(other.id, [spec("merge", role="integrator", serial_key=KEY)])
        (other_key,) = store.add_tasks(
            other.id, [spec("other-key", role="integrator", serial_key="merge:o/x")]
        )
        assert [t.id for t in store.waiting_on_key(KEY)] == [ready.id, elsewhere.id]
        # Its dependency done, the blocked one is ready too.
        store.complete(store.claim_task(first.id, "w"))
        assert [t.id for t in store.waiting_on_key(KEY)] == [ready.id, blocked.id, elsewhere.id]
        assert [t.id for t in store.waiting_on_key("merge:o/x")] == [other_key.id]

    def test_a_deferred_merge_is_waiting_and_a_running_or_finished_one_is_not(self, store, clock):
        run = store.create_run("one")
        deferred, running, done = store.add_tasks(
            run.id,
            [
                spec(key, role="integrator", serial_key=f"{KEY}:{key}")
                for key in ("deferred", "running", "done")
            ],
        )
        claim = store.claim_task(deferred.id, "w")
        store.defer(claim, until=clock.now + 600, waiting_for="checks", for_person=False)
        store.claim_task(running.id, "w")
        store.complete(store.claim_task(done.id, "w"))
        assert [t.id for t in store.waiting_on_key(f"{KEY}:deferred")] == [deferred.id]
        assert store.get_task(deferred.id).status is TaskStatus.PENDING
        assert store.waiting_on_key(f"{KEY}:running") == []
        assert store.waiting_on_key(f"{KEY}:done") == []


class TestTheCoresTrain:
    def test_a_train_is_kept_as_the_core_made_it_and_its_rejection_found(self, store):
        run, task = conductor(store)
        cars = (Car(11, "a" * 40, (5,)), Car(12, "b" * 40, (6, 7)))
        train = Train("b0", cars)
        batch = store.open_batch(run.id, task.id, "o/r", train.to_record())
        train = after_test(train, TestRun((11, 12), "b0", False, "E   boom\n1 failed", 0.25))
        sent = Rejection(12, "b" * 40, "The tests fail with #12:\nE   boom", after=(11,))
        train = after_rejection(after_landing(train, (11,), "b1"), sent)
        saved = store.save_batch(batch.id, train.to_record(), BatchStatus.DONE)
        assert Train.from_record(saved.train) == train
        assert Train.from_record(store.batches(run_id=run.id)[0].train) == train
        assert store.rejection_of("o/r", 12, "b" * 40) == sent.to_record()


class TestFencing:
    """A conductor writes its batch only while the batch is its own: one whose batch
    another conductor took over (its lease lost, the task reclaimed) is refused."""

    def test_a_batch_taken_over_is_the_new_conductors_and_refuses_the_old_one(self, store, clock):
        run, task = conductor(store, "one")
        other_run, other_task = conductor(store, "two")
        batch = store.open_batch(run.id, task.id, "o/r", train(car(1)))
        clock.advance(5)
        taken = store.take_over_batch(batch.id, other_run.id, other_task.id)
        assert (taken.run_id, taken.task_id) == (other_run.id, other_task.id)
        assert taken.updated_at == clock.now
        assert store.unfinished_batch("o/r") == taken
        with pytest.raises(BatchRefused, match=f"merge batch {batch.id} of o/r is conducted by"):
            store.save_batch(batch.id, train(car(1), landed=[1]), task_id=task.id)
        assert store.unfinished_batch("o/r") == taken
        saved = store.save_batch(batch.id, train(car(1), landed=[1]), task_id=other_task.id)
        assert saved.train["landed"] == [1]

    def test_a_claim_token_no_longer_the_tasks_is_refused(self, store):
        run, task = conductor(store)
        old = store.claim_task(task.id, "w1")
        batch = store.open_batch(run.id, task.id, "o/r", train(car(1)))
        store.release(old)
        new = store.claim_task(task.id, "w2")
        # The same task claimed again: only the new claim's conductor writes.
        with pytest.raises(BatchRefused, match="conducted by"):
            store.save_batch(batch.id, train(car(1), landed=[1]), task_id=task.id, token=old.token)
        saved = store.save_batch(
            batch.id, train(car(1), landed=[1]), task_id=task.id, token=new.token
        )
        assert saved.train["landed"] == [1]

    def test_an_ended_or_unknown_batch_is_not_taken_over(self, store):
        run, task = conductor(store)
        batch = store.open_batch(run.id, task.id, "o/r", train(car(1)))
        store.save_batch(batch.id, train(car(1), landed=[1]), BatchStatus.DONE, task_id=task.id)
        with pytest.raises(BatchRefused, match="is done"):
            store.take_over_batch(batch.id, run.id, task.id)
        with pytest.raises(BatchNotFound):
            store.take_over_batch(999, run.id, task.id)
