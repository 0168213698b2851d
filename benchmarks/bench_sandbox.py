"""What the bubblewrap sandbox adds: a test command, a 10-command shell session (each
command its own process) and an agent run, inside and outside the sandbox; and that
cost against a phase run's wall time. Prints medians and ratios from one run; not a test.

Goal (issue: sandbox): at most 20 ms per confined command, and at most 5 % of a phase
run (measured with the scripted agents, which take no time: real agents take minutes,
so their share is far smaller).

    make bench-sandbox    # or: .venv/bin/python benchmarks/bench_sandbox.py
"""

from __future__ import annotations

import functools
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# Run as a script, so the repository root is put on the path for the sibling benchmark.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from benchmarks.bench_phases import one_epic
from ralph.demo import create_sample_repository
from ralph.git import GitRepo, Worktrees
from ralph.runtimes import AgentBrief, Limits
from ralph.runtimes.command import CommandRuntime
from ralph.sandbox import confine, probe, profile_for_tests

REPEATS = pick(30, 3)
EPICS = pick(3, 1)
SESSION = [
    "git status --short",
    "git log --oneline -3",
    "ls",
    "cat README.md",
    "pwd",
    f"{shlex.quote(sys.executable)} -c pass",
    "grep -r def .",
    "git diff --stat",
    "wc -l README.md",
    "true",
]


def paired_ms(
    outside: Callable[[], object], inside: Callable[[], object], repeats: int = REPEATS
) -> tuple[float, float]:
    """Median ms of each, run alternately so that other load on the machine weighs on
    both alike."""
    outside(), inside()  # warm the caches
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for work, into in ((outside, times[0]), (inside, times[1])):
            start = time.perf_counter()
            work()
            into.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[0]), statistics.median(times[1])


def shell(worktree: Path, command: str, *, sandboxed: bool) -> None:
    argv = ["/bin/sh", "-c", command]
    if sandboxed:  # as run_tests does: the profile is made for every run
        argv = confine(argv, profile_for_tests(worktree, home=Path.home()))
    subprocess.run(argv, cwd=worktree, capture_output=True, check=False)


def agents_ms(worktree: Path) -> tuple[float, float]:
    brief = AgentBrief(
        phase="implement",
        role="implementer",
        issues=(),
        instructions="",
        workdir=worktree,
        tools=(),
        limits=Limits(timeout_seconds=60),
        result_schema={"type": "object"},
    )
    outside, inside = CommandRuntime("true", sandbox=False), CommandRuntime("true", sandbox=True)
    return paired_ms(lambda: outside.run(brief), lambda: inside.run(brief))


def main() -> None:
    status = probe()
    if not status.available:
        sys.exit(f"bench-sandbox: {status.reason}; install bubblewrap")
    with tempfile.TemporaryDirectory() as folder:
        repo = create_sample_repository(Path(folder) / "sample")
        worktree = Worktrees(GitRepo(repo)).ensure("GH-1", "feature/GH-1", "main").path
        python = shlex.quote(sys.executable)
        rows = []
        for name, command in [
            ("true", "true"),
            ("python -c pass", f"{python} -c pass"),
            ("unittest (sample)", f"{python} -m unittest -q"),
        ]:
            rows.append(
                (
                    name,
                    *paired_ms(
                        functools.partial(shell, worktree, command, sandboxed=False),
                        functools.partial(shell, worktree, command, sandboxed=True),
                    ),
                )
            )

        def session(sandboxed: bool) -> None:
            for command in SESSION:
                shell(worktree, command, sandboxed=sandboxed)

        outside, inside = paired_ms(lambda: session(False), lambda: session(True), REPEATS // 3)
        rows.append((f"{len(SESSION)}-command session", outside, inside))
        rows.append(("agent run (command)", *agents_ms(worktree)))
    load = os.getloadavg()[0]
    print(f"{status.version}, median of {REPEATS} runs each, alternated (ms; load {load:.1f})")
    print(f"{'':<24} {'outside':>8} {'inside':>8} {'added':>8}")
    for name, outside, inside in rows:
        print(f"{name:<24} {outside:8.1f} {inside:8.1f} {inside - outside:8.1f}")
    name, outside, inside = rows[3]
    per_command = (inside - outside) / len(SESSION)
    print(f"added per confined command (session): {per_command:.1f} ms (goal <= 20 ms)")
    test_added = rows[2][2] - rows[2][1]

    implement, epics = [], []
    os.environ.pop("RALPH_TEST_COMMAND", None)
    for _ in range(EPICS):
        with tempfile.TemporaryDirectory() as folder:
            timings = one_epic(Path(folder))
        implement += [wall * 1000 for phase, wall, _ in timings if phase == "implement"]
        epics.append(sum(wall for _, wall, _ in timings) * 1000)
    wall = statistics.median(implement)
    # The implement phase runs the test command once, confined; a command agent would add
    # one confined agent run per attempt (the scripted agents are not confined).
    agent_added = rows[4][2] - rows[4][1]
    print(
        f"implement phase (scripted agent, sample tests): median {wall:.0f} ms; the confined "
        f"test command adds {test_added:.1f} ms = {test_added / wall:.1%}, with a confined "
        f"agent run {test_added + agent_added:.1f} ms = {(test_added + agent_added) / wall:.1%}"
        " (goal <= 5 %)"
    )
    whole = statistics.median(epics)
    print(
        f"whole epic (11 phase runs, one confined test run): median {whole:.0f} ms, "
        f"sandbox {test_added / whole:.1%}"
    )


if __name__ == "__main__":
    main()
