"""Files the sandbox shows to confined processes (a git config without credentials, the
seccomp filter), kept by content in a folder of the user's own: every run of the same
content shares one, and none is ever half-written."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

__all__ = ["kept_file"]


def kept_file(data: bytes) -> Path:
    """A read-only-by-convention file holding ``data``."""
    folder = Path(tempfile.gettempdir()) / f"ralph-{os.getuid()}-sandbox"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.is_symlink() or folder.stat().st_uid != os.getuid():
        folder = Path(tempfile.mkdtemp(prefix="ralph-sandbox-"))  # not ours: one of our own
    copy = folder / hashlib.sha256(data).hexdigest()
    if not copy.is_file():
        with tempfile.NamedTemporaryFile(dir=folder, delete=False) as made:
            made.write(data)
        os.replace(made.name, copy)  # whole or not at all: runs at once share it
    return copy
