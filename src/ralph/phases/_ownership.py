"""Which implementation branches Ralph may build on: one it created (recorded in the store
just before it makes it), one a person let it adopt (``--adopt-branch``), or one with no
commits of its own. Any other branch of that name holds a person's work, and Ralph would
merge it unreviewed: it refuses, once and for good, saying how to go on."""

from __future__ import annotations

from ralph.errors import InvalidInput
from ralph.phases._context import PhaseContext
from ralph.phases._phase import Impasse
from ralph.project import Project

__all__ = ["ForeignBranch", "adopt_branch", "claim_branch", "foreign_branch"]

CREATED = "created"
ADOPTED = "adopted"


class ForeignBranch(Impasse):
    """The implementation branch exists with commits Ralph did not make."""


def _repo(project: Project) -> str:
    """The store's name for the repository (the one issue locks use)."""
    return project.repo_name


def foreign_branch(ctx: PhaseContext, branch: str, number: int) -> ForeignBranch | None:
    """The refusal to give when ``branch`` is a person's, else None."""
    project, git = ctx.project, ctx.project.git
    if project.store.branch_origin(_repo(project), branch) or not git.has_branch(branch):
        return None
    own = git.git(
        "log",
        "--format=%h %s",
        f"refs/heads/{ctx.base}..refs/heads/{branch}",
        what=f"read the commits of {branch}",
    ).splitlines()
    if not own:
        return None
    latest = own[0] if len(own) == 1 else f"{own[0]} and {len(own) - 1} more"
    return ForeignBranch(
        f"{branch} already exists with {len(own)} commit(s) Ralph did not make ({latest}); "
        f"rename it (git branch -m {branch} NEW-NAME) for Ralph to start its own, or let "
        f"Ralph build on it: --adopt-branch {branch} on ralph run implement {number}, "
        "ralph hero or ralph team"
    )


def claim_branch(ctx: PhaseContext, branch: str, number: int) -> None:
    """Make ``branch`` Ralph's before its worktree is made (recorded first: a crash right
    after creating it leaves a branch the store already knows), or refuse it."""
    refusal = foreign_branch(ctx, branch, number)
    if refusal is not None:
        raise refusal
    ctx.project.store.record_branch(_repo(ctx.project), branch, CREATED)


def adopt_branch(project: Project, branch: str) -> None:
    """A person lets Ralph build on their ``branch`` (its commits will be merged)."""
    if not branch.strip() or any(c < " " or c == "\x7f" for c in branch):
        raise InvalidInput(f"{branch!r} is not a branch name; name an existing local branch")
    if branch == project.config.base_branch:
        raise InvalidInput(
            f"{branch} is the base branch, which pull requests merge into; adopt a feature "
            "branch instead"
        )
    if not project.git.has_branch(branch):
        raise InvalidInput(
            f"there is no branch {branch} to adopt; name an existing local branch "
            "(git branch --list 'feature/*')"
        )
    project.store.record_branch(_repo(project), branch, ADOPTED)
