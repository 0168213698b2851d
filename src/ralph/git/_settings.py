"""What git's configuration answers (who signs commits, whether a remote exists), asked
of git once and kept while nothing it comes from changed: every config file git reads
for the repository (its own, a linked worktree's, the person's global ones, the
system's) as the file system describes it (inode, size, change times: git writes a
config file anew and renames it over the old one), the legacy ``remotes/`` and
``branches/`` folders, and the ``GIT_CONFIG*`` variables and those naming the global
files. A config that includes another file (``[include]``, ``[includeIf]``) is asked
of git every time: what it includes, or when, is not watched.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.git._files import common_dir_of, git_dir_of, redirected

if TYPE_CHECKING:
    from ralph.git._repo import GitRepo

__all__ = ["config_answer"]

#: The variables that change which config files git reads, or add settings of their own.
_VARIABLES = ("HOME", "XDG_CONFIG_HOME")
_INCLUDE = re.compile(rb"^\s*\[\s*include", re.IGNORECASE | re.MULTILINE)
#: Answers kept at most (a few questions about a few repositories).
_KEPT = 64

#: A file's identity and times: (inode, size, modified ns, changed ns), None when absent.
_Stat = tuple[int, int, int, int] | None
_Stamp = tuple[tuple[tuple[str, str], ...], tuple[_Stat, ...]]

_lock = threading.Lock()
_answers: dict[tuple[Path, tuple[str, ...]], tuple[_Stamp, int, str]] = {}


def config_answer(repo: GitRepo, *args: str) -> tuple[int, str]:
    """``git ARGS`` in the repository (a question about its configuration): its exit
    code and stripped output, kept while the configuration stays as it was."""
    files = _config_files(repo)
    stamp = _stamp(files) if files is not None else None
    key = (repo.path, args)
    if stamp is not None:
        with _lock:
            kept = _answers.get(key)
        if kept is not None and kept[0] == stamp:
            return kept[1], kept[2]
    # Stamped before asking: a change made meanwhile is seen at the next question.
    asked = repo.run(*args)
    answer = asked.returncode, asked.stdout.strip()
    if stamp is not None and not _includes(files or [], stamp[0]):
        with _lock:
            if len(_answers) >= _KEPT:
                _answers.clear()
            _answers[key] = (stamp, *answer)
    return answer


def _config_files(repo: GitRepo) -> list[Path] | None:
    """Every file and folder whose change may change git's answer; None when git
    looks somewhere these do not name."""
    if redirected():
        return None
    own = git_dir_of(repo.path)
    if own is None:
        return None
    common = common_dir_of(own)
    if common is None:
        return None
    files = [
        common / "config",
        own / "config.worktree",
        common / "remotes",
        common / "branches",
    ]
    if "GIT_CONFIG_GLOBAL" in os.environ:
        files.append(Path(os.environ["GIT_CONFIG_GLOBAL"]))
    else:
        home = Path(os.environ.get("HOME", "~")).expanduser()
        xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
        files += [Path(xdg) / "git" / "config", home / ".gitconfig"]
    if os.environ.get("GIT_CONFIG_NOSYSTEM", "").lower() not in ("1", "true", "yes", "on"):
        files += [Path(os.environ.get("GIT_CONFIG_SYSTEM", "/etc/gitconfig")), *_system_files()]
    return files


@lru_cache(maxsize=4)
def _installed_system_files(git: str | None) -> tuple[Path, ...]:
    """A git installed under a prefix other than ``/usr`` (``/usr/local``, Homebrew's)
    reads its system config from that prefix's ``etc/``."""
    if git is None:
        return ()
    prefix = Path(git).resolve().parent.parent
    return () if prefix == Path("/usr") else (prefix / "etc" / "gitconfig",)


def _system_files() -> tuple[Path, ...]:
    return _installed_system_files(shutil.which("git"))


def _stamp(files: list[Path]) -> _Stamp:
    named = tuple(
        (name, value)
        for name, value in sorted(os.environ.items())
        if name.startswith("GIT_CONFIG") or name in _VARIABLES
    )
    return named, tuple(_stat(path) for path in files)


def _stat(path: Path) -> _Stat:
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def _includes(files: list[Path], variables: tuple[tuple[str, str], ...]) -> bool:
    """Whether any config includes another file (then nothing is kept); a file that
    cannot be read counts as including one."""
    if any(b"include" in value.lower().encode() for _, value in variables):
        return True
    for path in files:
        if path.is_dir():
            continue
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            continue
        except OSError:
            return True
        if _INCLUDE.search(text):
            return True
    return False
