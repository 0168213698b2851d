"""Git configuration as confined processes see it: credentials taken out. A remote URL
can carry a token (``https://x-access-token:TOKEN@github.com/...``), a CI checkout leaves
an ``Authorization`` header in ``http.extraheader``, and a credential helper hands out
passwords to whoever asks; an agent needs none of it (Ralph pushes).

Git itself reads the configuration (``git config --list --includes``): every file an
``include.path`` or ``includeIf`` names is followed, a value continued over lines with
a trailing backslash comes whole, and what is left is written back as one flat file per
level, with no include in it. Each is shown in place of its level's file and every file
it was read from is hidden."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph.sandbox._kept import kept_file

__all__ = ["GitConfigs", "flattened_git_configs", "without_credentials"]

#: ``scheme://userinfo@``: every user name and password in a URL, except an ssh login
#: name alone (``ssh://git@host``), which is no secret.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^\s/@\"]*)@")
#: Sections dropped whole: what hands out a credential, and the includes (already
#: followed; the files they name are hidden).
_SECTIONS = frozenset({"credential", "include", "includeif"})
#: Keys dropped wherever they are: what sends or unlocks a credential.
_KEYS = frozenset({"extraheader", "askpass", "sslkeypasswordprotected", "sslkey"})
_SECONDS = 10
_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\b": "\\b"})
#: Where git looks besides the files a reading names: their creation changes it too.
_SYSTEM = Path("/etc/gitconfig")
_Stamp = tuple[Path, int, int]


@dataclass(frozen=True)
class GitConfigs:
    #: ``(copy, path)``: a flat copy without credentials to show in place of ``path``.
    replaced: tuple[tuple[Path, Path], ...] = ()
    #: Files the configuration was read from that no copy stands in for (included
    #: files, the system and XDG files, whose entries the global copy holds).
    hidden: tuple[Path, ...] = ()


def _strip_userinfo(match: re.Match[str]) -> str:
    scheme, userinfo = match.group(1), match.group(2)
    if scheme.lower() in ("ssh://", "git+ssh://", "ssh+git://") and ":" not in userinfo:
        return match.group(0)
    return scheme


def without_credentials(text: str) -> str:
    """``text`` with the user names and passwords of its URLs taken out."""
    return _USERINFO.sub(_strip_userinfo, text)


def _kept(key: str) -> bool:
    section, _, rest = key.partition(".")
    name = rest.rpartition(".")[2]
    return section.lower() not in _SECTIONS and name.lower() not in _KEYS


def _render(entries: Sequence[tuple[str, str | None]]) -> str:
    """``section.sub.name`` entries as a config file, in their order (later wins)."""
    lines: list[str] = []
    header = ""
    for key, value in entries:
        section, _, rest = key.partition(".")
        sub, _, name = rest.rpartition(".")
        sub = without_credentials(sub).replace("\\", "\\\\").replace('"', '\\"')
        wanted = f'[{section} "{sub}"]' if sub else f"[{section}]"
        if wanted != header:
            lines.append(header := wanted)
        if value is None:  # a bare boolean: true
            lines.append(f"\t{name}")
        else:
            lines.append(f'\t{name} = "{without_credentials(value).translate(_ESCAPES)}"')
    return "".join(f"{line}\n" for line in lines)


@dataclass
class _Level:
    entries: list[tuple[str, str | None]]
    origins: set[Path]


def _read(workdir: Path, environ: Mapping[str, str]) -> dict[str, _Level] | None:
    """Every level's entries as git reads them in ``workdir``; None when git cannot say."""
    env = {name: environ[name] for name in ("PATH", "HOME", "XDG_CONFIG_HOME") if name in environ}
    line = ["git", "config", "--list", "--includes", "--show-scope", "--show-origin", "-z"]
    try:
        done = subprocess.run(
            line, cwd=workdir, env=env, capture_output=True, timeout=_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    words = done.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    levels: dict[str, _Level] = {}
    for at in range(0, len(words) - 2, 3):
        scope, origin, entry = words[at : at + 3]
        key, newline, value = entry.partition("\n")
        level = levels.setdefault(scope, _Level([], set()))
        source = workdir / origin.removeprefix("file:")
        # A worktree's own config is in the agent's reach: what it includes could be any
        # file of the host (~/.pypirc read as config), so only its own lines are taken.
        if scope == "worktree" and source.name != "config.worktree":
            continue
        if origin.startswith("file:"):
            level.origins.add(source)
        if _kept(key):
            level.entries.append((key, value if newline else None))
    return levels


def _stamps(paths: set[Path]) -> tuple[_Stamp, ...]:
    """When and how large each file is (-1: absent): what a kept reading depends on."""
    found: list[_Stamp] = []
    for path in sorted(paths):
        try:
            status = path.stat()
        except OSError:
            found.append((path, -1, -1))
        else:
            found.append((path, status.st_mtime_ns, status.st_size))
    return tuple(found)


_Place = tuple[Path, Path, Path | None, Path | None]
#: The last reading per place, with the files it depends on as they were: git takes a
#: process start (about as long as the sandbox's own), and this runs before every
#: confined command.
_READINGS: dict[_Place, tuple[tuple[_Stamp, ...], GitConfigs]] = {}


def flattened_git_configs(
    workdir: Path,
    *,
    home: Path,
    repository: Path | None = None,
    worktree: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> GitConfigs:
    """The git configuration confined code in ``workdir`` sees: the system, XDG and
    global levels flattened into ``home``'s ``.gitconfig``, the repository's (its
    ``config``, at ``repository``) and the worktree's own (``worktree``) each flattened
    in place; every file read from hidden. When git cannot read it, every file it could
    have come from is hidden, none shown. Read again only when one of those files
    changed (with ``environ`` given, always)."""
    place = (workdir, home, repository, worktree)
    kept = _READINGS.get(place)
    if environ is None and kept is not None and _stamps({s[0] for s in kept[0]}) == kept[0]:
        return kept[1]
    variables = {**(os.environ if environ is None else environ), "HOME": str(home)}
    targets = {"system": home / ".gitconfig", "global": home / ".gitconfig"}
    if repository is not None:
        targets["local"] = repository
    if worktree is not None:
        targets["worktree"] = worktree
    xdg = Path(variables.get("XDG_CONFIG_HOME") or home / ".config") / "git" / "config"
    watched = {_SYSTEM, xdg, *targets.values()}
    # The branch checked out, for an includeIf "onbranch:".
    watched |= {path.with_name("HEAD") for path in (repository, worktree) if path is not None}
    # Taken before git reads: a change while it does shows as one the next time.
    before = _stamps(watched)
    configs = _flattened(workdir, targets, variables)
    found = {*configs.hidden, *(copy for copy, _ in configs.replaced)} - watched
    if environ is None:
        _READINGS[place] = (tuple(sorted((*before, *_stamps(found)))), configs)
    return configs


def _flattened(workdir: Path, targets: dict[str, Path], environ: Mapping[str, str]) -> GitConfigs:
    levels = _read(workdir, environ)
    if levels is None:
        return GitConfigs(hidden=tuple(dict.fromkeys(targets.values())))
    merged: dict[Path, list[tuple[str, str | None]]] = {}
    origins: set[Path] = set()
    for scope, path in targets.items():
        found = levels.get(scope)
        if found is not None:
            merged.setdefault(path, []).extend(found.entries)
            origins |= found.origins
        elif path.exists():
            merged.setdefault(path, [])  # a level git did not read: shown empty
    replaced = tuple(
        (kept_file(_render(entries).encode("utf-8", errors="surrogateescape")), path)
        for path, entries in merged.items()
    )
    shown = {path.resolve() for path in merged}
    hidden = tuple(sorted(path for path in origins if path.resolve() not in shown))
    return GitConfigs(replaced, hidden)
