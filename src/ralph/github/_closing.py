"""GitHub's closing keywords: the issues a pull request closes when it merges. The local
tracker follows the same rule, so a body means the same on either backend."""

from __future__ import annotations

import re

__all__ = ["closing_references"]

_CLOSING = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#(\d+)\b", re.IGNORECASE)


def closing_references(body: str) -> tuple[int, ...]:
    """The issues a pull request body closes (``Closes #N``, ``fixes #N``... GitHub's
    keywords), in order of first mention."""
    seen: dict[int, None] = {}
    for match in _CLOSING.finditer(body):
        seen.setdefault(int(match.group(1)), None)
    return tuple(seen)
