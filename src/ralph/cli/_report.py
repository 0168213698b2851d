"""The run report for people: a table of tasks (with cached tokens and refused tool calls
apart, and what each waiting task waits for), totals, the makespan against the critical
path, the merge batches, what needs a person, and the orchestration's soundness
counters."""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from ralph.cli._console import Console
from ralph.orchestrate import Outcome, batch_words, dollars, replaced
from ralph.tasks import TaskStatus

if TYPE_CHECKING:
    from ralph.orchestrate import BestOfLine, RunReport, TaskLine

__all__ = [
    "MARKS",
    "OUTCOME_STYLES",
    "best_of_table",
    "cached",
    "counted",
    "duration",
    "outcome_text",
    "print_best_of",
    "print_report",
    "status_cell",
    "task_table",
    "tokens_total",
    "waiting_text",
    "worker_name",
]

MARKS: dict[str, tuple[str, str]] = {
    TaskStatus.PENDING: ("○", "white"),
    TaskStatus.RUNNING: ("●", "yellow"),
    TaskStatus.DONE: ("✓", "green"),
    TaskStatus.FAILED: ("✗", "red"),
    TaskStatus.DEAD: ("✗", "bold red"),
    TaskStatus.CANCELED: ("–", "bright_black"),
}


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def waiting_text(waiting_for: str, next_check: float | None) -> str:
    """``waiting for: review (next look 14:05:10)``."""
    if next_check is None:
        return f"waiting for: {waiting_for}"
    at = time.strftime("%H:%M:%S", time.localtime(next_check))
    return f"waiting for: {waiting_for} (next look {at})"


def status_cell(line: TaskLine) -> Text:
    """A task's status as its mark and word, or what it waits for while it waits."""
    symbol, style = MARKS[line.status]
    if line.waiting_for is not None:
        return Text(f"{symbol} {waiting_text(line.waiting_for, line.next_check)}", style="cyan")
    return Text(f"{symbol} {line.status}", style=style)


def worker_name(owner: object) -> str:
    """``host:pid/analyst-1`` -> ``analyst-1``; other holders as they are."""
    if not owner:
        return ""
    return str(owner).rpartition("/")[2] or str(owner)


_replaced = replaced

#: Green only for success; what needs a person or failed stands out.
OUTCOME_STYLES: dict[Outcome, str] = {
    Outcome.RUNNING: "yellow",
    Outcome.SUCCEEDED: "green",
    Outcome.NEEDS_PERSON: "bold yellow",
    Outcome.FAILED: "bold red",
    Outcome.STOPPED: "cyan",
    Outcome.CANCELED: "bright_black",
}


def outcome_text(outcome: Outcome) -> Text:
    """The outcome in words, styled: green only for success."""
    return Text(outcome.words, style=OUTCOME_STYLES[outcome])


def _rows(report: RunReport, *, caching: bool, refused: bool) -> list[list[str | Text]]:
    """One row per task, except the tasks one rewrite replaced before they ran (the
    plan made before a triage, say): they never were work, only the plan's history."""
    from ralph.orchestrate import ESCALATED

    folded = Counter(line.error for line in report.tasks if _replaced(line))
    rows: list[list[str | Text]] = []
    for line in report.tasks:
        if _replaced(line) and folded[line.error] > 1:
            continue
        status = status_cell(line)
        if line.status == TaskStatus.FAILED and (line.error or "").startswith(ESCALATED):
            # Its reason is under "Needs a person", whole.
            status = Text(f"{MARKS[TaskStatus.FAILED][0]} escalated", style="bold yellow")
        elif line.error and line.status != TaskStatus.DONE:
            status.append(f" ({_short(line.error)})", style="bright_black")
        cells: list[str | Text] = [
            line.subject,
            status,
            duration(line.seconds) if line.seconds else "",
            str(line.attempts) if line.attempts else "",
            dollars(line.cost_usd, line.unpriced, blank_zero=True),
            f"{line.tokens:,}" if line.tokens else "",
        ]
        if caching:
            cells.append(cached(line.cache_read_tokens, line.cache_write_tokens))
        if refused:
            cells.append(Text(", ".join(line.refused), style="red"))
        rows.append(cells)
    return rows


#: The most of a task's error its status cell shows: the whole reason is under "Needs a
#: person" (and in `ralph runs show --json`); a long one would make the table unreadable.
ERROR_CELL = 60


def _short(error: str) -> str:
    """An error's first line, cut to ``ERROR_CELL`` characters."""
    line = error.splitlines()[0] if error else ""
    return line if len(line) <= ERROR_CELL else line[: ERROR_CELL - 1] + "…"


def cached(read: int, written: int) -> str:
    """``210,000 read / 4,230 written``; empty when nothing was cached."""
    if not read and not written:
        return ""
    return f"{read:,} read / {written:,} written"


def tokens_total(tokens: int, read: int, written: int) -> str:
    """Every token, then the cached part: ``217,283 tokens (210,000 cache read, ...)``."""
    if not read and not written:
        return f"{tokens:,} tokens"
    return f"{tokens:,} tokens ({read:,} cache read, {written:,} cache write)"


def print_best_of(best: BestOfLine, console: Console) -> None:
    """An implementation done N times: a row per attempt (agent, time, cost, tests,
    plan checks, diff, place in the score) and why the winner won."""
    console.print(best_of_table(best))
    if best.reason:
        console.print(f"Why: {best.reason}", markup=False)


def best_of_table(best: BestOfLine) -> Table:
    """The attempts of one implementation done N times, a row each."""
    table = Table(title=f"{best.subject}", title_justify="left")
    for column in ("Try", "Agent", "Status", "Time", "Cost", "Tests", "Checks", "Diff", "Score"):
        table.add_column(column, justify="right" if column in ("Try", "Diff", "Score") else "left")
    for attempt in best.attempts:
        mark, style = MARKS[attempt.status]
        ended = attempt.status == "done" and best.winner is not None
        word = "won" if attempt.won else ("lost" if ended else attempt.status)
        status = Text(f"{mark} {word}", style=style)
        if attempt.problem and attempt.tests != "failed" and not attempt.won:
            status.append(f" ({attempt.problem[:60]})", style="bright_black")
        table.add_row(
            str(attempt.attempt),
            attempt.agent,
            status,
            duration(attempt.seconds) if attempt.seconds else "",
            f"${attempt.cost_usd:.2f}",
            attempt.tests,
            attempt.checks,
            f"{attempt.diff_lines:,}" if attempt.tests else "",
            f"#{attempt.rank}" if attempt.rank else "",
        )
    return table


def print_report(
    report: RunReport, console: Console, *, verbose: bool = False, table: bool = True
) -> None:
    """The run's tasks, its outcome and what it cost, what needs a person; with
    ``verbose``, the timing (makespan, critical path) and coordination counters too;
    without ``table``, no table of the tasks (a live view just showed it)."""
    run = report.run
    if table:
        console.print(task_table(report))
    else:
        console.print(f"Run {run.id}: {run.name}", markup=False)
    _print_summary(report, console, verbose=verbose)


def task_table(report: RunReport) -> Table:
    """A row per task (the tasks a re-plan replaced folded into one)."""
    run = report.run
    refused = any(line.refused for line in report.tasks)
    table = Table(title=f"Run {run.id}: {run.name}", title_justify="left")
    # The optional columns only when they say something: the table fits 80 columns.
    caching = any(line.cache_read_tokens or line.cache_write_tokens for line in report.tasks)
    columns = ["Task", "Status", "Time", "Tries", "Cost", "Tokens"]
    columns += ["Cached input"] * caching + ["Refused tools"] * refused
    for column in columns:
        table.add_column(column, justify="right" if column in ("Time", "Tries") else "left")
    for row in _rows(report, caching=caching, refused=refused):
        table.add_row(*row)
    return table


def _print_summary(report: RunReport, console: Console, *, verbose: bool) -> None:
    run = report.run
    spent = tokens_total(report.tokens, report.cache_read_tokens, report.cache_write_tokens)
    summary = Text("Outcome: ")
    summary.append_text(outcome_text(report.outcome))
    summary.append(
        f" · tasks {report.tally} · {dollars(report.cost_usd, report.unpriced)} · {spent} · "
        f"{counted(report.turns, 'agent turn')}"
    )
    console.print(summary)
    if report.unpriced:
        from ralph.runtimes import price_hint
    for model in report.unpriced:
        console.print(
            f"Cost unknown: Ralph has no price for model {model}; {price_hint(model)}",
            style="yellow",
            markup=False,
        )
    for line in report.tasks:
        if line.refused:
            console.print(
                f"{line.subject}: its agent was refused {', '.join(line.refused)}", markup=False
            )
        for breach in line.breaches:
            console.print(f"! {line.subject}: {breach}", style="red", markup=False)
        for warning in line.warnings:
            console.print(f"! {line.subject}: {warning}", style="yellow", markup=False)
        for said in (*line.fast_track, *line.continued):
            console.print(f"{line.subject}: {said}", markup=False)
    if verbose:
        _print_details(report, console)
    for best in report.best_of:
        print_best_of(best, console)
    if report.streams:
        console.print(f"Work streams ({len(report.streams)}):", style="bold")
        for stream in report.streams:
            issues = ", ".join(f"#{n}" for n in stream.issues)
            state = "merged" if stream.merged else (f"at {stream.at}" if stream.at else "ended")
            console.print(
                f"  {stream.id} ({issues}): worktrees/{stream.worktree} on {stream.branch}; "
                f"{stream.done}/{stream.total} tasks done, {state}",
                markup=False,
            )
    _print_batches(report, console)
    if report.needs_person:
        console.print("Needs a person:", style="bold")
        for need in report.needs_person:
            console.print(f"  - {need}", markup=False)
        if report.counters.escalations and run.root_issue is not None:
            retry = (
                ", ".join(f"`ralph issue retry {n}`" for n in report.escalated)
                if report.escalated
                else "`ralph issue retry N` for each escalated issue"
            )
            console.print(
                f"Once the problem is resolved: {retry}, then "
                f"`ralph {run.mode} {run.root_issue}` goes on.",
                markup=False,
            )


def _print_batches(report: RunReport, console: Console) -> None:
    """The merge trains that concern the run, a line or two each: who rode it, its test
    runs, what came of it, and which change broke it and why."""
    if not report.batches:
        return
    console.print(f"Merge batches ({len(report.batches)}):", style="bold")
    for batch in report.batches:
        first, *why = batch_words(batch, report.run.id).lines
        console.print(f"  {first}", markup=False)
        for line in why:
            console.print(f"    {line}", markup=False)


def _print_details(report: RunReport, console: Console) -> None:
    """Timing against its lower bounds and the counters that prove coordination sound."""
    ratio = f" ({report.makespan / report.critical_path:.2f}x)" if report.critical_path else ""
    counters = report.counters
    stalls = ""
    if counters.leases_expired or counters.worker_broke:
        stalls = (
            f"; stalled {duration(report.stalled)}: "
            f"{counted(counters.leases_expired, 'lease')} ran out, "
            f"{counted(counters.worker_broke, 'task')} broke their worker"
        )
    console.print(
        f"makespan {duration(report.makespan)} against a critical path of "
        f"{duration(report.critical_path)}{ratio}; work {duration(report.work)}{stalls}",
        markup=False,
    )
    console.print(
        f"claims {counters.claims}: {counters.claimed_while_blocked} while blocked, "
        f"{counters.claimed_while_running} while running elsewhere, "
        f"{counters.completed_twice} completed twice · messages {counters.messages} "
        f"({counted(counters.escalations, 'escalation')}) · agent turns on coordination "
        f"{counters.coordination_turns}",
        markup=False,
    )


def counted(count: int, word: str) -> str:
    """``1 issue``, ``2 issues``."""
    return f"{count} {word}{'' if count == 1 else 's'}"
