"""The CLI's console drops control characters from whatever text it prints, however the
text is laid out, and keeps Rich's own styles."""

from __future__ import annotations

import io

from rich.table import Table
from rich.text import Text

from ralph.cli._console import Console

EVIL = "\x1b[2J\x1b]0;pwned\x07"


def printed(*renderables, color: bool = False) -> str:
    out = io.StringIO()
    console = Console(
        file=out, width=60, force_terminal=color, color_system="standard" if color else None
    )
    for renderable in renderables:
        console.print(renderable)
    return out.getvalue()


def test_markup_text_and_table_cells_lose_their_escapes_and_keep_their_borders_aligned():
    table = Table("task", "error")
    table.add_row("research #2", f"agent said {EVIL}")
    table.add_row("plan #2", "fine")
    text = printed(f"title {EVIL}", Text(f"body {EVIL}"), table)
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "title [2J]0;pwned" in text
    widths = {len(line) for line in text.splitlines() if line.startswith(("│", "┃", "┏", "└"))}
    assert len(widths) == 1  # every row of the table is as wide as the others


def test_in_colour_riches_styles_stay_and_the_texts_escapes_go():
    text = printed(Text(f"body {EVIL}", style="bold red"), color=True)
    assert "\x1b[1;31m" in text
    assert "\x1b[2J" not in text
    assert "\x1b]0;" not in text
