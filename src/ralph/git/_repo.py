"""A git repository driven through the ``git`` command, and merges done with plumbing.

``merge`` never checks anything out: ``git merge-tree --write-tree`` computes the merged
tree in the object store, ``commit-tree`` makes the commit and ``update-ref`` moves the
base branch only if it still points where the merge started (a compare-and-set). When the
base branch is checked out in some worktree, that worktree follows the branch the way
``git merge --ff-only`` would (``read-tree -m -u``): files the merge changed are updated,
every other uncommitted change stays, and a merge that would overwrite uncommitted work
is refused before anything moves. That is git's own ``updateInstead`` rule for pushes.
A crash between the follow and the move is undone by the next writer (``_follow``).
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import GitError, NeedsPerson
from ralph.git._files import common_dir_of, git_dir_of, worktrees_in
from ralph.git._follow import move_branch, recover
from ralph.git._lock import file_lock
from ralph.git._merge_memo import (
    forget_merge,
    forget_tree,
    known_ancestor,
    made_merge,
    merged_tree,
    note_merge,
    note_moved,
)
from ralph.git._settings import config_answer
from ralph.git._snapshot import (
    commit_of,
    files_at,
    note_tree,
    read_at,
    ref_from_files,
    refs_in_files,
    tree_at,
)

__all__ = [
    "CheckoutInTheWay",
    "GitRepo",
    "MergeOutcome",
    "MergeRefused",
    "RemoteRefused",
    "WorktreeEntry",
    "remote_failure",
]

logger = logging.getLogger(__name__)

#: A full commit id (SHA-1 or SHA-256).
_OID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
#: Who signs merge commits when git has no identity configured.
_FALLBACK_IDENTITY = {"name": "Ralph", "email": "ralph@localhost"}


class MergeRefused(GitError):
    """The merge cannot be made: conflicting files, or uncommitted work in the way."""

    def __init__(self, message: str, files: Sequence[str] = ()) -> None:
        self.files = tuple(files)
        super().__init__(message)


class CheckoutInTheWay(MergeRefused, NeedsPerson):
    """The branch is checked out where a person works, with uncommitted changes (or an
    unresolved conflict) its move would overwrite. Nothing moved, and nothing will until
    they commit or stash them, or take their checkout off the branch."""

    def __init__(self, branch: str, checkout: Path, *, conflicted: bool, detail: str) -> None:
        self.branch = branch
        self.checkout = checkout
        self.conflicted = conflicted
        if conflicted:
            problem, fix = "an unresolved merge conflict", "resolve and commit it (or abort it)"
        else:
            problem = "uncommitted changes Ralph's next commit would overwrite"
            fix = "commit or stash them"
        super().__init__(
            f"{branch} is checked out in {checkout} with {problem}{detail}: {fix}, or keep "
            "your checkout on another branch (git switch -c my-work)"
        )


class RemoteRefused(GitError, NeedsPerson):
    """The remote cannot be reached or refuses Ralph (no such host, no access, no such
    repository): asking again will get the same answer until a person fixes the remote
    or the credentials."""


#: What git says when talking to a remote cannot work until a person acts; anything
#: else (a timeout, a reset connection, a 5xx) may pass by itself and is retried. This
#: and the next are patterns ``re`` compiles (and caches) when a fetch or push fails,
#: not at import: most commands never talk to a remote.
_REMOTE_REFUSALS = (
    r"(?i)could not resolve host|name or service not known"
    r"|temporary failure in name resolution"
    r"|authentication failed|could not read (username|password)|permission denied"
    r"|repository not found|does not appear to be a git repository"
    r"|the requested url returned error: 40[134]|terminal prompts disabled"
    r"|unable to find remote helper|protocol .* is not supported"
)
#: The user and password of a URL (``https://user:pw@host``): never said.
_URL_USERINFO = r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@"


def remote_failure(what: str, stderr: str) -> GitError:
    """The error for a fetch or push that failed: RemoteRefused when only a person can
    change git's answer; in either case without a URL's credentials."""
    said = re.sub(_URL_USERINFO, r"\1", " ".join(stderr.split())) or "git failed"
    if re.search(_REMOTE_REFUSALS, said):
        return RemoteRefused(
            f"could not {what}: {said}; fix the remote or its credentials (git remote -v)"
        )
    return GitError(f"could not {what}: {said}")


@dataclass(frozen=True)
class WorktreeEntry:
    """One worktree as git lists it."""

    path: Path
    #: The checked-out branch (None: a detached HEAD).
    branch: str | None = None
    #: Why git keeps it locked ("initializing" while ``worktree add`` runs; "" without a
    #: reason); None when it is not locked.
    locked: str | None = None


@dataclass(frozen=True)
class MergeOutcome:
    commit: str
    #: True when head was already contained in base (a retried merge); nothing moved.
    already_merged: bool = False


class GitRepo:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._git_dir: Path | None = None

    @classmethod
    def find(cls, start: Path) -> GitRepo:
        """The repository containing ``start`` (its top level)."""
        top = cls(start).git("rev-parse", "--show-toplevel", what="find the git repository")
        return cls(Path(top))

    def git(
        self,
        *args: str,
        what: str,
        check: bool = True,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> str:
        """Run git; its stdout stripped. A failure raises GitError quoting git."""
        result = self.run(*args, cwd=cwd, env=env)
        if check and result.returncode != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()
            raise GitError(f"could not {what}: {detail[-1] if detail else 'git failed'}")
        return result.stdout.strip()

    def run(
        self,
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
        timeout: float | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run git and return the finished process, whatever its exit code; ``timeout``:
        GitError once it has run that long (for a remote that may never answer).

        No hook ever runs on Ralph's git operations: an agent may have planted one in
        the repository, and Ralph's environment holds tokens. Git never prompts either
        (there is nobody to answer)."""
        try:
            return subprocess.run(
                ["git", "-c", f"core.hooksPath={os.devnull}", *args],
                cwd=cwd or self.path,
                capture_output=True,
                text=True,
                input=stdin,
                env={**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})},
                check=False,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]} did not finish within {timeout:g} s") from None
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH") from None
        except NotADirectoryError:
            raise GitError(f"{cwd or self.path} is not a directory") from None

    def has_remote(self, name: str = "origin") -> bool:
        """Whether the remote ``name`` is configured (asked of git again only once its
        config changed: ``_settings``)."""
        return config_answer(self, "remote", "get-url", name)[0] == 0

    def push(self, branch: str, remote: str = "origin") -> None:
        """Push ``branch`` to the same name on ``remote``."""
        pushed = self.run("push", "--quiet", remote, f"refs/heads/{branch}:refs/heads/{branch}")
        if pushed.returncode != 0:
            raise remote_failure(f"push {branch} to {remote}", pushed.stderr)

    def fast_forward_from(self, branch: str, remote: str = "origin") -> bool:
        """Bring local ``branch`` up to ``remote``'s when that only adds commits (GitHub
        merged a pull request there); a checkout of it follows. True if it moved; a
        branch that diverged is an error naming both."""
        with self.branch_lock(branch):
            tracking = f"refs/remotes/{remote}/{branch}"
            fetched = self.run("fetch", "--quiet", remote, f"+refs/heads/{branch}:{tracking}")
            if fetched.returncode != 0:
                if "couldn't find remote ref" in fetched.stderr:
                    return False  # not pushed there yet: nothing to catch up with
                raise remote_failure(f"fetch {branch} from {remote}", fetched.stderr)
            new, old = self.resolve(tracking), self.resolve(f"refs/heads/{branch}")
            if new == old or self.is_ancestor(new, old):
                return False
            if not self.is_ancestor(old, new):
                raise GitError(
                    f"{branch} and {remote}/{branch} have diverged; merge or rebase them, "
                    "then retry"
                )
            if not move_branch(self, branch, old, new):
                raise GitError(f"{branch} moved while catching up with {remote}; retry")
            logger.info("fast-forwarded", extra={"branch": branch, "commit": new})
            return True

    def git_dir(self) -> Path:
        """The repository's common git directory (shared by all its worktrees), found
        once per GitRepo (in its files, else by asking git): every lock and worktree
        operation needs it."""
        if self._git_dir is None:
            own = git_dir_of(self.path)
            common = common_dir_of(own) if own is not None else None
            if common is None:
                found = self.git("rev-parse", "--git-common-dir", what="find the git directory")
                common = (self.path / found).resolve()
            self._git_dir = common
        return self._git_dir

    def exclude(self, pattern: str) -> None:
        """Ignore ``pattern`` in this clone only (``info/exclude``), leaving the project's
        own ``.gitignore`` alone."""
        exclude = self.git_dir() / "info" / "exclude"
        lines = exclude.read_text().splitlines() if exclude.exists() else []
        if pattern not in lines:
            exclude.parent.mkdir(parents=True, exist_ok=True)
            exclude.write_text("\n".join([*lines, pattern]) + "\n")

    @contextmanager
    def branch_lock(self, branch: str) -> Iterator[None]:
        """Hold ``branch`` against other writers of this machine (threads and processes):
        moving a branch that is checked out also updates that checkout's index, which
        git allows one writer at a time."""
        path = self.git_dir() / f"ralph-{branch.replace('/', '-')}.lock"
        with file_lock(path, what=f"update {branch}"):
            recover(self, branch)  # a crashed writer's checkout first
            yield

    def recover_interrupted(self) -> None:
        """Put back every checkout a crash left half-moved (see ``_follow``): what a
        command that works on the repository does before anything else."""
        for intent in sorted(self.git_dir().glob("ralph-follow-*.json")):
            try:
                branch = json.loads(intent.read_text())["branch"]
            except (OSError, ValueError, KeyError):
                continue  # a writer still replacing it, or not whole: its lock holder's
            with self.branch_lock(branch):
                pass

    @contextmanager
    def worktree_lock(self, *, shared: bool = False) -> Iterator[None]:
        """Hold the repository's worktree list: adding, removing and pruning take it
        alone; listing shares it. git writes a new worktree's files one by one, and
        another git reading them half-written fails ("failed to read .../commondir")."""
        with file_lock(
            self.git_dir() / "ralph-worktrees.lock", what="change worktrees", shared=shared
        ):
            yield

    def resolve(self, ref: str) -> str:
        """The commit id ``ref`` names (a branch's read from its ref file where git
        keeps it in one: ``_snapshot``)."""
        if ref.startswith("refs/heads/"):
            found = ref_from_files(self.git_dir(), ref)
            if found is not None:
                return found
        return self.git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", what=f"find {ref}")

    def branch_heads(self) -> dict[str, str]:
        """Every branch -> the commit it points at, in one git call."""
        listing = self.git(
            "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads", what="list branches"
        )
        heads = (line.partition(" ") for line in listing.splitlines())
        return {ref.removeprefix("refs/heads/"): oid for oid, _, ref in heads}

    def has_branch(self, name: str) -> bool:
        return commit_of(self, name) is not None

    def branches_named(self, start: str) -> list[str]:
        """The branches whose names begin with ``start`` in its folder and go no deeper
        (``feature/GH-4-try-``: ``feature/GH-4-try-1``, ...), read from git's files where
        it keeps its refs in them (``_snapshot``)."""
        folder, _, begin = f"refs/heads/{start}".rpartition("/")
        found = refs_in_files(self.git_dir(), folder, begin)
        if found is None:
            listed = self.git(
                "for-each-ref", "--format=%(refname)", f"{folder}/{begin}*", what="list branches"
            )
            found = [r for r in listed.splitlines() if "/" not in r[len(folder) + 1 :]]
        return [ref.removeprefix("refs/heads/") for ref in found]

    def branch_tip(self, name: str) -> str | None:
        """The commit branch ``name`` points at (None: no such branch), read from its
        ref file where git keeps it in one (``_snapshot``)."""
        return commit_of(self, name)

    def changed_files(self, base: str, head: str) -> list[str]:
        """The paths ``head`` changes since it left ``base`` (``git diff base...head``)."""
        changed = self.git(
            "diff",
            "--name-only",
            f"refs/heads/{base}...refs/heads/{head}",
            what=f"list the files {head} changes",
        )
        return changed.splitlines()

    def files_on(self, branch: str, folder: str) -> list[str]:
        """The paths of the files under ``folder`` on ``branch``, without a checkout
        (kept per commit: ``_snapshot``)."""
        commit = commit_of(self, branch)
        if commit is None:
            raise GitError(f"could not list {folder} on {branch}: there is no branch {branch}")
        return files_at(self, commit, folder)

    def read_on(self, branch: str, path: str) -> str | None:
        """The text of ``path`` on ``branch``, or None when the branch has no such file."""
        commit = commit_of(self, branch)
        return None if commit is None else read_at(self, commit, path)

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Known without git when Ralph's merges moved a branch from one to the other
        (``_merge_memo``)."""
        if known_ancestor(self, ancestor, descendant):
            return True
        result = self.run("merge-base", "--is-ancestor", ancestor, descendant)
        return result.returncode == 0

    def worktrees(self) -> dict[Path, str | None]:
        """Every worktree of the repository -> its checked-out branch (None: detached)."""
        with self.worktree_lock(shared=True):
            return {entry.path: entry.branch for entry in self.worktree_entries()}

    def worktree_entries(self) -> list[WorktreeEntry]:
        """Every worktree as git lists it (read from git's files, as git reads them:
        ``_files``). Callers that do not hold ``worktree_lock`` may read one
        half-written: use ``worktrees``."""
        read = worktrees_in(self.git_dir())
        if read is not None:
            return [WorktreeEntry(path, branch, locked) for path, branch, locked in read]
        listing = self.git("worktree", "list", "--porcelain", what="list worktrees")
        found: list[WorktreeEntry] = []
        for block in listing.split("\n\n"):
            fields = dict(line.partition(" ")[::2] for line in block.splitlines() if line)
            if "worktree" not in fields:
                continue
            branch = fields.get("branch", "")
            found.append(
                WorktreeEntry(
                    Path(fields["worktree"]).resolve(),
                    branch.removeprefix("refs/heads/") if branch else None,
                    fields.get("locked"),
                )
            )
        return found

    def worktree_of(self, branch: str) -> Path | None:
        """The worktree that has ``branch`` checked out, if any."""
        return next((path for path, held in self.worktrees().items() if held == branch), None)

    def identity_env(self) -> dict[str, str]:
        """Ralph's fallback identity for what git has none of (from its config or
        Ralph's environment), to sign a commit with; the config asked of git again only
        once it changed (``_settings``)."""
        env = {}
        configured = {
            field: config_answer(self, "config", f"user.{field}")[1] for field in ("name", "email")
        }
        for role in ("AUTHOR", "COMMITTER"):
            for field in ("name", "email"):
                key = f"GIT_{role}_{field.upper()}"
                if key not in os.environ and not configured[field]:
                    env[key] = _FALLBACK_IDENTITY[field]
        return env

    def can_merge(self, head: str, base: str) -> bool | None:
        """Whether ``head`` merges cleanly into ``base`` (None if either is missing)."""
        if not (
            self.has_branch(base) and self.run("rev-parse", "--verify", "-q", head).returncode == 0
        ):
            return None
        result = self.run("merge-tree", "--write-tree", "--no-messages", base, head)
        return result.returncode == 0

    def merge_result(self, head: str, base: str) -> str | None:
        """A commit, on no branch, holding ``head`` merged into branch ``base``: what
        merging would make, for tests to run on before anything moves. None when they
        conflict. Unreferenced, git's garbage collection takes it in time."""
        base_commit = self.resolve(f"refs/heads/{base}")
        head_commit = self.resolve(head)
        if self.is_ancestor(head_commit, base_commit):
            return base_commit
        result = self.run("merge-tree", "--write-tree", "--no-messages", base_commit, head_commit)
        if result.returncode == 1:
            return None
        if result.returncode != 0:
            raise GitError(f"could not merge {head} into {base}: {result.stderr.strip()}")
        return self.commit_tree(
            result.stdout.strip().splitlines()[0],
            base_commit,
            head_commit,
            message=f"Merge {head} into {base} (to be tested)",
            what="make the merge result",
        )

    def merges_onto(self, commit: str, head: str) -> bool:
        """Whether commit ``head`` merges cleanly onto ``commit`` (full commit ids); one
        git call per pair, whoever asks (``_merge_memo``). False when git cannot merge
        them at all (a commit missing)."""
        try:
            return merged_tree(self, commit, head) is not None
        except GitError:
            return False

    def merged_onto(
        self, commit: str, head: str, message: str, *, squash: bool = False
    ) -> str | None:
        """A commit, on no branch, holding ``head`` merged onto ``commit`` as ``merge``
        would make it there (one parent for ``squash``): one car of a merge train's
        prefix, built before anything lands. None when they conflict."""
        # A commit id as it is (a train's car): merge-tree refuses one that is not here.
        head_commit = head if _OID.fullmatch(head) else self.resolve(head)
        tree = merged_tree(self, commit, head_commit)
        if tree is not None and not self._has_tree(tree):
            # Kept from long ago: nothing refers to it, so git may have pruned it since.
            forget_tree(self, commit, head_commit)
            tree = merged_tree(self, commit, head_commit)
        if tree is None:
            return None
        parents = [commit] if squash else [commit, head_commit]
        made = self.commit_tree(tree, *parents, message=message, what="make the merged prefix")
        # Kept: ``merge`` of the same lands this very commit, the one tested.
        note_merge(self, commit, head_commit, message, squash=squash, commit=made)
        return made

    def _has_commit(self, oid: str) -> bool:
        return self.run("cat-file", "-e", f"{oid}^{{commit}}").returncode == 0

    def _has_tree(self, oid: str) -> bool:
        return self.run("cat-file", "-e", f"{oid}^{{tree}}").returncode == 0

    def tree_of(self, commit: str) -> str:
        """The tree of ``commit`` (asked of git once per commit id: ``_snapshot``)."""
        if _OID.fullmatch(commit):
            return tree_at(self, commit)
        return self.git("rev-parse", f"{commit}^{{tree}}", what="read a commit's tree")

    def commit_tree(self, tree: str, *parents: str, message: str, what: str) -> str:
        """A new commit of ``tree`` with ``parents``, signed as ``identity_env`` says."""
        commit = self.git(
            "commit-tree",
            tree,
            *(arg for parent in parents for arg in ("-p", parent)),
            "-m",
            message,
            what=what,
            env=self.identity_env(),
        )
        note_tree(commit, tree)
        return commit

    def merge(self, head: str, base: str, message: str, *, squash: bool = False) -> MergeOutcome:
        """Merge branch ``head`` into branch ``base`` (see the module docstring)."""
        with self.branch_lock(base):
            return self._merge(head, base, message, squash=squash)

    def _merge(self, head: str, base: str, message: str, *, squash: bool) -> MergeOutcome:
        base_commit = self.resolve(f"refs/heads/{base}")
        made = (
            made_merge(self, base_commit, head, message, squash=squash)
            if _OID.fullmatch(head)
            else None
        )
        if made is not None and not self._has_commit(made):
            # Kept from long ago: nothing refers to it, so git may have pruned it since.
            forget_merge(self, base_commit, head, message, squash=squash)
            made = None
        if made is not None:  # a merge train made and tested it: that commit lands
            if self.tree_of(made) == self.tree_of(base_commit):
                return MergeOutcome(base_commit, already_merged=True)
            return self._move(base, base_commit, made, head)
        head_commit = self.resolve(head)
        if self.is_ancestor(head_commit, base_commit):
            return MergeOutcome(base_commit, already_merged=True)
        result = self.run(
            "merge-tree", "--write-tree", "--name-only", "--no-messages", base_commit, head_commit
        )
        lines = result.stdout.strip().splitlines()
        if result.returncode == 1:
            raise MergeRefused(f"{head} conflicts with {base}", files=lines[1:])
        if result.returncode != 0 or not lines:
            raise GitError(f"could not merge {head} into {base}: {result.stderr.strip()}")
        tree = lines[0]
        if tree == self.tree_of(base_commit):
            # Its changes are already in base (a squash merge retried): nothing to add.
            return MergeOutcome(base_commit, already_merged=True)
        parents = [base_commit] if squash else [base_commit, head_commit]
        commit = self.commit_tree(tree, *parents, message=message, what="create the merge commit")
        return self._move(base, base_commit, commit, head)

    def _move(self, base: str, base_commit: str, commit: str, head: str) -> MergeOutcome:
        if not move_branch(self, base, base_commit, commit):
            raise GitError(f"{base} moved while merging {head}; retry the merge")
        note_moved(self, base_commit, commit)  # its first parent
        logger.info("merged", extra={"head": head, "base": base, "commit": commit})
        return MergeOutcome(commit)

    def follow(self, checkout: Path, base: str, old: str, new: str) -> None:
        """Bring the worktree that has ``base`` checked out from ``old`` to ``new``,
        keeping uncommitted changes, or refuse before anything changed."""
        result = self.run("read-tree", "-m", "-u", old, new, cwd=checkout)
        if result.returncode != 0:
            conflicted = bool(self.run("ls-files", "--unmerged", cwd=checkout).stdout.strip())
            raise CheckoutInTheWay(
                base, checkout, conflicted=conflicted, detail=_blocking_files(result.stderr)
            )


def _blocking_files(stderr: str) -> str:
    """`` (in a.py, b.py)``: the files git names as in the way, as a message's aside."""
    files = re.findall(r"'([^']+)'", stderr)
    listed = ", ".join(dict.fromkeys(files[:3]))
    return f" (in {listed}{', ...' if len(files) > 3 else ''})" if listed else ""
