"""Git configuration files as confined processes see them: credentials taken out. A
remote URL can carry a token (``https://x-access-token:TOKEN@github.com/...``), a CI
checkout leaves an ``Authorization`` header in ``http.extraheader``, and a credential
helper hands out passwords to whoever asks; an agent needs none of it (Ralph pushes)."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

__all__ = ["sanitised_git_config", "without_credentials"]

#: ``scheme://userinfo@``: every user name and password in a URL, except an ssh login
#: name alone (``ssh://git@host``), which is no secret.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^\s/@\"]*)@")
_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9.-]+)")
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(=|$)")
#: Sections and keys dropped whole: what hands out or sends a credential.
_SECTIONS = frozenset({"credential"})
_KEYS = frozenset({"extraheader", "askpass", "sslkeypasswordprotected", "sslkey"})


def _strip_userinfo(match: re.Match[str]) -> str:
    scheme, userinfo = match.group(1), match.group(2)
    if scheme.lower() in ("ssh://", "git+ssh://", "ssh+git://") and ":" not in userinfo:
        return match.group(0)
    return scheme


def without_credentials(text: str) -> str:
    """``text`` (a git config file) without user names and passwords in URLs,
    credential sections, extra HTTP headers or askpass programs."""
    kept: list[str] = []
    dropping = False
    for line in text.splitlines(keepends=True):
        section = _SECTION.match(line)
        if section is not None:
            dropping = section.group(1).lower() in _SECTIONS
        key = _KEY.match(line)
        if dropping or (section is None and key is not None and key.group(1).lower() in _KEYS):
            continue
        kept.append(_USERINFO.sub(_strip_userinfo, line))
    return "".join(kept)


def sanitised_git_config(path: Path) -> Path | None:
    """A read-only copy of the git config file ``path`` without credentials, to show in
    its place; None when it holds none (or cannot be read). Copies are kept by content
    in a folder of the user's own, so every run of the same file shares one."""
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    clean = without_credentials(text)
    if clean == text:
        return None
    data = clean.encode("utf-8", errors="surrogateescape")
    folder = Path(tempfile.gettempdir()) / f"ralph-{os.getuid()}-git-config"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.is_symlink() or folder.stat().st_uid != os.getuid():
        folder = Path(tempfile.mkdtemp(prefix="ralph-git-config-"))  # not ours: one of our own
    copy = folder / hashlib.sha256(data).hexdigest()
    if not copy.is_file():
        with tempfile.NamedTemporaryFile(dir=folder, delete=False) as made:
            made.write(data)
        os.replace(made.name, copy)  # whole or not at all: runs at once share it
    return copy
