"""What live agent activity costs the task store. Not a test.

A simulated chatty agent (a tool call, a turn and its tokens every 50 ms: 1,200 events a
minute, more than Claude Code streams) works on a claimed task while the worker's
recorder keeps its activity on the task, as in a run. For SQLite (a file) and
PostgreSQL, measured in one run:
- activity writes per agent minute (the throttle's doing: one per interval at most);
- the median time of one write (the task row and its task_activity event, together);
- the store time activity adds per agent minute, beside the heartbeats a running task
  writes anyway (one per sixth of its lease).

Goal (issue 35): activity adds at most 30 writes per agent minute, whatever the agent.

    make bench-activity    # or: .venv/bin/python benchmarks/bench_activity.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from benchmarks._stores import fresh_store
from benchmarks.bench_store import PG_URL, postgres_reachable
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate._activity import ACTIVITY_EVERY_SECONDS, recording_activity
from ralph.runtimes import ActivityFeed
from ralph.tasks import Claim, EventKind, Run, TaskStore, open_store

#: How long the chatty agent works per backend (seconds of wall time).
AGENT_SECONDS = pick(20.0, 1.0)
#: Seconds between two of its events.
EVENT_EVERY = 0.05
WRITE_SAMPLES = pick(300, 10)


def claimed(store: TaskStore) -> tuple[Run, Claim]:
    run = store.create_run("bench-activity")
    spec = TaskSpec(
        key="implement:1",
        kind=TaskKind.IMPLEMENT,
        role=Role.BUILDER,
        issues=(1,),
        subject="I",
        active_form="I",
    )
    store.add_tasks(run.id, [spec])
    claim = store.claim(run.id, "bench", ["builder"])
    assert claim is not None
    return run, claim


def chatty_agent(store: TaskStore) -> tuple[float, int]:
    """Writes per agent minute, and the events the agent reported."""
    run, claim = claimed(store)
    feed = ActivityFeed("simulated")
    reported = 0
    started = time.monotonic()
    with recording_activity(store, claim, feed):
        while time.monotonic() - started < AGENT_SECONDS:
            feed.turn()
            feed.usage(tokens=1500, cost_usd=0.002)
            feed.tool("Edit", f"src/module_{reported % 7}.py")
            reported += 3
            time.sleep(EVENT_EVERY)
    minutes = (time.monotonic() - started) / 60
    writes = sum(1 for e in store.events(run.id) if e.kind is EventKind.TASK_ACTIVITY)
    return writes / minutes, reported


def write_ms(store: TaskStore) -> float:
    _, claim = claimed(store)
    feed = ActivityFeed("simulated")
    samples = []
    for n in range(WRITE_SAMPLES):
        feed.tool("Read", f"file_{n}.py")
        activity = feed.snapshot()
        began = time.perf_counter()
        store.record_activity(claim, activity.to_dict(), activity.summary())
        samples.append((time.perf_counter() - began) * 1000)
    return statistics.median(samples)


def heartbeat_ms(store: TaskStore) -> float:
    _, claim = claimed(store)
    samples = []
    for _ in range(WRITE_SAMPLES):
        began = time.perf_counter()
        store.heartbeat(claim)
        samples.append((time.perf_counter() - began) * 1000)
    return statistics.median(samples)


def measure(url: str) -> dict[str, float]:
    with open_store(url) as store:
        per_minute, reported = chatty_agent(store)
        figures = {
            "writes": per_minute,
            "reported": reported / (AGENT_SECONDS / 60),
            "write_ms": write_ms(store),
            "beat_ms": heartbeat_ms(store),
            "beats": 60 / (store.lease_seconds / 6),
        }
    return figures


def main() -> None:
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        results["sqlite"] = measure(f"sqlite:///{folder}/bench.db")
    if postgres_reachable():
        with fresh_store(PG_URL, "bench_activity") as url:
            assert url is not None
            results["postgres"] = measure(url)
    print(
        f"a chatty agent for {AGENT_SECONDS:g} s per backend, recorder interval "
        f"{ACTIVITY_EVERY_SECONDS:g} s:"
    )
    print(
        f"  {'backend':>8} {'events/min':>10} {'writes/min':>10} {'write ms':>9} "
        f"{'beats/min':>9} {'beat ms':>8} {'store ms/agent min':>19} {'vs heartbeats':>13}"
    )
    for backend, f in results.items():
        activity_ms = f["writes"] * f["write_ms"]
        beats_ms = f["beats"] * f["beat_ms"]
        print(
            f"  {backend:>8} {f['reported']:>10.0f} {f['writes']:>10.1f} {f['write_ms']:>9.2f} "
            f"{f['beats']:>9.0f} {f['beat_ms']:>8.2f} {activity_ms:>19.1f} "
            f"{activity_ms / beats_ms if beats_ms else 0:>12.1f}x"
        )
    goal = 60 / ACTIVITY_EVERY_SECONDS
    worst = max(f["writes"] for f in results.values())
    print(f"goal: at most {goal:.0f} activity writes per agent minute; worst measured {worst:.1f}")


if __name__ == "__main__":
    main()
