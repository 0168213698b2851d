"""Plain lines (JSON, Markdown for pipes, one-line messages) without Rich: a command that
prints only these, ``ralph --version`` or an error, starts without Rich's console."""

from __future__ import annotations

import sys

from ralph._secrets import redact
from ralph._text import printable

__all__ = ["echo"]


def echo(text: str, *, err: bool = False, end: str = "\n") -> None:
    """Print a plain line (or lines) as every print should be: without known secrets and
    control characters."""
    print(printable(redact(text)), end=end, file=sys.stderr if err else sys.stdout, flush=True)
