"""Task store throughput and wake latency, with procrastinate as the yardstick. Not a test.

For SQLite and PostgreSQL, with 1, 4 and 8 worker processes:
- throughput: independent tasks claimed and completed per second (no work in between);
- wake latency: from the moment a blocker's completion commits to an idle worker holding
  the task that waited for it (p50 / p99 over many rounds).
For every backend (memory too), in one process: how soon a thread idle in
``wait_for_events`` on a store of its own returns after another completes a blocker (the
median; the store contract tests only that it wakes, within a generous bound).
On the same PostgreSQL server, procrastinate runs the equivalent defer / fetch / finish
loop and our PostgreSQL throughput is printed as a ratio to it.

Goals (issue: task store): SQLite wake p50 < 50 ms, PostgreSQL wake p50 < 20 ms,
PostgreSQL throughput >= procrastinate's.

    make bench-store      # or: .venv/bin/python benchmarks/bench_store.py [--tasks N]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import quote

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.tasks import TaskStatus, open_store

PG_URL = os.environ.get("RALPH_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
WORKER_COUNTS = pick((1, 4, 8), (1,))
LATENCY_ROUNDS = pick(60, 3)
THREAD_WAKE_ROUNDS = pick(40, 3)

WORKER = r"""
import sys, time
from ralph.tasks import TaskStatus, open_store
url, run_id, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
store = open_store(url)
print("ready", flush=True)
sys.stdin.readline()
if mode == "drain":
    while True:
        claim = store.claim(run_id, "w", ["analyst"])
        if claim is None:
            if not store.list_tasks(run_id, status=TaskStatus.PENDING):
                break
            continue
        store.complete(claim)
else:  # wait: an idle builder, woken by events, reports when it holds a task
    cursor = 0
    while True:
        claim = store.claim(run_id, "w", ["builder"])
        if claim is not None:
            print(f"{claim.task.key} {time.time()}", flush=True)
            store.complete(claim)
            if claim.task.key == "stop":
                break
            continue
        events = store.wait_for_events(run_id, cursor, 5.0)
        if events:
            cursor = events[-1].id
store.close()
"""

PROCRASTINATE_WORKER = r"""
import logging, sys, procrastinate
logging.disable(logging.WARNING)
app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=sys.argv[1]))
@app.task(name="noop")
def noop():
    pass
print("ready", flush=True)
sys.stdin.readline()
app.run_worker(wait=False, concurrency=1, install_signal_handlers=False, delete_jobs="never")
"""


def pg_schema_url() -> tuple[str, str]:
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_URL, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    return schema, f"{PG_URL}?options={quote(f'-csearch_path={schema}')}"


def drop_schema(schema: str) -> None:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA {schema} CASCADE")


def start(script: str, *args: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    return process


def go(processes: list[subprocess.Popen[str]]) -> float:
    started = time.perf_counter()
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    for process in processes:
        process.communicate(timeout=600)
    return time.perf_counter() - started


def specs(count: int, role: Role = Role.ANALYST, prefix: str = "t") -> list[TaskSpec]:
    kind = TaskKind.RESEARCH if role is Role.ANALYST else TaskKind.PLAN
    return [TaskSpec(f"{prefix}{i}", kind, role, (1,), "s", "s") for i in range(count)]


def throughput(url: str, tasks: int, workers: int) -> float:
    with open_store(url) as store:
        run = store.create_run("bench")
        store.add_tasks(run.id, specs(tasks))
    processes = [start(WORKER, url, str(run.id), "drain") for _ in range(workers)]
    elapsed = go(processes)
    with open_store(url) as store:
        assert len(store.list_tasks(run.id, status=TaskStatus.DONE)) == tasks
    return tasks / elapsed


def wake_latency(url: str) -> list[float]:
    """Each round: a blocker (claimed by us) and a builder task waiting on it; we complete
    the blocker and the idle worker reports when it holds the dependent task."""
    with open_store(url) as store:
        run = store.create_run("latency")
        waiter = start(WORKER, url, str(run.id), "wait")
        assert waiter.stdin is not None
        assert waiter.stdout is not None
        waiter.stdin.write("go\n")
        waiter.stdin.flush()
        samples = []
        for round_ in range(LATENCY_ROUNDS):
            blocker = TaskSpec(f"b{round_}", TaskKind.RESEARCH, Role.ANALYST, (1,), "s", "s")
            dependent = TaskSpec(
                f"d{round_}", TaskKind.PLAN, Role.BUILDER, (1,), "s", "s", (blocker.key,)
            )
            store.add_tasks(run.id, [blocker, dependent])
            claim = store.claim(run.id, "main", ["analyst"])
            assert claim is not None
            time.sleep(0.05)  # let the waiter go idle
            committed = time.time()  # just before the commit: the latency is not understated
            store.complete(claim)
            key, held = waiter.stdout.readline().split()
            assert key == dependent.key
            samples.append((float(held) - committed) * 1000)
        store.add_tasks(run.id, [TaskSpec("stop", TaskKind.PLAN, Role.BUILDER, (1,), "s", "s")])
        waiter.communicate(timeout=30)
    return samples


def thread_wake_latency(url: str) -> list[float]:
    """Each round: a thread waits for events on its own store (the same one for memory://)
    while we complete a claimed blocker; milliseconds from the complete call to its return."""
    samples = []
    with open_store(url) as store:
        other = store if url.startswith("memory:") else open_store(url)
        try:
            run = store.create_run("thread wake")
            for round_ in range(THREAD_WAKE_ROUNDS):
                blocker = TaskSpec(f"b{round_}", TaskKind.RESEARCH, Role.ANALYST, (1,), "s", "s")
                store.add_tasks(run.id, [blocker])
                claim = store.claim(run.id, "main", ["analyst"])
                assert claim is not None
                cursor = store.events(run.id)[-1].id
                woke: list[float] = []

                def wait(cursor: int = cursor, woke: list[float] = woke) -> None:
                    assert other.wait_for_events(run.id, cursor, timeout=10.0)
                    woke.append(time.perf_counter())

                waiter = threading.Thread(target=wait)
                waiter.start()
                time.sleep(0.05)  # let the waiter go idle
                completing = time.perf_counter()
                store.complete(claim)
                waiter.join(timeout=30)
                assert woke, "the waiter never woke"
                samples.append((woke[0] - completing) * 1000)
        finally:
            if other is not store:
                other.close()
    return samples


def procrastinate_throughput(tasks: int, workers: int) -> float:
    import procrastinate

    schema, url = pg_schema_url()
    try:
        app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))

        @app.task(name="noop")
        def noop() -> None:
            pass

        async def prepare() -> None:
            async with app.open_async():
                await app.schema_manager.apply_schema_async()
                await noop.batch_defer_async(*[{} for _ in range(tasks)])

        asyncio.run(prepare())
        processes = [start(PROCRASTINATE_WORKER, url) for _ in range(workers)]
        return tasks / go(processes)
    finally:
        drop_schema(schema)


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def postgres_reachable() -> bool:
    """Whether PG_URL answers; without it the PostgreSQL figures are left out."""
    import psycopg

    try:
        psycopg.connect(PG_URL, connect_timeout=5).close()
    except Exception as exc:  # a benchmark reports what it could measure
        print(f"(PostgreSQL skipped: {exc})", file=sys.stderr)
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=pick(2000, 20))
    args = parser.parse_args()

    results: dict[str, dict[int, float]] = {"sqlite": {}, "postgres": {}, "procrastinate": {}}
    latency: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as directory:
        for workers in WORKER_COUNTS:
            url = f"sqlite:///{Path(directory) / f'bench-{workers}.db'}"
            results["sqlite"][workers] = throughput(url, args.tasks, workers)
        latency["sqlite"] = wake_latency(f"sqlite:///{Path(directory) / 'latency.db'}")
    postgres = postgres_reachable()
    for workers in WORKER_COUNTS if postgres else ():
        schema, url = pg_schema_url()
        try:
            results["postgres"][workers] = throughput(url, args.tasks, workers)
        finally:
            drop_schema(schema)
        results["procrastinate"][workers] = procrastinate_throughput(args.tasks, workers)
    if postgres:
        schema, url = pg_schema_url()
        try:
            latency["postgres"] = wake_latency(url)
        finally:
            drop_schema(schema)
    thread_latency = {"memory": thread_wake_latency("memory://")}
    with tempfile.TemporaryDirectory() as directory:
        thread_latency["sqlite"] = thread_wake_latency(f"sqlite:///{Path(directory) / 't.db'}")
    if postgres:
        schema, url = pg_schema_url()
        try:
            thread_latency["postgres"] = thread_wake_latency(url)
        finally:
            drop_schema(schema)

    print(f"claim+complete throughput, {args.tasks} tasks, tasks/s (2 cores):")
    print(f"  {'workers':>7} {'sqlite':>9} {'postgres':>9} {'procrastinate':>14} {'pg/procr.':>10}")
    for workers in WORKER_COUNTS:
        sqlite_rate = results["sqlite"][workers]
        pg_rate = results["postgres"].get(workers, math.nan)
        procrastinate_rate = results["procrastinate"].get(workers, math.nan)
        print(
            f"  {workers:>7} {sqlite_rate:>9.0f} {pg_rate:>9.0f} {procrastinate_rate:>14.0f}"
            f" {pg_rate / procrastinate_rate:>10.2f}"
        )
    goals = {"sqlite": 50.0, "postgres": 20.0}
    print(f"wake latency, blocker commit -> idle worker holds dependent ({LATENCY_ROUNDS} rounds):")
    for backend, samples in latency.items():
        p50, p99 = statistics.median(samples), percentile(samples, 0.99)
        verdict = "meets" if p50 < goals[backend] else "MISSES"
        print(
            f"  {backend:>8}: p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  "
            f"goal p50 < {goals[backend]:.0f} ms ({verdict}, ratio {p50 / goals[backend]:.2f})"
        )
    print(f"wake latency, complete -> a waiting thread returns ({THREAD_WAKE_ROUNDS} rounds):")
    for backend, samples in thread_latency.items():
        print(f"  {backend:>8}: median {statistics.median(samples):6.1f} ms")


if __name__ == "__main__":
    main()
