"""The hygiene report of a large board. Prints medians; not a test.

Goal (issue: hygiene and archive): the report of 500 open issues, duplicate candidates
included (125,000 title pairs), in under a second. A letter-count bound and an edit
distance bounded by the threshold are what make it: compared here, on 150 issues, with
the same report at similarity 0, where every pair's whole distance is needed.

    make bench-board    # or: .venv/bin/python benchmarks/bench_board.py
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
from ralph.dashboard import DashboardItem, HygieneConfig, build_hygiene_report

REPEATS = pick(3, 1)
GOAL_MS = 1000.0
NOW = 1_771_588_800.0
WORDS = [
    "add",
    "fix",
    "update",
    "login",
    "session",
    "cache",
    "api",
    "layer",
    "form",
    "token",
    "user",
    "admin",
    "report",
    "export",
    "import",
    "search",
    "filter",
    "page",
    "button",
    "error",
    "retry",
    "timeout",
    "queue",
    "worker",
    "email",
    "invoice",
]


def board(size: int, rng: random.Random) -> list[DashboardItem]:
    return [
        DashboardItem(
            number=n,
            title=" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 7))),
            updated_at=NOW - rng.uniform(0, 30) * 86_400,
            workflow_state=rng.choice(["Backlog", "Research Needed", "In Progress"]),
        )
        for n in range(1, size + 1)
    ]


def median_ms(run: Callable[[], object]) -> float:
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    items = board(pick(500, 40), random.Random(7))
    usual = median_ms(lambda: build_hygiene_report(items, now=NOW))
    found = len(build_hygiene_report(items, now=NOW).duplicate_candidates)
    print(f"hygiene report, 500 open issues, similarity 0.8: {usual:8.1f} ms median")
    print(f"  ({found} duplicate candidates)")
    few = items[: pick(150, 20)]
    bounded = median_ms(lambda: build_hygiene_report(few, now=NOW))
    every = median_ms(
        lambda: build_hygiene_report(few, now=NOW, config=HygieneConfig(similarity_threshold=0))
    )
    print(f"150 open issues, similarity 0.8:                 {bounded:8.1f} ms median")
    print(f"150 open issues, similarity 0 (whole distances): {every:8.1f} ms median")
    print(f"ratio: {every / bounded:.1f}x")
    verdict = "meets" if usual < GOAL_MS else "MISSES"
    print(f"goal < {GOAL_MS:.0f} ms: {verdict}")


if __name__ == "__main__":
    main()
