"""A rebase merge, as GitHub makes one: the head's commits replayed onto the base, and
the base fast-forwarded to them. The head branch is left as it was.

Replaying needs a three-way merge per commit, which git's plumbing does without a
checkout only from 2.40 on, so the replay runs in a throwaway detached worktree
(``Worktrees.scratch``); the base branch then moves by compare-and-set like every other
merge (``move_branch``), its checkout following.
"""

from __future__ import annotations

import logging

from ralph.errors import GitError
from ralph.git._follow import move_branch
from ralph.git._repo import GitRepo, MergeOutcome, MergeRefused
from ralph.git._worktrees import Worktrees

__all__ = ["rebase_merge"]

logger = logging.getLogger(__name__)

#: A person's git configuration must not change what the replay does: no refs of theirs
#: moved along (``updateRefs``), no signing prompt, no stash.
_QUIET = (
    "-c",
    "rebase.updateRefs=false",
    "-c",
    "rebase.autoStash=false",
    "-c",
    "commit.gpgSign=false",
)


def rebase_merge(repo: GitRepo, head: str, base: str) -> MergeOutcome:
    """Replay the commits of ``head`` (a branch or a commit) that branch ``base`` lacks
    onto it, one by one (merge commits dropped, changes already there skipped), and
    fast-forward ``base`` to the last. MergeRefused naming the files when one does not
    apply; nothing moves then."""
    with repo.branch_lock(base):
        base_commit = repo.resolve(f"refs/heads/{base}")
        head_commit = repo.resolve(head)
        if repo.is_ancestor(head_commit, base_commit):
            return MergeOutcome(base_commit, already_merged=True)
        name = f"rebase-{base}-{head}".replace("/", "-")
        with Worktrees(repo).scratch(name, base) as where:
            env = {**repo.identity_env(), "GIT_EDITOR": "true"}
            replayed = repo.run(
                *_QUIET,
                "rebase",
                "--onto",
                base_commit,
                base_commit,
                head_commit,
                cwd=where,
                env=env,
            )
            if replayed.returncode != 0:
                conflicted = repo.run("diff", "--name-only", "--diff-filter=U", cwd=where)
                files = conflicted.stdout.split()
                if files:
                    raise MergeRefused(f"{head} does not rebase onto {base}", files=files)
                raise GitError(
                    f"could not rebase {head} onto {base}: "
                    f"{(replayed.stderr or replayed.stdout).strip()}"
                )
            tip = repo.git("rev-parse", "HEAD", what="read the rebased commits", cwd=where)
        if tip == base_commit:  # every change was there already (a retried rebase merge)
            return MergeOutcome(base_commit, already_merged=True)
        if not move_branch(repo, base, base_commit, tip):
            raise GitError(f"{base} moved while rebasing {head} onto it; retry the merge")
    logger.info("rebased", extra={"head": head, "base": base, "commit": tip})
    return MergeOutcome(tip)
