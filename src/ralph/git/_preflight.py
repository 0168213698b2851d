"""Before a run starts, what would stop it at its first commit or merge: the person's
checkout of the base branch with a conflict in it (no move of the branch can land), or
with uncommitted changes (a move that touches them is refused), and a remote that
refuses us. Said at once, instead of after the agents have worked."""

from __future__ import annotations

from ralph.errors import GitError
from ralph.git._repo import CheckoutInTheWay, GitRepo, RemoteRefused, remote_failure

__all__ = ["REACH_SECONDS", "check_checkout", "check_remote"]

#: The longest the look at the remote may take before a run.
REACH_SECONDS = 30.0


def check_checkout(repo: GitRepo, branch: str) -> str:
    """CheckoutInTheWay when the checkout of ``branch`` has an unresolved conflict; a
    warning when it has uncommitted changes (a run may still never touch them); else ""
    (also when the branch is not checked out: the recommended layout)."""
    checkout = repo.worktree_of(branch)
    if checkout is None:
        return ""
    if repo.run("ls-files", "--unmerged", cwd=checkout).stdout.strip():
        raise CheckoutInTheWay(branch, checkout, conflicted=True, detail="")
    changed = [
        p
        for p in repo.run("diff", "HEAD", "--name-only", "-z", cwd=checkout).stdout.split("\0")
        if p
    ]
    if not changed:
        return ""
    listed = ", ".join(changed[:3]) + (", ..." if len(changed) > 3 else "")
    return (
        f"{branch} is checked out in {checkout} with uncommitted changes ({listed}): a "
        "merge or document commit of Ralph's that touches them stops the run; commit or "
        "stash them, or keep your checkout on another branch"
    )


def check_remote(repo: GitRepo, remote: str = "origin") -> str:
    """RemoteRefused when ``remote`` refuses us; a warning when it did not answer (it
    may later); else "" (also without a remote)."""
    if not repo.has_remote(remote):
        return ""
    try:
        looked = repo.run("ls-remote", remote, "HEAD", timeout=REACH_SECONDS)
    except GitError as silent:
        return f"{remote} did not answer ({silent}); Ralph tries again when it needs it"
    if looked.returncode == 0:
        return ""
    failure = remote_failure(f"reach {remote}", looked.stderr)
    if isinstance(failure, RemoteRefused):
        raise failure
    return f"{failure}; Ralph tries again when it needs it"
