"""Implementation a person drives (``ralph implement N --interactive``; skill
``implement-plan``): one plan phase at a time in the issue's worktree, with a pause for
manual verification between phases.

It starts as the implement phase would (its preconditions, worktree and branch, the lock
state), posts the original's ``## Implementation Started`` once, and shows the first plan
phase whose Automated Verification is not ticked. ``step_done`` runs the project's tests
in the worktree and, when they pass, ticks that phase and commits the worktree. Once
every phase is ticked the pull request phase (``ralph run pr N``) takes over, with the
same checks it applies to an agent's implementation.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from ralph.artifacts import PlanStep, plan_steps, tick_step
from ralph.errors import InvalidInput
from ralph.phases._branches import TestRun, project_tests
from ralph.phases._context import PhaseContext
from ralph.phases._registry import get_phase
from ralph.project import Project
from ralph.workflow import WorkflowState

__all__ = ["Progress", "StepDone", "next_step", "step_done"]

_STARTED = "## Implementation Started"


@dataclass(frozen=True)
class Progress:
    """Where an interactive implementation stands."""

    worktree: Path
    branch: str
    #: The plan file in the worktree.
    plan: Path
    #: The first plan phase not ticked yet; None when every phase is.
    phase: PlanStep | None
    total: int
    #: What was done on the way (worktree made, comment posted), as lines for a person.
    said: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepDone:
    #: The phase the tests were run for.
    phase: PlanStep
    tests: TestRun
    #: The commit made in the worktree (None when the tests failed).
    commit: str | None
    #: What comes next.
    step: Progress


def _title(text: str, fallback: str) -> str:
    heading = next((line for line in text.splitlines() if line.startswith("# ")), "")
    return heading.removeprefix("# ").strip() or fallback


def next_step(project: Project, number: int) -> Progress:
    """Start or resume the interactive implementation of ``number``'s plan: the
    implement phase's preconditions, its worktree, and the next plan phase to do."""
    phase = get_phase("implement")
    ctx = PhaseContext(project, date.today())
    members = phase.members(ctx, project.tracker.get_issue(number))
    phase.check(ctx, members)  # AlreadyDone once it is all committed and ticked
    for issue in members:  # review_mode = "skip": the lock takes it from Plan in Review
        if issue.workflow_state is not WorkflowState.IN_PROGRESS:
            ctx.move(issue.number, "__LOCK__", command=phase.command)
    with phase.workspace(ctx, members) as space:
        plan = space.workdir / space.facts["plan"]
    if not plan.is_file():
        raise InvalidInput(f"the plan {space.facts['plan']} is missing from {space.workdir}")
    text = plan.read_text()
    title = _title(text, space.facts["plan"])
    for issue in members:
        posted = ctx.comment_once(
            issue.number,
            f"{_STARTED}\n\nBeginning implementation of {title}.\n\n"
            f"Worktree: {space.facts['worktree']}\nBranch: {space.facts['branch']}\n",
        )
        if posted:
            ctx.say(f"Posted {_STARTED} on #{issue.number}.")
    phases = plan_steps(text)
    pending = next((p for p in phases if not p.done), None)
    return Progress(
        space.workdir, space.facts["branch"], plan, pending, len(phases), tuple(ctx.said)
    )


def step_done(project: Project, number: int) -> StepDone:
    """The person says the current plan phase is implemented and checked by hand: the
    project's tests run in the worktree; when they pass the phase is ticked and the
    worktree committed."""
    step = next_step(project, number)
    if step.phase is None:
        raise InvalidInput(
            f"every phase of the plan is ticked already; next: ralph run pr {number}"
        )
    ctx = PhaseContext(project, date.today())
    tests = project_tests(ctx, step.worktree)
    if not tests.passed:
        return StepDone(step.phase, tests, None, step)
    step.plan.write_text(tick_step(step.plan.read_text(), step.phase.number))
    git = project.git
    git.git("add", "-A", what="stage the phase", cwd=step.worktree)
    message = f"GH-{number}: Phase {step.phase.number}: {step.phase.title}"
    identity = git.identity_env()
    git.git("commit", "-q", "-m", message, what="commit", cwd=step.worktree, env=identity)
    commit = git.git("rev-parse", "HEAD", what="read the commit", cwd=step.worktree)
    pending = next((p for p in plan_steps(step.plan.read_text()) if not p.done), None)
    return StepDone(step.phase, tests, commit, replace(step, phase=pending, said=()))
