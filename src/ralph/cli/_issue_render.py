"""Issues for people (Rich) and for machines (the original's camelCase JSON)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ralph.cli._issue_plain import (
    comment_blocks,
    document_lines,
    issue_fields,
    needs_person_reason,
    retry_hint,
)
from ralph.cli._issue_rows import issue_marks
from ralph.cli._issue_text import cut, state_text, title_text
from ralph.workflow import TransitionRecord, command_words

if TYPE_CHECKING:
    from ralph.tracker import Issue, PullRequest
    from ralph.views import Refusal

__all__ = [
    "render_comments",
    "render_documents",
    "render_issue",
    "render_issue_list",
    "render_needs_person",
]


def render_issue_list(issues: Sequence[Issue]) -> RenderableType:
    if not issues:
        return Text("No issues match.", style="bright_black")
    table = Table(expand=False)
    # Titles are cut at the terminal's edge; the other columns never are.
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("Title")
    states = [len(i.workflow_state.value) for i in issues if i.workflow_state]
    table.add_column("State", no_wrap=True, min_width=max(states, default=5))
    table.add_column("Est", no_wrap=True)
    table.add_column("Pri", no_wrap=True)
    table.add_column("Parent", justify="right", no_wrap=True)
    table.add_column("Blocked by", no_wrap=True)
    for issue in issues:
        title = title_text(issue.title)
        if marks := issue_marks(issue):
            title.append(f" ({', '.join(marks)})")
        table.add_row(
            str(issue.number),
            cut(title),
            state_text(issue.workflow_state),
            issue.estimate or "",
            issue.priority or "",
            f"#{issue.parent}" if issue.parent else "",
            ", ".join(f"#{n}" for n in issue.blocked_by),
        )
    return table


def _related(numbers: Sequence[int], related: Mapping[int, Issue]) -> Text:
    text = Text()
    for index, number in enumerate(numbers):
        if index:
            text.append(", ")
        other = related.get(number)
        text.append(f"#{number}")
        if other is not None:
            text.append(f" {other.title} ")
            text.append_text(state_text(other.workflow_state))
            if not other.is_open:
                text.append(" (closed)", style="bright_black")
    return text


def render_issue(
    issue: Issue,
    related: Mapping[int, Issue],
    prs: Sequence[PullRequest],
    root: Path | None,
    refusals: Sequence[Refusal] = (),
) -> RenderableType:
    from ralph.views import history_of

    fields = Table.grid(padding=(0, 2))
    fields.add_column(style="bold")
    fields.add_column()
    shown = issue_fields(
        issue, prs, state=state_text, relatives=lambda numbers: _related(numbers, related)
    )
    for label, value in shown:
        fields.add_row(label, value)
    parts: list[RenderableType] = [fields]
    if issue.body.strip():
        from rich.markdown import Markdown  # costs a fifth of a second to import

        parts += [Text(""), Markdown(issue.body, hyperlinks=False)]  # the address shown
    if refusals:
        parts.append(Text("\nRefused tool calls", style="bold"))
        for refusal in refusals:
            line = Text(f"  run {refusal.run}, {refusal.task}: ")
            line.append(", ".join(refusal.tools), style="red")
            parts.append(line)
    history = history_of(issue)
    if history:
        parts += [Text("\nHistory", style="bold"), _history(history)]
    title = Text(f"#{issue.number} ")
    title.append_text(title_text(issue.title))
    return Panel(Group(*parts), title=title, title_align="left")


def render_needs_person(issue: Issue) -> Text | None:
    """For an escalated issue, the line a person reads first: why, and what to run."""
    reason = needs_person_reason(issue)
    if reason is None:
        return None
    line = Text("Needs a person: ", style="bold red")
    line.append(reason)
    line.append(retry_hint(issue))
    return line


def render_comments(issue: Issue) -> list[Text]:
    """The comments, below the panel and printed with soft wrap, as the documents are:
    they hold paths and test output a person copies, which a border would break."""
    blocks = comment_blocks(issue)
    if not blocks:
        return []
    lines = [Text(f"Comments ({len(blocks)})", style="bold")]
    for head, body in blocks:
        lines += [Text(head, style="dim"), Text(body)]
    return lines


def _history(history: Sequence[TransitionRecord]) -> Table:
    """One row per state change: its time, then its move and command, which wrap in
    their own column (under the move, never back under the time) where the terminal is
    too narrow for the row."""
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True, overflow="fold")  # folded, not cut, if even it is too wide
    table.add_column()
    for record in history:
        table.add_row(
            f"  {record.at}",
            f"{record.from_state} → {record.to_state} ({command_words(record.command)})",
        )
    return table


def render_documents(issue: Issue, root: Path | None) -> list[Text]:
    """The issue's documents, a line each, for below its panel and printed with soft
    wrap: a path is what a person copies, so a long one runs on (the terminal wraps it)
    rather than losing its end to an ellipsis or a panel's border."""
    lines = document_lines(issue, root)
    return [Text("Documents", style="bold"), *map(Text, lines)] if lines else []
