""" "Did you mean": a name Ralph does not know (a phase, a setting) answered with the
closest one it does, where one is close, instead of the whole list."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

__all__ = ["closest", "unknown_name"]

#: How alike two names must be (difflib's ratio) to suggest one for the other:
#: ``reserch`` -> ``research``, ``pol_seconds`` -> ``poll_seconds``, but not
#: ``after_clone`` -> ``after_run``.
_LIKENESS = 0.75


def closest(name: str, known: Sequence[str]) -> str | None:
    """The known name ``name`` was most likely meant to be, or None."""
    found = difflib.get_close_matches(name, known, n=1, cutoff=_LIKENESS)
    return found[0] if found else None


def unknown_name(what: str, name: str, known: Sequence[str], listing: str) -> str:
    """``unknown WHAT 'name'; did you mean 'close'?``, or with nothing close, ``LISTING``
    and every known name (``listing``: "phases are", "known settings")."""
    suggestion = closest(name, known)
    if suggestion is not None:
        return f"unknown {what} {name!r}; did you mean {suggestion!r}?"
    return f"unknown {what} {name!r}; {listing}: {', '.join(known)}"
