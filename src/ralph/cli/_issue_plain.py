"""``ralph issue show`` for a pipe, without Rich: the page a terminal shows in a panel as
plain lines, as ``_issue_rows`` is the issue list's and ``_status_plain`` the board's.
The same labels and words in the same order; the description as written (its Markdown
source, which the terminal renders); nothing cut or wrapped."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ralph.workflow import WorkflowState, command_words

if TYPE_CHECKING:
    from ralph.tracker import Issue, PullRequest
    from ralph.views import Refusal

#: How a terminal or a pipe shows a state or an issue's relatives (Rich's Text, a str).
Shown = TypeVar("Shown")

__all__ = [
    "comment_blocks",
    "document_lines",
    "issue_fields",
    "needs_person_reason",
    "plain_issue",
    "retry_hint",
]


def needs_person_reason(issue: Issue) -> str | None:
    """For an escalated issue, why it needs a person: the line a person reads first."""
    from ralph.tracker import escalation_reason

    if issue.workflow_state is not WorkflowState.HUMAN_NEEDED:
        return None
    return escalation_reason(issue.comments) or "no reason recorded (see the comments)"


def retry_hint(issue: Issue) -> str:
    return f" — `ralph issue retry {issue.number}` once it is resolved"


def document_lines(issue: Issue, root: Path | None) -> list[str]:
    """The issue's documents, a line each: a path is what a person copies, so it is
    never cut."""
    from ralph.views import artifacts_of

    lines = []
    for kind, document in artifacts_of(issue, root).items():
        source = "" if document.source == "comment" else " (on disk, not linked)"
        lines.append(f"  {kind.value.capitalize()}: {document.path}{source}")
    return lines


def comment_blocks(issue: Issue) -> list[tuple[str, str]]:
    """Each comment but the state changes' (the history shows those): who and when,
    then what, indented deeper, so a comment's text cannot pass for another's header."""
    from ralph.tracker import iso

    return [
        (f"  {c.author}, {iso(c.created_at)}", _indented(c.body.strip(), "    "))
        for c in issue.comments
        if "ralph-transition:" not in c.body
    ]


def _indented(text: str, indent: str) -> str:
    return "\n".join(f"{indent}{line}" if line else "" for line in text.split("\n"))


def _related(numbers: Sequence[int], related: Mapping[int, Issue]) -> str:
    shown = []
    for number in numbers:
        other = related.get(number)
        if other is None:
            shown.append(f"#{number}")
            continue
        closed = "" if other.is_open else " (closed)"
        shown.append(f"#{number} {other.title} [{_state_word(other.workflow_state)}]{closed}")
    return ", ".join(shown)


def issue_fields(
    issue: Issue,
    prs: Sequence[PullRequest],
    *,
    state: Callable[[WorkflowState | None], Shown],
    relatives: Callable[[Sequence[int]], Shown],
) -> list[tuple[str, Shown | str]]:
    """The issue's fields, a label and a value each, in the page's order; its state and
    its relatives as ``state`` and ``relatives`` show them (styled on a terminal)."""
    status = issue.status.value + (f" ({issue.close_reason})" if issue.close_reason else "")
    fields: list[tuple[str, Shown | str]] = [
        ("State", state(issue.workflow_state)),
        ("Estimate", issue.estimate or "—"),
        ("Priority", issue.priority or "—"),
        ("Labels", ", ".join(issue.labels) or "—"),
        ("Status", status),
    ]
    if issue.parent is not None:
        fields.append(("Parent", relatives([issue.parent])))
    for name, numbers in (
        ("Sub-issues", issue.sub_issues),
        ("Blocked by", issue.blocked_by),
        ("Blocking", issue.blocking),
    ):
        if numbers:
            fields.append((name, relatives(numbers)))
    for pr in prs:
        fields.append(
            ("Pull request", f"#{pr.number} {pr.title} ({pr.head} → {pr.base}, {pr.state})")
        )
    return fields


def _state_word(state: WorkflowState | None) -> str:
    return state.value if state else "—"


def plain_issue(
    issue: Issue,
    related: Mapping[int, Issue],
    prs: Sequence[PullRequest],
    root: Path | None,
    refusals: Sequence[Refusal] = (),
) -> str:
    """The issue's page as lines of text (not yet made printable: ``echo`` does that)."""
    from ralph.views import history_of

    lines = []
    if (reason := needs_person_reason(issue)) is not None:
        lines.append(f"Needs a person: {reason}{retry_hint(issue)}")
    lines.append(f"#{issue.number} {issue.title}")
    fields = issue_fields(
        issue, prs, state=_state_word, relatives=lambda numbers: _related(numbers, related)
    )
    width = max(len(label) for label, _ in fields)
    lines += [f"{label.ljust(width)}  {value}" for label, value in fields]
    # Whoever wrote them, the description and the comments are indented under headings
    # only Ralph writes (at the margin), so neither can pass for a section or a comment.
    if issue.body.strip():
        lines += ["", "Description", _indented(issue.body.strip("\n"), "  ")]
    if refusals:
        lines += ["", "Refused tool calls"]
        lines += [f"  run {r.run}, {r.task}: {', '.join(r.tools)}" for r in refusals]
    if history := history_of(issue):
        lines += ["", "History"]
        lines += [
            f"  {r.at}  {r.from_state} → {r.to_state} ({command_words(r.command)})" for r in history
        ]
    if documents := document_lines(issue, root):
        lines += ["", "Documents", *documents]
    if comments := comment_blocks(issue):
        lines += ["", f"Comments ({len(comments)})"]
        for index, (head, body) in enumerate(comments):
            lines += [head, body] if not index else ["", head, body]
    return "\n".join(lines) + "\n"
