"""The confinement check around one agent attempt: a snapshot of what the agent must not
change (``_guarded``), taken before it runs; after it, what changed, with git's control
files put back.

Team workers are threads of one process sharing one git dir, and nothing tells which
of their agents wrote a control file. So while any attempt runs, every attempt on that
git dir compares with the same snapshot (the one taken when none ran), and a change one
attempt finds and reverts is reported by every attempt that ran meanwhile: none of them
can put back, as "its" starting point, a hook another agent planted.

The live store is left out on purpose: Ralph's own threads write the SQLite files
(heartbeats, leases, charges) during every attempt, so no checksum of them tells an
agent's write from Ralph's, and SQLite keeps no other file beside them. The OS sandbox
is what keeps agents off the store (it mounts it read-only).

The person's checkout is theirs to use while agents work (a log that grows, an edit, a
build), and a comparison cannot tell who wrote. A sandboxed agent cannot write there, so
the checkout is not read at all; an unsandboxed one is blamed only for the files its own
tool calls name (``AgentResult.wrote``), and any other change is a warning.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ralph.git._changes import changed_between, held_still, status_changes
from ralph.git._files import git_dir_of
from ralph.git._guarded import (
    WALK_BUDGET,
    CheckoutFiles,
    Entry,
    changed_checkout,
    changed_control,
    checkout_files,
    control_files,
    read_entry,
    restore,
)
from ralph.git._repo import GitRepo
from ralph.git._tracked import tracked_files
from ralph.git._worktrees import RUN_FILES_DIR, SCRATCH, WORKTREES

__all__ = ["Breach", "Confinement"]

logger = logging.getLogger(__name__)

#: A linked worktree's own pointers: its ``.git`` file and its admin dir's ``gitdir``
#: and ``commondir``. Ralph's to put back, like the control files.
_POINTERS = ("gitdir", "commondir")


@dataclass(frozen=True)
class Breach:
    """What an agent changed where it must not have."""

    #: Files of the person's checkout the agent's own tool calls wrote (named, not
    #: reverted: they may be the person's too).
    checkout: tuple[str, ...] = ()
    #: Git's control files and worktree pointers, as paths a person recognises; reverted.
    reverted: tuple[str, ...] = ()
    #: What the worktree's HEAD names now, when the agent moved it (not reverted: the
    #: next attempt refuses a worktree on another branch, and a person looks).
    moved: str = ""
    workdir: str = ""
    #: Files of the person's checkout that changed while an unsandboxed agent ran, which
    #: its tool calls do not name: maybe the person's own. A warning, never a breach.
    noticed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.checkout or self.reverted or self.moved)

    def warnings(self) -> list[str]:
        """What changed that may not be the agent's (nothing held against it)."""
        if not self.noticed:
            return []
        return [
            f"your checkout changed while the agent ran: {_named(self.noticed)} (not held "
            "against it: it runs unsandboxed, so Ralph cannot tell who wrote)"
        ]

    def problems(self) -> list[str]:
        """One line per kind, in the runner's words."""
        lines = []
        if self.reverted:
            lines.append(
                f"the agent wrote outside its working directory: {_named(self.reverted)} (reverted)"
            )
        if self.checkout:
            lines.append(f"the agent wrote outside its working directory: {_named(self.checkout)}")
        if self.moved:
            lines.append(
                f"the agent moved {self.workdir} to another commit or branch: its HEAD now "
                f"reads {self.moved!r} (not reverted)"
            )
        return lines


@dataclass
class _Shared:
    """The snapshot every attempt running on one git dir compares with."""

    control: dict[str, Entry]
    running: int = 0
    #: Control files found changed, with the serial of the check that found them.
    found: list[tuple[int, str]] = field(default_factory=list)
    serial: int = 0


_lock = threading.Lock()
_shared: dict[Path, _Shared] = {}


class Confinement:
    """``before()`` ahead of the agent, ``after()`` once it returned (whatever its
    outcome: an agent that failed may have planted a hook all the same)."""

    def __init__(
        self,
        repo: GitRepo,
        workdir: Path,
        *,
        live: Iterable[Path] = (),
        budget: int = WALK_BUDGET,
        sandboxed: bool = False,
    ) -> None:
        """``live``: store files Ralph writes during the run (left out when inside the
        checkout); ``budget``: entries of the checkout the first walk reads at most;
        ``sandboxed``: the agent cannot write the person's checkout (it is not read)."""
        self.repo = repo
        self.sandboxed = sandboxed
        self.workdir = workdir
        self.root = repo.path.resolve()
        self.git_dir = repo.git_dir()
        # Ralph's own writes while the agent runs: scratch space, other tasks' logs.
        skip = {".git", WORKTREES, SCRATCH, RUN_FILES_DIR}
        for path in [workdir, *live]:
            inside = _inside(self.root, path)
            if inside:
                skip.update({inside, *(f"{inside}{end}" for end in ("-wal", "-shm", "-journal"))})
        self._skip = frozenset(skip)
        self._budget = budget
        self._started = 0
        self._status: dict[str, str] = {}
        self._checkout = CheckoutFiles({}, frozenset())
        self._pointers: dict[str, Entry] = {}
        self._head: Entry | None = None
        self._admin: Path | None = None

    def before(self) -> None:
        with _lock:
            shared = _shared.get(self.git_dir)
            if shared is None:
                shared = _shared[self.git_dir] = _Shared(control_files(self.git_dir))
            shared.running += 1
            self._started = shared.serial
        try:
            if not self.sandboxed:
                self._status, self._checkout = self._read_checkout()
            self._admin = self._admin_dir()
            self._pointers = self._read_pointers()
            self._head = read_entry(self._admin / "HEAD") if self._admin else None
        except BaseException:
            self._release()
            raise
        if self._checkout.unwalked:
            logger.info(
                "checkout too big to check whole",
                extra={"budget": self._budget, "left_out": len(self._checkout.unwalked)},
            )

    def after(self, wrote: Collection[str] = ()) -> Breach:
        """What changed since ``before``; control files and pointers are put back.
        ``wrote``: the files the agent's own tool calls wrote (absolute paths)."""
        outside: set[str] = set()
        try:
            reverted = self._revert_control()
            pointers = self._read_pointers()
            changed = changed_control(self._pointers, pointers)
            restore(Path("/"), self._pointers, changed)
            reverted += [self._shown(Path("/", name)) for name in changed]
            head = read_entry(self._admin / "HEAD") if self._admin else None
            if not self.sandboxed:
                status, checkout = self._read_checkout(first=False)
                outside.update(changed_between(self._status, status))
                outside.update(changed_checkout(self._checkout, checkout))
        finally:
            self._release()
        moved = ""
        if head != self._head:
            moved = head.data.decode(errors="replace").strip() if head else "(nothing)"
        own = {_inside(self.root, Path(path)) for path in wrote}
        return Breach(
            checkout=tuple(sorted(outside & own)),
            reverted=tuple(sorted(set(reverted))),
            moved=moved,
            workdir=self._shown(self.workdir),
            noticed=tuple(sorted(outside - own)),
        )

    def _release(self) -> None:
        with _lock:
            shared = _shared[self.git_dir]
            shared.running -= 1
            if not shared.running:
                del _shared[self.git_dir]

    # -- git's control files -----------------------------------------------------------

    def _revert_control(self) -> list[str]:
        with _lock:
            shared = _shared[self.git_dir]
            changed = changed_control(shared.control, control_files(self.git_dir))
            restore(self.git_dir, shared.control, changed)
            shared.serial += 1
            shared.found += [(shared.serial, name) for name in changed]
            mine = {name for serial, name in shared.found if serial > self._started}
        return [self._shown(self.git_dir / name) for name in sorted(mine)]

    def _admin_dir(self) -> Path | None:
        """The admin dir of the linked worktree the agent works in (None: not one)."""
        if self.workdir.resolve() == self.root:
            return None
        admin = git_dir_of(self.workdir)
        if admin is None:  # not as git writes it: git's answer
            found = self.repo.run("rev-parse", "--absolute-git-dir", cwd=self.workdir)
            admin = Path(found.stdout.strip()).resolve() if found.returncode == 0 else None
        return admin if admin is not None and admin != self.git_dir else None

    def _read_pointers(self) -> dict[str, Entry]:
        """The worktree's ``.git`` file and its admin dir's pointers, by absolute path
        (without the leading slash, so ``restore`` can take them from ``/``)."""
        if self._admin is None:
            return {}
        files = [self.workdir.resolve() / ".git", *(self._admin / name for name in _POINTERS)]
        found: dict[str, Entry] = {}
        for path in files:
            entry = read_entry(path)
            if entry is not None:
                found[path.as_posix().lstrip("/")] = entry
        return found

    # -- the person's checkout -----------------------------------------------------------

    def _read_checkout(self, *, first: bool = True) -> tuple[dict[str, str], CheckoutFiles]:
        repo = self.repo
        # Another worker's merge moves this checkout (files, then the branch): both
        # reads wait for it, as working_changes does.
        with held_still(repo):
            status = status_changes(repo, repo.path)
            files = checkout_files(
                self.root,
                tracked_files(repo),
                skip=self._skip,
                # The later walk reads all the first one did, and only that.
                budget=self._budget if first else None,
                unwalked=frozenset() if first else self._checkout.unwalked,
            )
        return status, files

    def _shown(self, path: Path) -> str:
        """A path as a person finds it: relative to their checkout when inside it."""
        inside = _inside(self.root, path)
        return inside if inside else str(path)


def _named(paths: tuple[str, ...], most: int = 10) -> str:
    """The paths, the first ``most`` of a long list and how many more."""
    shown = ", ".join(paths[:most])
    return f"{shown} and {len(paths) - most} more" if len(paths) > most else shown


def _inside(root: Path, path: Path) -> str | None:
    """``path`` relative to ``root`` (posix), or None when it is elsewhere."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None
