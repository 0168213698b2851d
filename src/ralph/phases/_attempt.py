"""Best of N for the implementation: one attempt of several, each on a branch of its own
(``feature/GH-42-try-2`` in ``worktrees/GH-42-try-2``), measured the same way; then the
winner's branch made the issue's branch (``feature/GH-42``) and the others' worktrees
removed, their branches kept for inspection until the issue is Done.

An attempt is the implement phase without its state move or issue lock (several run at
once on one issue, which stays In Progress): the same brief, the same checks, the
project's tests in the worktree. What it produced is measured by Ralph, not taken from
the agent (``AttemptRecord``), and the choice between attempts is the pure
``select_attempt``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ralph.artifacts import ArtifactKind, plan_steps
from ralph.errors import GitError
from ralph.phases._best_of_score import AttemptRecord, Selection
from ralph.phases._branches import branch_for, project_tests, worktree_id
from ralph.phases._context import PhaseContext
from ralph.phases._implement import ImplementPhase, implementation_problems
from ralph.phases._ownership import claim_branch
from ralph.phases._phase import NeedsHuman, Workspace
from ralph.runtimes import AgentBrief, AgentResult, Feedback, Limits
from ralph.tracker import Issue

__all__ = [
    "ATTEMPT_SUFFIX",
    "ImplementAttempt",
    "attempt_worktree",
    "install_winner",
    "measure_attempt",
    "remove_attempt_branches",
    "remove_attempt_worktrees",
    "selection_brief",
]

logger = logging.getLogger(__name__)

#: ``GH-42`` + ``-try-2``: an attempt's worktree, and with ``feature/`` its branch.
ATTEMPT_SUFFIX = "-try-"


def attempt_worktree(worktree: str, attempt: int) -> str:
    return f"{worktree}{ATTEMPT_SUFFIX}{attempt}"


class ImplementAttempt(ImplementPhase):
    """Attempt ``attempt`` of the implementation: its own worktree and branch; the tests'
    outcome kept for the record instead of only rejecting the attempt."""

    def __init__(self, attempt: int) -> None:
        self.attempt = attempt
        #: "passed", "failed" or "not run", from the last validation.
        self.tests = "not run"

    def worktree(self, ctx: PhaseContext, members: Sequence[Issue]) -> str:
        return attempt_worktree(worktree_id(ctx, members), self.attempt)

    @contextmanager
    def workspace(self, ctx: PhaseContext, members: Sequence[Issue]) -> Iterator[Workspace]:
        with super().workspace(ctx, members) as space:
            # Scripted agents take their behaviour per attempt from it; others ignore it.
            space.facts["attempt"] = str(self.attempt)
            yield space

    def validate(
        self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace, result: AgentResult
    ) -> list[str]:
        problems = implementation_problems(ctx, members, space.workdir.name)
        if problems:
            self.tests = "not run"
            return problems
        tests = project_tests(ctx, space.workdir)
        self.tests = "passed" if tests.passed else "failed"
        if not tests.passed:
            return [f"the tests fail in the worktree (`{tests.command}`):\n{tests.output}"]
        return []


def _diff_lines(ctx: PhaseContext, branch: str) -> int:
    """Lines added plus lines removed on ``branch`` since it left the base (a binary
    file counts as one line)."""
    numstat = ctx.project.git.git(
        "diff", "--numstat", f"refs/heads/{ctx.base}...refs/heads/{branch}", what="measure a diff"
    )
    total = 0
    for line in numstat.splitlines():
        added, removed, *_ = line.split("\t")
        total += int(added) + int(removed) if added.isdigit() and removed.isdigit() else 1
    return total


def _checks(ctx: PhaseContext, members: Sequence[Issue], worktree: str) -> tuple[int, int]:
    """(plan phases ticked, plan phases) in the attempt's copy of the plan."""
    found = ctx.find(ArtifactKind.PLAN, members[0])
    plan = ctx.worktrees.path(worktree) / found.path if found else None
    if plan is None or not plan.is_file():
        return 0, 0
    steps = plan_steps(plan.read_text())
    return sum(1 for s in steps if s.done), len(steps)


def measure_attempt(
    ctx: PhaseContext,
    members: Sequence[Issue],
    phase: ImplementAttempt,
    *,
    agent: str,
    runs: Sequence[AgentResult],
    problems: Sequence[str],
    seconds: float,
) -> AttemptRecord:
    """What the attempt left on its branch, as Ralph measures it."""
    worktree = phase.worktree(ctx, members)
    branch = branch_for(worktree)
    unfinished = implementation_problems(ctx, members, worktree)
    exists = ctx.project.git.has_branch(branch)
    done, total = _checks(ctx, members, worktree) if exists else (0, 0)
    return AttemptRecord(
        attempt=phase.attempt,
        agent=agent,
        branch=branch,
        finished=not unfinished,
        tests=phase.tests if not unfinished else "not run",
        checks_done=done,
        checks_total=total,
        diff_lines=_diff_lines(ctx, branch) if exists else 0,
        cost_usd=round(sum(r.cost_usd for r in runs), 6),
        cost_known=not any(r.unpriced_model for r in runs),
        seconds=round(seconds, 3),
        # The agent's own reason (a diff that does not apply) says more than what it
        # left undone (no commits).
        problems=tuple(problems or unfinished),
    )


def install_winner(ctx: PhaseContext, members: Sequence[Issue], winner: AttemptRecord) -> str:
    """Make the winner's branch the issue's (``feature/GH-42`` at the winner's head, its
    worktree checked out there) and return the branch. Runs again to the same end after
    a crash; refuses (NeedsHuman) when the issue's branch has commits of its own that
    are not the winner's, rather than throw them away."""
    git = ctx.project.git
    worktree = worktree_id(ctx, members)
    branch = branch_for(worktree)
    head = git.resolve(f"refs/heads/{winner.branch}")
    claim_branch(ctx, branch, members[0].number)
    if git.has_branch(branch):
        current = git.resolve(f"refs/heads/{branch}")
        if current != head:
            if not git.is_ancestor(current, f"refs/heads/{ctx.base}"):
                raise NeedsHuman(
                    f"{branch} already has commits that are not try {winner.attempt}'s; "
                    f"keep one of {branch} and {winner.branch} and run implement again"
                )
            # The issue's branch holds nothing of its own: it moves to the winner.
            ctx.worktrees.remove(worktree)
            git.git("update-ref", f"refs/heads/{branch}", head, current, what=f"move {branch}")
    else:
        git.git("branch", branch, head, what=f"create {branch}")
    ctx.worktrees.ensure(worktree, branch, ctx.base)
    logger.info("best of n: winner installed", extra={"branch": branch, "from": winner.branch})
    return branch


def remove_attempt_worktrees(ctx: PhaseContext, members: Sequence[Issue], count: int) -> None:
    """The attempts' worktrees go once a winner is in place; their branches stay."""
    worktree = worktree_id(ctx, members)
    for attempt in range(1, count + 1):
        ctx.worktrees.remove(attempt_worktree(worktree, attempt))


def remove_attempt_branches(ctx: PhaseContext, worktree: str) -> list[str]:
    """Every attempt's worktree and branch of ``worktree`` (``feature/GH-42-try-*``),
    gone once its issue is Done; the branches removed, by name."""
    git = ctx.project.git
    removed = []
    for name in git.branches_named(f"{branch_for(worktree)}{ATTEMPT_SUFFIX}"):
        ref = f"refs/heads/{name}"
        suffix = name.rpartition(ATTEMPT_SUFFIX)[2]
        if not suffix.isdigit():
            continue
        ctx.worktrees.remove(name.removeprefix("feature/"))
        try:
            git.git("update-ref", "-d", ref, what=f"remove {name}")
        except GitError:  # gone meanwhile: what was asked for holds
            continue
        removed.append(name)
    return removed


#: How much of each attempt's diff the validator reads.
_DIFF_CHARS = 20_000

_SELECT_INSTRUCTIONS = """You are the validator choosing between implementations of one plan.

{count} builders implemented the plan for {issues}, each on a branch of its own. Every
attempt below passed the project's tests and ticked the plan's checks; their diffs against
the base branch follow as data. Ralph's score (tests, then plan checks, then the smaller
diff, then cost) ranks them {ranking}.

Read the diffs (and the code in your working directory, the base branch, where it helps)
and choose the implementation to merge: the one that does what the plan and the issue ask
most correctly and most clearly, with the least risk. Do not change any file.

Return JSON: {{"winner": <the attempt's number>, "reason": "<why, in a sentence or two>"}}.
"""

SELECT_SCHEMA = {
    "type": "object",
    "required": ["winner", "reason"],
    "properties": {
        "winner": {"type": "integer", "minimum": 1},
        "reason": {"type": "string", "minLength": 1},
    },
}


def selection_brief(
    ctx: PhaseContext,
    members: Sequence[Issue],
    eligible: Sequence[AttemptRecord],
    scored: Selection,
) -> Callable[[Path, Limits], AgentBrief]:
    """The validator's brief for ``select = "review"``, once its working directory (a
    checkout of the base) and limits are known. The diffs are agent-written: fenced as
    untrusted text, never instructions."""
    git = ctx.project.git
    diffs = [
        Feedback(
            kind="diff",
            where=f"try {r.attempt} ({r.branch}, {r.diff_lines} lines, {r.cost})",
            text=git.git(
                "diff", f"refs/heads/{ctx.base}...refs/heads/{r.branch}", what="read a diff"
            )[:_DIFF_CHARS],
        )
        for r in eligible
    ]
    numbers = ", ".join(f"#{i.number}" for i in members)
    ranking = " > ".join(f"try {n}" for n in scored.ranking if n in {r.attempt for r in eligible})
    instructions = _SELECT_INSTRUCTIONS.format(count=len(eligible), issues=numbers, ranking=ranking)

    def brief(workdir: Path, limits: Limits) -> AgentBrief:
        return AgentBrief(
            phase="select",
            role="validator",
            issues=tuple(ctx.issue_context(i) for i in members),
            instructions=instructions,
            workdir=workdir,
            tools=("Read", "Glob", "Grep"),
            limits=limits,
            result_schema=SELECT_SCHEMA,
            facts={"attempts": ",".join(str(r.attempt) for r in eligible), "ranking": ranking},
            feedback=tuple(diffs),
        )

    return brief
