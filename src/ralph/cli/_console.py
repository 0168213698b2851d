"""The console every ``ralph`` command prints through. What it prints comes from the
tracker (titles, bodies, comments, labels) and from agents (task errors): text anyone
could have written. Rich's ``escape`` stops markup, and Rich drops a few controls (BEL,
CR), but ESC passes, so an issue body could clear the screen, retitle the window or
hide a line. Here every piece of text loses its control characters on its way out
(:func:`printable`, which plain prints use too); Rich's own styles and cursor moves are
not text, and stay."""

from __future__ import annotations

from collections.abc import Iterable

from rich import console as rich_console
from rich.segment import Segment

from ralph._text import printable

__all__ = ["Console"]


class Console(rich_console.Console):
    """``rich.console.Console`` that never writes a control character it was given."""

    def render(
        self,
        renderable: rich_console.RenderableType,
        options: rich_console.ConsoleOptions | None = None,
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not segment.text:
                yield segment  # Rich's own cursor moves (a live display), no text
            else:
                # Dropped, not shown as U+FFFD: Rich laid the text out counting them
                # as zero cells wide, so a wider mark would push a table's borders.
                yield Segment(printable(segment.text, ""), segment.style)
