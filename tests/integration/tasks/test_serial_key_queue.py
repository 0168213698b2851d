"""Tasks of several runs waiting for one serialisation key (``merge:<repo>``), on every
backend: the end of the holder wakes the other runs' workers at once, and the key goes
to the task that became ready first, whichever run's worker asks first."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from ralph._process import Holder
from ralph.db import _postgres as postgres_db
from ralph.tasks import Event, EventKind, TaskNotClaimable, TaskStatus
from ralph.tasks._claims import SERIAL_QUEUE_PATIENCE_SECONDS
from tests.integration.tasks.test_store_contract import WAKE_BOUND_SECONDS, spec

KEY = "merge:o/r"


def merge_run(store, name, *, key=KEY, root=None):
    """A run whose merge waits for its pull request task (done by ``ready``); with
    ``root``, ``ralph hero root``'s run, its tasks on that issue."""
    issues = (root,) if root is not None else (1,)
    run = store.create_run(name, **({"root_issue": root, "mode": "hero"} if root else {}))
    pr, merge = store.add_tasks(
        run.id,
        [
            spec("pr", role="integrator", issues=issues),
            spec("merge", ["pr"], role="integrator", serial_key=key, issues=issues),
        ],
    )
    return run, pr, merge


def ready(store, run, pr):
    """Finish the run's pull request: its merge is ready from now on."""
    store.complete(store.claim_task(pr.id, f"{run.name}-pr"))


def holding_the_key(store, clock):
    """A run whose merge holds the key; returns its claim."""
    run, pr, merge = merge_run(store, "holder")
    ready(store, run, pr)
    clock.advance(1)
    return store.claim_task(merge.id, "holder-merge")


def gone_owner(worker="holder-merge"):
    """A holder name of a process of this machine that has exited."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait(timeout=30)
    return f"{socket.gethostname()}:{process.pid}/{worker}"


class TestAKeyWhoseHolderIsGoneIsTakenOver:
    """A run killed while its merge runs (a closed terminal, ``kill -9``) leaves the key
    to the first other run that asks for it: at once when the holder was a process of
    this machine, once its lease ran out otherwise."""

    def test_a_waiter_of_another_run_takes_the_key_of_a_process_of_this_machine_that_is_gone(
        self, make_store, clock
    ):
        store = make_store(clock=clock, lease_seconds=600.0)
        killed, pr_killed, merge_killed = merge_run(store, "killed")
        ready(store, killed, pr_killed)
        killed_by = gone_owner()
        store.claim_task(merge_killed.id, killed_by)
        run_b, pr_b, _ = merge_run(store, "b")
        ready(store, run_b, pr_b)
        clock.advance(1)  # far inside the holder's lease
        taken = store.claim(run_b.id, "b-merge", ["integrator"])
        assert taken.task.run_id == run_b.id
        back = store.get_task(merge_killed.id)
        assert (back.status, back.owner) == (TaskStatus.PENDING, None)
        assert back.attempts == 1  # the killed attempt counts, as a lease running out does
        assert "is gone" in (back.error or "")
        pid = Holder.parse(killed_by).pid
        assert back.waiting_for == f"its run to be run again (its process, pid {pid}, is gone)"
        store.complete(taken)
        # Until its run is run again, it holds no later run's merge back...
        clock.advance(1)
        later, pr_later, _ = merge_run(store, "later")
        ready(store, later, pr_later)
        later_merge = store.claim(later.id, "later-merge", ["integrator"])
        assert later_merge.task.run_id == later.id
        store.complete(later_merge)
        # ...and once it is (a session resuming a run wakes what waits), it merges.
        store.wake([merge_killed.id])
        assert store.claim(killed.id, "killed-merge", ["integrator"]).task.id == merge_killed.id

    def test_a_holder_of_another_machine_keeps_the_key_until_its_lease_runs_out(
        self, make_store, clock
    ):
        store = make_store(clock=clock, lease_seconds=60.0)
        far, pr_far, merge_far = merge_run(store, "far")
        ready(store, far, pr_far)
        store.claim_task(merge_far.id, f"not-{socket.gethostname()}:1/merge")
        run_b, pr_b, _ = merge_run(store, "b")
        ready(store, run_b, pr_b)
        clock.advance(30)
        assert store.claim(run_b.id, "b-merge", ["integrator"]) is None
        # Its own run never reaps it (killed): the waiter does, once the lease ran out.
        clock.advance(31)
        assert store.claim(run_b.id, "b-merge", ["integrator"]).task.run_id == run_b.id
        assert store.get_task(merge_far.id).status is TaskStatus.PENDING

    def test_a_holder_that_still_runs_keeps_the_key(self, make_store, clock):
        store = make_store(clock=clock, lease_seconds=600.0)
        alive, pr_alive, merge_alive = merge_run(store, "alive")
        ready(store, alive, pr_alive)
        store.claim_task(merge_alive.id, f"{socket.gethostname()}:{os.getpid()}/merge")
        run_b, pr_b, _ = merge_run(store, "b")
        ready(store, run_b, pr_b)
        clock.advance(1)
        assert store.claim(run_b.id, "b-merge", ["integrator"]) is None
        assert store.get_task(merge_alive.id).status is TaskStatus.RUNNING


class TestATaskWaitingForAKeyKnowsItsHolder:
    def test_a_task_ready_but_for_its_key_names_the_running_task_that_holds_it(
        self, make_store, clock
    ):
        store = make_store(clock=clock)
        holder = holding_the_key(store, clock)
        run_b, pr_b, merge_b = merge_run(store, "b")
        assert store.key_holders(run_b.id) == {}  # its pull request is not done yet
        ready(store, run_b, pr_b)
        held = store.key_holders(run_b.id)
        assert list(held) == [merge_b.id]
        assert (held[merge_b.id].id, held[merge_b.id].owner) == (holder.task_id, "holder-merge")
        store.complete(holder)
        assert store.key_holders(run_b.id) == {}


class TestTheEndOfAKeyHolderWakesOtherRuns:
    def test_a_waiter_of_another_run_wakes_when_the_merge_ends(
        self, make_store, backend, clock, monkeypatch
    ):
        # Only the wake-up can end the wait within the bound: PostgreSQL's fallback poll
        # is pushed past it, and run B gets no event of its own.
        monkeypatch.setattr(postgres_db, "FALLBACK_POLL_SECONDS", 10 * WAKE_BOUND_SECONDS)
        store = make_store(clock=clock)
        holder = holding_the_key(store, clock)
        run_b, pr_b, _merge_b = merge_run(store, "b")
        ready(store, run_b, pr_b)
        assert store.claim(run_b.id, "b-merge", ["integrator"]) is None  # the key is busy
        cursor = store.events(run_b.id)[-1].id
        other = make_store(clock=clock) if backend != "memory" else store
        woke: list[tuple[float, list[Event]]] = []
        thread = threading.Thread(
            target=lambda: woke.append(
                (
                    time.monotonic(),
                    other.wait_for_events(run_b.id, cursor, timeout=WAKE_BOUND_SECONDS),
                )
            )
        )
        thread.start()
        time.sleep(0.2)  # the waiter is asleep on run B's events
        store.complete(holder)
        ended = time.monotonic()
        thread.join(timeout=2 * WAKE_BOUND_SECONDS)
        assert woke, "the waiter never returned"
        woke_at, events = woke[0]
        assert [(e.kind, e.task_id, e.data) for e in events] == [
            (EventKind.KEY_FREED, None, {"key": KEY})
        ], "it timed out instead"
        assert woke_at - ended < WAKE_BOUND_SECONDS / 2
        assert other.claim(run_b.id, "b-merge", ["integrator"]).task.key == "merge"

    @pytest.mark.parametrize("ending", ["complete", "fail", "release", "defer", "cancel", "reap"])
    def test_every_way_a_holder_stops_running_frees_the_key_for_the_others(
        self, make_store, clock, ending
    ):
        store = make_store(clock=clock, lease_seconds=60.0)
        holder = holding_the_key(store, clock)
        run_b, pr_b, _ = merge_run(store, "b")
        ready(store, run_b, pr_b)
        cursor = store.events(run_b.id)[-1].id
        if ending == "complete":
            store.complete(holder)
        elif ending == "fail":
            store.fail(holder, "broke")
        elif ending == "release":
            store.release(holder)
        elif ending == "defer":
            store.defer(holder, until=clock.now + 600, waiting_for="checks", for_person=False)
        elif ending == "cancel":
            store.cancel(holder.task_id)
        else:
            clock.advance(120)
            store.reap()
        assert [e.kind for e in store.events(run_b.id, cursor)] == [EventKind.KEY_FREED]
        # A released merge is ready again at once, and was first in line: it goes first.
        first = holder.task.run_id if ending == "release" else run_b.id
        assert store.claim(first, "merger", ["integrator"]).task.key == "merge"

    def test_only_runs_with_a_task_pending_on_that_key_are_woken(self, make_store, clock):
        store = make_store(clock=clock)
        merged, pr, _ = merge_run(store, "merged")
        ready(store, merged, pr)
        store.complete(store.claim(merged.id, "m", ["integrator"]))
        holder = holding_the_key(store, clock)
        other_repo, pr_other, _ = merge_run(store, "other-repo", key="merge:o/other")
        ready(store, other_repo, pr_other)
        runs = (merged.id, other_repo.id, holder.task.run_id)
        cursors = {run_id: store.events(run_id)[-1].id for run_id in runs}
        store.complete(holder)
        news = {run_id: [e.kind for e in store.events(run_id, cursors[run_id])] for run_id in runs}
        assert news == {merged.id: [], other_repo.id: [], holder.task.run_id: [EventKind.TASK_DONE]}


class TestTheKeyGoesToTheFirstInLine:
    def test_merges_of_several_runs_are_claimed_in_the_order_they_became_ready(
        self, make_store, clock
    ):
        store = make_store(clock=clock)
        holder = holding_the_key(store, clock)
        runs = {name: merge_run(store, name) for name in ("a", "b", "c")}
        for name in ("b", "c", "a"):  # ready in this order, not in the order of their ids
            run, pr, _ = runs[name]
            ready(store, run, pr)
            clock.advance(1)
        store.complete(holder)
        order = []
        for _ in range(3):
            # Every run's worker asks, the last in line first: only the first gets it.
            claims = [
                store.claim(runs[name][0].id, f"{name}-merge", ["integrator"])
                for name in ("a", "c", "b")
            ]
            taken = [claim for claim in claims if claim is not None]
            assert len(taken) == 1
            order.append(store.get_run(taken[0].task.run_id).name)
            store.complete(taken[0])
        assert order == ["b", "c", "a"]

    def test_claiming_a_task_by_id_out_of_line_is_refused(self, make_store, clock):
        store = make_store(clock=clock)
        first, pr_first, _ = merge_run(store, "first")
        later, pr_later, merge_later = merge_run(store, "later")
        ready(store, first, pr_first)
        clock.advance(1)
        ready(store, later, pr_later)
        with pytest.raises(TaskNotClaimable, match="was ready first"):
            store.claim_task(merge_later.id, "later-merge")
        assert store.claim(first.id, "first-merge", ["integrator"]) is not None

    def test_a_task_nobody_claims_holds_the_others_back_only_for_a_while(self, make_store, clock):
        store = make_store(clock=clock)
        stale, pr_stale, _ = merge_run(store, "stale")  # its process is gone, say
        ready(store, stale, pr_stale)
        clock.advance(1)
        live, pr_live, _ = merge_run(store, "live")
        ready(store, live, pr_live)
        assert store.claim(live.id, "live-merge", ["integrator"]) is None
        clock.advance(SERIAL_QUEUE_PATIENCE_SECONDS)
        assert store.claim(live.id, "live-merge", ["integrator"]).task.key == "merge"

    def test_a_run_that_is_stopping_or_finished_holds_nobody_back(self, make_store, clock):
        store = make_store(clock=clock)
        stopping, pr_stopping, _ = merge_run(store, "stopping")
        finished, pr_finished, _ = merge_run(store, "finished")
        ready(store, stopping, pr_stopping)
        ready(store, finished, pr_finished)
        clock.advance(1)
        live, pr_live, _ = merge_run(store, "live")
        ready(store, live, pr_live)
        store.request_shutdown(stopping.id)
        store.finish_run(finished.id)
        assert store.claim(live.id, "live-merge", ["integrator"]).task.key == "merge"

    def test_a_task_waiting_for_its_time_is_not_in_line_yet(self, make_store, clock):
        store = make_store(clock=clock)
        waiting, pr_waiting, _ = merge_run(store, "waiting")
        ready(store, waiting, pr_waiting)
        claim = store.claim(waiting.id, "w-merge", ["integrator"])
        store.defer(claim, until=clock.now + 300, waiting_for="checks", for_person=False)
        live, pr_live, _ = merge_run(store, "live")
        clock.advance(1)
        ready(store, live, pr_live)
        assert store.claim(live.id, "live-merge", ["integrator"]).task.key == "merge"
