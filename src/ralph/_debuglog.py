"""The debug log (``RALPH_DEBUG=1`` or ``[debug] enabled = true``): one JSON object per line
for every MCP tool call, GraphQL request, agent run, phase refusal and hook decision,
under the project's ``.ralph/logs/``, for ``ralph debug stats`` and ``ralph debug
collate`` to read.

Off, it costs one attribute test per call site and creates nothing. On, each event is
appended to the day's file (``debug-YYYY-MM-DD.jsonl``, UTC) with one ``write`` of the
whole line under an exclusive ``flock``, so the processes of a team (workers, the MCP
server, every ``ralph hook``) share a file without tearing lines. Writing never raises
into the code it observes: a full disk is said once in the log and the event dropped.

Nothing secret is written: a field named like a secret (``token``, ``password``,
``api_key`` ...) is replaced whole, and every string passes ``ralph._secrets.redact``.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ralph._secrets import redact, secret_name

__all__ = [
    "DEBUG_LOG_DIR",
    "REDACTED",
    "debug_enabled",
    "debug_log_dir",
    "disable_debug_log",
    "enable_debug_log",
    "record_event",
]

#: Where a project's debug log lives, relative to its root.
DEBUG_LOG_DIR = ".ralph/logs"
#: What a secret-named field's value becomes (the original's word).
REDACTED = "[REDACTED]"
#: A string longer than this is cut: an issue body in a mutation's variables would
#: otherwise make one event a megabyte.
MAX_TEXT = 2000
#: Containers nested deeper than this are written as text.
_MAX_DEPTH = 6

logger = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _clean(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data without secrets: secret-named keys replaced, every string
    redacted and cut to ``MAX_TEXT``."""
    if isinstance(value, Mapping):
        if depth >= _MAX_DEPTH:
            return _clean(str(value), depth)
        return {
            str(key): REDACTED if secret_name(str(key)) else _clean(item, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        if depth >= _MAX_DEPTH:
            return _clean(str(value), depth)
        return [_clean(item, depth + 1) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    text = redact(str(value))
    return text if len(text) <= MAX_TEXT else f"{text[:MAX_TEXT]}… ({len(text)} characters)"


class _DebugLog:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        #: Tells this process's events apart from another's in a shared file. Not a
        #: secret: os.urandom spares every command importing ``secrets`` (hmac, hashlib).
        self.session = f"{os.getpid()}-{os.urandom(2).hex()}"
        self._lock = threading.Lock()
        self._failed = False

    def write(self, category: str, fields: Mapping[str, Any]) -> None:
        event = {"ts": _now(), "cat": category, **_clean(fields), "session": self.session}
        line = (json.dumps(event, ensure_ascii=False, default=str) + "\n").encode()
        path = self.directory / f"debug-{event['ts'][:10]}.jsonl"
        try:
            with self._lock:
                self.directory.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    os.write(fd, line)
                finally:
                    os.close(fd)  # closing releases the lock
        except OSError as exc:
            if not self._failed:  # once: a full disk must not flood the log
                self._failed = True
                logger.warning("debug log not written", extra={"path": str(path), "error": exc})


_log: _DebugLog | None = None


def enable_debug_log(directory: Path) -> None:
    """Record events under ``directory`` from now on (a project's ``.ralph/logs``)."""
    global _log
    if _log is None or _log.directory != directory:
        _log = _DebugLog(directory)


def disable_debug_log() -> None:
    global _log
    _log = None


def debug_enabled() -> bool:
    return _log is not None


def debug_log_dir() -> Path | None:
    """The folder events go to, None when the debug log is off."""
    return None if _log is None else _log.directory


def record_event(category: str, **fields: Any) -> None:
    """Append one event of ``category`` ("tool", "graphql", "agent", "phase", "hook");
    nothing at all when the debug log is off."""
    log = _log
    if log is None:
        return
    try:
        log.write(category, fields)
    except Exception:  # observing must never break what it observes
        logger.exception("debug event dropped", extra={"category": category})
