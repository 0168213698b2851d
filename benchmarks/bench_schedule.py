"""How close the upfront task graph with self-claiming workers comes to the best possible
schedule, against the original's "bough" model (each phase created when the last ends).
Synthetic agent durations; no Ralph I/O.

Random pipelines shaped like Ralph's (groups of issues: research per issue, one plan,
one review, implementation per issue in order, PR, merge) are scheduled on W workers:

- upfront: the whole graph exists from the start, stored in ``TaskGraph.critical_first``
  order (from typical efforts per kind, not the true durations); a free worker claims
  the oldest claimable task at once (what ``TaskStore.claim`` does). The same model in
  plain creation order is shown too;
- bough: as the original's lead does it, a group's next phase is created only when its
  current phase has converged, by one lead that takes ``LEAD_SECONDS`` per decision and
  makes one decision at a time.

Printed: median makespan / lower bound, where the bound is max(critical path, total work
/ W). Goal (issue: orchestration): upfront within 1.10 of the bound; bough's cost shown.

    .venv/bin/python benchmarks/bench_schedule.py
"""

from __future__ import annotations

import heapq
import random
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.graph import ROLE_OF_KIND, TaskGraph, TaskKind, TaskSpec

GRAPHS = pick(200, 5)
KINDS = [
    TaskKind.RESEARCH,
    TaskKind.PLAN,
    TaskKind.REVIEW,
    TaskKind.IMPLEMENT,
    TaskKind.PR,
    TaskKind.MERGE,
]
#: One lead decision (an LLM turn that reads the board and creates the next tasks), seconds.
LEAD_SECONDS = 30.0


@dataclass
class Task:
    id: int
    group: int
    phase: int
    seconds: float
    deps: list[int] = field(default_factory=list)


def pipeline(rng: random.Random) -> list[Task]:
    """1-4 groups of 1-5 issues with agent-like durations (seconds)."""
    tasks: list[Task] = []

    def add(group: int, phase: int, seconds: float, deps: list[int]) -> int:
        tasks.append(Task(len(tasks), group, phase, seconds, deps))
        return len(tasks) - 1

    for group in range(rng.randint(1, 4)):
        issues = rng.randint(1, 5)
        research = [add(group, 0, rng.uniform(180, 600), []) for _ in range(issues)]
        plan = add(group, 1, rng.uniform(300, 600), research)
        last = add(group, 2, rng.uniform(120, 300), [plan])
        for _ in range(issues):
            last = add(group, 3, rng.uniform(300, 1200), [last])
        last = add(group, 4, rng.uniform(30, 90), [last])
        add(group, 5, rng.uniform(30, 90), [last])
    return tasks


def lower_bound(tasks: list[Task], workers: int) -> float:
    finish: dict[int, float] = {}
    for task in tasks:
        finish[task.id] = task.seconds + max((finish[d] for d in task.deps), default=0.0)
    return max(max(finish.values()), sum(t.seconds for t in tasks) / workers)


def claim_order(tasks: list[Task]) -> dict[int, int]:
    """Each task's position in the store when Ralph writes the graph."""
    specs = [
        TaskSpec(
            str(t.id),
            KINDS[t.phase],
            ROLE_OF_KIND[KINDS[t.phase]],
            (t.group,),
            "",
            "",
            tuple(str(d) for d in t.deps),
        )
        for t in tasks
    ]
    return {int(spec.key): i for i, spec in enumerate(TaskGraph(tuple(specs)).critical_first())}


def simulate(
    tasks: list[Task], workers: int, *, bough: bool, order: dict[int, int] | None = None
) -> float:
    """Event-driven list scheduling, oldest claimable first; returns the makespan."""
    rank = order or {t.id: t.id for t in tasks}
    done: set[int] = set()
    visible: set[int] = set()
    started: set[int] = set()
    phases = {(t.group, t.phase) for t in tasks}
    if bough:
        first = {g: min(p for gg, p in phases if gg == g) for g, _ in phases}
        visible = {t.id for t in tasks if t.phase == first[t.group]}
    else:
        visible = {t.id for t in tasks}
    running: list[tuple[float, int]] = []
    lead_free = 0.0
    decisions: list[tuple[float, int, int]] = []  # (when the lead acts, group, phase)
    now = 0.0
    free = workers
    while len(done) < len(tasks):
        ready = sorted(
            (
                t.id
                for t in tasks
                if t.id in visible and t.id not in started and all(d in done for d in t.deps)
            ),
            key=rank.__getitem__,
        )
        while free and ready:
            task_id = ready.pop(0)
            started.add(task_id)
            heapq.heappush(running, (now + tasks[task_id].seconds, task_id))
            free -= 1
        upcoming = [running[0][0]] if running else []
        upcoming += [when for when, _, _ in decisions]
        now = min(upcoming)
        while running and running[0][0] <= now:
            _, task_id = heapq.heappop(running)
            done.add(task_id)
            free += 1
            task = tasks[task_id]
            if bough and all(
                t.id in done for t in tasks if (t.group, t.phase) == (task.group, task.phase)
            ):
                later = [p for g, p in phases if g == task.group and p > task.phase]
                if later:  # the lead notices, one decision at a time
                    lead_free = max(lead_free, now) + LEAD_SECONDS
                    decisions.append((lead_free, task.group, min(later)))
        for decision in [d for d in decisions if d[0] <= now]:
            decisions.remove(decision)
            _, group, phase = decision
            visible |= {t.id for t in tasks if (t.group, t.phase) == (group, phase)}
    return now


def main() -> None:
    rng = random.Random(7)
    graphs = [pipeline(rng) for _ in range(GRAPHS)]
    print(f"{GRAPHS} random pipelines; lead decision {LEAD_SECONDS:.0f}s in the bough model")
    print("median makespan / lower bound (p90 for upfront); last column: bough / upfront")
    print(
        f"{'workers':>7} {'upfront':>8} {'p90':>6} {'creation order':>15} {'bough':>6} {'gain':>6}"
    )
    for workers in (2, 4, 8):
        up, plain, bo, gain = [], [], [], []
        for tasks in graphs:
            bound = lower_bound(tasks, workers)
            upfront = simulate(tasks, workers, bough=False, order=claim_order(tasks))
            boughs = simulate(tasks, workers, bough=True)
            up.append(upfront / bound)
            plain.append(simulate(tasks, workers, bough=False) / bound)
            bo.append(boughs / bound)
            gain.append(boughs / upfront)
        p90 = statistics.quantiles(up, n=10)[-1]
        print(
            f"{workers:>7} {statistics.median(up):>8.3f} {p90:>6.3f} "
            f"{statistics.median(plain):>15.3f} {statistics.median(bo):>6.3f} "
            f"{statistics.median(gain):>6.3f}"
        )


if __name__ == "__main__":
    main()
