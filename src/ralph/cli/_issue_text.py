"""An issue's state and title as terminal text, one line each: what ``ralph status``'s
board shows of an issue, without the rest of ``_issue_render`` (issue pages, the
workflow's history)."""

from __future__ import annotations

import re

from rich.text import Text

__all__ = ["cut", "state_text", "title_text"]

# A title's `code` spans: shown styled, without their backticks (the web shows <code>).
_CODE_SPAN = re.compile(r"`([^`\n]+)`")

_STATE_STYLE = {
    "Backlog": "bright_black",
    "Research Needed": "purple",
    "Research in Progress": "bold purple",
    "Ready for Plan": "blue",
    "Plan in Progress": "bold blue",
    "Plan in Review": "cyan",
    "In Progress": "dark_orange",
    "In Review": "yellow",
    "Done": "green",
    "Human Needed": "bold red",
    "Canceled": "bright_black",
}


def state_text(state: str | None) -> Text:
    if state is None:
        return Text("—", style="bright_black")
    return Text(state, style=_STATE_STYLE.get(state, ""))


def title_text(title: str) -> Text:
    """A title for the terminal: its `code` spans styled instead of backticked, the rest
    as written (never read as markup)."""
    text = Text()
    at = 0
    for span in _CODE_SPAN.finditer(title):
        text.append(title[at : span.start()])
        text.append(span[1], style="cyan")
        at = span.end()
    text.append(title[at:])
    return text


def cut(text: Text) -> Text:
    """``text`` on one line, cut with "…" at its column's edge rather than wrapped."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text
