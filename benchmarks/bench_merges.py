"""Merges across runs: ``ralph loop --max-roots 4`` as a real process over ISSUES XS
issues (the demo project: local tracker and store on SQLite, real git, scripted agents
that answer at once). Every root is a run of its own, and their merges share one key
(``merge:<repo>``): one at a time, handed on as each ends.

- Merge claims: the interval between one merge claimed and the next (median). A merge
  takes a fraction of a second; the next one waiting should start right behind it, not
  at its workers' next idle look.
- Ready to claimed: from a merge's pull request done (the merge ready) to the merge
  claimed, median and max. Goal: no merge waits behind a poll, none starves.
- Hand-on: from a merge's end to the next merge claimed, when that one was ready
  before (median, max): the wake-up across runs. Goal: tens of ms, never an idle poll.
- Wall: the whole loop, from start to exit.

Medians over the repeats. Options: ``--issues N`` ``--roots R`` ``--repeats K``.

    .venv/bin/python benchmarks/bench_merges.py
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from benchmarks._stores import xs_board
from ralph.config import load_config
from ralph.graph import TaskKind
from ralph.project import open_project
from ralph.tasks import EventKind

RALPH = str(Path(sys.executable).with_name("ralph"))
ISSUES = pick(12, 3)
ROOTS = pick(4, 2)
REPEATS = pick(3, 1)


def one_loop(issues: int, roots: int) -> tuple[list[float], list[float], list[float], float]:
    """One ``ralph loop``: (intervals between merge claims, ready-to-claimed waits,
    hand-ons, wall)."""
    with tempfile.TemporaryDirectory(prefix="bench-merges-") as folder:
        repo = xs_board(Path(folder) / "greet", issues)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("RALPH_")},
            "RALPH_AGENT": "scripted",
            "RALPH_SCRIPTED_DELAY": "0",
        }
        start = time.monotonic()
        done = subprocess.run(
            [RALPH, "loop", "--max-roots", str(roots)],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=issues * 120 + 300,
            check=False,
        )
        wall = time.monotonic() - start
        if done.returncode != 0:
            raise SystemExit(f"ralph loop exited {done.returncode}:\n{done.stderr[-3000:]}")
        #: (claimed, ready, done) of each merge.
        merges: list[tuple[float, float, float]] = []
        with open_project(load_config(repo)) as project:
            store = project.store
            for run in store.list_runs():
                tasks = {task.id: task for task in store.list_tasks(run.id)}
                done_at: dict[int, float] = {}
                claimed_at: dict[int, float] = {}
                for event in store.events(run.id):
                    if event.task_id is None:
                        continue
                    if event.kind is EventKind.TASK_DONE:
                        done_at[event.task_id] = event.at
                    elif event.kind is EventKind.TASK_CLAIMED:
                        claimed_at.setdefault(event.task_id, event.at)
                for task in tasks.values():
                    if task.kind != TaskKind.MERGE or task.id not in claimed_at:
                        continue
                    ready = max((done_at.get(dep, 0.0) for dep in task.deps), default=0.0)
                    ended = done_at.get(task.id, float("inf"))
                    merges.append((claimed_at[task.id], ready, ended))
        if len(merges) < issues:
            raise SystemExit(f"only {len(merges)} of {issues} merges were claimed")
        merges.sort()
        between = [b[0] - a[0] for a, b in itertools.pairwise(merges)]
        waits = [claimed - ready for claimed, ready, _ in merges]
        hand_ons = [b[0] - a[2] for a, b in itertools.pairwise(merges) if b[1] < a[2] <= b[0]]
        return between, waits, hand_ons, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=ISSUES)
    parser.add_argument("--roots", type=int, default=ROOTS)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    args = parser.parse_args()
    intervals, medians, maxima, walls = [], [], [], []
    hand_ons: list[float] = []
    for _ in range(args.repeats):
        between, waits, handed, wall = one_loop(args.issues, args.roots)
        hand_ons += handed
        intervals.append(statistics.median(between) if between else 0.0)
        medians.append(statistics.median(waits))
        maxima.append(max(waits))
        walls.append(wall)
    print(f"ralph loop --max-roots {args.roots} over {args.issues} XS roots, scripted agents")
    print(f"  between merge claims (median)     {statistics.median(intervals):7.3f} s")
    print(f"  pull request done -> merge claimed median {statistics.median(medians):7.3f} s")
    print(f"  pull request done -> merge claimed max    {statistics.median(maxima):7.3f} s")
    if hand_ons:
        print(
            f"  merge ended -> next claimed median {statistics.median(hand_ons) * 1000:7.1f} ms,"
            f" max {max(hand_ons) * 1000:.1f} ms ({len(hand_ons)} waiting)"
        )
    print(f"  wall                              {statistics.median(walls):7.2f} s")


if __name__ == "__main__":
    main()
