"""A merge the base branch lost (a force-push over it, a push of it the remote refused):
the pull request says merged, but its change is not on the base. A merged pull request
cannot be merged again, so the merge phase opens a new one from the same branch (made
again at the head that merged when it is gone) and merges that as any other."""

from __future__ import annotations

from ralph.phases._context import PhaseContext
from ralph.phases._phase import NeedsHuman
from ralph.tracker import PullRequest

__all__ = ["open_again"]


def open_again(ctx: PhaseContext, lost: PullRequest, issue: int) -> PullRequest:
    """A new pull request with ``lost``'s branch, title and body (so it closes the same
    issues), the branch made again at ``lost``'s head where it is gone. NeedsHuman when
    that head is not in this repository either."""
    git = ctx.project.git
    commit = (lost.merge_commit or "")[:7]
    if not git.has_branch(lost.head):
        known = lost.head_oid and git.run("cat-file", "-e", f"{lost.head_oid}^{{commit}}")
        if not known or known.returncode != 0:
            raise NeedsHuman(
                f"pull request #{lost.number} was merged as {commit}, which {lost.base} no "
                f"longer holds, and its branch {lost.head} is gone: restore the branch and "
                f'open a pull request again, or build it again: ralph issue move {issue} "In '
                f'Progress"'
            )
        git.git("branch", lost.head, str(lost.head_oid), what=f"make {lost.head} again")
    if git.has_remote():
        git.push(lost.head)
    body = (
        f"{lost.body.rstrip()}\n\nAgain: pull request #{lost.number} was merged as {commit}, "
        f"which {lost.base} no longer holds.\n"
    )
    again = ctx.code_host.create_pull_request(
        head=lost.head, base=lost.base, title=lost.title, body=body
    )
    ctx.say(
        f"Pull request #{lost.number}'s merge ({commit}) is not on {lost.base} any more: "
        f"opened pull request #{again.number} from {lost.head} to merge it again."
    )
    return ctx.code_host.get_pull_request(again.number)
