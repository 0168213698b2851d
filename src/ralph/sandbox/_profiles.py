"""The two profiles Ralph confines with: an agent's (its working directory, what git
needs to commit there, its own state, the network) and the test command's (the worktree
only; the network only when ralph.toml says so). Both hide the person's credentials."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph._agents import find_agent_cli, home_state
from ralph.sandbox._git_config import sanitised_git_config
from ralph.sandbox._profile import SandboxProfile

__all__ = [
    "CREDENTIALS",
    "agent_profile",
    "git_commit_paths",
    "profile_for_tests",
]

#: The person's credentials, relative to their home: hidden from everything confined.
CREDENTIALS = (
    ".ssh",
    ".config/gh",
    ".git-credentials",
    ".netrc",
    ".pgpass",
    ".aws",
    ".docker/config.json",
    ".config/gcloud",
    ".kube",
)

_TMP = Path("/tmp")


@dataclass(frozen=True)
class _Checkout:
    """Where git keeps a checkout's state."""

    #: The checkout's top folder (where its ``.git`` is).
    top: Path
    git_dir: Path
    common_dir: Path
    #: ``refs/heads/...`` checked out; None when detached.
    branch: str | None

    @property
    def linked(self) -> bool:
        """A worktree of its own (``git worktree add``), not the main checkout."""
        return self.git_dir != self.common_dir

    @property
    def repository(self) -> Path:
        """The main checkout (the common git directory's parent)."""
        return self.common_dir.parent if self.common_dir.name == ".git" else self.common_dir


def _checkout(workdir: Path) -> _Checkout | None:
    """Read from git's own files, not asked of ``git``: this runs before every confined
    command, and a process start would cost as much as the sandbox."""
    for folder in (workdir, *workdir.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_dir():
                git_dir = common = dot_git.resolve()
            elif dot_git.is_file():
                # A linked worktree: "gitdir: <admin dir>", which names the common dir.
                pointer = dot_git.read_text().strip().removeprefix("gitdir: ")
                git_dir = (folder / pointer).resolve()
                shared = git_dir / "commondir"  # absent for a submodule: its own
                common = (
                    (git_dir / shared.read_text().strip()).resolve()
                    if shared.is_file()
                    else git_dir
                )
            else:
                continue
            head = (git_dir / "HEAD").read_text().strip()
        except OSError:
            return None
        branch = head.removeprefix("ref: ") if head.startswith("ref: refs/heads/") else None
        return _Checkout(folder, git_dir, common, branch)
    return None


def git_commit_paths(workdir: Path) -> tuple[Path, ...]:
    """What ``git commit`` in the linked worktree ``workdir`` writes besides the worktree:
    the object store, the worktree's own admin directory, and the folder of its branch's
    ref and of its log (made here when missing, since a bind needs them). Never the
    repository's config, hooks or info; nothing for a main checkout or outside git."""
    checkout = _checkout(workdir.resolve())
    if checkout is None or not checkout.linked:
        return ()
    common = checkout.common_dir
    paths = [common / "objects", checkout.git_dir]
    if checkout.branch is not None:
        folder = Path(checkout.branch).parent  # refs/heads/feature for feature/GH-1
        for place in (common / folder, common / "logs" / folder):
            place.mkdir(parents=True, exist_ok=True)
            paths.append(place)
    return tuple(paths)


def _programs() -> list[Path]:
    """Where the commands a confined process may name live: this Python's environment
    and import path (an editable install's sources), and the folders on PATH."""
    found = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent]
    found += [Path(entry) for entry in sys.path if entry]
    found += [Path(entry) for entry in os.environ.get("PATH", "").split(os.pathsep) if entry]
    return [path.resolve() for path in found if path.is_absolute()]


def _exists(path: Path) -> bool:
    """Whether ``path`` names something; a word that cannot be a path (a prompt passed
    as an argument: too long, a NUL byte) names nothing."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _below_tmp(path: Path) -> bool:
    """Under /tmp, and not /tmp itself: showing that again (a PATH entry, ``python -m``
    run from /tmp) would give back every socket and file of the real one."""
    return path != _TMP and _inside(path, [_TMP])


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(path == folder or path.is_relative_to(folder) for folder in folders)


def _common(
    workdir: Path,
    home: Path,
    writable: Sequence[Path],
    network: bool,
    extra: Sequence[Path],
    setenv: tuple[tuple[str, str], ...] = (),
) -> SandboxProfile:
    checkout = _checkout(workdir)
    # Only what lies under the private /tmp needs showing again (tests keep repositories
    # there, a clone may live there); everything else is already visible read-only. The
    # Python running Ralph and the PATH's folders stay visible: a test command names them.
    shown = [home, *([checkout.repository] if checkout is not None else []), *extra, *_programs()]
    readable = tuple(p for p in dict.fromkeys(shown) if _below_tmp(p) and _exists(p))
    # Read-only again inside the writable paths: a main checkout's git directory and the
    # store (hooks and config there would run with the person's rights), and a worktree's
    # pointers to its git directory: pointed elsewhere, Ralph's own git calls in the
    # worktree would read a config of the agent's making (core.fsmonitor runs a command).
    protected: tuple[Path, ...] = ()
    if checkout is not None:
        guarded = [checkout.common_dir, checkout.repository / ".ralph"]
        if checkout.linked:
            git_dir = checkout.git_dir
            guarded += [checkout.top / ".git", git_dir / "commondir", git_dir / "gitdir"]
        protected = tuple(p for p in guarded if p.exists() and _inside(p, writable))
    return SandboxProfile(
        replaced=_git_configs(checkout, home),
        writable=tuple(dict.fromkeys(writable)),
        readable=readable,
        protected=protected,
        hidden=tuple(home / name for name in CREDENTIALS if (home / name).exists()),
        network=network,
        setenv=setenv,
    )


def _git_configs(checkout: _Checkout | None, home: Path) -> tuple[tuple[Path, Path], ...]:
    """The git config files a confined git reads, each with a copy without credentials
    where it holds any: the repository's, the worktree's own, the person's."""
    files = [home / ".gitconfig", home / ".config" / "git" / "config"]
    if checkout is not None:
        files += [checkout.common_dir / "config", checkout.git_dir / "config.worktree"]
    found = ((sanitised_git_config(path), path) for path in dict.fromkeys(files))
    return tuple((copy, path) for copy, path in found if copy is not None)


def _program_folders(program: Path) -> list[Path]:
    """What running ``program`` needs to see: the folder it was found in (a
    ``node_modules/.bin`` link), the folder of what it links to, and for a Node package
    the whole ``node_modules`` it was installed into (its dependencies)."""
    found = [program.absolute().parent, program.resolve().parent]
    for path in list(found):
        modules = [p for p in (path, *path.parents) if p.name == "node_modules"]
        if modules:
            found.append(modules[-1])
    return found


def agent_profile(
    workdir: Path,
    *,
    home: Path,
    scratch: Sequence[Path] = (),
    program: Path | None = None,
    arguments: Sequence[str] = (),
    proxy: Path | None = None,
) -> SandboxProfile:
    """An agent CLI's: writes to ``workdir`` (and commits there when it is a worktree),
    its ``scratch`` files and its own state under ``home``. Its network: a namespace of
    its own whose one way out is the egress proxy on the unix socket ``proxy`` (its
    model is an API); the host's when None. ``program`` and the files its
    ``arguments`` name, when under ``/tmp``, stay visible, read-only; a known program
    (codex, ...) gets its state folders made."""
    workdir, home = workdir.resolve(), home.resolve()
    known = find_agent_cli(program.name) if program is not None else None
    for name in known.home_folders if known is not None else ():
        (home / name).mkdir(parents=True, exist_ok=True)
    state = [home / name for name in home_state() if (home / name).exists()]
    writable = [workdir, *git_commit_paths(workdir), *(p.resolve() for p in scratch), *state]
    extra = _program_folders(program) if program is not None else []
    extra += [Path(word) for word in arguments if word.startswith("/") and _exists(Path(word))]
    profile = _common(workdir, home, writable, True, extra)
    return dataclasses.replace(profile, proxy=proxy)


def profile_for_tests(worktree: Path, *, home: Path, network: bool = False) -> SandboxProfile:
    """The test command's: writes to ``worktree`` (and the private ``/tmp``) only. Tools
    that cache under ``~/.cache`` (go test, pip) cache in ``/tmp`` instead: a cache the
    tests could write would be one they could poison for the person."""
    worktree, home = worktree.resolve(), home.resolve()
    cache = (("XDG_CACHE_HOME", "/tmp/.cache"),)
    return _common(worktree, home, [worktree], network, [], cache)
