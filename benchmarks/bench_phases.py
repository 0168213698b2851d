"""The phase runner's own cost: a split epic carried from Backlog to Done with the
scripted agents, phase by phase, on a real git repository and the local SQLite tracker.
Prints the median wall time per phase and the share spent outside the agent; not a
test.

Goal (issue: phases): the runner's mechanics (locks, context, validation, documents,
comments, state moves, worktrees) cost well under a second per phase, so an agent's
minutes dominate; the whole epic (11 phase runs) in a few seconds. It also counts the git
processes the epic starts, by command: documents on the base branch are read from a
snapshot per commit (``ralph.git._snapshot``), so ``show`` and ``ls-tree`` are a few
(an epic in a fresh process: 447 git processes before, 132 of them those two; 325
after, 10 of them).

    make bench-phases    # or: .venv/bin/python benchmarks/bench_phases.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.config import Config
from ralph.demo import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.git import GitRepo
from ralph.phases import PhaseRunner
from ralph.project import Project
from ralph.runtimes import Limits
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import open_store
from ralph.tracker import LocalCodeHost, LocalTracker
from ralph.workflow import Estimate, WorkflowState

REPEATS = pick(5, 1)


def one_epic(folder: Path) -> list[tuple[str, float, float]]:
    """(phase, wall seconds, agent seconds) for every phase run of one epic."""
    repo = create_sample_repository(folder / "sample")
    store = open_store(f"sqlite:///{folder / 'ralph.db'}")
    git = GitRepo(repo)
    tracker = LocalTracker(store.db, repo="sample")
    host = LocalCodeHost(store.db, repo="sample", tracker=tracker, git=git)
    config = Config(root=repo, repo="sample", test_command=f"{sys.executable} -m unittest -q")
    runner = PhaseRunner(
        Project(config, tracker, host, store, git),
        ScriptedRuntime(env={}),
        limits=Limits(timeout_seconds=60),
        today=lambda: date(2026, 11, 22),
    )
    epic = tracker.create_issue(
        EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG, estimate=Estimate.M
    ).number
    timings = []

    def run(phase: str, number: int) -> None:
        start = time.perf_counter()
        outcome = runner.run(phase, number)
        wall = time.perf_counter() - start
        assert outcome.ok, (phase, outcome)
        timings.append((phase, wall, sum(r.duration_seconds for r in outcome.agent_runs)))

    run("triage", epic)
    run("split", epic)
    children = tracker.get_issue(epic).sub_issues
    for child in children:
        run("research", child)
    for phase in ("plan", "review", "implement", "pr", "merge"):
        run(phase, children[0])
    store.close()
    return timings


@contextmanager
def git_processes() -> Iterator[Counter[str]]:
    """Counts the git processes this process starts meanwhile, by git command."""
    started: Counter[str] = Counter()
    real = subprocess.Popen.__init__

    def counting(self: Any, args: Any, *rest: Any, **kw: Any) -> None:
        if isinstance(args, list) and args and Path(str(args[0])).name == "git":
            words = [str(a) for a in args[1:] if not str(a).startswith("-") and "=" not in a]
            started[words[0] if words else "?"] += 1
        real(self, args, *rest, **kw)

    subprocess.Popen.__init__ = counting  # type: ignore[method-assign]
    try:
        yield started
    finally:
        subprocess.Popen.__init__ = real  # type: ignore[method-assign]


def main() -> None:
    per_phase: dict[str, list[float]] = defaultdict(list)
    agent: dict[str, list[float]] = defaultdict(list)
    totals = []
    for _ in range(REPEATS):
        with tempfile.TemporaryDirectory() as folder:
            timings = one_epic(Path(folder))
        totals.append(sum(wall for _, wall, _ in timings))
        for phase, wall, spent in timings:
            per_phase[phase].append(wall * 1000)
            agent[phase].append(spent * 1000)
    print(f"phase runner, scripted agents, median of {REPEATS} epics (ms per phase run)")
    print(f"{'phase':<10} {'wall':>8} {'agent':>8} {'runner':>8}")
    for phase, walls in per_phase.items():
        wall, spent = statistics.median(walls), statistics.median(agent[phase])
        print(f"{phase:<10} {wall:8.1f} {spent:8.1f} {wall - spent:8.1f}")
    print(f"whole epic (11 phase runs): median {statistics.median(totals):.2f} s")
    with tempfile.TemporaryDirectory() as folder, git_processes() as started:
        one_epic(Path(folder))
    reads = started["show"] + started["ls-tree"] + started["cat-file"]
    print(f"git processes for the epic: {sum(started.values())}, {reads} of them reading files")
    print("  " + ", ".join(f"{command} {n}" for command, n in started.most_common()))


if __name__ == "__main__":
    main()
