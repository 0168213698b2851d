"""What best of N costs in wall time and in money, against one attempt.

One issue (the demo's farewell) with its plan approved (research, plan and review run
beforehand by agents that take no time), from there to merged through ``run_session``
on the local tracker over SQLite, with simulated agents that each take
``AGENT_SECONDS`` and cost ``AGENT_USD``, best of 1, 2 and 4 on crews of 2 and 4
workers. Measured from the store's events: the implementation stage (the first attempt
claimed to the selection done: attempts, their tests, the choice and the winner
installed), the run's makespan (implementation, pull request, merge), and what the run
was charged. The stage's extra seconds over one attempt are printed too: they are
Ralph's (the choice, the winner's worktree, attempts' git and tests competing for the
machine's cores), and do not grow with the agents' time.

Goal (issue: best of N): N attempts on N free workers take at most 1.1x the wall time of
one. With fewer workers than attempts they run in waves, and the stage takes about
ceil(N / workers) times as long; the money is N attempts' either way.

    make bench-best-of    # or: .venv/bin/python benchmarks/bench_best_of.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.config import BestOf
from ralph.demo import demo_project
from ralph.demo._sample import FAREWELL
from ralph.orchestrate import Ending, SessionOptions, hero_crew, run_session
from ralph.phases import PhaseRunner
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import EventKind
from ralph.workflow import Estimate, WorkflowState

REPEATS = pick(3, 1)
AGENT_SECONDS = pick(3.0, 0.05)
AGENT_USD = 0.5
ATTEMPTS = pick((1, 2, 4), (1, 2))
WORKERS = pick((2, 4), (2,))
GOAL = 1.10


def one_run(folder: Path, attempts: int, workers: int) -> tuple[float, float, float]:
    """(implementation stage seconds, run makespan seconds, dollars) of one run."""
    with demo_project(folder / "greet") as (project, _):
        number = project.tracker.create_issue(
            "Add a farewell function",
            body=f"Add `farewell`.\n\n{FAREWELL}\n",
            state=WorkflowState.RESEARCH_NEEDED,
            estimate=Estimate.XS,
        ).number
        ready = PhaseRunner(project, ScriptedRuntime(env={}))
        for phase in ("research", "plan", "review"):
            assert ready.run(phase, number).ok
        runtime = ScriptedRuntime(env={}, delay_seconds=AGENT_SECONDS, cost_usd=AGENT_USD)
        options = SessionOptions.from_config(
            project.config, mode="hero", best_of=BestOf(count=attempts)
        )
        result = run_session(project, number, runtime, options, crew=hero_crew(workers))
        assert result.ending is Ending.FINISHED, result
        assert result.run is not None
        store = project.store
        tasks = {t.id: t for t in store.list_tasks(result.run.id)}
        events = store.events(result.run.id)
        implementing = [
            e.at
            for e in events
            if e.kind is EventKind.TASK_CLAIMED
            and e.task_id is not None
            and tasks[e.task_id].kind == "implement"
        ]
        selected = [
            e.at
            for e in events
            if e.kind is EventKind.TASK_DONE
            and e.task_id is not None
            and tasks[e.task_id].key == f"implement:{number}"
        ]
        claimed = [e.at for e in events if e.kind is EventKind.TASK_CLAIMED]
        ended = [e.at for e in events if e.kind is EventKind.TASK_DONE]
        return (
            selected[-1] - min(implementing),
            max(ended) - min(claimed),
            store.spent(run_id=result.run.id),
        )


def main() -> None:
    print(
        f"best of N: simulated agents of {AGENT_SECONDS:g}s and ${AGENT_USD:.2f} each, "
        f"median of {REPEATS} runs"
    )
    print(
        f"{'workers':>7} {'best of':>7} {'implement':>10} {'x one':>6} {'extra':>6} "
        f"{'run':>7} {'x one':>6} {'cost':>7} {'x one':>6}"
    )
    verdicts = []
    with tempfile.TemporaryDirectory() as scratch:
        for workers in WORKERS:
            baseline: tuple[float, float, float] | None = None
            for attempts in ATTEMPTS:
                runs = [
                    one_run(Path(scratch) / f"w{workers}-n{attempts}-{k}", attempts, workers)
                    for k in range(REPEATS)
                ]
                stage, makespan, cost = (
                    statistics.median(column) for column in zip(*runs, strict=True)
                )
                baseline = baseline or (stage, makespan, cost)
                ratios = (stage / baseline[0], makespan / baseline[1], cost / baseline[2])
                print(
                    f"{workers:>7} {attempts:>7} {stage:>9.2f}s {ratios[0]:>5.2f}x "
                    f"{stage - baseline[0]:>+5.2f}s "
                    f"{makespan:>6.2f}s {ratios[1]:>5.2f}x ${cost:>6.2f} {ratios[2]:>5.2f}x"
                )
                if attempts <= workers:
                    verdicts.append((workers, attempts, ratios[0]))
    print()
    for workers, attempts, ratio in verdicts:
        if attempts == 1:
            continue
        mark = "ok" if ratio <= GOAL else "MISSED"
        print(
            f"goal: best of {attempts} on {workers} workers takes {ratio:.2f}x one attempt's "
            f"implementation time (<= {GOAL:.2f}x): {mark}"
        )


if __name__ == "__main__":
    main()
