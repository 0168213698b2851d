"""Issues named by a key and a number (Linear's ENG-12, Jira's PROJ-12): the words a pull
request closes one with, and those words read back. A "#12" would close the code host's
own issue #12 when it merges, so these trackers never use it."""

from __future__ import annotations

import re

__all__ = ["closed_by_key", "closing_words_for_key"]

#: The words before a key by which the services' GitHub integrations close the issue when
#: the pull request merges ("Fixes ENG-12", "closes: PROJ-12").
_MAGIC_WORDS = (
    r"(?:clos(?:e|es|ed|ing)|fix(?:es|ed|ing)?|resolv(?:e|es|ed|ing)|complet(?:e|es|ed|ing))"
)


def closing_words_for_key(key: str, number: int) -> str:
    """``Fixes KEY-N``."""
    return f"Fixes {key}-{number}"


def closed_by_key(key: str, body: str) -> tuple[int, ...]:
    """The numbers of ``key``'s issues that ``body`` closes, each once, in order."""
    words = re.compile(rf"\b{_MAGIC_WORDS}:?\s+{re.escape(key)}-(\d+)\b", re.I)
    return tuple(dict.fromkeys(int(found.group(1)) for found in words.finditer(body)))
