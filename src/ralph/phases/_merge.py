"""Merge (integrator; In Review): merge the pull request when it is mergeable and its
checks pass; on a conflict rebase once in the worktree and re-run the tests, else
escalate. Then Done, the parent advanced, the worktree pruned. No agent."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.errors import MergeConflict
from ralph.phases._branches import project_tests
from ralph.phases._context import PhaseContext
from ralph.phases._merged import finish_merged, noted
from ralph.phases._phase import AlreadyDone, Attempt, Impasse, NeedsHuman, Phase, PhaseRefused
from ralph.phases._worktree_hooks import after_create
from ralph.tracker import Issue, PullRequest, PullRequestState
from ralph.workflow import WorkflowState

__all__ = ["MergePhase"]


def _request_for(ctx: PhaseContext, issue: Issue) -> PullRequest | None:
    found = [
        pr
        for pr in ctx.tracker.list_pull_requests(issue=issue.number)
        if pr.state is not PullRequestState.CLOSED
    ]
    return found[-1] if found else None


class MergePhase(Phase):
    name = "merge"

    def members(self, ctx: PhaseContext, issue: Issue) -> list[Issue]:
        pr = _request_for(ctx, issue)
        if pr is None:
            return [issue]
        others = [ctx.tracker.get_issue(n) for n in pr.closes if n != issue.number]
        return [issue, *others]

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        issue = members[0]
        pr = _request_for(ctx, issue)
        if pr is not None and pr.state is PullRequestState.MERGED:
            if all(noted(member, pr) for member in members):
                raise AlreadyDone(
                    f"pull request #{pr.number} for #{issue.number} is merged already"
                )
            return  # merged, but a crash came before its follow-ups: apply finishes them
        if pr is None:
            if issue.workflow_state is WorkflowState.DONE:
                raise AlreadyDone(f"#{issue.number} is Done already")
            raise PhaseRefused(
                f"no pull request closes #{issue.number}; run ralph run pr {issue.number} first"
            )
        git = ctx.project.git
        if not git.has_remote() and not git.has_branch(pr.head):  # a remote's is GitHub's
            n = issue.number
            raise Impasse(
                f"pull request #{pr.number} has nothing to merge: its branch {pr.head} no "
                f'longer exists; implement it again: ralph issue move {n} "In Progress", '
                f"then ralph hero {n} (or restore {pr.head} if you still have its commits)"
            )
        super().check(ctx, members)

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        primary = members[0]
        found = _request_for(ctx, primary)
        assert found is not None  # checked
        pr = ctx.tracker.get_pull_request(found.number)  # mergeability and checks, fresh
        if pr.state is PullRequestState.MERGED:  # by a run that crashed before the rest
            ctx.tracker.settle_merged(pr.number)
            merged = pr
        else:
            merged = self._merge(ctx, pr)
        finish_merged(ctx, merged, members)

    def _merge(self, ctx: PhaseContext, pr: PullRequest) -> PullRequest:
        failing = {c.name: c.conclusion or c.status for c in pr.checks if not c.passed}
        if failing:
            listed = ", ".join(f"{name}: {state}" for name, state in sorted(failing.items()))
            raise NeedsHuman(f"pull request #{pr.number} has checks that do not pass ({listed})")
        if pr.state is PullRequestState.OPEN and pr.mergeable is False:
            self._rebase(ctx, pr)
        try:
            return ctx.tracker.merge_pull_request(pr.number)
        except MergeConflict as conflict:
            raise NeedsHuman(f"pull request #{pr.number} does not merge: {conflict}") from None

    def _rebase(self, ctx: PhaseContext, pr: PullRequest) -> None:
        """Rebase the branch onto the base once, in its worktree, and re-run the tests."""
        git = ctx.project.git
        made = ctx.worktrees.ensure(pr.head.removeprefix("feature/"), pr.head, pr.base)
        after_create(ctx, made.path)  # the tests below may need what it installs
        rebased = git.run("rebase", f"refs/heads/{pr.base}", cwd=made.path, env=git.identity_env())
        if rebased.returncode != 0:
            conflicted = git.run("diff", "--name-only", "--diff-filter=U", cwd=made.path)
            git.run("rebase", "--abort", cwd=made.path)
            files = ", ".join(conflicted.stdout.split()) or "unknown files"
            raise NeedsHuman(
                f"{pr.head} conflicts with {pr.base} and does not rebase cleanly ({files})"
            )
        tests = project_tests(ctx, made.path)
        if not tests.passed:
            raise NeedsHuman(
                f"{pr.head} rebased onto {pr.base} but the tests fail (`{tests.command}`): "
                f"{tests.tail}"
            )
        if git.has_remote():
            git.git("push", "--force-with-lease", "origin", pr.head, what=f"push {pr.head}")
        ctx.say(f"Rebased {pr.head} onto {pr.base}; the tests pass.")
