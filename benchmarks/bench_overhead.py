"""What orchestration costs per task, with agents that take no time.

1. The demo epic (triage, split, 3 x research, plan, review, 3 x implement, PR, merge)
   through ``run_session`` on the local tracker over SQLite, one worker: wall time, the
   time inside the phase runner (git, documents, comments, worktrees: the phases'
   own mechanics), and the rest per task: claims, heartbeats, completions, graph
   rewrites, the lead's looks and the workers' wake-ups.
2. The engine alone: 200 independent no-op tasks through a crew of workers and the lead
   (no phases), SQLite and memory: tasks per second.

Goal (issue: orchestration): under 50 ms of orchestration per task on SQLite.

Goal (issue: house in order): memory:// within 2x of the dict-based store it replaced.
That store's figures, measured interleaved with the SQL store's on the same loaded 2-core
machine before it was deleted, are printed beside today's with the ratio. A listing
reads in full only the tasks whose revision changed; the rest of the gap is SQL itself.

    make bench-overhead    # or: .venv/bin/python benchmarks/bench_overhead.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.demo import demo_project
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate import (
    Execution,
    ExecutionStatus,
    SessionOptions,
    Worker,
    hero_crew,
    run_session,
)
from ralph.phases import PhaseRunner
from ralph.runtimes import StopSignal
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import Claim, TaskStatus, TaskStore, open_store

REPEATS = pick(5, 1)
NOOP_TASKS = pick(200, 20)
#: Tasks per second of the dict-based memory store memory:// replaced, by workers.
DICT_STORE_TASKS_PER_SECOND = {1: 1467, 4: 2724}


def one_epic(folder: Path) -> tuple[float, float, int]:
    """(wall seconds, seconds inside the phase runner, tasks run) for one demo epic."""
    inside = [0.0]
    original = PhaseRunner.run

    def timed(self: PhaseRunner, *args: object, **kwargs: object) -> object:
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)  # type: ignore[arg-type]
        finally:
            inside[0] += time.perf_counter() - start

    PhaseRunner.run = timed  # type: ignore[method-assign,assignment]
    try:
        with demo_project(folder / "greet") as (project, epic):
            start = time.perf_counter()
            options = SessionOptions.from_config(project.config, mode="hero")
            result = run_session(project, epic, ScriptedRuntime(env={}), options, crew=hero_crew(1))
            wall = time.perf_counter() - start
            assert result.run is not None
            ran = len(project.store.list_tasks(result.run.id, status=TaskStatus.DONE))
    finally:
        PhaseRunner.run = original  # type: ignore[method-assign]
    return wall, inside[0], ran


def noop_engine(store: TaskStore, workers: int) -> float:
    """Seconds for NOOP_TASKS independent no-op tasks through ``workers`` claim loops."""
    run = store.create_run("bench", root_issue=1)
    store.add_tasks(
        run.id,
        [
            TaskSpec(f"t{i}", TaskKind.RESEARCH, Role.ANALYST, (i,), f"Task {i}", "")
            for i in range(NOOP_TASKS)
        ],
    )

    def execute(claim: Claim, stop: StopSignal) -> Execution:
        store.complete(claim, {})
        return Execution(claim.task_id, ExecutionStatus.DONE)

    options = SessionOptions()
    crew = [Worker(store, run.id, f"w{i}", ["analyst"], execute, options) for i in range(workers)]
    threads = [threading.Thread(target=w.run, daemon=True) for w in crew]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    cursor = 0
    while len(store.list_tasks(run.id, status=TaskStatus.DONE)) < NOOP_TASKS:
        events = store.wait_for_events(run.id, cursor, 0.05)
        cursor = events[-1].id if events else cursor
    elapsed = time.perf_counter() - start
    options.interrupt.stopping.set()
    store.request_shutdown(run.id)
    for thread in threads:
        thread.join()
    return elapsed


def main() -> None:
    walls, phases, counts = [], [], []
    for _ in range(REPEATS):
        with tempfile.TemporaryDirectory() as folder:
            wall, inside, ran = one_epic(Path(folder))
        walls.append(wall)
        phases.append(inside)
        counts.append(ran)
    wall, inside, ran = statistics.median(walls), statistics.median(phases), counts[0]
    print(f"demo epic, hero, 1 worker, SQLite: median of {REPEATS}")
    print(f"  {ran} tasks done in {wall * 1000:.0f} ms: {ran / wall:.1f} tasks/s")
    print(f"  inside the phase runner: {inside * 1000 / ran:.1f} ms per task")
    print(f"  orchestration:           {(wall - inside) * 1000 / ran:.1f} ms per task")
    print(f"engine alone, {NOOP_TASKS} no-op tasks:")
    for label, make in (
        ("memory", lambda _folder: open_store("memory://")),
        ("SQLite", lambda folder: open_store(f"sqlite:///{Path(folder) / 'b.db'}")),
    ):
        for workers in (1, 4):
            times = []
            for _ in range(3):
                with tempfile.TemporaryDirectory() as folder:
                    store = make(folder)
                    times.append(noop_engine(store, workers))
                    store.close()
            seconds = statistics.median(times)
            rate = NOOP_TASKS / seconds
            print(
                f"  {label:<7} {workers} worker(s): {rate:7.0f} tasks/s, "
                f"{seconds * 1000 / NOOP_TASKS:.2f} ms per task"
            )
            if label == "memory":
                before = DICT_STORE_TASKS_PER_SECOND[workers]
                print(f"{'':10}the dict store it replaced: {before} tasks/s, {before / rate:.2f}x")


if __name__ == "__main__":
    main()
