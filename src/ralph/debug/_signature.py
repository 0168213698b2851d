"""Which events are errors, and the signature that groups recurring ones: the original's
``buildSignature`` / ``hashSignature`` / ``groupErrors``, so the same mistake twice
(``Issue 42 not found``, ``Issue 99 not found``) is one group, whatever its numbers,
hashes and times.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ErrorGroup",
    "event_name",
    "group_errors",
    "hash_signature",
    "is_error",
    "normalise",
    "signature",
]

# ASCII, as JavaScript's \b and \d are in the original.
_HASH = re.compile(r"\b[0-9a-f]{8,}\b", re.IGNORECASE | re.ASCII)
_TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}[.\dZ]*", re.ASCII)
_NUMBER = re.compile(r"\b\d+\b", re.ASCII)
#: Paths are Ralph's addition: a worktree or temporary folder differs on every run.
_PATH = re.compile(r"(?<![\w<:/])(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?")
_SPACE = re.compile(r"\s+")
MAX_NORMALISED = 200


def is_error(event: Mapping[str, Any]) -> bool:
    """An event that went wrong: ``ok`` false, ``blocked``, or a non-zero exit code."""
    if event.get("ok") is False or event.get("blocked") is True:
        return True
    code = event.get("exitCode")
    return code is not None and code != 0


def event_name(event: Mapping[str, Any]) -> str:
    """What the event is about: its tool, GraphQL operation, hook, or phase."""
    for key in ("tool", "operation", "hook", "phase"):
        value = event.get(key)
        if value:
            return str(value)
    return "unknown"


def _error_type(event: Mapping[str, Any]) -> str:
    if event.get("exitCode") is not None:
        return f"exit:{event['exitCode']}"
    return "blocked" if event.get("blocked") is True else "error"


def normalise(message: str) -> str:
    """The message with what varies between occurrences replaced: absolute paths, then
    the original's hashes, times and numbers; spaces collapsed; at most 200 characters."""
    text = _PATH.sub("<PATH>", message)
    text = _HASH.sub("<HASH>", text)
    text = _TIMESTAMP.sub("<TS>", text)
    text = _NUMBER.sub("<N>", text)
    return _SPACE.sub(" ", text).strip()[:MAX_NORMALISED]


def signature(event: Mapping[str, Any]) -> str:
    """``{cat}:{name}:{errorType}:{normalised error}``."""
    message = normalise(str(event.get("error") or ""))
    return f"{event.get('cat', 'unknown')}:{event_name(event)}:{_error_type(event)}:{message}"


def hash_signature(text: str) -> str:
    """The first 8 hex digits of the signature's SHA-256: the group's short name."""
    return hashlib.sha256(text.encode()).hexdigest()[:8]


@dataclass(frozen=True)
class ErrorGroup:
    hash: str
    signature: str
    count: int
    first_seen: str
    last_seen: str
    #: The first occurrence, as written.
    sample: Mapping[str, Any]

    @property
    def name(self) -> str:
        return event_name(self.sample)

    @property
    def error_type(self) -> str:
        return _error_type(self.sample)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hash": self.hash,
            "signature": self.signature,
            "count": self.count,
            "firstSeen": self.first_seen,
            "lastSeen": self.last_seen,
        }


def group_errors(events: Iterable[Mapping[str, Any]]) -> list[ErrorGroup]:
    """The error events grouped by signature, the most frequent first (ties: the one
    seen first first)."""
    groups: dict[str, ErrorGroup] = {}
    for event in events:
        if not is_error(event):
            continue
        text = signature(event)
        key = hash_signature(text)
        ts = str(event.get("ts", ""))
        found = groups.get(key)
        if found is None:
            groups[key] = ErrorGroup(key, text, 1, ts, ts, event)
            continue
        groups[key] = ErrorGroup(
            key,
            text,
            found.count + 1,
            min(found.first_seen, ts),
            max(found.last_seen, ts),
            found.sample,
        )
    return sorted(groups.values(), key=lambda g: (-g.count, g.first_seen))
