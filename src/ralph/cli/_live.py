"""The run as it happens: a live table of the task graph (status, what a waiting task
waits for and when it looks again, worker, elapsed, cost, tool calls its agents were
refused) on a terminal, and one plain line per change otherwise (logs, CI, pipes), with
a ``!`` line for each write an agent made outside its working directory."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from rich.console import Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from ralph.cli._console import Console
from ralph.cli._report import MARKS, best_of_table, duration, status_cell, waiting_text, worker_name
from ralph.orchestrate import load_report
from ralph.tasks import Event, EventKind, Run, TaskStatus, TaskStore
from ralph.tracker import Tracker

__all__ = ["LiveView"]

_SAID = {
    EventKind.TASK_CLAIMED: "started",
    EventKind.TASK_DONE: "done",
    EventKind.TASK_FAILED: "failed, will retry",
    EventKind.TASK_DEAD: "failed",
    EventKind.TASK_RELEASED: "handed back",
    EventKind.TASK_EXPIRED: "lease expired",
    EventKind.TASK_CANCELED: "canceled",
    EventKind.TASK_WAITING: "not ready",
    EventKind.TASK_WOKEN: "woken: looks again now",
}


class LiveView:
    """An observer for ``run_session``; call it with each batch of events."""

    def __init__(self, store: TaskStore, tracker: Tracker, console: Console) -> None:
        self.store = store
        self.tracker = tracker
        self.console = console
        self._live: Live | None = None
        self._board = ""
        self._run_id = 0
        #: Ledger lines already shown, per task: each refusal is said once.
        self._charges_seen: dict[int, int] = {}
        self._breaches_seen: dict[int, int] = {}

    @contextmanager
    def showing(self) -> Iterator[LiveView]:
        if not self.console.is_terminal:
            yield self
            return
        with Live(console=self.console, refresh_per_second=8, transient=False) as live:
            self._live = live
            try:
                yield self
            finally:
                self._live = None

    def __call__(self, run: Run, events: Sequence[Event]) -> None:
        self._run_id = run.id
        if self._live is not None:
            self._live.update(self._table(run))
            return
        replaced = _replacements(events)
        for event in events:
            if event.id not in replaced:
                self._line(event)
            elif replaced[event.id]:
                self._folded(event, replaced[event.id])

    def _folded(self, first: Event, count: int) -> None:
        """The tasks one re-plan replaced, as one line where the first was."""
        stamp = time.strftime("%H:%M:%S", time.localtime(first.at))
        mark = MARKS[TaskStatus.CANCELED][0]
        self.console.print(
            f"{stamp} {mark} {count} earlier tasks replaced — {first.data['reason']}",
            markup=False,
            highlight=False,
        )

    def _line(self, event: Event) -> None:
        said = _SAID.get(event.kind)
        if said is None or event.task_id is None:
            return
        task = self.store.get_task(event.task_id)
        who = worker_name(event.data.get("worker") or task.owner)
        extra = f" — {event.data['error']}" if event.data.get("error") else ""
        if event.kind is EventKind.TASK_CANCELED and event.data.get("reason"):
            extra = f" — {event.data['reason']}"
        if event.kind is EventKind.TASK_WAITING:
            until = event.data.get("until")
            extra = f" — {waiting_text(str(event.data.get('waiting_for')), until)}"
        refused = self._new_refusals(task.run_id, task.id)
        if refused:
            extra += f" — its agent was refused {', '.join(refused)}"
        stamp = time.strftime("%H:%M:%S", time.localtime(event.at))
        self.console.print(
            f"{stamp} {MARKS[task.status][0]} {task.subject}{f' [{who}]' if who else ''} "
            f"{said}{extra}",
            markup=False,
            highlight=False,
        )
        breaches = [str(b) for b in task.metadata.get("breaches", ())]
        for breach in breaches[self._breaches_seen.get(task.id, 0) :]:
            self.console.print(f"         ! {breach}", markup=False, highlight=False)
        self._breaches_seen[task.id] = len(breaches)
        if event.kind is EventKind.TASK_DONE and "best_of" in task.metadata:
            for said_line in _best_of_lines(task.result):
                self.console.print(f"         {said_line}", markup=False, highlight=False)
        if event.kind is EventKind.TASK_DONE:
            board = self.board()
            if board and board != self._board:
                self._board = board
                self.console.print(f"         board: {board}", markup=False, highlight=False)

    def _new_refusals(self, run_id: int, task_id: int) -> list[str]:
        """Tools refused in the task's agent runs not shown yet."""
        charges = [c for c in self.store.charges(run_id) if c.task_id == task_id]
        seen = self._charges_seen.get(task_id, 0)
        self._charges_seen[task_id] = len(charges)
        return list(dict.fromkeys(tool for c in charges[seen:] for tool in c.refused))

    def board(self) -> str:
        """Workflow states of the issues the run works on, counted."""
        numbers = sorted({n for t in self.store.list_tasks(self._run_id) for n in t.issues})
        # As the run's steps last read or moved them: a display, not a request each time.
        issues = self.tracker.seen_issues(numbers)
        states = Counter(str(issue.workflow_state or "no state") for issue in issues)
        return " · ".join(f"{state} {count}" for state, count in states.items())

    def _table(self, run: Run) -> Group:
        report = load_report(self.store, run.id)
        table = Table(title=f"{run.name} (run {run.id})", title_justify="left", expand=False)
        refused = any(line.refused for line in report.tasks)
        columns = ["Task", "Status", "Worker", "Elapsed", "Cost"]
        for column in [*columns, "Refused tools"] if refused else columns:
            table.add_column(column)
        now = time.time()
        for line in report.tasks:
            seconds = line.seconds + (now - line.started_at if line.started_at else 0.0)
            cells: list[str | Text] = [
                line.subject,
                status_cell(line),
                worker_name(line.owner) if line.status == "running" else "",
                duration(seconds) if seconds else "",
                f"${line.cost_usd:.2f}" if line.cost_usd else "",
            ]
            if refused:
                cells.append(Text(", ".join(line.refused), style="red"))
            table.add_row(*cells)
        done = sum(1 for t in report.tasks if t.status == "done")
        footer = Text(f"{done}/{len(report.tasks)} done, ${report.cost_usd:.2f} spent")
        return Group(table, footer, *(best_of_table(best) for best in report.best_of))


def _replacements(events: Sequence[Event]) -> dict[int, int]:
    """Of a batch's cancellations, those one rewrite made of several tasks at once, by
    event id: the first with how many it stands for, the others with 0 (not shown)."""
    by_reason: dict[str, list[Event]] = {}
    for event in events:
        if event.kind is EventKind.TASK_CANCELED and event.data.get("reason"):
            by_reason.setdefault(str(event.data["reason"]), []).append(event)
    folded: dict[int, int] = {}
    for group in by_reason.values():
        if len(group) > 1:
            folded |= {event.id: 0 for event in group} | {group[0].id: len(group)}
    return folded


def _best_of_lines(result: object) -> list[str]:
    """What an attempt measured, or why the winner won: its task's own lines."""
    lines = result.get("lines", []) if isinstance(result, dict) else []
    return [str(line) for line in lines if str(line).startswith(("Try ", "Best of "))]
