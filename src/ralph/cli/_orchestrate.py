"""``ralph hero N``, ``ralph team N``, ``ralph loop``, ``ralph worker`` and ``ralph
demo``: the pipeline run end to end, thin over ``ralph.orchestrate``."""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from ralph._agents import AGENT_NAMES
from ralph.cli._background import BackgroundOpt, start_in_background
from ralph.cli._bounds import MAX_ATTEMPTS, MAX_WAIT_SECONDS, MAX_WORKERS
from ralph.cli._console import Console
from ralph.cli._exits import EXIT_FAILED, EXIT_INPUT, EXIT_INTERRUPTED
from ralph.cli._issue_ref import issue_argument
from ralph.cli._live import LiveView
from ralph.cli._project import check_before_run, open_project_of, warn_if_untested
from ralph.cli._report import counted, print_report
from ralph.cli._run import AdoptOpt, BestOfOpt, WaitOpt, best_of_settings, project_runtime
from ralph.cli._run_end import merged_pull_requests, print_success
from ralph.cli._starting import roots_banner, session_console, signals, started
from ralph.errors import InvalidInput
from ralph.graph import ReviewMode
from ralph.orchestrate import WORKER_ROLES

if TYPE_CHECKING:
    from ralph.orchestrate import CrewPlan, RootRun, RunReport, SessionOptions, SessionResult
    from ralph.pipeline import BoardQueue, QueuedRoot
    from ralph.project import Project
    from ralph.runtimes import AgentRuntime
    from ralph.tasks import Run

__all__ = ["demo_command", "hero_command", "loop_command", "team_command", "worker_command"]

#: Work failed or needs a person; an agent that cannot work here is the person's setup
#: to fix, as any configuration error.
EXIT_NEEDS_PERSON = EXIT_FAILED
EXIT_AGENT_UNUSABLE = EXIT_INPUT

AgentOpt = Annotated[
    str | None,
    typer.Option(
        "--agent",
        help=f"The agent for every phase: {', '.join(AGENT_NAMES)} (default: ralph.toml's "
        "[agent], per phase where it says so).",
        show_default=False,
    ),
]
AttemptsOpt = Annotated[
    int,
    typer.Option(
        "--attempts", min=1, max=MAX_ATTEMPTS, help="Agent attempts per phase before escalating."
    ),
]
ReviewOpt = Annotated[
    ReviewMode | None,
    typer.Option("--review-mode", help="auto, interactive or skip (default: ralph.toml's)."),
]
MaxRootsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-roots",
        min=1,
        max=MAX_WORKERS,
        help="Roots at once (default: max_concurrent_roots in ralph.toml).",
        show_default=False,
    ),
]


def _session(
    project: Project, root: int, agent: str | None, *, crew: CrewPlan, **asked: Any
) -> int:
    """Run the session with the live view (``asked``: the command's options for it);
    print the report; return the exit code."""
    from ralph.orchestrate import run_session

    names = ", ".join(name for name, _ in crew)

    def banner(options: SessionOptions, runtime: AgentRuntime) -> str:
        return f"{options.mode} #{root} — {runtime.description}; workers: {names}"

    with started(project, agent, banner, **asked) as session:
        result = run_session(project, root, session.runtime, session.options, crew=crew)
    mode = session.options.mode
    report = _conclude(project, result, session.console, mode=mode, root=root)
    return _exit_code(result, report)


def _conclude(
    project: Project,
    result: SessionResult,
    console: Console,
    *,
    mode: str,
    root: int,
    of_many: bool = False,
    next_steps: bool = True,
) -> RunReport | None:
    """The run's report and how it stopped; ``of_many``: one root of a loop or the
    service, which says once, for all its roots, what only a person can clear;
    ``next_steps``: after a success, where to look (not for a project about to be
    deleted). On a terminal the live table's last frame stays on screen, so the report
    says what it could not (the outcome, what needs a person, what merged, what next)
    instead of the same table again."""
    from ralph.orchestrate import Ending, Outcome, load_report

    if result.run is None:
        console.print(result.detail, markup=False)
        return None
    if result.resumed:
        console.print(f"Resumed run {result.run.id}.", markup=False)
    report = load_report(project.store, result.run.id)
    live = console.is_terminal and not of_many
    print_report(report, console, table=not live)
    grown = roster_line(result)
    if grown:
        console.print(grown, markup=False)
    if report.outcome is Outcome.SUCCEEDED and not of_many:
        merged = merged_pull_requests(project, result.run.id)
        print_success(
            report,
            merged,
            project.config.base_branch,
            console,
            name=project.tracker.issue_name,
            next_steps=next_steps,
        )
    if result.ending is not Ending.FINISHED:
        for line in _provider_lines(project):
            console.print(line, markup=False)
    for line in ending_lines(result, report, mode=mode, root=root, of_many=of_many):
        console.print(line, markup=False)
    return report


def roster_line(result: SessionResult) -> str:
    """``Roster grew with the queues: validators 1 -> 5, integrators 1 -> 2 (most at
    once).``, when a team's did ("" otherwise)."""
    grown = [f"{r.role}s {r.start} -> {r.peak}" for r in result.roster if r.peak > r.start]
    if not grown:
        return ""
    return f"Roster grew with the queues: {', '.join(grown)} (most at once)."


def _provider_lines(project: Project) -> list[str]:
    """``Waiting for the provider of claude until 14:05 (usage limit reached).``, for
    each agent whose provider still refuses: what a run stopped meanwhile waited for."""
    from ralph.views import load_provider_waits

    waits = load_provider_waits(project.store, now=time.time())
    return [f"{wait.text[0].upper()}{wait.text[1:]}." for wait in waits]


def ending_lines(
    result: SessionResult, report: RunReport, *, mode: str, root: int, of_many: bool = False
) -> list[str]:
    """How the session stopped, when it did not simply finish, and the one command that
    goes on from there."""
    from ralph.orchestrate import Ending

    again = f"ralph {mode} {root}"
    ending = result.ending
    if ending is Ending.WAITING_FOR_HUMAN and result.gates:
        numbers = " ".join(str(n) for n in result.gates)
        return [
            f"Stopped at the plan gate: {result.detail}. Read the plan, then "
            f"`ralph approve {numbers} && {again}` goes on."
        ]
    if ending is Ending.WAITING_FOR_HUMAN:
        return [f"Stopped: {result.detail}. `{again}` looks again; with --wait it keeps waiting."]
    if ending is Ending.CANCELED:
        return [f"Run {report.run.id} was canceled; `{again}` starts a new run."]
    if ending is Ending.AGENT_UNUSABLE and of_many:
        return []  # the loop or the service says it once, for all its roots
    if ending is not Ending.FINISHED:
        return [f"Stopped: {result.detail}. `{again}` resumes."]
    return []


def _conclude_root(project: Project, done: RootRun, console: Console) -> RunReport | None:
    """The report of one root a loop or the service ran."""
    result = done.result
    mode = result.run.mode if result.run is not None else project.config.mode
    return _conclude(project, result, console, mode=mode, root=done.root.root, of_many=True)


def _exit_code(result: SessionResult, report: RunReport | None) -> int:
    """By the run's outcome: 0 when it succeeded (or did the phases asked for, leaving
    nothing broken and nothing for a person); 1 when it needs a person (a plan to
    approve, an escalation, a review), failed, was canceled, broke or ran out of budget;
    2 when the agent cannot work here; 130 after an interrupt."""
    from ralph.orchestrate import Ending, Outcome

    if result.ending is Ending.INTERRUPTED:
        return EXIT_INTERRUPTED
    if result.ending is Ending.AGENT_UNUSABLE:
        return EXIT_AGENT_UNUSABLE
    if report is None:  # no run: nothing to do, or the session broke before one
        quiet = (Ending.FINISHED, Ending.NOTHING_TO_DO, Ending.PHASES_DONE)
        return 0 if result.ending in quiet and not result.escalated else EXIT_NEEDS_PERSON
    if report.outcome is Outcome.SUCCEEDED:
        return 0
    if result.ending is Ending.PHASES_DONE and report.outcome is Outcome.STOPPED:
        return 0
    return EXIT_NEEDS_PERSON


def hero_command(
    ctx: typer.Context,
    number: Annotated[int, issue_argument("The root issue (an epic or one issue).")],
    agent: AgentOpt = None,
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency", "-j", min=1, max=MAX_WORKERS, help="Tasks at once (research fans out)."
        ),
    ] = 3,
    attempts: AttemptsOpt = 2,
    review_mode: ReviewOpt = None,
    adopt: AdoptOpt = None,
    wait: WaitOpt = False,
    best_of: BestOfOpt = None,
    background: BackgroundOpt = False,
) -> None:
    """Carry an issue tree from where it is to merged, in this process (resumable)."""
    from ralph.orchestrate import hero_crew
    from ralph.phases import adopt_branch

    with open_project_of(ctx, working=True) as project:
        project.tracker.get_issue(number)  # one that does not exist is named before anything
        for branch in adopt or ():
            adopt_branch(project, branch)
        if background:
            raise typer.Exit(
                start_in_background(ctx, project, number, mode="hero", skip=("adopt",))
            )
        code = _session(
            project,
            number,
            agent,
            crew=hero_crew(concurrency),
            mode="hero",
            attempts=attempts,
            review_mode=review_mode,
            wait=wait,
            best_of=best_of_settings(project, best_of, agent),
        )
    raise typer.Exit(code)


def parse_phases(text: str) -> frozenset[str]:
    """``triage,research`` -> the phases named (each one of ``ralph run``'s)."""
    from ralph.phases import PHASES

    named = [p.strip() for p in text.split(",") if p.strip()]
    unknown = [p for p in named if p not in PHASES]
    if unknown or not named:
        raise InvalidInput(
            f"bad --only {text!r}: name phases among {', '.join(PHASES)}, e.g. triage,research"
        )
    return frozenset(named)


def loop_command(
    ctx: typer.Context,
    only: Annotated[
        str | None,
        typer.Option(
            "--only",
            metavar="PHASES",
            help="Run only these phases, e.g. triage,research (roots whose next phase is "
            "another are skipped).",
            show_default=False,
        ),
    ] = None,
    max_roots: MaxRootsOpt = None,
    agent: AgentOpt = None,
    attempts: AttemptsOpt = 2,
    review_mode: ReviewOpt = None,
    wait: WaitOpt = False,
) -> None:
    """One pass over the board: every root with work, most urgent and in-flight first, as
    hero or team runs (ralph.toml's mode); exit 0 when no work is left, 1 when what is
    left waits for a person."""
    from ralph.orchestrate import run_loop

    phases = parse_phases(only) if only is not None else None
    codes: list[int] = []
    with (
        open_project_of(ctx, working=True) as project,
        started(
            project,
            agent,
            roots_banner("loop"),
            many=True,
            max_roots=max_roots,
            phases=phases,
            attempts=attempts,
            review_mode=review_mode,
            wait=wait,
        ) as loop,
    ):
        console, view = loop.console, loop.view

        def on_start(queued: QueuedRoot) -> None:
            console.print(
                f"→ #{queued.root} ({queued.tier.name.lower().replace('_', ' ')}): "
                f"{queued.next_phase} next",
                markup=False,
            )

        def on_end(done: RootRun) -> None:
            if done.result.run is not None:
                view.forget(done.result.run.id)
            report = _conclude_root(project, done, console)
            codes.append(_exit_code(done.result, report))

        def on_note(text: str) -> None:
            console.print(text, markup=False)

        result = run_loop(
            project,
            loop.runtime,
            loop.options,
            on_start=on_start,
            on_end=on_end,
            on_note=on_note,
        )
    interrupt = loop.options.interrupt
    if interrupt.unusable:
        console.print(f"Stopped: {interrupt.unusable}. `ralph loop` resumes.", markup=False)
        raise typer.Exit(EXIT_AGENT_UNUSABLE)
    if interrupt.stopping.is_set():
        console.print("Stopped: interrupted. `ralph loop` resumes.", markup=False)
        raise typer.Exit(EXIT_INTERRUPTED)
    left = result.left
    for line in _left_lines(left, phases):
        console.print(line, markup=False)
    failed = left.waiting or left.roots or any(code != 0 for code in codes)
    raise typer.Exit(EXIT_NEEDS_PERSON if failed else 0)


def _left_lines(left: BoardQueue, phases: Collection[str] | None) -> list[str]:
    """What a pass left, each issue in one list: work (a root this pass ran that still
    has some: out of budget, a task that failed), roots outside --only, and who waits
    for a person."""
    waiting = ", ".join(f"#{n}" for n in left.waiting)
    lines = []
    if left.roots:
        lines.append(f"Work left after this pass: {', '.join(f'#{q.root}' for q in left.roots)}.")
    elif waiting:
        lines.append(f"No work an agent can do; waiting for a person: {waiting}.")
        waiting = ""
    elif phases is not None:
        lines.append(f"No work found for {', '.join(sorted(phases))}.")
    else:
        lines.append("No work found in any queue.")
    if left.skipped:
        listed = ", ".join(f"#{q.root} ({q.next_phase})" for q in left.skipped)
        lines.append(f"Skipped, outside --only: {listed}.")
    if waiting:
        lines.append(f"Waiting for a person: {waiting}.")
    return lines


def parse_workers(text: str) -> dict[str, int]:
    """``analyst=2,builder=2`` -> counts per role (roles not named keep the roster's)."""
    counts: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        role, sep, count = item.partition("=")
        if not sep or role.strip() not in WORKER_ROLES or not count.strip().isdigit():
            raise InvalidInput(
                f"bad --workers item {item!r}: write role=count with a role among "
                f"{', '.join(WORKER_ROLES)}, e.g. analyst=2,builder=2"
            )
        if int(count) > MAX_WORKERS:
            raise InvalidInput(f"--workers {item!r}: at most {MAX_WORKERS} workers per role")
        counts[role.strip()] = int(count)
    return counts


def team_command(
    ctx: typer.Context,
    number: Annotated[int, issue_argument("The root issue (an epic or one issue).")],
    agent: AgentOpt = None,
    workers: Annotated[
        str,
        typer.Option(
            "--workers",
            help="Workers per role this process starts with, e.g. analyst=2,builder=2 "
            "(default: the suggested roster; 0 leaves a role to `ralph worker` processes). "
            "A role grows while its queue outgrows them, within [max_role_workers].",
        ),
    ] = "",
    attempts: AttemptsOpt = 2,
    review_mode: ReviewOpt = None,
    adopt: AdoptOpt = None,
    wait: WaitOpt = False,
    best_of: BestOfOpt = None,
    background: BackgroundOpt = False,
) -> None:
    """Run a team on an issue tree: a lead and role-typed workers over the shared store."""
    from ralph.orchestrate import suggested_team, team_crew
    from ralph.phases import adopt_branch

    counts = parse_workers(workers)
    with open_project_of(ctx, working=True) as project:
        for branch in adopt or ():
            adopt_branch(project, branch)
        if background:
            project.tracker.get_issue(number)
            raise typer.Exit(
                start_in_background(ctx, project, number, mode="team", skip=("adopt",))
            )
        mode = review_mode or project.config.review_mode
        several = best_of_settings(project, best_of, agent)
        roster = {**suggested_team(project, number, mode, several), **counts}
        code = _session(
            project,
            number,
            agent,
            crew=team_crew(roster),
            mode="team",
            attempts=attempts,
            review_mode=review_mode,
            wait=wait,
            best_of=several,
        )
    raise typer.Exit(code)


def worker_command(
    ctx: typer.Context,
    roles: Annotated[
        str, typer.Option("--roles", help="Comma-separated roles to claim.")
    ] = ",".join(WORKER_ROLES),
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, max=MAX_WORKERS, help="Tasks at once.")
    ] = 1,
    run: Annotated[
        int | None, typer.Option("--run", help="Serve this run (default: the newest active one).")
    ] = None,
    agent: AgentOpt = None,
    attempts: AttemptsOpt = 2,
    wait: Annotated[
        float, typer.Option("--wait", help="Seconds to wait for an active run to appear.")
    ] = 60.0,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            help="The shared store's URL (as `ralph --store URL worker`).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Claim and run tasks of a run in this process (another terminal or machine, with
    --store pointing at the shared PostgreSQL store); exits when the run shuts down."""
    from ralph.orchestrate import BoardReads, Reconciler, SessionOptions, start_crew, worker_crew

    if not math.isfinite(wait) or wait < 0:
        raise InvalidInput(f"--wait {wait} is not valid; give a number of seconds >= 0")
    if wait > MAX_WAIT_SECONDS:
        raise InvalidInput(f"--wait {wait:g} is too large; at most {MAX_WAIT_SECONDS} seconds")
    if store is not None:  # given after the command, where people put it
        ctx.find_root().ensure_object(dict)["store_url"] = store
    wanted = [r.strip() for r in roles.split(",") if r.strip()]
    unknown = [r for r in wanted if r not in WORKER_ROLES]
    if unknown or not wanted:
        raise InvalidInput(f"unknown role(s) {unknown}; use some of {', '.join(WORKER_ROLES)}")
    console = session_console()
    with open_project_of(ctx, working=True) as project:
        runtime = project_runtime(project, agent)  # a bad --agent is named before the wait
        found = _active_run(project, run, wait)
        warn_if_untested(project.config)
        check_before_run(project)
        options = SessionOptions.from_config(project.config, attempts=attempts)
        interrupt = options.interrupt
        console.print(
            f"worker for run {found.id} ({found.name}): {', '.join(wanted)} x{concurrency} — "
            f"{runtime.description}",
            markup=False,
        )
        with signals(interrupt):
            crew = start_crew(project, runtime, found, worker_crew(wanted, concurrency), options)
            reconciler = Reconciler(BoardReads(project.tracker))
            while not crew.join(timeout=0.2):
                reconciler.look([crew])
                if interrupt.aborting.is_set():
                    crew.release_claims()
                    raise typer.Exit(EXIT_INTERRUPTED)
        done = sum(len(w.stats.executions) for w in crew.workers)
        console.print(f"worker done: {counted(done, 'task')} run", markup=False)
        if interrupt.unusable:
            console.print(f"Stopped: {interrupt.unusable}", markup=False)
            raise typer.Exit(EXIT_AGENT_UNUSABLE)


def _active_run(project: Project, wanted: int | None, wait: float) -> Run:
    from ralph.tasks import RunStatus

    deadline = time.monotonic() + wait
    while True:
        if wanted is not None:
            found = project.store.get_run(wanted)
            if found.status is RunStatus.ACTIVE:
                return found
            raise InvalidInput(f"run {wanted} is {found.status.value}; nothing to work on")
        active = project.store.list_runs(status=RunStatus.ACTIVE)
        if active:
            return active[0]
        if time.monotonic() >= deadline:
            raise InvalidInput(
                f"no active run in the store after {wait:.0f}s; start one with "
                "`ralph team N` (or pass --run ID)"
            )
        time.sleep(0.2)


def demo_command(
    keep: Annotated[
        Path | None,
        typer.Option("--keep", help="Build the demo project in this (new) folder and keep it."),
    ] = None,
) -> None:
    """Run the whole pipeline on a throwaway project with simulated agents."""
    from ralph._distribution import install_hint
    from ralph.demo import demo_project, run_demo, unconfined_reason
    from ralph.orchestrate import Interrupt
    from ralph.sandbox import skip_unconfined_warning

    if keep is not None and keep.exists() and not keep.is_dir():
        raise InvalidInput(f"{keep} is a file; give --keep a new or empty folder")
    if keep is not None and keep.exists() and any(keep.iterdir()):
        raise InvalidInput(f"{keep} is not empty; give --keep a new or empty folder")
    console = session_console()
    console.print(
        Text.assemble(
            ("Ralph demo", "bold"),
            ": a small Python package, an epic in Backlog, and a team of ",
            ("simulated", "bold"),
            " agents (the scripted runtime: deterministic, no model, no network) taking it "
            "through triage, split, research, plan, review, implement, PR and merge.",
        )
    )
    unconfined = unconfined_reason()
    if unconfined is not None:
        console.print(
            f"No sandbox here ({unconfined}): the demo runs its own simulated agents and "
            "its project's tests unconfined. On your own projects Ralph refuses to, until "
            "you install bubblewrap or set RALPH_ALLOW_UNSANDBOXED=true.",
            markup=False,
        )
        skip_unconfined_warning()
    with tempfile.TemporaryDirectory(prefix="ralph-demo-") as scratch:
        folder = keep.resolve() if keep is not None else Path(scratch) / "greet"
        started = time.monotonic()
        with demo_project(folder, unconfined=unconfined is not None) as (project, epic):
            view = LiveView(project.store, project.tracker, console)
            interrupt = Interrupt()
            console.print(f"Epic #{epic} in {folder}", markup=False)
            with signals(interrupt), view.showing():
                session, check = run_demo(project, epic, observer=view, interrupt=interrupt)
            kept = keep is not None
            _conclude(project, session, console, mode="team", root=epic, next_steps=kept)
        elapsed = time.monotonic() - started
        verdicts = [
            ("every issue Done", check.all_done),
            ("the change merged on main", check.merged),
            (f"the tests pass on main ({check.test_output.splitlines()[-1]})", check.tests_pass),
        ]
        for label, ok in verdicts:
            console.print(f"{'✓' if ok else '✗'} {label}", markup=False)
        console.print(f"Finished in {elapsed:.1f}s.", markup=False)
        where = str(folder) if keep is not None else "a kept folder (ralph demo --keep DIR)"
        # The demo's epic is Done: the next step names a new one, never its number.
        console.print(
            "The agents were simulated. To do the same with Claude Code: "
            f"{install_hint('claude')} (it bundles Claude Code), set ANTHROPIC_API_KEY, "
            f'then in {where} file an epic (`ralph issue new "TITLE" -e M`) and run '
            "`ralph team N --agent claude` with its number N.",
            markup=False,
        )
    if not check.ok:
        raise typer.Exit(EXIT_NEEDS_PERSON)
