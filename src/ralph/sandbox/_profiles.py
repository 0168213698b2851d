"""The two profiles Ralph confines with: an agent's (its working directory, what git
needs to commit there, a home of its run's own holding a copy of its CLI's state, the
network through the egress proxy) and the test command's (the worktree only, an empty
home; the network only when ralph.toml says so). Neither sees the person's home, other
homes, ``/run`` or the session's runtime folder, nor any git credential."""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph._agents import HOME_CACHE, find_agent_cli
from ralph.sandbox._git_config import flattened_git_configs
from ralph.sandbox._home import TOOLCHAINS, copy_state
from ralph.sandbox._profile import SandboxProfile

__all__ = [
    "CREDENTIALS",
    "agent_profile",
    "git_commit_paths",
    "profile_for_tests",
]

#: The person's credentials, relative to their home: hidden again, should a folder shown
#: from the home (a repository kept there) hold one.
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
#: Where other people's homes are.
_HOMES = (Path("/home"), Path("/root"))


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
    resolved = [path.resolve() for path in found if path.is_absolute()]
    return [_toolchain_of(path) or path for path in resolved]


@functools.lru_cache(maxsize=256)
def _toolchain_of(folder: Path) -> Path | None:
    """The installed toolchain a folder lies in, in whichever home: a PATH entry there
    (pyenv's shims) runs the toolchain's other files (``libexec/pyenv``). Path
    arithmetic alone, kept: asked of every PATH entry and import path for each
    sandboxed command, it was most of building a test run's profile (50 ms a run)."""
    for parent in folder.parents:
        for name in TOOLCHAINS:
            if _inside(folder, [parent / name]):
                return parent / name
    return None


def _exists(path: Path) -> bool:
    """Whether ``path`` names something; a word that cannot be a path (a prompt passed
    as an argument: too long, a NUL byte) names nothing."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _below(path: Path, roots: Sequence[Path]) -> bool:
    """Under one of the folders shown empty, and not one itself: showing /tmp or the home
    again (a PATH entry, ``python -m`` run from there) would give back every socket and
    file of the real one."""
    return path not in roots and _inside(path, roots)


def _emptied(home: Path) -> tuple[Path, ...]:
    """Shown empty besides /tmp, /run and the home: every other home, and the session's
    runtime folder (its agents' sockets)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    found = [*_HOMES, *([Path(runtime)] if runtime.startswith("/") else [])]
    return tuple(path for path in found if path != home)


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(path == folder or path.is_relative_to(folder) for folder in folders)


def _common(
    workdir: Path,
    home: Path,
    writable: Sequence[Path],
    network: bool,
    extra: Sequence[Path],
    setenv: tuple[tuple[str, str], ...] = (),
    own_home: Path | None = None,
) -> SandboxProfile:
    checkout = _checkout(workdir)
    emptied = _emptied(home)
    # Only what lies under a folder shown empty needs showing again (a repository or a
    # Python kept in the home or /tmp); everything else is already visible read-only. The
    # Python running Ralph, the PATH's folders and the home's toolchains stay visible: a
    # test command names them.
    shown = [*([checkout.repository] if checkout is not None else []), *extra, *_programs()]
    shown += [home / name for name in TOOLCHAINS]
    roots = [_TMP, home, *emptied]
    below = [p for p in dict.fromkeys(shown) if _below(p, roots) and _exists(p)]
    # A folder inside another shown comes with it: one mount fewer for each.
    readable = tuple(p for p in below if not any(p != q and _inside(p, [q]) for q in below))
    # Read-only again inside the writable paths: a main checkout's git directory and the
    # store (hooks and config there would run with the person's rights), and a worktree's
    # pointers to its git directory: pointed elsewhere, Ralph's own git calls in the
    # worktree would read a config of the agent's making (core.fsmonitor runs a command).
    protected: tuple[Path, ...] = ()
    if checkout is not None:
        guarded = [checkout.common_dir, checkout.repository / ".ralph"]
        if checkout.linked:
            git_dir = checkout.git_dir
            guarded += [
                checkout.top / ".git",
                git_dir / "commondir",
                git_dir / "gitdir",
                git_dir / "config.worktree",
            ]
        protected = tuple(p for p in guarded if p.exists() and _inside(p, writable))
    git = flattened_git_configs(
        workdir,
        home=home,
        repository=checkout.common_dir / "config" if checkout is not None else None,
        worktree=checkout.git_dir / "config.worktree" if checkout is not None else None,
    )
    credentials = [home / name for name in CREDENTIALS if (home / name).exists()]
    return SandboxProfile(
        home=home,
        own_home=own_home,
        emptied=emptied,
        replaced=git.replaced,
        writable=tuple(dict.fromkeys(writable)),
        readable=readable,
        protected=protected,
        hidden=tuple(dict.fromkeys([*credentials, *git.hidden])),
        network=network,
        setenv=setenv,
    )


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
    own_home: Path | None = None,
) -> SandboxProfile:
    """An agent CLI's: writes to ``workdir`` (and commits there when it is a worktree),
    its ``scratch`` files and its home. Its network: a namespace of its own whose one
    way out is the egress proxy on the unix socket ``proxy`` (its model is an API); the
    host's when None. ``program`` and the files its ``arguments`` name, when under a
    folder shown empty, stay visible, read-only.

    Its home is ``own_home``, a new folder of the run's own made here: a copy of the
    state ``home`` holds for its CLI when ``program`` is one Ralph knows (codex, ...;
    none of them for another command), and an empty cache. None: an empty home."""
    workdir, home = workdir.resolve(), home.resolve()
    if own_home is not None:
        known = find_agent_cli(program.name) if program is not None else None
        names = (*known.home_folders, *known.home_files) if known is not None else ()
        copy_state(home, own_home, names)
        for name in (*(known.home_folders if known is not None else ()), HOME_CACHE):
            (own_home / name).mkdir(parents=True, exist_ok=True)
    writable = [workdir, *git_commit_paths(workdir), *(p.resolve() for p in scratch)]
    extra = _program_folders(program) if program is not None else []
    extra += [Path(word) for word in arguments if word.startswith("/") and _exists(Path(word))]
    profile = _common(workdir, home, writable, True, extra, own_home=own_home)
    return dataclasses.replace(profile, proxy=proxy)


def profile_for_tests(worktree: Path, *, home: Path, network: bool = False) -> SandboxProfile:
    """The test command's: writes to ``worktree`` (and the private ``/tmp``) only. Tools
    that cache under ``~/.cache`` (go test, pip) cache in ``/tmp`` instead: a cache the
    tests could write would be one they could poison for the person."""
    worktree, home = worktree.resolve(), home.resolve()
    cache = (("XDG_CACHE_HOME", "/tmp/.cache"),)
    return _common(worktree, home, [worktree], network, [], cache)
