"""Claude Code's own sandbox for one run's Bash commands (bubblewrap and socat on
Linux): writes only to the working directory and to what git needs to commit there,
no network, no Unix socket, none of the person's files (their home and the other homes
read as denied, but for the worktree, its repository and the installed tools), and no
start at all when the sandbox cannot run.

Claude Code makes a worktree's whole common ``.git`` writable. Only what a commit on
the worktree's branch writes stays so: the objects, the worktree's own administrative
folder (not the pointers git follows from it to the repository), and the branch's ref
and reflog. Every other entry around them (hooks, config, other branches, the person's
checkout's HEAD and index) and the repository's ``.ralph/`` (the store) are denied, as
is the worktree's ``.git`` file: rewritten, it would point Ralph's own git at a
configuration the agent wrote. Only entries that exist are listed: the sandbox binds
each one read-only, and an agent cannot create new ones where nothing is writable.

Claude Code 2.1.330 leaves empty placeholders where it bound paths that did not exist
(``config.worktree``, ``objects/info/alternates``, ``.claude-sandbox-noreplace``
folders, ...): ``clear_traces`` removes the new empty ones after the run, so the
repository is as the run found it.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.sandbox import TOOLCHAINS, flattened_git_configs

__all__ = [
    "clear_traces",
    "git_environment",
    "protected",
    "readable",
    "sandbox_settings",
    "traces",
]

#: Ralph's own state, beside ``.git`` in the repository.
_STATE = ".ralph"
#: Every person's home but the run's: denied to read whoever runs Ralph.
_HOMES = (Path("/home"), Path("/root"))


@dataclass(frozen=True)
class _Git:
    """Where git keeps a checkout's repository."""

    common: Path
    #: The worktree's administrative folder; None for the main checkout.
    admin: Path | None
    #: ``refs/heads/...`` of the checked-out branch; "" when detached.
    branch_ref: str


def sandbox_settings(workdir: Path, home: Path, path: Sequence[str] = ()) -> dict[str, Any]:
    """The ``sandbox`` settings for a run in ``workdir`` by the person whose home is
    ``home``; ``path``: the folders on the run's PATH."""
    denied = [str(p) for p in dict.fromkeys([home, *_HOMES])]
    return {
        "enabled": True,
        # Stop at start rather than run Bash unconfined.
        "failIfUnavailable": True,
        # The model cannot ask for a command outside it (dangerouslyDisableSandbox).
        "allowUnsandboxedCommands": False,
        # Bash needs no approval only while it runs sandboxed; Ralph no longer
        # pre-approves it.
        "autoAllowBashIfSandboxed": True,
        "filesystem": {
            "denyWrite": [str(p) for p in protected(workdir)],
            # The person's credentials (~/.npmrc, ~/.ssh, other CLIs' logins) are files
            # of the home like any other: all of it is denied but what the run needs.
            "denyRead": denied,
            "allowRead": [str(p) for p in readable(workdir, home, path)],
        },
        # Claude Code talks to its API itself, outside the sandbox; commands get none,
        # nor a Unix socket (a database's, an agent's under the home).
        "network": {"allowedDomains": [], "strictAllowlist": True, "allowAllUnixSockets": False},
    }


def git_environment(workdir: Path, home: Path) -> dict[str, str]:
    """Where git in the sandbox finds the person's configuration, ``~/.gitconfig`` being
    denied with the rest of the home: a flat copy of the system, XDG and global levels
    without credentials (their name and email stay, for commits)."""
    configs = flattened_git_configs(workdir, home=home)
    copy = next((c for c, path in configs.replaced if path == home / ".gitconfig"), None)
    if copy is None:
        return {}
    return {"GIT_CONFIG_GLOBAL": str(copy), "GIT_CONFIG_NOSYSTEM": "1"}


def readable(workdir: Path, home: Path, path: Sequence[str] = ()) -> list[Path]:
    """What a run's commands read again inside the denied homes: the worktree and its
    repository, the installed tools (and this Python, which a test names)."""
    workdir = workdir.resolve()
    git = _git(workdir)
    found = [workdir, *([git.common.parent] if git is not None else [])]
    found += [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent]
    found += [Path(entry) for entry in path if entry.startswith("/")]
    found += [home / name for name in TOOLCHAINS]
    roots = [home.resolve(), *_HOMES]
    inside = [
        p for p in dict.fromkeys(f.resolve() for f in found) if p.exists() and _under(p, roots)
    ]
    # A folder inside another comes with it.
    return [p for p in inside if not any(p != q and p.is_relative_to(q) for q in inside)]


def _under(path: Path, roots: Iterable[Path]) -> bool:
    return any(path.is_relative_to(root) for root in roots)


def protected(workdir: Path) -> list[Path]:
    """The existing paths a run in ``workdir`` must not write, though Claude Code's
    defaults would let it."""
    workdir = workdir.resolve()
    git = _git(workdir)
    if git is None:
        return []
    keep = ["objects"]
    if git.branch_ref:
        keep += [git.branch_ref, f"logs/{git.branch_ref}"]
    denied: list[Path] = []
    if git.admin is not None:
        if git.admin.is_relative_to(git.common):
            keep.append(git.admin.relative_to(git.common).as_posix())
        # The pointers from the worktree to its repository, both ways.
        denied += [git.admin / name for name in ("commondir", "gitdir", "config.worktree")]
        denied.append(workdir / ".git")
    else:
        keep += ["HEAD", "index", "logs/HEAD", "COMMIT_EDITMSG", "ORIG_HEAD"]
    denied += _beside(git.common, keep)
    state = git.common.parent / _STATE
    if git.common.name == ".git" and state.is_dir():
        inside = workdir.is_relative_to(state)
        denied += _beside(state, [workdir.relative_to(state).as_posix()]) if inside else [state]
    return [path for path in dict.fromkeys(denied) if path.exists()]


def _trace_folders(workdir: Path) -> list[Path]:
    """Where Claude Code's sandbox leaves its placeholders."""
    git = _git(workdir.resolve())
    if git is None:
        return []
    found = [git.common, git.common / "info", git.common / "objects" / "info"]
    return found + ([git.admin] if git.admin is not None else [])


def traces(workdir: Path) -> frozenset[Path]:
    """What stands, before a run, where the sandbox may leave placeholders."""
    return frozenset(
        entry for folder in _trace_folders(workdir) if folder.is_dir() for entry in folder.iterdir()
    )


def clear_traces(workdir: Path, before: frozenset[Path]) -> list[Path]:
    """Remove the empty files and folders of empty folders that appeared since
    ``before`` where the sandbox leaves placeholders; what was removed."""
    removed = []
    for entry in sorted(traces(workdir) - before):
        try:
            if entry.is_symlink():
                continue
            if entry.is_file() and entry.stat().st_size == 0:
                entry.unlink()
            elif entry.is_dir() and _hollow(entry):
                shutil.rmtree(entry)
            else:
                continue
        except OSError:
            continue  # another worker's sandbox may hold it a moment longer
        removed.append(entry)
    return removed


def _hollow(folder: Path) -> bool:
    return all(p.is_dir() and not p.is_symlink() for p in folder.rglob("*"))


def _beside(root: Path, keep: Iterable[str]) -> list[Path]:
    """Every existing entry under ``root`` that neither is a kept path, nor lies inside
    one, nor leads to one."""
    kept = [tuple(Path(path).parts) for path in keep]
    found: list[Path] = []

    def walk(folder: Path, parts: tuple[str, ...]) -> None:
        for entry in sorted(folder.iterdir()):
            here = (*parts, entry.name)
            if here in kept:
                continue
            if (
                entry.is_dir()
                and not entry.is_symlink()
                and any(k[: len(here)] == here for k in kept)
            ):
                walk(entry, here)
            else:
                found.append(entry)

    if root.is_dir():
        walk(root, ())
    return found


def _git(workdir: Path) -> _Git | None:
    """The repository of ``workdir``, read from git's files (running git here would
    read configuration an agent may have written in an earlier run)."""
    dot = workdir / ".git"
    if dot.is_dir():
        return _Git(dot.resolve(), None, _head_ref(dot))
    if not dot.is_file():
        return None
    line = dot.read_text(errors="replace").strip()
    if not line.startswith("gitdir:"):
        return None
    admin = (workdir / line.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (admin / (admin / "commondir").read_text().strip()).resolve()
    except OSError:
        return None
    return _Git(common, admin, _head_ref(admin))


def _head_ref(folder: Path) -> str:
    try:
        head = (folder / "HEAD").read_text().strip()
    except OSError:
        return ""
    ref = head.removeprefix("ref:").strip() if head.startswith("ref:") else ""
    return ref if ref.startswith("refs/heads/") else ""
