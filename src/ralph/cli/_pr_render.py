"""Pull requests for people (Rich; machines get ``views.pull_request_dict``).
Everything a person or an agent wrote (titles, review text, branch names) goes in as
``Text``, never as markup: a title like ``[/]`` is shown, not parsed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ralph.cli._issue_text import state_text
from ralph.tracker import MergeState, ReviewDecision

if TYPE_CHECKING:
    from ralph.tracker import CheckRun, Issue, PullRequest, ReviewThread

__all__ = [
    "render_checks",
    "render_pull_request",
    "render_pull_request_list",
]

_DECISION_STYLE = {
    ReviewDecision.APPROVED: "green",
    ReviewDecision.CHANGES_REQUESTED: "red",
    ReviewDecision.REVIEW_REQUIRED: "yellow",
}
_MERGE_STATE_WORDS = {
    MergeState.CLEAN: ("ready to merge", "green"),
    MergeState.UNSTABLE: ("mergeable, optional checks failing", "yellow"),
    MergeState.BLOCKED: ("blocked by a required check", "yellow"),
    MergeState.DIRTY: ("conflicts with its base", "red"),
    MergeState.BEHIND: ("behind its base", "yellow"),
    MergeState.UNKNOWN: ("mergeability being computed", "bright_black"),
    MergeState.DRAFT: ("a draft", "bright_black"),
    MergeState.HAS_HOOKS: ("mergeable, with hooks", "green"),
}


def _check_text(check: CheckRun) -> Text:
    if check.pending:
        mark, style, word = "…", "yellow", check.status.value.replace("_", " ")
    elif check.passed:
        mark, style, word = "✓", "green", check.conclusion or "success"
    else:
        mark, style, word = "✗", "red", check.conclusion or "failure"
    text = Text(f"{mark} ", style=style)
    text.append(check.name)
    text.append(f" {word}", style=style)
    if check.required:
        text.append(" (required)", style="bright_black")
    return text


def _checks_cell(pr: PullRequest) -> Text:
    text = Text()
    for index, check in enumerate(pr.checks):
        if index:
            text.append(", ")
        text.append_text(_check_text(check))
    return text if pr.checks else Text("—", style="bright_black")


def _decision_text(decision: ReviewDecision | None) -> Text:
    if decision is None:
        return Text("—", style="bright_black")
    return Text(decision.value.replace("_", " ").lower(), style=_DECISION_STYLE[decision])


def _merge_state_text(pr: PullRequest) -> Text:
    if pr.merge_state is None:
        return Text(pr.state.value, style="bright_black")
    words, style = _MERGE_STATE_WORDS[pr.merge_state]
    return Text(words, style=style)


def render_pull_request_list(prs: Sequence[PullRequest]) -> RenderableType:
    if not prs:
        return Text("No pull requests match.", style="bright_black")
    table = Table(expand=False)
    table.add_column("#", justify="right")
    table.add_column("Title")
    table.add_column("Branch")
    table.add_column("State")
    table.add_column("Checks")
    table.add_column("Review")
    table.add_column("Merge")
    for pr in prs:
        table.add_row(
            str(pr.number),
            Text(pr.title),
            Text(f"{pr.head} → {pr.base}"),
            pr.state.value,
            _checks_cell(pr),
            _decision_text(pr.review_decision),
            _merge_state_text(pr),
        )
    return table


def _indented(text: str, style: str = "") -> Text:
    return Text("    " + text.strip().replace("\n", "\n    "), style=style)


def _thread_parts(thread: ReviewThread) -> list[RenderableType]:
    from ralph.tracker import iso

    where = f"{thread.path}:{thread.line}" if thread.line is not None else thread.path
    head = Text(f"  {where}  ", style="bold")
    head.append("resolved" if thread.resolved else "open", "green" if thread.resolved else "yellow")
    head.append(f"  (thread {thread.id})", style="bright_black")
    parts: list[RenderableType] = [head]
    if thread.diff_hunk:
        parts.append(_indented(thread.diff_hunk, "bright_black"))
    for comment in thread.comments:
        parts.append(Text(f"    {comment.author}, {iso(comment.created_at)}", style="dim"))
        parts.append(_indented(comment.body))
    return parts


def render_checks(pr: PullRequest) -> RenderableType:
    """The check runs on the head commit, a failed one with the end of its log."""
    parts: list[RenderableType] = [
        Text(f"Checks on {(pr.head_oid or 'the head')[:7]}", style="bold")
    ]
    if not pr.checks:
        parts.append(Text("  none yet", style="bright_black"))
    for check in pr.checks:
        parts.append(Text("  ").append_text(_check_text(check)))
        if check.failed and check.summary:
            parts.append(_indented(check.summary, "bright_black"))
    return Group(*parts)


def render_pull_request(pr: PullRequest, closes: Mapping[int, Issue]) -> RenderableType:
    from ralph.tracker import iso

    fields = Table.grid(padding=(0, 2))
    fields.add_column(style="bold")
    fields.add_column()
    fields.add_row("State", pr.state.value)
    fields.add_row("Branch", Text(f"{pr.head} → {pr.base}"))
    fields.add_row("Head", (pr.head_oid or "—")[:12])
    fields.add_row("Author", Text(pr.author or "—"))
    fields.add_row("Merge", _merge_state_text(pr))
    fields.add_row("Review", _decision_text(pr.review_decision))
    if pr.merge_commit:
        fields.add_row("Merged as", pr.merge_commit[:12])
    for number in pr.closes:
        text = Text(f"#{number}")
        issue = closes.get(number)
        if issue is not None:
            text.append(f" {issue.title} ")
            text.append_text(
                state_text(issue.workflow_state.value if issue.workflow_state else None)
            )
        fields.add_row("Closes", text)
    parts: list[RenderableType] = [fields, Text(""), render_checks(pr)]
    if pr.reviews:
        parts.append(Text(f"\nReviews ({len(pr.reviews)})", style="bold"))
        for review in pr.reviews:
            line = Text(f"  {review.author} ")
            line.append(review.state.value.replace("_", " ").lower(), style="bold")
            line.append(f", {iso(review.submitted_at)} on {review.commit[:7]}", style="dim")
            parts.append(line)
            if review.body.strip():
                parts.append(_indented(review.body))
    if pr.threads:
        unresolved = sum(not thread.resolved for thread in pr.threads)
        parts.append(Text(f"\nThreads ({unresolved} open)", style="bold"))
        for thread in pr.threads:
            parts += _thread_parts(thread)
    title = Text(f"Pull request #{pr.number} {pr.title}")  # text, never markup
    return Panel(Group(*parts), title=title, title_align="left")
