"""Merges: the merge train's throughput, and merges handed on across runs.

**The train** (issue 47): eight ready XS changes (``tests/integration/merges/``: the
demo project, local tracker and code host, SQLite; each a real branch adding a module and
its test, its pull request open, its issue In Review) merged by ``ralph loop
--max-roots 8`` as a real process, the test command the demo's tests after ``sleep 2``.
Merged one at a time (``merge_batch = 1``) and as a train (the default ``merge_batch``),
in the same run; test runs counted from the batch records:

- Test runs: how many times the test command ran to land the eight.
- Landed per test run: changes merged over test runs (one at a time: 1).
- Wall: the whole ``ralph loop``, from start to exit, for the eight.
- One bad: the same with the fourth change adding a test that fails. The seven good
  land; the test runs with the bad one in them are what finding it cost; it goes back
  to its builder (here then a person: the simulated agent fixes nothing).

**Across runs**: ``ralph loop --max-roots 4`` over ISSUES XS issues from Backlog (scripted
agents that answer at once). Every root is a run of its own, and their merges share one
key (``merge:<repo>``): one at a time, handed on as each ends.

- Merge claims: the interval between one merge claimed and the next (median). A merge
  takes a fraction of a second; the next one waiting should start right behind it, not
  at its workers' next idle look.
- Ready to claimed: from a merge's pull request done (the merge ready) to the merge
  claimed, median and max. Goal: no merge waits behind a poll, none starves.
- Hand-on: from a merge's end to the next merge claimed, when that one was ready
  before (median, max): the wake-up across runs. Goal: tens of ms, never an idle poll.
- Wall: the whole loop, from start to exit.

2026-12-07, a train's car landing as the very commit it built and tested (its task 63 ->
26 git processes for 5 cars; 36 once it checks that what it kept is still there), the
code before and after run side by side at load 8-12:
the train's wall for the eight 5.8 s before, 6.1 s after (one at a time 18.4 s, 17.8 s;
one bad 14.3 s, 14.0 s): two test runs of ``sleep 2`` are most of it, within the noise.

Medians over the repeats. Options: ``--changes N`` ``--test-seconds S`` ``--issues N``
``--roots R`` ``--repeats K``.

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
from dataclasses import dataclass
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.integration.merges.looped import loop_args, only_the_changes
from tests.integration.merges.scenario import Scenario, merge_scenario, slow_tests

from benchmarks._quick import pick
from benchmarks._stores import xs_board
from ralph.config import Config, load_config
from ralph.graph import TaskKind
from ralph.project import open_project
from ralph.tasks import EventKind
from ralph.workflow import WorkflowState

RALPH = str(Path(sys.executable).with_name("ralph"))
ISSUES = pick(12, 3)
ROOTS = pick(4, 2)
REPEATS = pick(3, 1)
CHANGES = pick(8, 3)
TEST_SECONDS = pick(2.0, 0.0)
#: The bad change of the one-bad case: the fourth (the second in quick mode).
BAD = pick(3, 1)


def loop_environment(**settings: str) -> dict[str, str]:
    """This environment without the developer's Ralph settings, scripted agents that
    answer at once, then ``settings``."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("RALPH_")},
        "RALPH_AGENT": "scripted",
        "RALPH_SCRIPTED_DELAY": "0",
        **settings,
    }


@dataclass(frozen=True)
class Merged:
    """What one ``ralph loop`` over ready changes did."""

    landed: int
    test_runs: int
    #: Test runs with a bad change among the changes tested: the cost of finding it.
    with_bad: int
    #: Every bad change went back to its builder (an address round), none landed.
    sent_back: bool
    wall: float


def merged_by(scenario: Scenario, wall: float) -> Merged:
    """What the merges of ``scenario`` did: test runs counted from the batch records."""
    store = scenario.project.store
    runs = [tuple(run["cars"]) for batch in scenario.batches() for run in batch.runs]
    bad = [c for c in scenario.changes if c.kind == "breaks"]
    addressed = {
        number
        for run in store.list_runs()
        for task in store.list_tasks(run.id, kind=TaskKind.ADDRESS)
        for number in task.issues
    }
    landed = {c.pr for c in scenario.merged()}
    sent_back = all(
        c.pr not in landed and c.issue in addressed and scenario.state(c) is not WorkflowState.DONE
        for c in bad
    )
    with_bad = sum(any(c.pr in r for c in bad) for r in runs)
    return Merged(len(landed), len(runs), with_bad, sent_back, wall)


def merge_ready(changes: int, seconds: float, batch: int | None, bad: int | None) -> Merged:
    """``ralph loop`` over ``changes`` ready changes (the one at index ``bad`` breaking
    the tests) with ``merge_batch`` ``batch`` (None: the default)."""
    kinds = ["breaks" if i == bad else "ok" for i in range(changes)]
    with (
        tempfile.TemporaryDirectory(prefix="bench-train-") as folder,
        merge_scenario(Path(folder) / "greet", kinds) as made,
    ):
        scenario = only_the_changes(made)
        settings = {"RALPH_TEST_COMMAND": slow_tests(seconds)}
        if batch is not None:
            settings["RALPH_MERGE_BATCH"] = str(batch)
        start = time.monotonic()
        done = subprocess.run(
            [RALPH, *loop_args(scenario)],
            cwd=scenario.folder,
            env=loop_environment(**settings),
            capture_output=True,
            text=True,
            timeout=changes * 120 + 300,
            check=False,
        )
        wall = time.monotonic() - start
        # A bad change ends with a person (the simulated agent fixes nothing): exit 1.
        if done.returncode != (0 if bad is None else 1):
            raise SystemExit(f"ralph loop exited {done.returncode}:\n{done.stderr[-3000:]}")
        return merged_by(scenario, wall)


def one_loop(issues: int, roots: int) -> tuple[list[float], list[float], list[float], float]:
    """One ``ralph loop``: (intervals between merge claims, ready-to-claimed waits,
    hand-ons, wall)."""
    with tempfile.TemporaryDirectory(prefix="bench-merges-") as folder:
        repo = xs_board(Path(folder) / "greet", issues)
        env = loop_environment()
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


def train(changes: int, seconds: float, repeats: int) -> None:
    """The eight ready changes one at a time and as a train, all good and one bad."""
    default = Config(root=Path.cwd()).merge_batch  # ralph.toml without it
    batches = {"merge_batch = 1": 1, f"merge_batch = {default}": None}
    good: dict[str, list[Merged]] = {name: [] for name in batches}
    one_bad: dict[str, list[Merged]] = {name: [] for name in batches}
    for _ in range(repeats):
        for name, batch in batches.items():
            good[name].append(merge_ready(changes, seconds, batch, None))
            one_bad[name].append(merge_ready(changes, seconds, batch, min(BAD, changes - 1)))
    one, many = batches

    def median(of: dict[str, list[Merged]], name: str, figure: str) -> float:
        return statistics.median(float(getattr(m, figure)) for m in of[name])

    def per_run(name: str) -> float:
        return statistics.median(m.landed / max(m.test_runs, 1) for m in good[name])

    print(
        f"Merge train: {changes} ready XS changes, ralph loop --max-roots {changes}, test command"
        f" sleep {seconds:g} + the demo's tests (medians of {repeats})"
    )
    print(f"  {'':32} {one:>16} {many:>16}   ratio")
    rows = [
        ("test runs", "test_runs", "{:16.0f}", True),
        ("wall for the changes", "wall", "{:14.1f} s", True),
    ]
    for label, figure, form, lower_is_better in rows:
        a, b = median(good, one, figure), median(good, many, figure)
        ratio = (a / b if lower_is_better else b / a) if min(a, b) > 0 else 0.0
        print(f"  {label:32} {form.format(a)} {form.format(b)}   {ratio:5.2f}x")
    a, b = per_run(one), per_run(many)
    print(f"  {'landed per test run':32} {a:16.2f} {b:16.2f}   {b / a if a else 0.0:5.2f}x")
    print(f"  one bad change (#{min(BAD, changes - 1) + 1} of {changes}):")
    for label, figure in (
        ("landed", "landed"),
        ("test runs", "test_runs"),
        ("test runs with the bad one", "with_bad"),
    ):
        a, b = median(one_bad, one, figure), median(one_bad, many, figure)
        print(f"    {label:30} {a:16.0f} {b:16.0f}")
    a, b = median(one_bad, one, "wall"), median(one_bad, many, "wall")
    print(f"    {'wall':30} {a:14.1f} s {b:14.1f} s")
    sent = [all(m.sent_back for m in one_bad[name]) for name in batches]
    print(
        f"    {'sent back to its builder':30} "
        + " ".join(f"{'yes' if s else 'NO':>16}" for s in sent)
    )


def across_runs(issues: int, roots: int, repeats: int) -> None:
    intervals, medians, maxima, walls = [], [], [], []
    hand_ons: list[float] = []
    for _ in range(repeats):
        between, waits, handed, wall = one_loop(issues, roots)
        hand_ons += handed
        intervals.append(statistics.median(between) if between else 0.0)
        medians.append(statistics.median(waits))
        maxima.append(max(waits))
        walls.append(wall)
    print(f"ralph loop --max-roots {roots} over {issues} XS roots, scripted agents")
    print(f"  between merge claims (median)     {statistics.median(intervals):7.3f} s")
    print(f"  pull request done -> merge claimed median {statistics.median(medians):7.3f} s")
    print(f"  pull request done -> merge claimed max    {statistics.median(maxima):7.3f} s")
    if hand_ons:
        print(
            f"  merge ended -> next claimed median {statistics.median(hand_ons) * 1000:7.1f} ms,"
            f" max {max(hand_ons) * 1000:.1f} ms ({len(hand_ons)} waiting)"
        )
    print(f"  wall                              {statistics.median(walls):7.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=CHANGES)
    parser.add_argument("--test-seconds", type=float, default=TEST_SECONDS)
    parser.add_argument("--issues", type=int, default=ISSUES)
    parser.add_argument("--roots", type=int, default=ROOTS)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    args = parser.parse_args()
    train(args.changes, args.test_seconds, args.repeats)
    across_runs(args.issues, args.roots, args.repeats)


if __name__ == "__main__":
    main()
