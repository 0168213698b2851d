"""Implement (builder; In Progress, or Plan in Review when review_mode = "skip"): the
agent implements the plan's phases in the
plan's worktree, ticking each phase's checkboxes and committing. The runner then checks
that commits exist, every phase is ticked, nothing is left uncommitted, nothing was
written outside the worktree, and the project's tests pass there; files changed that
the plan does not name are said (a warning). A fast-tracked issue that cannot be
implemented goes through the full pipeline once instead of escalating."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ralph.artifacts import DOCUMENTS_ROOT, UNPLANNED, ArtifactKind, plan_steps
from ralph.git import noted_files, working_changes
from ralph.phases._branches import branch_for, project_tests, worktree_id
from ralph.phases._context import PhaseContext
from ralph.phases._control_hold import hold_control_changes
from ralph.phases._fast_track import fall_back
from ralph.phases._group import plan_members
from ralph.phases._ownership import claim_branch, foreign_branch
from ralph.phases._phase import AlreadyDone, Attempt, Phase, PhaseRefused, Workspace
from ralph.phases._plan_files import unplanned_files
from ralph.phases._schemas import result_schema
from ralph.phases._worktree_hooks import after_create, run_hook
from ralph.runtimes import AgentResult
from ralph.tracker import Issue
from ralph.workflow import WorkflowState, is_earlier_state

__all__ = ["ImplementPhase", "implementation_problems"]


def implementation_problems(
    ctx: PhaseContext, members: Sequence[Issue], worktree: str
) -> list[str]:
    """Why the implementation on the worktree's branch is not finished (empty: it is)."""
    git = ctx.project.git
    branch = branch_for(worktree)
    path = ctx.worktrees.path(worktree)
    if not git.has_branch(branch) or not path.exists():
        return [f"there is no worktree {path.name} on {branch}"]
    problems = []
    # What a preparing hook installed there is not the agent's to commit.
    left = sorted(working_changes(git, path).keys() - noted_files(git, path))
    if left:
        problems.append(f"uncommitted changes left in the worktree: {', '.join(left)}")
    ahead = git.git(
        "rev-list", "--count", f"refs/heads/{ctx.base}..refs/heads/{branch}", what="count commits"
    )
    if not int(ahead):
        problems.append(f"{branch} has no commits beyond {ctx.base}")
    elif all(path.startswith(DOCUMENTS_ROOT) for path in git.changed_files(ctx.base, branch)):
        # A plan ticked as done is not the change it plans.
        problems.append(
            f"{branch} changes only documents ({DOCUMENTS_ROOT}): the change the plan describes "
            "is not made"
        )
    found = ctx.find(ArtifactKind.PLAN, members[0])
    plan_file = path / found.path if found else None
    if plan_file is None or not plan_file.is_file():
        problems.append("the plan is missing from the worktree")
    else:
        open_phases = [str(p.number) for p in plan_steps(plan_file.read_text()) if not p.done]
        if open_phases:
            problems.append(f"plan phase(s) {', '.join(open_phases)} not ticked as verified")
    return problems


class ImplementPhase(Phase):
    name = "implement"
    result_schema = result_schema(
        ["phases_done", "phases_total"],
        {
            "phases_done": {"type": "integer", "minimum": 0},
            "phases_total": {"type": "integer", "minimum": 1},
            "files": {"type": "array", "items": {"type": "string"}},
            "tests": {"enum": ["PASSING", "FAILING"]},
            "summary": {"type": "string"},
        },
    )

    def members(self, ctx: PhaseContext, issue: Issue) -> list[Issue]:
        return plan_members(ctx, issue)

    def worktree(self, ctx: PhaseContext, members: Sequence[Issue]) -> str:
        """The worktree (and, as ``feature/<it>``, the branch) the agent works in."""
        return worktree_id(ctx, members)

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        later = [
            i for i in members if is_earlier_state(WorkflowState.IN_PROGRESS, i.workflow_state)
        ]
        if len(later) == len(members):
            raise AlreadyDone(
                f"#{members[0].number} is implemented already ({later[0].workflow_state})"
            )
        # With review_mode = "skip" nobody approves: implementation takes the plan from
        # Plan in Review and its lock moves it to In Progress (the original's ralph_impl).
        accepted = {WorkflowState.IN_PROGRESS}
        if ctx.skips_review:
            accepted.add(WorkflowState.PLAN_IN_REVIEW)
        blocked = [i for i in members if i.workflow_state not in accepted]
        if blocked:
            listed = ", ".join(f"#{i.number}: {i.workflow_state}" for i in blocked)
            raise PhaseRefused(
                f"Implementation blocked. {listed} (expected: In Progress); approve the plan "
                f"first (ralph run review {members[0].number} or ralph approve {members[0].number})"
            )
        for issue in members:
            self.check_estimate(issue)
        unreviewed = [i for i in members if i.workflow_state is WorkflowState.PLAN_IN_REVIEW]
        if unreviewed:
            listed = ", ".join(f"#{i.number}" for i in unreviewed)
            ctx.say(f"Review skipped (review_mode = skip): {listed} In Progress without one.")
        worktree = worktree_id(ctx, members)
        refusal = foreign_branch(ctx, branch_for(worktree), members[0].number)
        if refusal is not None:
            raise refusal
        if not implementation_problems(ctx, members, worktree):
            raise AlreadyDone(
                f"#{members[0].number} is implemented on {branch_for(worktree)}; "
                f"next: ralph run pr {members[0].number}"
            )

    @contextmanager
    def workspace(self, ctx: PhaseContext, members: Sequence[Issue]) -> Iterator[Workspace]:
        worktree = self.worktree(ctx, members)
        claim_branch(ctx, branch_for(worktree), members[0].number)
        made = ctx.worktrees.ensure(worktree, branch_for(worktree), ctx.base)
        if made.created:
            ctx.say(f"Created worktree worktrees/{worktree} on {made.branch}.")
        after_create(ctx, made.path)
        plan = ctx.find(ArtifactKind.PLAN, members[0])
        run_hook(ctx, "before_run", made.path)
        try:
            yield Workspace(
                made.path,
                facts={
                    "date": ctx.day.isoformat(),
                    "test_command": ctx.project.config.test_command,
                    "branch": made.branch,
                    "base_branch": ctx.base,
                    "worktree": f"worktrees/{worktree}",
                    # The plan file is the agent's to tick and commit with each phase.
                    "plan": plan.path if plan is not None else "",
                },
                may_change=None,
            )
        finally:  # after the run and its checks, whatever their outcome; never fatal
            run_hook(ctx, "after_run", made.path)

    def validate(
        self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace, result: AgentResult
    ) -> list[str]:
        worktree = space.workdir.name
        problems = implementation_problems(ctx, members, worktree)
        if problems:
            return problems
        hold_control_changes(ctx, branch_for(worktree), members[0].number)
        tests = project_tests(ctx, space.workdir)
        if not tests.passed:
            return [f"the tests fail in the worktree (`{tests.command}`):\n{tests.output}"]
        return []

    def fall_back(self, ctx: PhaseContext, members: Sequence[Issue], why: str) -> bool:
        return fall_back(ctx, members, why, command=self.command)

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        worktree = worktree_id(ctx, members)
        branch = branch_for(worktree)
        if ctx.project.git.has_remote():
            ctx.project.git.push(branch)
        done, total = attempt.result["phases_done"], attempt.result["phases_total"]
        ctx.say(
            f"Implemented {done} of {total} phase(s) on {branch} (worktrees/{worktree}); "
            f"next: ralph run pr {members[0].number}"
        )
        unplanned = unplanned_files(ctx, members, branch)
        if unplanned:
            ctx.say(f"{UNPLANNED}: {', '.join(unplanned)} (no phase of the plan names them)")
