"""What a task's agent is doing, for the terminal: one line (turn, tokens, cost, last tool
call or words; refused tools in red) and its last events. Text from the store is made one
printable line again here: another process wrote it, and a terminal obeys what it gets."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text

from ralph._text import short_line
from ralph.cli._console import Console

if TYPE_CHECKING:
    from ralph.orchestrate import RunReport
    from ralph.runtimes import Activity

__all__ = ["activity_events", "activity_text", "print_activity", "safe_line"]

#: The widest activity line a table or a log line gets.
_LINE_CHARS = 160
#: The events a finished task's activity shows (``--details``: all it keeps).
_FINISHED_EVENTS = 3


def safe_line(text: object, limit: int = _LINE_CHARS) -> str:
    """``text`` from the store as one short printable line (no control character, no
    secret): another process wrote it."""
    return short_line(text, limit)


def activity_text(activity: Activity) -> Text:
    """``turn 4 · 12.3k tokens · $0.02 · Edit calc/__init__.py``, dim, with the tools its
    agent was refused after it in red."""
    text = Text()
    text.append(safe_line(replace(activity, refused=()).summary()), style="dim")
    if activity.refused:
        if text.plain:
            text.append(" · ", style="dim")
        text.append(safe_line(f"refused {', '.join(activity.refused)}"), style="red")
    return text


def activity_events(activity: Activity, last: int | None = None) -> list[Text]:
    """Its last events (all it keeps, or the ``last`` few): time, kind and text."""
    recent = activity.recent if last is None else activity.recent[-last:]
    lines = []
    for event in recent:
        stamp = time.strftime("%H:%M:%S", time.localtime(event.at))
        line = Text(f"{stamp} {safe_line(event.kind, 12):<7} ", style="dim")
        line.append(safe_line(event.text), style="red" if event.kind == "refused" else "")
        lines.append(line)
    return lines


def print_activity(report: RunReport, console: Console, *, every: bool = False) -> None:
    """Each task's agent activity: its line, then its last events (all it keeps for a
    running task, or with ``every``; the last ``_FINISHED_EVENTS`` of a finished one)."""
    from ralph.tasks import TaskStatus

    shown = [
        (line, line.activity)
        for line in report.tasks
        if line.activity is not None and not line.activity.empty
    ]
    if not shown:
        return
    console.print("Agent activity:", style="bold")
    for line, activity in shown:
        assert activity is not None  # kept above
        head = Text(f"  {safe_line(line.subject)} ({line.status}): ")
        head.append_text(activity_text(activity))
        console.print(head)
        running = line.status == TaskStatus.RUNNING
        last = None if running or every else _FINISHED_EVENTS
        for event in activity_events(activity, last):
            console.print(Text("    ").append_text(event))
