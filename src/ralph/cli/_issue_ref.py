"""Issue references as people write them: ``2``, ``#2`` and ``GH-2`` (the way tasks
print an issue) name the same issue wherever a command takes an issue number, as an
argument or as an option such as ``--by`` or ``--parent``."""

from __future__ import annotations

import re
from typing import Any

import typer

from ralph.cli._bounds import MAX_COUNT

__all__ = ["issue_argument", "issue_option", "parse_issue_number"]

# ASCII digits only: int() would also read "١" (an Arabic-Indic one) as 1.
_REFERENCE = re.compile(r"(?:#|GH-)?([0-9]+)", re.IGNORECASE)


def parse_issue_number(value: str | int) -> int:
    """The issue number ``value`` names; a usage error (exit 2) for anything else."""
    if isinstance(value, int):  # a default, already a number
        return value
    match = _REFERENCE.fullmatch(value.strip())
    if match is None or not 1 <= int(match[1]) <= MAX_COUNT:
        raise typer.BadParameter(f"{value!r} is not an issue number; write 2, #2 or GH-2")
    return int(match[1])


def issue_argument(help: str, **settings: Any) -> Any:
    """A positional issue number (``NUMBER`` in the usage line)."""
    settings.setdefault("show_default", False)
    return typer.Argument(parser=parse_issue_number, help=help, **settings)


def issue_option(name: str, help: str, **settings: Any) -> Any:
    """An option that names an issue, such as ``--by`` or ``--parent``."""
    settings.setdefault("show_default", False)
    return typer.Option(name, parser=parse_issue_number, metavar="NUMBER", help=help, **settings)
