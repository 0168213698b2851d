"""Values as the pages say them: one time format everywhere, enums in words, token counts
short, and a document's frontmatter values as text rather than Python's repr."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from datetime import datetime
from typing import Any

__all__ = ["count", "field_text", "when", "words"]

_FORMAT = "%Y-%m-%d %H:%M:%S"


def when(moment: float | str | None) -> str:
    """Epoch seconds or an ISO-8601 time (an audit marker's, GitHub's) as this machine's
    local time, the one format every page shows; "—" for none, an unreadable text as
    it is."""
    if not moment:
        return "—"
    if isinstance(moment, str):
        try:
            parsed = datetime.fromisoformat(moment.replace("Z", "+00:00"))
        except ValueError:
            return moment
        if parsed.tzinfo is None:
            return parsed.strftime(_FORMAT)
        return parsed.astimezone().strftime(_FORMAT)
    return datetime.fromtimestamp(moment).strftime(_FORMAT)


def words(value: enum.Enum | str | None) -> str:
    """An enum's value as words: ``REVIEW_REQUIRED`` -> "review required"."""
    if value is None:
        return ""
    text = str(value.value if isinstance(value, enum.Enum) else value)
    return text.replace("_", " ").lower()


def count(tokens: int) -> str:
    """A token count, short: 950, 12.3k, 1.2M."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.1f}k"
    return str(tokens)


def field_text(value: Any) -> str:
    """A frontmatter value as a person reads it: lists joined with commas, mappings as
    ``key: value``, none as an empty text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {field_text(v)}" for k, v in value.items())
    if isinstance(value, list | tuple | set):
        return ", ".join(field_text(v) for v in value)
    return str(value)
