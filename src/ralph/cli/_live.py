"""The run as it happens: a live table of the task graph (status, what a waiting task
waits for and when it looks again, worker, elapsed, cost, tool calls its agents were
refused, and under each running task what its agent is doing) on a terminal, and one
plain line per change otherwise (logs, CI, pipes), with a ``!`` line for each write an
agent made outside its working directory and a line whenever an agent's activity says
something new.

``ralph loop`` and ``ralph serve`` watch many runs at once (``many``): their table holds
every root's running tasks, and each run is forgotten when its session ends, so a service
that runs for weeks keeps only what runs now."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ralph.cli._activity import activity_text, safe_line
from ralph.cli._console import Console
from ralph.cli._report import MARKS, best_of_table, duration, status_cell, waiting_text, worker_name
from ralph.orchestrate import dollars
from ralph.tasks import EventKind

if TYPE_CHECKING:
    from rich.live import Live

    from ralph.orchestrate import RunReport, TaskLine
    from ralph.tasks import Event, Run, TaskStore
    from ralph.tracker import Tracker

__all__ = ["LiveView"]

#: How often the table is drawn again, events or not (elapsed times tick).
REFRESH_PER_SECOND = 2

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
    """An observer for ``run_session``; call it with each batch of events (from any
    thread: ``ralph loop`` and ``ralph serve`` call it from each root's session)."""

    def __init__(
        self, store: TaskStore, tracker: Tracker, console: Console, *, many: bool = False
    ) -> None:
        self.store = store
        self.tracker = tracker
        self.console = console
        #: Many runs at once (loop, serve): the table holds every root's running tasks.
        self.many = many
        self._live: Live | None = None
        self._lock = threading.Lock()
        #: The latest report of each run watched, drawn again on each refresh.
        self._reports: dict[int, RunReport] = {}
        self._boards: dict[int, str] = {}
        #: Per task: ledger lines already shown (each refusal is said once), the last
        #: activity line printed; per run, the tasks those are kept for (to forget them).
        self._charges_seen: dict[int, int] = {}
        self._breaches_seen: dict[int, int] = {}
        self._said: dict[int, str] = {}
        #: Tasks said to wait for a key another task holds (said once per stretch).
        self._keys: dict[int, str] = {}
        self._tasks_of: dict[int, set[int]] = {}
        #: Each agent's wait for its provider said so far (its end): said once each.
        self._providers: dict[str, float] = {}

    @contextmanager
    def showing(self) -> Iterator[LiveView]:
        from rich.live import Live

        if not self.console.is_terminal:
            yield self
            return
        live = Live(
            console=self.console,
            refresh_per_second=REFRESH_PER_SECOND,
            transient=False,
            get_renderable=self._drawing,
        )
        with live:
            self._live = live
            try:
                yield self
            finally:
                self._live = None

    def __call__(self, run: Run, events: Sequence[Event]) -> None:
        from ralph.orchestrate import load_report

        live = self._live
        if any(event.kind is EventKind.TASK_WAITING for event in events):
            self._provider_lines()
        if live is not None:
            report = load_report(self.store, run.id)
            with self._lock:
                self._reports[run.id] = report
            live.refresh()  # at once: a task started or ended, an agent did something
            return
        # Tasks a re-plan replaced before they ran are not said: they never were work.
        replaced = _replacements(events)
        with self._lock:  # one batch at a time: lines of two roots do not interleave
            for event in events:
                if event.id not in replaced:
                    self._line(event)
            self._key_lines(run)

    def forget(self, run_id: int) -> None:
        """The session of ``run_id`` ended: what was kept to show it goes."""
        with self._lock:
            self._reports.pop(run_id, None)
            self._boards.pop(run_id, None)
            for task_id in self._tasks_of.pop(run_id, set()):
                for seen in (self._charges_seen, self._breaches_seen, self._said, self._keys):
                    seen.pop(task_id, None)

    def table(self, run: Run) -> RenderableType:
        """The run's table as the terminal would show it now."""
        from ralph.orchestrate import load_report

        return _table(load_report(self.store, run.id), time.time())

    def _drawing(self) -> RenderableType:
        """What the terminal shows now (called by the live display on each refresh)."""
        with self._lock:
            reports = list(self._reports.values())
        now = time.time()
        if self.many:
            return _running_table(reports, now)
        if not reports:
            return Text("")
        return _table(reports[-1], now)

    def _line(self, event: Event) -> None:
        if event.kind is EventKind.TASK_ACTIVITY:
            self._activity_line(event)
            return
        said = _SAID.get(event.kind)
        if said is None or event.task_id is None:
            return
        task = self.store.get_task(event.task_id)
        self._tasks_of.setdefault(task.run_id, set()).add(task.id)
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
            board = self.board(task.run_id)
            if board and board != self._boards.get(task.run_id):
                self._boards[task.run_id] = board
                self.console.print(f"         board: {board}", markup=False, highlight=False)

    def _provider_lines(self) -> None:
        """``12:00:01 ○ waiting for the provider of claude until 14:05 (usage limit
        reached)``, once per wait however many tasks go back for it (a later reset is
        a new wait), above the table on a terminal."""
        from ralph.orchestrate import provider_wait_text

        now = time.time()
        with self._lock:
            for wait in self.store.provider_waits(now=now):
                if self._providers.get(wait.agent) == wait.until:
                    continue
                self._providers[wait.agent] = wait.until
                stamp = time.strftime("%H:%M:%S", time.localtime(now))
                self.console.print(
                    f"{stamp} ○ {provider_wait_text(wait, now=now)}", markup=False, highlight=False
                )

    def _key_lines(self, run: Run) -> None:
        """``12:00:01 ○ Merge PR for GH-6 waiting for: the merge of #4 (run 3, ...)``,
        once when a task of the run is ready but for a key another task holds: no event
        of its own run says so."""
        from ralph.orchestrate import key_waits
        from ralph.tasks import TaskStatus

        held = key_waits(self.store, run.id)
        for task_id in [t for t in self._keys if t not in held]:
            del self._keys[task_id]  # the wait ended; a later one is said again
        stamp = time.strftime("%H:%M:%S")
        for task_id, text in held.items():
            if task_id in self._keys:
                continue
            self._keys[task_id] = text
            self._tasks_of.setdefault(run.id, set()).add(task_id)
            task = self.store.get_task(task_id)
            self.console.print(
                f"{stamp} {MARKS[TaskStatus.PENDING][0]} {task.subject} {waiting_text(text, None)}",
                markup=False,
                highlight=False,
            )

    def _activity_line(self, event: Event) -> None:
        """``12:00:01 ● Implement GH-1 [hero-2] turn 4 · Edit a.py``, when it says
        something the last line for the task did not."""
        from ralph.tasks import TaskStatus

        summary = safe_line(event.data.get("summary", ""))
        if event.task_id is None or not summary or self._said.get(event.task_id) == summary:
            return
        task = self.store.get_task(event.task_id)
        self._tasks_of.setdefault(task.run_id, set()).add(task.id)
        self._said[task.id] = summary
        who = worker_name(task.owner)
        stamp = time.strftime("%H:%M:%S", time.localtime(event.at))
        self.console.print(
            f"{stamp} {MARKS[TaskStatus.RUNNING][0]} {task.subject}"
            f"{f' [{who}]' if who else ''} {summary}",
            markup=False,
            highlight=False,
        )

    def _new_refusals(self, run_id: int, task_id: int) -> list[str]:
        """Tools refused in the task's agent runs not shown yet."""
        charges = [c for c in self.store.charges(run_id) if c.task_id == task_id]
        seen = self._charges_seen.get(task_id, 0)
        self._charges_seen[task_id] = len(charges)
        return list(dict.fromkeys(tool for c in charges[seen:] for tool in c.refused))

    def board(self, run_id: int) -> str:
        """Workflow states of the issues the run works on, counted."""
        numbers = sorted({n for t in self.store.list_tasks(run_id) for n in t.issues})
        # As the run's steps last read or moved them: a display, not a request each time.
        issues = self.tracker.seen_issues(numbers)
        states = Counter(str(issue.workflow_state or "no state") for issue in issues)
        return " · ".join(f"{state} {count}" for state, count in states.items())


def _task_cell(line: TaskLine) -> RenderableType:
    """The task, and under it, while it runs, what its agent is doing: one line that a
    narrow terminal cuts short rather than wraps."""
    from ralph.tasks import TaskStatus

    subject = Text(line.subject)
    if line.status != TaskStatus.RUNNING or line.activity is None:
        return subject
    doing = activity_text(line.activity)
    if not doing.plain:
        return subject
    under = Text("  ").append_text(doing)
    under.no_wrap, under.overflow = True, "ellipsis"
    return Group(subject, under)


def _elapsed(line: TaskLine, now: float) -> str:
    seconds = line.seconds + (max(0.0, now - line.started_at) if line.started_at else 0.0)
    return duration(seconds) if seconds else ""


def _table(report: RunReport, now: float) -> Group:
    """One run: every task, its status, worker, elapsed time and cost; not the tasks
    one re-plan replaced before they ran (never work, only the plan's history)."""
    from ralph.orchestrate import replaced

    run = report.run
    table = Table(title=f"{run.name} (run {run.id})", title_justify="left", expand=False)
    refused = any(line.refused for line in report.tasks)
    table.add_column("Task")
    for column in ["Status", "Worker", "Elapsed", "Cost"] + ["Refused tools"] * refused:
        table.add_column(column)
    folded = Counter(line.error for line in report.tasks if replaced(line))
    for line in report.tasks:
        if replaced(line) and folded[line.error] > 1:
            continue
        cells: list[RenderableType] = [
            _task_cell(line),
            status_cell(line),
            worker_name(line.owner) if line.status == "running" else "",
            _elapsed(line, now),
            dollars(line.cost_usd, line.unpriced, blank_zero=True),
        ]
        if refused:
            cells.append(Text(", ".join(line.refused), style="red"))
        table.add_row(*cells)
    spent = dollars(report.cost_usd, report.unpriced)
    footer = Text(f"{report.tally.done}/{report.tally.total} done, {spent} spent")
    return Group(table, footer, *(best_of_table(best) for best in report.best_of))


def _running_table(reports: Sequence[RunReport], now: float) -> RenderableType:
    """Many runs (a loop, the service): each root's running tasks."""
    from ralph.tasks import TaskStatus

    running = [
        (report, line)
        for report in reports
        for line in report.tasks
        if line.status == TaskStatus.RUNNING
    ]
    if not running:
        return Text("No task running.", style="dim")
    roots = len({report.run.id for report, _ in running})
    table = Table(
        title=f"Running: {len(running)} task{'s' * (len(running) != 1)} of "
        f"{roots} root{'s' * (roots != 1)}",
        title_justify="left",
        expand=False,
    )
    table.add_column("Root")
    table.add_column("Task")
    for column in ("Worker", "Elapsed"):
        table.add_column(column)
    for report, line in running:
        root = report.run.root_issue
        table.add_row(
            f"#{root}" if root is not None else "",
            _task_cell(line),
            worker_name(line.owner),
            _elapsed(line, now),
        )
    return table


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
