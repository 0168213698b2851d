"""Pipeline algorithms at scale. Prints medians; not a test.

Goal (issue: foundation): closure plus topological sort of 10,000 issues in under 100 ms.

    make bench    # or: .venv/bin/python benchmarks/bench_pipeline.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.graph import build_task_graph
from ralph.pipeline import (
    FileOwnership,
    IssueRelations,
    IssueState,
    detect_group,
    detect_position,
    detect_work_streams,
)
from ralph.workflow import Estimate, WorkflowState

REPEATS = pick(15, 1)
GOAL_MS = 100.0


def forest(size: int, rng: random.Random) -> dict[int, IssueRelations]:
    """``size`` standalone issues joined into one dependency forest: each issue after the
    first is blocked by one to three earlier issues. Both sides of each edge are listed,
    as GitHub reports them."""
    blocked_by: dict[int, list[int]] = {n: [] for n in range(1, size + 1)}
    blocking: dict[int, list[int]] = {n: [] for n in range(1, size + 1)}
    for number in range(2, size + 1):
        for blocker in rng.sample(range(1, number), k=min(number - 1, rng.randint(1, 3))):
            blocked_by[number].append(blocker)
            blocking[blocker].append(number)
    return {
        n: IssueRelations(n, f"Issue {n}", None, (), tuple(blocked_by[n]), tuple(blocking[n]))
        for n in range(1, size + 1)
    }


def median_ms(run: Callable[[], object]) -> float:
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    rng = random.Random(42)
    states = [s.value for s in WorkflowState]
    estimates = [e.value for e in Estimate]

    relations = forest(10_000, rng)
    seed = rng.randint(1, 10_000)
    result = detect_group(seed, relations.get)
    assert len(result.issues) == 10_000
    group_ms = median_ms(lambda: detect_group(seed, relations.get))

    members = [
        IssueState(n, "", rng.choice(states), rng.choice(estimates), rng.randint(0, 1))
        for n in range(1, 1_001)
    ]
    position_ms = median_ms(lambda: detect_position(members, is_group=True, group_primary=1))

    ownership = [
        FileOwnership(n, tuple(f"src/m{rng.randint(1, 2_000)}.py" for _ in range(3)))
        for n in range(1, 1_001)
    ]
    streams_ms = median_ms(lambda: detect_work_streams(ownership))

    researching = [IssueState(n, "", "Research Needed", "S") for n in range(1, 1_001)]
    position = detect_position(researching, is_group=True, group_primary=1)
    group = detect_group(1, forest(1_000, rng).get)
    graph_ms = median_ms(lambda: build_task_graph(position, group, review_mode="auto"))

    print(f"median of {REPEATS} runs on this machine")
    print(f"  detect_group, 10,000-issue forest:     {group_ms:8.2f} ms")
    print(f"  detect_position, 1,000-issue group:    {position_ms:8.2f} ms")
    print(f"  detect_work_streams, 1,000 issues:     {streams_ms:8.2f} ms")
    print(f"  build_task_graph, 1,000-issue group:   {graph_ms:8.2f} ms")
    verdict = "meets" if group_ms < GOAL_MS else "MISSES"
    print(
        f"  group detection / goal ({GOAL_MS:.0f} ms):       {group_ms / GOAL_MS:8.2f}  ({verdict})"
    )


if __name__ == "__main__":
    main()
