"""``ralph run PHASE N`` and ``ralph approve N``: one phase on one issue, by hand."""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from ralph._agents import AGENT_NAMES
from ralph.cli._bounds import MAX_ATTEMPTS, MAX_BEST_OF
from ralph.cli._console import Console
from ralph.cli._echo import say
from ralph.cli._exits import EXIT_FAILED, EXIT_INTERRUPTED
from ralph.cli._issue_ref import issue_argument
from ralph.cli._project import open_project_of, warn_if_untested, warn_settings_changed
from ralph.errors import InvalidInput
from ralph.orchestrate import dollars, unpriced_of
from ralph.workflow import PHASE_SPECS

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from ralph.config import BestOf
    from ralph.phases import PhaseOutcome, PhaseRunner
    from ralph.project import Project
    from ralph.runtimes import AgentRuntime

#: The phases ``ralph run`` takes, by name.
PHASE_BY_NAME = {spec.name: spec for spec in PHASE_SPECS if not spec.by_person}

__all__ = [
    "AdoptOpt",
    "BestOfOpt",
    "WaitOpt",
    "approve_command",
    "best_of_settings",
    "project_runtime",
    "run_command",
]

#: Exit code when the phase ran but did not succeed (escalated or failed).
EXIT_PHASE_FAILED = EXIT_FAILED

AdoptOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--adopt-branch",
        metavar="BRANCH",
        help="Let Ralph build on this existing branch of yours (its commits will be merged); "
        "repeatable.",
        show_default=False,
    ),
]


WaitOpt = Annotated[
    bool,
    typer.Option(
        "--wait",
        help="When work waits for a person (a review, a merge by hand), keep going and look "
        "again as it backs off ([merge] wait_seconds, doubling) instead of stopping with "
        "exit 1.",
    ),
]


BestOfOpt = Annotated[
    int | None,
    typer.Option(
        "--best-of",
        min=1,
        max=MAX_BEST_OF,
        help="Implement each plan N times side by side, each on its own branch, and keep the "
        "best (tests, plan checks, smaller diff, cost); default: ralph.toml's "
        "[agent.phases.implement] best_of. Not --attempts, which counts retries.",
        show_default=False,
    ),
]


def best_of_settings(
    project: Project, count: int | None, agent: str | None = None
) -> BestOf | None:
    """ralph.toml's best-of for the implementation with ``--best-of``'s count on it, and
    with ``--agent`` (one agent for every phase) one agent for every attempt too; None
    when neither option is given (a run resumed keeps its own)."""
    if count is None and agent is None:
        return None
    best_of = project.config.agent.best_of_for("implement")
    if agent is not None:
        best_of = dataclasses.replace(best_of, agents=())
    return best_of if count is None else dataclasses.replace(best_of, count=count)


def _print(outcome: PhaseOutcome, agent: str) -> None:
    console = Console(highlight=False, soft_wrap=True)
    issues = ", ".join(f"#{n}" for n in outcome.issues)
    console.print(Text.assemble((outcome.phase, "bold"), f" {issues} — {agent or 'no agent'}"))
    for line in outcome.lines:
        console.print(f"  {line}", markup=False)
    for breach in outcome.breaches:
        console.print(f"  ! {breach}", style="red", markup=False)
    if outcome.agent_runs:
        seconds = sum(run.duration_seconds for run in outcome.agent_runs)
        unpriced = unpriced_of(run.unpriced_model for run in outcome.agent_runs)
        cost = dollars(outcome.cost_usd, unpriced)
        console.print(
            f"  agent runs: {len(outcome.agent_runs)}, {cost}, {seconds:.1f}s", markup=False
        )
    console.print(f"  result: {outcome.status.value}", markup=False)


def project_runtime(project: Project, name: str | None) -> AgentRuntime:
    """The runtime ``--agent`` names for every phase, or ralph.toml's, with the project's
    read-only tracker tools for agents that take MCP servers in-process (Claude)."""
    from ralph.project import open_agent_runtime

    def tools() -> MCPServer:
        from ralph.mcp import build_server

        return build_server(project, read_only=True, actor="agent")

    return open_agent_runtime(project.config, name, tools=tools)


def run_command(
    ctx: typer.Context,
    phase: Annotated[
        str,
        typer.Argument(
            help=f"One of: {', '.join(spec.name for spec in PHASE_SPECS)}.", show_default=False
        ),
    ],
    number: Annotated[
        int | None,
        issue_argument(
            "Issue number (default: the issue `ralph issue next --command PHASE` picks)."
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help=f"The agent for every phase: {', '.join(AGENT_NAMES)} (default: ralph.toml's "
            "[agent], per phase where it says so).",
            show_default=False,
        ),
    ] = None,
    attempts: Annotated[
        int,
        typer.Option(
            "--attempts", min=1, max=MAX_ATTEMPTS, help="Agent attempts before escalating."
        ),
    ] = 2,
    adopt: AdoptOpt = None,
    wait: WaitOpt = False,
    best_of: BestOfOpt = None,
) -> None:
    """Run one phase on one issue (a group phase on the issue's whole group); without a
    number, on the issue the phase should take next (exit 0 when there is none). A phase
    not ready yet (a pull request's checks running) looks again as it backs off; one
    waiting for a person stops with exit 1, unless --wait. implement with --best-of N
    (or ralph.toml's best_of) runs N attempts at once and keeps the best."""
    from ralph._suggest import unknown_name
    from ralph.phases import PhaseRunner, PhaseStatus, adopt_branch
    from ralph.runtimes import NoAgent

    if phase not in PHASE_BY_NAME:
        raise InvalidInput(unknown_name("phase", phase, list(PHASE_BY_NAME), "phases are"))
    if best_of is not None and phase != "implement":
        raise InvalidInput(f"--best-of applies to implement only, not {phase}; drop it")
    with open_project_of(ctx, working=True) as project:
        for branch in adopt or ():
            adopt_branch(project, branch)
        # A phase that calls no model (pr, merge) opens no agent: no key or login asked.
        uses_agent = PHASE_BY_NAME[phase].uses_agent
        runtime = project_runtime(project, agent) if uses_agent else NoAgent()
        warn_if_untested(project.config)
        warn_settings_changed(project)
        if number is None:
            number = _next_issue(project, phase)
            if number is None:
                return
        runner = PhaseRunner(project, runtime, max_attempts=attempts)
        several = best_of_settings(project, best_of, agent) or (
            project.config.agent.best_of_for(phase)
        )
        if phase == "implement" and several.count > 1:
            outcome = runner.run_best_of(number, several)
        else:
            outcome = _run_until_ready(runner, project, phase, number, wait=wait)
    _print(outcome, runtime.describe(phase))
    if outcome.status is PhaseStatus.WAITING:
        say(
            f"Waiting for a person: {outcome.waiting_for}. `ralph run {phase} {number}` looks "
            "again (--wait keeps waiting)."
        )
    if not outcome.ok:
        raise typer.Exit(EXIT_PHASE_FAILED)


def _run_until_ready(
    runner: PhaseRunner, project: Project, phase: str, number: int, *, wait: bool
) -> PhaseOutcome:
    """Run the phase, and again after each backoff step while it waits for something
    that ends by itself (or for a person, with ``wait``)."""
    from ralph.orchestrate import wait_policy
    from ralph.phases import PhaseStatus

    policy = wait_policy(project.config)
    outcome = runner.run(phase, number)
    waits = 0
    while outcome.status is PhaseStatus.WAITING and (wait or not outcome.for_person):
        delay = policy.delay(waits)
        waits += 1
        say(f"{phase} #{number}: waiting for: {outcome.waiting_for}; looking again in {delay:g}s")
        try:
            time.sleep(delay)
        except KeyboardInterrupt:
            say(f"Stopped waiting. `ralph run {phase} {number}` looks again.")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        outcome = runner.run(phase, number)
    return outcome


def _next_issue(project: Project, phase: str) -> int | None:
    """The issue ``ralph issue next --command PHASE`` picks, said out loud; or why there
    is none."""
    found = project.tracker.look_for_work(command=PHASE_BY_NAME[phase].command)
    if not found.issues:
        say(f"No work found for {phase}: {found.why_none()}.")
        return None
    issue = found.issues[0]
    say(f"{phase}: took #{issue.number} {issue.title} [{issue.workflow_state}]")
    return issue.number


def approve_command(
    ctx: typer.Context,
    number: Annotated[int, issue_argument("Issue number.")],
) -> None:
    """Approve the plan for an issue (a human gate): its issues move to In Progress."""
    from ralph.phases import approve

    with open_project_of(ctx) as project:
        approved = approve(project, number)
    listed = ", ".join(f"#{i.number}" for i in approved)
    Console(highlight=False, soft_wrap=True).print(
        # A person's gate: the next step by hand first, then the agent's.
        f"Approved the plan for {listed}: In Progress. Next: ralph implement {number} "
        f"--interactive (by hand), or ralph run implement {number} (the agent)"
    )
