"""One token's pacing shared by every process of this user (GitHub's limits are per token
and user, not per process): ``ralph run``'s workers, agents' MCP servers and ``ralph
status`` each have a pacer, and together they must keep a second between mutations and
stay inside the content-creation budget.

The shared part is a small JSON file under an exclusive ``flock``, one per API URL and
token (named by a hash: the token is never written), in the user's state folder
(``$RALPH_GH_PACING_DIR``, else ``$XDG_STATE_HOME/ralph/pacing``, else
``~/.local/state/ralph/pacing``). It holds when the last mutation started, when recent
content was created and until when a rate limit pauses everyone.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["SharedPacing", "pacing_dir"]

logger = logging.getLogger(__name__)


def pacing_dir(env: Mapping[str, str]) -> Path:
    """Where this user's shared pacing files live."""
    if env.get("RALPH_GH_PACING_DIR"):
        return Path(env["RALPH_GH_PACING_DIR"])
    state = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "ralph" / "pacing"


class SharedPacing:
    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_token(cls, folder: Path, url: str, token: str) -> SharedPacing:
        digest = hashlib.sha256(f"{url}\0{token}".encode()).hexdigest()[:24]
        return cls(folder / f"{digest}.json")

    @contextlib.contextmanager
    def locked(self) -> Iterator[dict[str, Any]]:
        """The shared state, held exclusively for the ``with`` block and written back."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = b""
            while chunk := os.read(fd, 65536):
                raw += chunk
            try:
                state = json.loads(raw) if raw.strip() else {}
            except ValueError:  # a torn file (a crash mid-write): start afresh
                logger.warning("shared pacing file unreadable; starting afresh")
                state = {}
            if not isinstance(state, dict):
                state = {}
            yield state
            data = json.dumps(state).encode()
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            os.write(fd, data)
        finally:
            os.close(fd)  # closing releases the lock
