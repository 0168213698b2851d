"""What every tracker holds an issue's other one-line fields to (the title's rule is
``ralph._text.check_title``), before anything is written: a label and who acted are one
line of printable text, never blank (a newline or an escape sequence in one breaks
every listing that shows it)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from ralph._text import check_title, control_characters
from ralph.errors import InvalidInput

__all__ = ["check_date", "check_edit", "check_labels", "check_name"]


def _one_line(text: str, what: str) -> None:
    if not text.strip():
        raise InvalidInput(f"{what} is empty; give one")
    if "\x00" in text:
        raise InvalidInput(f"{what} contains a NUL byte, which cannot be stored; remove it")
    found = control_characters(text)
    if found:
        raise InvalidInput(
            f"{what} must be one line without control characters; it has "
            f"{', '.join(found)}: write it on one line"
        )


def check_labels(labels: Sequence[str]) -> None:
    for label in labels:
        _one_line(label, "the label")


def check_name(name: str, what: str) -> None:
    """Who acted (an author, an actor): recorded in the audit trail, so never blank."""
    _one_line(name, what)


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_date(value: str | None, what: str) -> None:
    """A calendar date as GitHub's Date takes it: ``YYYY-MM-DD``, a day that exists."""
    if value is None:
        return
    try:
        if not _DATE.fullmatch(value):
            raise ValueError(value)
        date.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{what} {value!r} is not a date; write YYYY-MM-DD") from None


def check_edit(title: str | None, add_labels: Sequence[str], remove_labels: Sequence[str]) -> None:
    """An edit's values, all checked before an edit writes anything."""
    if title is not None:
        check_title(title)
    check_labels(add_labels)
    check_labels(remove_labels)
