"""What follows a merged pull request, whoever merged it (the merge phase, or a person
with ``ralph pr merge``): the local base catches up with a remote, each issue's parent
advances, the worktree goes, and each issue gets the note that says it is finished.

Every step can run again: a rerun after a crash between them finishes the rest, and the
note comes last so that its presence means everything before it was done."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.phases._attempt import remove_attempt_branches
from ralph.phases._context import PhaseContext
from ralph.phases._worktree_hooks import run_hook
from ralph.tracker import Issue, PullRequest

__all__ = ["finish_merged", "merged_note", "noted"]


def merged_note(pr: PullRequest) -> str:
    """How the comment saying the merge is finished begins."""
    return f"Merged pull request #{pr.number} ("


def noted(issue: Issue, pr: PullRequest) -> bool:
    return any(c.body.startswith(merged_note(pr)) for c in issue.comments)


def finish_merged(ctx: PhaseContext, merged: PullRequest, members: Sequence[Issue]) -> None:
    """The follow-ups of ``merged`` for the issues it closes (``members``, which the
    merge moved to Done)."""
    if ctx.project.git.has_remote():  # the merge happened there (GitHub): catch up
        ctx.project.git.fast_forward_from(merged.base)
    commit = (merged.merge_commit or "")[:7]
    for issue in members:
        advanced = ctx.tracker.advance_parent(issue.number)
        if advanced.advanced and advanced.change is not None:
            ctx.say(f"Parent #{advanced.change.number} moved to {advanced.change.new}.")
    worktree = merged.head.removeprefix("feature/")
    if ctx.worktrees.path(worktree).is_dir():
        run_hook(ctx, "before_remove", ctx.worktrees.path(worktree))
    pruned = ctx.worktrees.prune(worktree, ctx.base)
    # Best of N's losing attempts were kept for inspection until now.
    attempts = remove_attempt_branches(ctx, worktree)
    for issue in members:
        ctx.comment_once(
            issue.number,
            f"{merged_note(merged)}{merged.head} -> {merged.base}, {commit}). Done.\n",
        )
    ctx.say(
        f"Merged pull request #{merged.number} into {merged.base} ({commit}); "
        f"{', '.join(f'#{i.number}' for i in members)} Done."
    )
    if attempts:
        ctx.say(f"Removed the attempts' branches: {', '.join(attempts)}.")
    if pruned.removed:
        ctx.say(f"Removed worktree worktrees/{worktree}.")
    elif pruned.reason:
        ctx.say(f"Kept worktree worktrees/{worktree}: {pruned.reason}.")
