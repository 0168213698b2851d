"""The issue list for a pipe, without Rich: ``ralph issue list | ...`` starts without
Rich's console and tables, which only a terminal's table needs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ralph._text import printable

if TYPE_CHECKING:
    from ralph.tracker import Issue

__all__ = ["issue_marks", "plain_issue_rows"]


def issue_marks(issue: Issue) -> list[str]:
    """What a title is marked with in a list: closed, archived."""
    return [m for m, on in (("closed", not issue.is_open), ("archived", issue.archived)) if on]


def plain_issue_rows(issues: Sequence[Issue]) -> str:
    """The issue list for a pipe, one issue a line, tab-separated as ``gh issue list``
    prints when piped: number, state, title, estimate, priority, parent, blockers."""
    rows = []
    for issue in issues:
        marks = issue_marks(issue)
        title = f"{issue.title} ({', '.join(marks)})" if marks else issue.title
        fields = (
            str(issue.number),
            issue.workflow_state.value if issue.workflow_state else "",
            title,
            issue.estimate or "",
            issue.priority or "",
            f"#{issue.parent}" if issue.parent else "",
            ",".join(f"#{n}" for n in issue.blocked_by),
        )
        # Control characters are dropped here as the table drops them (not marked).
        rows.append("\t".join(printable(" ".join(f.split()), "") for f in fields))
    return "".join(f"{row}\n" for row in rows)
