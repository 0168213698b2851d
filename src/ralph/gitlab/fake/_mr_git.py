"""The fake GitLab's merge requests on a real git repository: branch heads, whether a
head merges, is up to date, and what it changes (GitLab's ``diffs``), and the merges
GitLab's merge methods make (a merge commit, a squash, a fast-forward) and its rebase.

Without a repository (a project added with none) heads are made-up commit ids and every
merge goes through, so the issue side can be tried alone."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

from ralph.errors import GitError
from ralph.git import GitRepo, MergeRefused, Worktrees

__all__ = ["FileDiff", "GitSide"]


@dataclass(frozen=True)
class FileDiff:
    """One file of a merge request's diff, as GitLab lists it."""

    old_path: str
    new_path: str
    diff: str
    new_file: bool = False
    deleted_file: bool = False

    def json(self) -> dict[str, object]:
        return {
            "old_path": self.old_path,
            "new_path": self.new_path,
            "a_mode": "100644",
            "b_mode": "100644",
            "diff": self.diff,
            "new_file": self.new_file,
            "renamed_file": self.old_path != self.new_path,
            "deleted_file": self.deleted_file,
        }


@dataclass
class GitSide:
    """A project's repository as merge requests see it (``path`` None: made up)."""

    path: Path | None
    made_up: dict[str, str] = field(default_factory=dict)

    def _git(self) -> GitRepo | None:
        return GitRepo(self.path) if self.path is not None else None

    def head(self, branch: str) -> str | None:
        """The commit ``branch`` points at; None when there is no such branch."""
        git = self._git()
        if git is None:
            return self.made_up.setdefault(branch, secrets.token_hex(20))
        if not git.has_branch(branch):
            return None
        return git.resolve(f"refs/heads/{branch}")

    def push(self, branch: str) -> str:
        """A new made-up head (a repository without git moves only this way)."""
        self.made_up[branch] = secrets.token_hex(20)
        return self.made_up[branch]

    def can_merge(self, head: str, base: str) -> bool | None:
        git = self._git()
        return True if git is None else git.can_merge(head, base)

    def up_to_date(self, head: str, base: str) -> bool:
        """Whether ``head`` holds every commit of ``base`` (fast-forward possible)."""
        git = self._git()
        if git is None:
            return True
        return git.is_ancestor(f"refs/heads/{base}", f"refs/heads/{head}")

    def merge_base(self, head: str, base: str) -> str:
        git = self._git()
        if git is None:
            return self.made_up.setdefault(base, secrets.token_hex(20))
        return git.git("merge-base", f"refs/heads/{base}", head, what="find the merge base")

    def diffs(self, head: str, base: str) -> list[FileDiff]:
        """What ``head`` changes since it left ``base``, file by file (GitLab's diff text
        starts at the first ``@@``)."""
        git = self._git()
        if git is None:
            return []
        found = []
        for path in git.changed_files(base, head):
            shown = git.git(
                "diff",
                "--no-color",
                "--no-ext-diff",
                f"refs/heads/{base}...refs/heads/{head}",
                "--",
                path,
                what=f"read the diff of {path}",
            )
            lines = shown.splitlines()
            start = next((i for i, t in enumerate(lines) if t.startswith("@@")), len(lines))
            found.append(
                FileDiff(
                    old_path=path,
                    new_path=path,
                    diff="\n".join(lines[start:]) + "\n" if start < len(lines) else "",
                    new_file="--- /dev/null" in lines[:start],
                    deleted_file="+++ /dev/null" in lines[:start],
                )
            )
        return found

    def merge(self, head: str, base: str, message: str, *, squash: bool) -> str:
        """Merge branch ``head`` into ``base``: a merge commit, or one squashed commit on
        the base (whose tree is the merge's: a fast-forward when ``head`` is up to date).
        MergeRefused when they conflict."""
        git = self._git()
        if git is None:
            return self.push(base)
        return str(git.merge(head, base, message, squash=squash).commit)

    def fast_forward(self, head: str, base: str) -> str:
        """Move ``base`` to ``head``, which holds it (``merge_method: ff``)."""
        git = self._git()
        if git is None:
            self.made_up[base] = self.head(head) or self.push(head)
            return self.made_up[base]
        from ralph.git import rebase_merge  # replaying nothing: the base moves up

        return str(rebase_merge(git, f"refs/heads/{head}", base).commit)

    def rebase(self, head: str, base: str) -> str:
        """Replay branch ``head``'s commits onto ``base`` and move ``head`` there (GitLab's
        rebase of a merge request's source branch); MergeRefused on a conflict."""
        git = self._git()
        if git is None:
            return self.push(head)
        old = git.resolve(f"refs/heads/{head}")
        base_commit = git.resolve(f"refs/heads/{base}")
        name = f"gitlab-rebase-{head}".replace("/", "-")
        with Worktrees(git).scratch(name, base) as where:
            env = {**git.identity_env(), "GIT_EDITOR": "true"}
            quiet = ("-c", "rebase.updateRefs=false", "-c", "commit.gpgSign=false")
            replayed = git.run(
                *quiet, "rebase", "--onto", base_commit, base_commit, old, cwd=where, env=env
            )
            if replayed.returncode != 0:
                git.run("rebase", "--abort", cwd=where)
                raise MergeRefused(f"{head} does not rebase onto {base}", files=[])
            tip = git.git("rev-parse", "HEAD", what="read the rebased commits", cwd=where)
        if git.run("update-ref", f"refs/heads/{head}", tip, old).returncode != 0:
            raise GitError(f"{head} moved while it was rebased")
        return tip
