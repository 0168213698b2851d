"""The run report for people: a table of tasks (with cached tokens and refused tool calls
apart), totals, the makespan against the critical path, what needs a person, and the
orchestration's soundness counters."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ralph.orchestrate import RunReport
from ralph.tasks import TaskStatus

__all__ = ["MARKS", "cached", "duration", "print_report", "tokens_total", "worker_name"]

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


def worker_name(owner: object) -> str:
    """``host:pid/analyst-1`` -> ``analyst-1``; other holders as they are."""
    if not owner:
        return ""
    return str(owner).rpartition("/")[2] or str(owner)


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


def print_report(report: RunReport, console: Console) -> None:
    run = report.run
    refused = any(line.refused for line in report.tasks)
    table = Table(title=f"Run {run.id}: {run.name} ({run.status.value})", title_justify="left")
    columns = ["Task", "Status", "Time", "Tries", "Cost", "Tokens", "Cached input"]
    for column in [*columns, "Refused tools"] if refused else columns:
        table.add_column(column, justify="right" if column in ("Time", "Tries") else "left")
    for line in report.tasks:
        symbol, style = MARKS[line.status]
        status = Text(f"{symbol} {line.status}", style=style)
        if line.error and line.status != TaskStatus.DONE:
            status.append(f" ({line.error})", style="bright_black")
        cells: list[str | Text] = [
            line.subject,
            status,
            duration(line.seconds) if line.seconds else "",
            str(line.attempts) if line.attempts else "",
            f"${line.cost_usd:.2f}" if line.cost_usd else "",
            f"{line.tokens:,}" if line.tokens else "",
            cached(line.cache_read_tokens, line.cache_write_tokens),
        ]
        if refused:
            cells.append(Text(", ".join(line.refused), style="red"))
        table.add_row(*cells)
    console.print(table)
    done = report.count(TaskStatus.DONE)
    spent = tokens_total(report.tokens, report.cache_read_tokens, report.cache_write_tokens)
    console.print(
        f"{done}/{len(report.tasks)} tasks done · ${report.cost_usd:.2f} · "
        f"{spent} · {report.turns} agent turns",
        markup=False,
    )
    for line in report.tasks:
        if line.refused:
            console.print(
                f"{line.subject}: its agent was refused {', '.join(line.refused)}", markup=False
            )
    ratio = f" ({report.makespan / report.critical_path:.2f}x)" if report.critical_path else ""
    console.print(
        f"makespan {duration(report.makespan)} against a critical path of "
        f"{duration(report.critical_path)}{ratio}; work {duration(report.work)}",
        markup=False,
    )
    counters = report.counters
    console.print(
        f"claims {counters.claims}: {counters.claimed_while_blocked} while blocked, "
        f"{counters.claimed_while_running} while running elsewhere, "
        f"{counters.completed_twice} completed twice · messages {counters.messages} "
        f"({counters.escalations} escalations) · agent turns on coordination "
        f"{counters.coordination_turns}",
        markup=False,
    )
    if report.needs_person:
        console.print("[bold]Needs a person:[/bold]")
        for need in report.needs_person:
            console.print(f"  - {need}", markup=False)
