"""A Markdown report printed for its reader: rendered on a terminal, raw when piped
(another program, a file or a paste wants the Markdown itself)."""

from __future__ import annotations

from ralph.cli._console import Console
from ralph.cli._echo import echo

__all__ = ["print_markdown"]


def print_markdown(text: str, *, raw: bool = False) -> None:
    """``text`` rendered by Rich on a terminal; as written when ``raw`` or piped."""
    from rich.markdown import Markdown

    console = Console()
    if raw or not console.is_terminal:
        echo(text, end="" if text.endswith("\n") else "\n")
        return
    # No hyperlinks: a link's address in an issue title is shown, never made clickable.
    console.print(Markdown(text, hyperlinks=False))
