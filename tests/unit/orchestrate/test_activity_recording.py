"""A running task's agent activity reaches the store: throttled while the agent
works, at once when its run ends, and never after the task stopped being the
worker's."""

from __future__ import annotations

import time

import pytest

from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate._activity import recording_activity
from ralph.runtimes import ActivityFeed
from ralph.tasks import EventKind, open_store

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def store():
    with open_store("memory://") as store:
        yield store


def claimed(store):
    run = store.create_run("r")
    store.add_tasks(
        run.id,
        [
            TaskSpec(
                key="a",
                kind=TaskKind.IMPLEMENT,
                role=Role.BUILDER,
                issues=(1,),
                subject="a",
                active_form="a",
            )
        ],
    )
    claim = store.claim(run.id, "w", ["builder"])
    assert claim is not None
    return run, claim


def activity_events(store, run):
    return [e for e in store.events(run.id) if e.kind is EventKind.TASK_ACTIVITY]


def test_a_chatty_agent_costs_one_write_per_interval(store):
    run, claim = claimed(store)
    feed = ActivityFeed("claude")
    with recording_activity(store, claim, feed, every=0.2):
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            feed.tool("Read", "a.py")
            time.sleep(0.005)
    writes = len(activity_events(store, run))
    assert 2 <= writes <= 7  # ~1 s / 0.2 s, whatever the machine's load
    assert store.get_task(claim.task_id).metadata["activity"]["tool"] == "Read a.py"


def test_a_quiet_agent_costs_nothing(store):
    run, claim = claimed(store)
    with recording_activity(store, claim, ActivityFeed(), every=0.05):
        time.sleep(0.3)
    assert activity_events(store, run) == []


def test_the_end_of_an_agent_run_is_written_at_once(store):
    run, claim = claimed(store)
    feed = ActivityFeed("codex")
    with recording_activity(store, claim, feed, every=3600):
        feed.turn()
        feed.tool("Read", "a.py")
        feed.ended(turns=4, tokens=900)
        kept = store.get_task(claim.task_id).metadata["activity"]
    assert (kept["turns"], kept["tokens"], kept["ended"]) == (4, 900, True)
    assert "turn 4 · 900 tokens · Read a.py" in [
        e.data["summary"] for e in activity_events(store, run)
    ]


def test_an_agent_s_first_step_is_written_at_once_with_what_follows_right_behind(store):
    run, claim = claimed(store)
    feed = ActivityFeed("claude")
    with recording_activity(store, claim, feed, every=3600):
        feed.begin("claude")  # nothing to show yet
        feed.turn()
        feed.tool("Read", "a.py")
        deadline = time.monotonic() + 10
        while not activity_events(store, run) and time.monotonic() < deadline:
            time.sleep(0.02)
        first = [e.data["summary"] for e in activity_events(store, run)]
        feed.tool("Edit", "a.py")  # within the interval: held
        time.sleep(0.5)
        second = [e.data["summary"] for e in activity_events(store, run)]
    assert first == second == ["turn 1 · Read a.py"]


def test_nothing_is_written_once_the_task_is_no_longer_the_workers(store):
    run, claim = claimed(store)
    feed = ActivityFeed()
    with recording_activity(store, claim, feed, every=0.05):
        store.complete(claim, None)
        feed.tool("Edit", "a.py")
        feed.ended(turns=1)
        time.sleep(0.2)
    assert activity_events(store, run) == []
    assert "activity" not in store.get_task(claim.task_id).metadata
