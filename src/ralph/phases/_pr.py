"""Pull request (integrator; In Progress): push the branch when there is a remote, open
the pull request on the code host, link it from every issue, move them to In Review.
A work stream's pull request is titled ``Title [stream-42-44 of GH-40]`` as the
original titles it. No agent: every step is mechanical."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.artifacts import UNPLANNED, ArtifactKind, StreamNames
from ralph.phases._branches import branch_for, plan_stream, worktree_id
from ralph.phases._context import PhaseContext
from ralph.phases._group import plan_members
from ralph.phases._implement import implementation_problems
from ralph.phases._phase import AlreadyDone, Attempt, Phase, PhaseRefused
from ralph.phases._plan_files import unplanned_files
from ralph.tracker import Issue, PullRequest, PullRequestState
from ralph.workflow import WorkflowState, is_earlier_state

__all__ = ["PullRequestPhase"]


def _open_request(ctx: PhaseContext, branch: str) -> PullRequest | None:
    found = ctx.code_host.list_pull_requests(state=PullRequestState.OPEN, head=branch)
    return found[0] if found else None


class PullRequestPhase(Phase):
    name = "pr"

    def members(self, ctx: PhaseContext, issue: Issue) -> list[Issue]:
        return plan_members(ctx, issue)

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        worktree = worktree_id(ctx, members)
        if all(is_earlier_state(WorkflowState.IN_PROGRESS, i.workflow_state) for i in members):
            pr = _open_request(ctx, branch_for(worktree))
            where = f": pull request #{pr.number}" if pr else ""
            state = members[0].workflow_state
            raise AlreadyDone(f"#{members[0].number} has its pull request already ({state}){where}")
        super().check(ctx, members)
        problems = implementation_problems(ctx, members, worktree)
        if problems:
            raise PhaseRefused(
                f"#{members[0].number} is not implemented yet ({'; '.join(problems)}); "
                f"run ralph run implement {members[0].number} first"
            )

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        git = ctx.project.git
        worktree = worktree_id(ctx, members)
        branch = branch_for(worktree)
        stream = plan_stream(ctx, members)
        title = members[0].title
        if git.has_remote():
            git.push(branch)
        pr = _open_request(ctx, branch) or ctx.code_host.create_pull_request(
            head=branch,
            base=ctx.base,
            title=stream.pull_request_title(title) if stream is not None else title,
            body=self._body(ctx, members, branch, stream),
        )
        # What comes next, as this project runs it: a reviewer only with review_code.
        after = "Ready for code review." if ctx.project.config.review_code else "Ready to merge."
        for issue in members:
            ctx.comment_once(
                issue.number,
                f"## Implementation Complete\n\n{pr.url}\n\nPR: {pr.url}\nBranch: {branch}\n\n"
                f"{after}\n",
            )
        ctx.move_all([i.number for i in members], "__COMPLETE__", command=self.command)
        ctx.say(
            f"Opened pull request #{pr.number} ({branch} -> {ctx.base}) for "
            f"{', '.join(f'#{i.number}' for i in members)}; status: In Review. "
            f"Worktree preserved at worktrees/{worktree}."
        )

    def _body(
        self,
        ctx: PhaseContext,
        members: Sequence[Issue],
        branch: str,
        stream: StreamNames | None,
    ) -> str:
        primary = members[0]
        if len(members) == 1:
            summary = f"Implements #{primary.number}: {primary.title}"
        else:
            summary = f"Atomic implementation of {len(members)} related issues:\n" + "\n".join(
                f"- #{i.number}: {i.title}" for i in members
            )
        closes = "\n".join(f"- {ctx.tracker.closing_words(i.number)}" for i in members)
        changed = ctx.project.git.changed_files(ctx.base, branch)
        files = "\n".join(f"- `{path}`" for path in changed) or "- (none)"
        unplanned = unplanned_files(ctx, members, branch)
        if unplanned:
            listed = "\n".join(f"- `{path}`" for path in unplanned)
            files += f"\n\n**{UNPLANNED}** (no phase of the plan names them):\n\n{listed}"
        command = ctx.project.config.test_command
        test_plan = f"- [x] `{command}` passes on {branch}" if command else "- [ ] Run the tests"
        documents = []
        plan = ctx.find(ArtifactKind.PLAN, primary)
        if plan:
            documents.append(f"- Plan: {ctx.links.link(plan.path)}")
        for issue in members:
            research = ctx.find(ArtifactKind.RESEARCH, issue)
            if research:
                documents.append(f"- Research for #{issue.number}: {ctx.links.link(research.path)}")
        epic = f"\n\n## Epic\n\nParent: #{primary.parent}" if primary.parent else ""
        if stream is not None:
            listed = ", ".join(f"#{n}" for n in stream.issues)
            epic = (
                f"\n\n## Stream Context\n\nEpic: #{stream.epic}\nStream: {stream.id}\n"
                f"Stream issues: {listed}"
            )
        return (
            f"## Summary\n\n{summary}\n\n{closes}\n\n## Changes\n\n{files}\n\n"
            f"## Test Plan\n\n{test_plan}\n\n## Documents\n\n{chr(10).join(documents)}{epic}\n\n"
            f"---\nGenerated by Ralph; agent: {ctx.agent or 'none'}\n"
        )
