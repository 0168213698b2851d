"""Reading the debug log back: every event of the JSONL files under ``.ralph/logs/``
from a moment on, skipping lines that are not events (a torn or hand-edited line)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["LogRead", "iso_time", "read_events"]


def iso_time(moment: datetime) -> str:
    """``moment`` as the log writes times (UTC, milliseconds, ``Z``): such strings sort
    as the times do, so a window is a string comparison, as the original's was."""
    text = moment.astimezone(UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


@dataclass(frozen=True)
class LogRead:
    since: str
    events: tuple[dict[str, Any], ...]
    #: The processes (sessions) that wrote at least one of them.
    sessions: int


def _lines(directory: Path, since: str) -> Iterator[str]:
    if not directory.is_dir():
        return
    day = since[:10]
    for path in sorted(directory.glob("*.jsonl")):
        # debug-YYYY-MM-DD.jsonl holds that day's events only: older days are skipped.
        stamp = path.stem.removeprefix("debug-")
        if path.stem.startswith("debug-") and len(stamp) == 10 and stamp < day:
            continue
        try:
            with path.open(encoding="utf-8", errors="replace") as lines:
                yield from lines
        except OSError:
            continue


def read_events(directory: Path, since: datetime) -> LogRead:
    """The events written at ``since`` or later, oldest first."""
    start = iso_time(since)
    events = []
    for line in _lines(directory, start):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or not isinstance(event.get("ts"), str):
            continue
        if event["ts"] >= start:
            events.append(event)
    events.sort(key=lambda e: str(e["ts"]))
    sessions = {str(e.get("session", "")) for e in events}
    return LogRead(start, tuple(events), len(sessions))
