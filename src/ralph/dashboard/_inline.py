"""Text anyone wrote (a title, an escalation's reason) inside Ralph's Markdown reports:
shown as written wherever the Markdown is read (a terminal, GitHub), so a
``__pycache__`` stays itself rather than turning bold and a ``|`` cannot end a table
cell. Its `code` spans stay code. Pure."""

from __future__ import annotations

import re

__all__ = ["inline"]

_CODE_SPAN = re.compile(r"(`[^`\n]+`)")
_SPECIAL = re.compile(r"([\\*_\[\]<>|])")


def inline(text: str) -> str:
    """``text`` for one line of Markdown: its emphasis, link and table characters
    escaped outside its code spans (inside one, a ``|`` still ends a table cell)."""
    parts = _CODE_SPAN.split(" ".join(text.split()))
    return "".join(
        part.replace("|", "\\|") if index % 2 else _SPECIAL.sub(r"\\\1", part)
        for index, part in enumerate(parts)
    )
