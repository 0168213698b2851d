"""The console every ``ralph`` command prints through. What it prints comes from the
tracker (titles, bodies, comments, labels), from agents (task errors, escalations) and
from people (input quoted back): text anyone could have written. So it is printed as
written, whatever it holds:

- no markup: ``[bold]``, ``[/]`` or ``[link=...]`` in a title is shown, never parsed
  (a stray ``[/]`` would raise, a ``[link]`` would write a terminal hyperlink), nor
  ``:emoji:`` codes or highlighting; Ralph's own styles are ``Text`` and ``style=``,
  never markup, so no print site has to remember to escape;
- no control characters: Rich drops a few (BEL, CR) but ESC passes, so an issue body
  could clear the screen, retitle the window or hide a line; every piece of text loses
  them (:func:`printable`, which :func:`echo` uses too), and no hyperlink is written;
  Rich's own styles and cursor moves are not text, and stay;
- no secrets: every text passes the redaction posts and the store get
  (``ralph._secrets.redact``), so an agent that writes a token into its escalation is
  shown ``***`` as the comment it posted is.

Plain lines (JSON, Markdown for pipes, one-line messages) go through :func:`echo`
(``ralph.cli._echo``, without Rich); ``tests/unit/cli/test_console.py`` holds the CLI
to printing nothing another way.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from rich import console as rich_console
from rich.panel import Panel
from rich.segment import Segment
from rich.text import Text

from ralph._secrets import redact
from ralph._text import printable

__all__ = ["Console"]


def _redacted(text: Text) -> Text:
    """``text`` without known secrets. A text that held one keeps its own style but
    loses its inner spans: the mask's length differs, and a secret is rare enough."""
    plain = text.plain
    cleaned = redact(plain)
    if cleaned == plain:
        return text
    return Text(
        cleaned,
        style=text.style,
        justify=text.justify,
        overflow=text.overflow,
        no_wrap=text.no_wrap,
        end=text.end,
        tab_size=text.tab_size,
    )


def _plain_titles(panel: Panel) -> Panel:
    """A panel whose string title is text: Rich reads a Panel's string title as
    markup whatever the console says."""
    if not isinstance(panel.title, str) and not isinstance(panel.subtitle, str):
        return panel
    plain = copy.copy(panel)
    if isinstance(panel.title, str):
        plain.title = Text(panel.title)
    if isinstance(panel.subtitle, str):
        plain.subtitle = Text(panel.subtitle)
    return plain


class Console(rich_console.Console):
    """``rich.console.Console`` that prints text as written: no markup, emoji codes or
    highlighting unless a call asks for them, and never a control character, a
    hyperlink or a known secret."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for option in ("markup", "emoji", "highlight"):
            kwargs.setdefault(option, False)
        super().__init__(*args, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return _redacted(super().render_str(text, **kwargs))

    def render(
        self,
        renderable: rich_console.RenderableType,
        options: rich_console.ConsoleOptions | None = None,
    ) -> Iterable[Segment]:
        # Rich renders what a table, panel or group holds through this method again, so
        # each text is seen whole here, before it is wrapped or split into segments.
        if isinstance(renderable, Text):
            renderable = _redacted(renderable)
        elif isinstance(renderable, Panel):
            renderable = _plain_titles(renderable)
        # Each distinct text once per render: a table repeats its borders, paddings and
        # column values on every row (a list of 100 issues is thousands of segments).
        cleaned: dict[str, str] = {}
        for segment in super().render(renderable, options):
            text = segment.text
            if segment.control or not text:
                yield segment  # Rich's own cursor moves (a live display), no text
                continue
            clean = cleaned.get(text)
            if clean is None:
                # Dropped, not shown as U+FFFD: Rich laid the text out counting them as
                # zero cells wide, so a wider mark would push a table's borders.
                clean = cleaned[text] = redact(printable(text, ""))
            style = segment.style
            if style is not None and style.link:
                style = style.update_link(None)
            elif clean is text:
                yield segment  # nothing to take out
                continue
            yield Segment(clean, style)
