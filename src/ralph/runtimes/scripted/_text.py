"""Reading the simple markers the scripted agents take their decisions from, and the
repository facts they base documents on."""

from __future__ import annotations

import re
from pathlib import Path

from ralph.git import GitRepo

__all__ = ["keywords", "marker", "markers", "repository_files"]

_FILLER = """
the and for with that this from into when then than have has should would could will
make makes add adds use uses using issue issues about after before over under each
every also only more most some such what which where while work works
"""
_STOP = frozenset(_FILLER.split())


def markers(text: str, name: str) -> list[str]:
    """The values of every ``Name: value`` line (case-insensitive name)."""
    pattern = re.compile(rf"^\s*{re.escape(name)}\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
    return [match.group(1) for match in pattern.finditer(text)]


def marker(text: str, name: str) -> str | None:
    found = markers(text, name)
    return found[0] if found else None


def keywords(text: str) -> list[str]:
    """Distinct words of four letters or more that are not filler, in order."""
    seen: dict[str, None] = {}
    for word in re.findall(r"[a-z][a-z0-9_]{3,}", text.lower()):
        if word not in _STOP:
            seen.setdefault(word, None)
    return list(seen)


def repository_files(workdir: Path) -> list[str]:
    """Tracked files of the checkout at ``workdir``, documents excluded."""
    listing = GitRepo(workdir).git("ls-files", what="list the repository's files")
    return [path for path in listing.splitlines() if not path.startswith("thoughts/")]
