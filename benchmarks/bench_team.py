"""A team run of one L epic with XS children (each its own work stream: triage, research,
plan, review, implement, PR, merge) on the demo project, scripted agents, SQLite and
PostgreSQL. Many triage tasks end at once here, so every worker re-plans the graph from
the same tasks: the run shows whether a refused re-plan costs a stall.

Printed per store, medians of the repeats: the makespan, the critical path and their
ratio, the work, the seconds tasks sat claimed by a dead worker (``stalled``), leases
that ran out, tasks that broke their worker, and the run's tasks done and canceled.
Goals: no stall, no lease run out, and issue 49's, as ratios of this one run (the
machine's load cancels out): tasks canceled fewer than tasks done, and PostgreSQL's
makespan within 1.15x SQLite's.

Figures (30 children, 2 cores at load 13-16, 2026-12-07): canceled / done went from
104 / 210 (SQLite) and 564 / 210 (PostgreSQL) to 34 / 210 on both, the group's plan ..
merge chain replaced once by the streams; a triage that changes nothing now cancels
nothing (a re-plan keeps what waits for a triage still running). PostgreSQL / SQLite
makespan: 1.75x (medians of 3: 44.3 s / 25.2 s); paired single runs before and after,
1.99x / 1.86x and 1.32x / 1.50x: within the load's noise, and still missed. What is left
is not re-planning: the board read of a re-plan is 0.27 s on PostgreSQL against 0.02 s
(about a third of a triage's 0.75 s), and every phase's own store and tracker calls are
slower (a PR 0.22 s against 0.06 s, a plan 0.99 s against 0.60 s).

Roster growing with the queues (issue 49; 30 children, one run each, 2 cores shared
with other work at load 20-27, 2026-12-07): SQLite makespan 53.8 s fixed -> 43.6 s
growing (makespan / critical path 3.45x -> 2.76x; the roles' peaks add up to 24
workers against the crew's 10); on PostgreSQL 57.4 s -> 59.6 s (5.90x -> 4.50x): no
gain there at that load, where the client's CPU per task bounds the run (the tasks'
summed time doubles with the workers, 164.9 s -> 326.3 s, as the 2 cores are shared by
more of them). No stall, no lease run out, no worker broken either way.

Each store runs the crew both ways in the same run: fixed (``max_role_workers`` at the
crew's own counts) and growing with its queues (the default roster), so the two
makespan / critical path ratios are taken at the same load, printed beside it.

Then the round trips (h/pgteam, load 15): statements per task done 375 -> 146 on
PostgreSQL (384 -> 165 on SQLite), read transactions 28,500 -> 15,500; a group is read in
a few set reads, not 3-5 statements per issue, a claim or an agent's activity wakes no
idle worker to claim, a wake reads the events once and a board's change wakes no event
wait. PostgreSQL 55.9 s -> 40.4 s, SQLite 37.5 s -> 29.6 s in the same run, ratio 1.49x
-> 1.37x. Commits that do not wait for the disk (``synchronous_commit = off``) took it
to 1.24x, and were left out: a database server's crash must not lose a claim or a
task's end that a worker has acted on. Still missed (goal 1.15x): of what is left on
PostgreSQL, the events read at each wake (6,800, every idle worker reads its own), the
claim (1,600 at 8 ms), the commits (6.1 ms each) and waits for the pool's four
connections.

Then the shared event reads (a helper's branch, 2 cores shared with another helper's
tests at load 10-17, 2026-12-07): idle workers woken by the same change share one read
of the run's events, 10,770 -> 1,520 event reads in a PostgreSQL run (statements 34,633 ->
26,027, 87.5 s -> 70.3 s spent in them); PostgreSQL / SQLite makespan, three runs
each before -> after, fixed crew 2.02x, 2.12x, 1.49x -> 1.10x, 1.69x, 1.42x, growing
1.09x, 1.94x, 1.38x -> 0.91x, 1.70x, 0.99x: the medians met the goal growing, not
fixed, within the load's noise. The board read is kept on PostgreSQL too now, but a
team run does not read the board (``board_issues``): a re-plan reads its group's
issues. Left: an issue read three to four times in a step (1,976 reads of three
statements), the claim (1,680 at 7 ms, most of them finding nothing) and the run and
holds reads before each.

As merged, a waiter shares only a read that began after its own last look ended (or,
at its first, after it began to wait), so a change whose notification was lost is
still found by its fallback poll. ``make bench-team`` on main, the machine otherwise
idle: before (load 1.3-4.9) fixed 1.53x, growing 1.38x; after, two runs (load 2.0-4.2
and 0.5-4.5), fixed 1.26x and 1.44x, growing 1.29x and 1.45x: still missed, and the
run-to-run spread (SQLite's makespan 12.2-15.9 s) is as large as the gain.

Options: ``--children N`` (30) ``--repeats R`` (3) ``--store postgresql://...`` (also
run on it; the default URL is the tests' when it answers) ``--sqlite-only``
``--growing-only``.

    .venv/bin/python benchmarks/bench_team.py
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from benchmarks._stores import fresh_store, module_body
from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import SessionOptions, load_report, run_session, team_crew
from ralph.project import open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import EventKind, TaskStatus
from ralph.workflow import Estimate, WorkflowState

PG_URL = "postgresql://127.0.0.1:5432/test"
CREW = {"analyst": 4, "builder": 4, "validator": 1, "integrator": 1}
#: Issue 49: a team on PostgreSQL within this factor of the same team on SQLite.
PG_GOAL = 1.15


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def one_run(children: int, store: str | None, *, growing: bool = True) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder, fresh_store(store, "bench_team") as url:
        repo, epic = create_demo_project(Path(folder) / "greet", store_url=url)
        with open_project(load_config(repo)) as project:
            tracker = project.tracker
            tracker.update_issue(epic, estimate=Estimate.L)
            for i in range(children):
                child = tracker.create_issue(
                    f"Add m{i}",
                    body=module_body(f"m{i}"),
                    state=WorkflowState.BACKLOG,
                    estimate=Estimate.XS,
                )
                tracker.add_sub_issue(epic, child.number)
            started = time.monotonic()
            options = SessionOptions.from_config(project.config, mode="team")
            if not growing:  # each role held at the crew's own count
                options = dataclasses.replace(options, role_caps=CREW)
            result = run_session(
                project, epic, ScriptedRuntime(env={}), options, crew=team_crew(CREW)
            )
            wall = time.monotonic() - started
            assert result.run is not None
            report = load_report(project.store, result.run.id)
            events = project.store.events(result.run.id)
            done = sum(
                tracker.get_issue(n).workflow_state is WorkflowState.DONE
                for n in [epic, *tracker.get_issue(epic).sub_issues]
            )
            counters = report.counters
            tasks = project.store.list_tasks(result.run.id)
            print(
                f"  run ended {result.ending}, {done} of {children + 1} issues Done, "
                f"{len(report.needs_person)} need a person"
                + (f" (first: {report.needs_person[0][:160]})" if report.needs_person else ""),
                flush=True,
            )
            return {
                "wall": wall,
                "makespan": report.makespan,
                "critical": report.critical_path,
                "work": report.work,
                "stalled": getattr(report, "stalled", 0.0),
                "expired": sum(
                    e.kind is EventKind.TASK_EXPIRED or bool(e.data.get("expired")) for e in events
                ),
                "broke": getattr(counters, "worker_broke", 0),
                "done": done,
                "issues": children + 1,
                "tasks_done": sum(t.status is TaskStatus.DONE for t in tasks),
                "tasks_canceled": sum(t.status is TaskStatus.CANCELED for t in tasks),
                "peak": sum(line.peak for line in result.roster),
            }


def _pg_answers(url: str) -> bool:
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3):
            return True
    except Exception:
        return False


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--children", type=int, default=pick(30, 2))
    parser.add_argument("--repeats", type=int, default=pick(3, 1))
    parser.add_argument("--store", default=PG_URL)
    parser.add_argument("--sqlite-only", action="store_true")
    parser.add_argument("--growing-only", action="store_true")
    args = parser.parse_args()
    stores: list[tuple[str, str | None]] = [("SQLite", None)]
    if not args.sqlite_only and _pg_answers(args.store):
        stores.append(("PostgreSQL", args.store))
    print(
        f"team run, L epic + {args.children} XS children, crew "
        f"{', '.join(f'{k}={v}' for k, v in CREW.items())}, scripted agents; "
        f"medians of {args.repeats}"
    )
    print(
        f"{'store':>10} {'roster':>7} {'wall':>6} {'makespan':>8} {'critical':>8} {'ratio':>6} "
        f"{'work':>6} {'stalled':>7} {'expired':>7} {'broke':>5} {'done':>7} "
        f"{'tasks done/canceled':>19} {'peak':>4}  load"
    )
    makespans: dict[str, float] = {}
    churn: dict[str, tuple[float, float]] = {}
    ratios: dict[str, dict[str, float]] = {}
    rosters = [True] if args.growing_only else [False, True]
    for (name, store), growing in [(s, g) for s in stores for g in rosters]:
        load = _load()
        runs = [one_run(args.children, store, growing=growing) for _ in range(args.repeats)]
        load += f" -> {_load()}"

        def median(key: str, runs: list[dict[str, float]] = runs) -> float:
            return statistics.median(r[key] for r in runs)

        ratio = median("makespan") / median("critical") if median("critical") else 0.0
        roster = "growing" if growing else "fixed"
        print(
            f"{name:>10} {roster:>7} {median('wall'):>5.1f}s {median('makespan'):>7.1f}s "
            f"{median('critical'):>7.1f}s {ratio:>5.2f}x {median('work'):>5.1f}s "
            f"{median('stalled'):>6.1f}s {median('expired'):>7.0f} {median('broke'):>5.0f} "
            f"{median('done'):>3.0f}/{runs[0]['issues']:.0f} "
            f"{median('tasks_done'):>9.0f}/{median('tasks_canceled'):<9.0f} "
            f"{median('peak'):>4.0f}  {load}"
        )
        each = ", ".join(f"{r['makespan']:.1f}s" for r in runs)
        print(f"{'':>10} each run's makespan: {each}")
        ratios.setdefault(name, {})[roster] = ratio
        if growing:
            makespans[name] = median("makespan")
            churn[name] = (median("tasks_done"), median("tasks_canceled"))
    _goals(makespans, churn)
    for name, by_roster in ratios.items():
        if "fixed" in by_roster:
            print(
                f"{name}: makespan / critical path {by_roster['fixed']:.2f}x with the fixed "
                f"crew, {by_roster['growing']:.2f}x growing with the queues"
            )


def _goals(makespans: dict[str, float], churn: dict[str, tuple[float, float]]) -> None:
    """Issue 49's goals, as ratios taken in this one run (the machine's load cancels)."""
    for name, (done, canceled) in churn.items():
        verdict = "met" if canceled < done else "MISSED"
        print(
            f"goal: {name} tasks canceled by re-plans fewer than tasks done: "
            f"{canceled:.0f} < {done:.0f}, {verdict}"
        )
    if "PostgreSQL" in makespans and makespans["SQLite"]:
        ratio = makespans["PostgreSQL"] / makespans["SQLite"]
        verdict = "met" if ratio <= PG_GOAL else "MISSED"
        print(f"goal: PostgreSQL makespan / SQLite's {ratio:.2f}x <= {PG_GOAL:.2f}x, {verdict}")


if __name__ == "__main__":
    main()
